"""Reading a case's own keys: `judge` on a step, `forbid`, `repeatable`, `grade`; their typos are
errors with "did you mean", as for every key evalrun reads."""

from __future__ import annotations

import json

import pytest

from evalrunner.model import Forbid, InputError, Matches, NormSpec, OneOf
from evalrunner.read.cases import parse_case
from tests.conftest import invoke

STEP = {"tool": "t", "args": {"b": "x"}}


def case(**extra):
    return {"id": "c", "accept": [[STEP]], **extra}


def test_the_new_keys_are_read():
    judged = {**STEP, "judge": {"b": {"matches": "x+"}, "c": "any", "d": {"one_of": [1, 2]}}}
    c = parse_case(
        case(
            accept=[[judged]],
            forbid=[{"tool": "pay", "args": {"to": "eve"}}, {"name": "wipe"}],
            repeatable=["poll"],
            grade="writes",
        ),
        "c.json",
    )
    assert c.accept[0][0].judge == {"b": Matches("x+"), "c": NormSpec("any"), "d": OneOf((1, 2))}
    assert c.forbid == (Forbid("pay", {"to": "eve"}), Forbid("wipe", {}))
    assert (c.repeatable, c.grade) == (frozenset({"poll"}), "writes")
    plain = parse_case(case(), "c.json")
    assert (plain.forbid, plain.repeatable, plain.grade, plain.accept[0][0].judge) == (
        (),
        frozenset(),
        "all",
        {},
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (case(forbd=[]), "unknown key 'forbd' in a case; did you mean 'forbid'?"),
        (case(grde="writes"), "unknown key 'grde' in a case; did you mean 'grade'?"),
        (case(repeatabel=[]), "unknown key 'repeatabel' in a case; did you mean 'repeatable'?"),
        (case(forbidden=[]), "unknown key 'forbidden' in a case; did you mean 'forbid'?"),
        (
            case(accept=[[{**STEP, "jugde": {}}]]),
            "unknown key 'jugde' in a step; did you mean 'judge'?",
        ),
        (
            case(accept=[[{**STEP, "judge": {"b": {"match": "x"}}}]]),
            "judge 'b': unknown key 'match'; did you mean 'matches'?",
        ),
        (
            case(forbid=[{"tool": "x", "arg": {}}]),
            "unknown key 'arg' in a forbid entry; did you mean 'args'?",
        ),
        (case(grade="write"), "unknown grade 'write'"),
        (case(repeatable="poll"), "'repeatable' must be a list of tool names"),
        (case(forbid={"tool": "x"}), "'forbid' must be a list of calls"),
        (case(forbid=[{"args": {}}]), "forbid[0] has no tool name"),
        (case(accept=[[{**STEP, "judge": {"b": {"one_of": []}}}]]), "a non-empty list"),
        (case(accept=[[{**STEP, "judge": {"b": {"matches": 3}}}]]), '{"matches": "REGEX"}'),
        (case(accept=[[{**STEP, "judge": {"b": 7}}]]), "a judge is a rule"),
        (case(accept=[[{**STEP, "judge": ["b"]}]]), "'judge' must be an object"),
    ],
)
def test_a_bad_or_misspelt_key_is_an_error(data, message):
    with pytest.raises(InputError) as e:
        parse_case(data, "c.json")
    assert message in str(e.value)


def test_a_judged_step_of_a_tool_no_schema_defines_warns_that_its_judge_is_not_applied(tmp_path):
    """Without the tool's schema a judge has no parameters to apply to: the step's calls are
    compared as JSON, and the warning about the unknown tool says the judge is left out."""
    for sub in ("tools", "cases", "traces"):
        (tmp_path / sub).mkdir()
    (tmp_path / "tools" / "t.json").write_text(json.dumps({"name": "t", "parameters": {}}))
    steps = [{"tool": "nosuch", "args": {"a": "q"}, "judge": {"a": "any"}}]
    plain = [{"tool": "other", "args": {}}]
    cases = [{"id": "j", "accept": [steps]}, {"id": "p", "accept": [plain]}]
    (tmp_path / "cases" / "c.json").write_text(json.dumps(cases))
    runs = [{"case_id": "j", "calls": [{"tool": "nosuch", "args": {"a": "z"}}]}]
    (tmp_path / "traces" / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    result = invoke(
        "score", tmp_path / "traces", "--format", "json",
        *("--tools", tmp_path / "tools", "--cases", tmp_path / "cases"),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["warnings"][:2] == [
        "case 'j': accept[0][0] calls 'nosuch', which no tool schema defines (its judge is not "
        "applied: calls to it are compared as JSON)",
        "case 'p': accept[0][0] calls 'other', which no tool schema defines",
    ]
    assert json.loads(result.stdout)["runs"][0]["verdict"] == "fail"
