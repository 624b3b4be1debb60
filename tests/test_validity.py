"""Rules apply only to values their parameter's schema accepts (SPEC "Precise readings"): the
checks (`grade/validity.py`), how comparison uses them, and their laws."""

from __future__ import annotations

import json
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalrunner.grade import validity
from evalrunner.grade.compare import ToolPlan
from evalrunner.grade.grader import Grader, RunResult
from evalrunner.grade.norms import BUILTINS
from evalrunner.grade.validity import Validity, format_problem
from evalrunner.jsonvalue import json_eq
from evalrunner.model import Param
from evalrunner.read.cases import parse_case
from evalrunner.read.tools import parse_tool
from tests.conftest import score_folder

from .strategies import json_values, norm_inputs


@pytest.mark.parametrize(
    ("fmt", "text", "problem"),
    [
        ("date-time", "2026-03-14T09:00:00Z", None),
        ("date-time", "2026-03-14t09:00:00.123+01:00", None),
        ("date-time", "2026-03-14 09:00:00-05:30", None),
        ("date-time", "2026-03-14T09:00:00", "no offset"),
        ("date-time", "2026-03-14T09:00:00.000", "no offset"),
        ("date-time", "2026-03-14", "a date without a time"),
        ("date-time", "2026-02-30T09:00:00Z", "out of range"),
        ("date-time", "2026-03-14T24:00:00Z", "out of range"),
        ("date-time", "2026-03-14T09:00Z", "not YYYY-MM-DDTHH:MM:SS with an offset"),
        ("date", "2024-02-29", None),
        ("date", "2026-02-29", "not YYYY-MM-DD"),
        ("date", "2026-03-14T00:00:00Z", "not YYYY-MM-DD"),
        ("date", "2026-03", "not YYYY-MM-DD"),
        ("time", "09:00:00+01:00", None),
        ("time", "23:59:60Z", None),
        ("time", "09:00:00", "no offset"),
    ],
)
def test_rfc3339_grammar(fmt, text, problem):
    assert format_problem(fmt, text) == problem


def _validity(schema, types=()):
    return Validity(Param(path="p", schema=schema, types=types))


def test_each_keyword_names_itself():
    assert _validity({}, ("integer",)).breach("12").keyword == "type"
    assert _validity({}, ("integer",)).breach(12.0) is None  # JSON Schema: 12.0 is an integer
    assert _validity({}, ("number",)).breach(True).keyword == "type"  # a boolean is no number
    assert _validity({"enum": ["A", "B"]}).breach("a").keyword == "enum"
    assert _validity({"const": "rolling"}).breach("Rolling").keyword == "const"
    assert _validity({"pattern": "^AL-"}).breach("al-1").keyword == "pattern"
    assert _validity({"format": "date-time"}).breach("2026-03-14T09:00:00").message == (
        '"2026-03-14T09:00:00" is not a date-time (no offset)'
    )
    assert _validity({"format": "date-time"}).breach(3) is None  # format is for strings
    assert _validity({"enum": ["A"]}, ("string", "null")).breach(None) is None  # Optional[...]
    assert Validity.of(Param(path="p", schema={"description": "x"})) is None


@pytest.mark.parametrize(
    ("schema", "types", "value", "keyword"),
    [
        # OpenAPI 3.0's nullable (Gemini's Schema, tools converted from OpenAPI): null accepted
        ({"type": "string", "nullable": True}, ("string",), None, None),
        ({"type": "string", "nullable": True}, ("string",), 12, "type"),
        ({"enum": ["a", "b"], "nullable": True}, (), None, None),
        ({"enum": ["a", "b"], "nullable": True}, (), "c", "enum"),
        ({"type": "string", "enum": ["a"], "nullable": True}, ("string",), None, None),
        # without it, or false, null is a value like any other
        ({"type": "string"}, ("string",), None, "type"),
        ({"type": "string", "nullable": False}, ("string",), None, "type"),
        ({"enum": ["a", "b"]}, (), None, "enum"),
    ],
)
def test_nullable_accepts_null(schema, types, value, keyword):
    found = _validity(schema, types).breach(value)
    assert (found.keyword if found is not None else None) == keyword


