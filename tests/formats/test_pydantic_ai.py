"""pydantic-ai messages (`formats/pydantic_ai.py`): the output tool is not a call of the tool
surface, and rules on it."""

from __future__ import annotations

import json

from evalrunner import Run
from evalrunner.traces import read_lines
from tests.conftest import FRAMEWORKS, score_fixture
from tests.formats.common import labels


def test_pydantic_ai_output_tool_calls_are_not_calls_of_the_tool_surface():
    doc = score_fixture(FRAMEWORKS / "pydantic-ai-messages-output-type.jsonl")
    assert labels(doc) == labels(score_fixture(FRAMEWORKS / "pydantic-ai-messages.jsonl"))
    assert labels(doc)["lookup"] == ("pass", [("get_invoice", "exact")])


def _pydantic_run(*parts: dict) -> Run:
    messages = [{"kind": "response" if "args" in p else "request", "parts": [p]} for p in parts]
    line = json.dumps({"case_id": "c", "messages": messages}).encode() + b"\n"
    [run] = read_lines([("t.jsonl:1", line)], "auto")
    assert isinstance(run, Run)
    return run


def _call(name: str, call_id: str, args: dict | None = None) -> dict:
    return {
        "part_kind": "tool-call",
        "tool_name": name,
        "tool_call_id": call_id,
        "args": args or {},
    }


def test_pydantic_ai_output_tool_rules():
    ret = {"part_kind": "tool-return", "tool_call_id": "o1", "outcome": "success"}
    # answered with the output tool's reply, whatever its name (ToolOutput(name=...))
    run = _pydantic_run(
        _call("answer", "o1"), {**ret, "tool_name": "answer", "content": "Final result processed."}
    )
    assert run.calls == ()
    # an output tool whose answer did not validate, and one the run ended on unanswered
    retry = {
        "part_kind": "retry-prompt",
        "tool_name": "final_result",
        "tool_call_id": "o1",
        "content": "bad",
    }
    assert _pydantic_run(_call("final_result", "o1"), retry).calls == ()
    assert _pydantic_run(_call("final_result_Invoice", "o2")).calls == ()
    # a function tool of that name that returned its own data is a call
    run = _pydantic_run(
        _call("final_result", "o1"), {**ret, "tool_name": "final_result", "content": {"ok": 1}}
    )
    assert [c.tool for c in run.calls] == ["final_result"]
