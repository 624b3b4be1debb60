"""Reading a case's own keys: `judge` on a step, `forbid`, `repeatable`, `grade`; their typos are
errors with "did you mean", as for every key evalrun reads."""

from __future__ import annotations

import json

import pytest

from evalrunner.model import Forbid, InputError, Matches, NormSpec, OneOf
from evalrunner.read.cases import parse_case
from tests.conftest import invoke, one_line

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


S = {"type": "string"}
ITEMS = {"type": "array", "items": {"type": "object", "properties": {"sku": S, "note": S}}}


def order_project(tmp_path, items, judge, calls):
    for sub in ("tools", "cases", "traces"):
        (tmp_path / sub).mkdir()
    tool = {"name": "order", "parameters": {"type": "object", "properties": {"items": items}}}
    (tmp_path / "tools" / "t.json").write_text(json.dumps(tool))
    gold = [{"sku": "A", "note": "x1"}, {"sku": "B", "note": "x2"}]
    step = {"tool": "order", "args": {"items": gold}, "judge": judge}
    (tmp_path / "cases" / "c.json").write_text(json.dumps({"id": "c", "accept": [[step]]}))
    run = {"run_id": "r", "case_id": "c", "calls": [{"tool": "order", "args": calls}]}
    (tmp_path / "traces" / "r.jsonl").write_text(json.dumps(run) + "\n")
    return ("--tools", tmp_path / "tools", "--cases", tmp_path / "cases")


@pytest.mark.parametrize(
    ("items", "judge", "inside"),
    [
        # the tool's own rule over the items
        (
            {**ITEMS, "x-eval-norm": "unordered_list"},
            {"items[].note": {"matches": "^x"}},
            "'items'",
        ),
        # the same judge's rule over the items (the predicate was silently never consulted)
        (ITEMS, {"items": "unordered_list", "items[].note": {"matches": "^x"}}, "'items'"),
        # the same judge's rule over the whole arguments
        (ITEMS, {"": "any", "items[].note": {"one_of": ["x1"]}}, "the whole arguments ('')"),
    ],
)
def test_a_predicate_inside_a_value_a_rule_compares_whole_is_an_error(
    tmp_path, items, judge, inside
):
    """It would never be consulted: `score` refuses it (exit 2) and `lint` reports it."""
    dirs = order_project(tmp_path, items, judge, {"items": []})
    result = invoke("score", tmp_path / "traces", *dirs)
    assert result.exit_code == 2
    message = f"judge 'items[].note' is a predicate inside {inside}, whose rule"
    assert message in one_line(result.stderr)
    linted = invoke("lint", *dirs, "--format", "json")
    assert linted.exit_code == 1
    assert "judge-invalid" in linted.stdout and message in one_line(linted.stdout)


@pytest.mark.parametrize(
    ("judge", "verdict"),
    [
        # rules nest: the items' notes unjudged, then the list compared as a multiset
        ({"items": "unordered_list", "items[].note": "any"}, "false_failure"),
        # a predicate at a path a rule holds takes the rule's place
        (
            {"items": {"one_of": [[{"sku": "B", "note": "z"}, {"sku": "A", "note": "y"}]]}},
            "false_failure",
        ),
    ],
)
def test_a_rule_inside_a_rule_and_a_predicate_at_its_own_path_are_read(tmp_path, judge, verdict):
    calls = {"items": [{"sku": "B", "note": "z"}, {"sku": "A", "note": "y"}]}
    dirs = order_project(tmp_path, ITEMS, judge, calls)
    result = invoke("score", tmp_path / "traces", *dirs, "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["runs"][0]["verdict"] == verdict