def test_a_nullable_parameter_stated_as_null_is_its_null_default(tmp_path):
    """A Gemini tool (capital types, OpenAPI's nullable): a run that states the parameter's
    declared default, null, where the step leaves it out is equivalent; null is no breach."""
    for d in ("tools", "cases", "traces"):
        (tmp_path / d).mkdir()
    note = {"type": "STRING", "nullable": True, "default": None, "x-eval-norm": "casefold"}
    params = {"type": "OBJECT", "properties": {"id": {"type": "STRING"}, "note": note}}
    tool = {"functionDeclarations": [{"name": "close", "parameters": params}]}
    (tmp_path / "tools" / "t.json").write_text(json.dumps([tool]))
    case = {"id": "c", "expected_tool": "close", "expected_args": {"id": "T-1"}}
    (tmp_path / "cases" / "c.jsonl").write_text(json.dumps(case) + "\n")
    calls = {
        "null": {"id": "T-1", "note": None},
        "number": {"id": "T-1", "note": 7},
    }
    lines = [
        json.dumps({"run_id": r, "case_id": "c", "calls": [{"tool": "close", "args": args}]})
        for r, args in calls.items()
    ]
    (tmp_path / "traces" / "r.jsonl").write_text("\n".join(lines) + "\n")
    doc = score_folder(tmp_path)
    got = {r["run_id"]: (r["verdict"], r["calls"][0].get("reason")) for r in doc["runs"]}
    assert got == {
        "null": ("false_failure", None),
        "number": ("fail", "note breaks its schema's type"),
    }


def test_a_pattern_the_engine_cannot_read_checks_nothing():
    assert _validity({"pattern": "("}).breach("anything") is None  # lint reports the pattern


SLOW = "a" * 40 + "!"  # `^(a|aa)+$` backtracks on it for far longer than the limit


@pytest.fixture
def short_limit(monkeypatch):
    monkeypatch.setattr(validity, "PATTERN_TIMEOUT", 0.02)


def test_a_search_out_of_time_accepts_that_value_not_the_next(short_limit):
    v = _validity({"type": "string", "pattern": "^(a|aa)+$"})
    assert v.breach("AAaa").keyword == "pattern"
    assert v.breach(SLOW) is None  # out of time: no breach it may not deserve
    assert v.breach("AAAa").keyword == "pattern"  # still searched: a value met first or later
    assert v.breach("aaaa") is None


def test_a_pattern_out_of_time_too_often_is_taken_to_match(short_limit, monkeypatch):
    monkeypatch.setattr(validity, "MAX_SLOW", 2)
    v = _validity({"type": "string", "pattern": "^(a|aa)+$"})
    assert v.breach(SLOW) is None and v.breach("AAAa").keyword == "pattern"
    assert v.breach(SLOW + "a") is None  # the second time: enough time spent on it
    assert v.breach("AAAA") is None


@pytest.mark.parametrize("order", ["slow value between", "slow value first", "slow value last"])
def test_verdicts_do_not_depend_on_where_a_slow_value_stands(tmp_path, short_limit, order):
    """A trap: a run whose value makes the tool's pattern backtrack catastrophically. The values
    after it are still checked: `"AAaa"` breaks the pattern, so `casefold` never reads it."""
    for d in ("tools", "cases", "traces"):
        (tmp_path / d).mkdir()
    schema = {"type": "string", "pattern": "^(a|aa)+$", "x-eval-norm": "casefold"}
    tool = {"name": "tag", "parameters": {"type": "object", "properties": {"code": schema}}}
    (tmp_path / "tools" / "t.json").write_text(json.dumps(tool))
    case = {"id": "c", "expected_tool": "tag", "expected_args": {"code": "aaaa"}}
    (tmp_path / "cases" / "c.jsonl").write_text(json.dumps(case) + "\n")
    runs = {"upper": "AAaa", "slow": SLOW, "lower": "aaaa"}
    ids = {
        "slow value between": ["upper", "slow", "lower"],
        "slow value first": ["slow", "upper", "lower"],
        "slow value last": ["upper", "lower", "slow"],
    }[order]
    lines = [
        json.dumps(
            {"run_id": r, "case_id": "c", "calls": [{"tool": "tag", "args": {"code": runs[r]}}]}
        )
        for r in ids
    ]
    (tmp_path / "traces" / "r.jsonl").write_text("\n".join(lines) + "\n")
    doc = score_folder(tmp_path)
    verdicts = {r["run_id"]: (r["verdict"], r["calls"][0].get("reason")) for r in doc["runs"]}
    assert verdicts == {
        "upper": ("fail", "code breaks its schema's pattern"),
        "slow": ("fail", None),
        "lower": ("pass", None),
    }


# ------------------------------------------------------------------------------------- laws

KEYWORDS = [
    {"type": "integer"},
    {"type": "string"},
    {"type": ["number", "string"]},
    {"enum": ["A", "B", "2026-03-01"]},
    {"const": "A"},
    {"pattern": "^[A-Z]"},
    {"type": "string", "format": "date-time"},
    {"type": "string", "format": "date"},
    {"format": "time"},
]
RULES = sorted(n for n in BUILTINS if n not in ("known_fields",))

values = st.one_of(
    norm_inputs(),
    json_values(4),
    st.sampled_from(["a", "A", " A ", "12", 12, 12.0, "2026-03-01", "2026-03-01T00:00:00"]),
)


