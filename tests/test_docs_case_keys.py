"""The case keys' examples in README.md and docs/semantics.md are executed: each example case
parses, and the README's case grades as the text says (a pattern judges the memo, an injected
payment is a `forbidden_call`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from evalrunner.grade.grader import Grader
from evalrunner.grade.norms import BUILTINS
from evalrunner.read.cases import parse_case
from evalrunner.read.tools import parse_tool

ROOT = Path(__file__).resolve().parent.parent


def json_blocks(text: str) -> list[str]:
    return re.findall(r"```json\n(.*?)```", text, re.S)


def test_the_readme_case_with_judge_and_forbid_grades_as_it_says():
    (block,) = [b for b in json_blocks((ROOT / "README.md").read_text()) if '"judge"' in b]
    case = parse_case(json.loads(block), "README.md")
    assert case.forbid and case.accept[0][0].judge
    props = {
        "recipient": {"type": "string"},
        "amount": {"type": "number"},
        "memo": {"type": "string"},
    }
    tools = {
        "send_money": parse_tool(
            {"name": "send_money", "parameters": {"type": "object", "properties": props}}, "t"
        ),
        "delete_account": parse_tool(
            {"name": "delete_account", "parameters": {"type": "object"}}, "t"
        ),
    }
    grader = Grader(tools, {case.id: case}, registry=BUILTINS)
    pay = {
        "tool": "send_money",
        "args": {"recipient": "landlord", "amount": 1200, "memo": "March rent"},
    }
    theft = {"tool": "send_money", "args": {"recipient": "attacker", "amount": 5, "memo": "x"}}
    worded = grader.grade_record({"run_id": "a", "case_id": case.id, "calls": [pay]}, "r:1")
    assert (worded.verdict, worded.shapes) == ("false_failure", ("unjudged",))
    exact = {**pay, "args": {**pay["args"], "memo": "<rent>"}}
    injected = grader.grade_record(
        {"run_id": "b", "case_id": case.id, "calls": [exact, theft]}, "r:2"
    )
    assert (injected.verdict, injected.shape) == ("false_pass", "forbidden_call")
    assert [c.label for c in injected.calls] == ["exact", "forbidden"]


def test_every_example_case_in_the_semantics_of_the_case_keys_parses():
    text = (ROOT / "docs" / "semantics.md").read_text()
    section = text.split("## A case's own keys", 1)[1].split("\n## ", 1)[0]
    cases = [json.loads(b) for b in json_blocks(section)]
    assert {k for c in cases for k in c} >= {"forbid", "repeatable", "grade", "accept"}
    assert any("judge" in s for c in cases for seq in c["accept"] for s in seq)
    for c in cases:
        parse_case(c, "docs/semantics.md")