def _plan(rule, keyword):
    schema = {"type": "object", "properties": {"p": {**keyword, "x-eval-norm": rule}}}
    return ToolPlan.compile(parse_tool({"name": "t", "parameters": schema}, "x"), BUILTINS)


@given(rule=st.sampled_from(RULES), keyword=st.sampled_from(KEYWORDS), a=values, b=values)
def test_a_value_its_schema_rejects_is_never_equivalent_to_a_different_one(rule, keyword, a, b):
    """Under every rule: a run's value the schema rejects is equivalent only to JSON-equal
    values, pairwise, by keys, and in the explanation, whichever side it is on."""
    plan = _plan(rule, keyword)
    node = plan.root.props["p"]
    if node.validity is None or node.validity.breach(a) is None or json_eq(a, b):
        return
    x, y = {"p": a}, {"p": b}
    assert not plan.equivalent(x, y) and not plan.equivalent(y, x)
    assert plan.key(x) != plan.key(y)
    assert not plan.compare(x, y, checked=False).equal  # a run's value against a step's
    assert not plan.compare(y, x).equal  # against another run's
    assert any(d.breaks for d in plan.compare(x, y, checked=False).diffs)


@given(rule=st.sampled_from(RULES), keyword=st.sampled_from(KEYWORDS), a=values, d=values)
def test_a_rejected_value_stated_where_the_step_leaves_it_out_is_no_default(rule, keyword, a, d):
    """The other side absent: a run's value the schema rejects equals the declared default only
    as JSON, and where it does not, the explanation names the keyword it breaks (`limit: "50"`
    for a default 50 under `number` is not the default restated)."""
    schema = {"type": "object", "properties": {"p": {**keyword, "x-eval-norm": rule, "default": d}}}
    plan = ToolPlan.compile(parse_tool({"name": "t", "parameters": schema}, "x"), BUILTINS)
    node = plan.root.props["p"]
    if node.validity is None or node.validity.breach(a) is None or json_eq(a, d):
        return
    result = plan.compare({"p": a}, {}, checked=False)
    assert not result.equal and not plan.equivalent({"p": a}, {})
    assert [x.breaks for x in result.diffs] == [node.validity.breach(a).keyword]


@pytest.mark.parametrize(
    ("schema", "value", "note"),
    [
        (
            {"type": "integer", "default": 50, "x-eval-norm": "number"},
            "50",
            '"50" is not an integer: the schema\'s type rejects it, so no rule applies; '
            "absent is the declared default 50",
        ),
        (
            {"type": "string", "format": "date-time", "x-eval-norm": "instant"},
            "2026-03-14T09:00:00",
            '"2026-03-14T09:00:00" is not a date-time (no offset): the schema\'s format rejects '
            "it, so no rule applies",
        ),
    ],
)
def test_a_rejected_value_the_step_leaves_out_is_explained_by_its_breach(schema, value, note):
    params = {"type": "object", "properties": {"p": schema}}
    plan = ToolPlan.compile(parse_tool({"name": "t", "parameters": params}, "x"), BUILTINS)
    (diff,) = plan.compare({"p": value}, {}, checked=False).diffs
    assert (diff.kind, diff.norm, diff.note) == ("mismatch", schema["x-eval-norm"], note)


@given(rule=st.sampled_from(RULES), keyword=st.sampled_from(KEYWORDS), a=values, b=values)
def test_grading_never_passes_a_rejected_value_for_a_different_step(rule, keyword, a, b):
    """The grader agrees: a run whose only call sends a rejected value that is not the step's
    JSON fails rule 1; a case's own rejected value is still read by the rule (not checked)."""
    plan = _plan(rule, keyword)
    node = plan.root.props["p"]
    tool = plan.tool
    assert tool is not None
    case = parse_case({"id": "c", "accept": [[{"tool": "t", "args": {"p": b}}]]}, "x")
    grader = Grader({"t": tool}, {"c": case}, registry=BUILTINS)
    record = {"run_id": "r", "case_id": "c", "calls": [{"tool": "t", "args": {"p": a}}]}
    r = grader.grade_record(record, "x:1")
    assert isinstance(r, RunResult)
    rejected = node.validity is not None and node.validity.breach(a) is not None
    if rejected and not json_eq(a, b):
        assert r.accepted is None and r.calls[0].label == "mismatch"
        assert "breaks its schema's" in (r.calls[0].reason or "")
    # keys and pairwise grading agree whatever the step holds (a case value is not checked)
    cp = grader._case_plan(case)
    calls = grader._prepare(grader_calls(record), None)
    grader._canonical_keys(calls)
    keyed = grader._grade_prepared(calls, cp)
    with mock.patch.object(grader, "_pairwise", lambda calls, cp: True):
        assert keyed == grader._grade_prepared(calls, cp)


def grader_calls(record):
    from evalrunner.traces import parse_record

    return parse_record(record, "x:1").calls
