"""Laws of grading, over generated tool surfaces, cases and runs (`strategies.grading_worlds`):
every rule, defaults, nested properties, repeatable tools, several accepted sequences, errored
attempts, repeats, extra, unknown-tool and malformed calls, shuffled runs, in every match mode."""

from __future__ import annotations

from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from evalrunner.grade.grader import Grader, RunResult
from evalrunner.grade.norms import BUILTINS
from evalrunner.model import Run
from evalrunner.read.cases import parse_case
from evalrunner.read.tools import parse_tool
from evalrunner.summary import Summary
from evalrunner.traces import parse_record

from .strategies import grading_worlds, json_values

VERDICT = {
    (True, True): "pass",
    (False, False): "fail",
    (False, True): "false_failure",
    (True, False): "false_pass",
}


def build(world):
    tools_json, case_json, records = world
    tools = {t["name"]: parse_tool(t, "generated") for t in tools_json}
    case = parse_case(case_json, "generated")
    return Grader(tools, {case.id: case}, registry=BUILTINS), case, records


def every_false_failure_carries_a_shape(r: RunResult) -> None:
    """SPEC "Shapes": a false failure without a shape is a bug of the scorer."""
    assert r.internal_error is None, r.internal_error
    if r.verdict == "false_failure":
        assert r.shape is not None and r.shapes and r.shape == r.shapes[0]
    if r.verdict == "false_pass":
        assert r.shape is not None


def a_reported_pass_satisfies_rule_1(grader: Grader, run: Run, r: RunResult) -> None:
    """A rule only widens equality: when exact-match passes a run, the true check's rule 1 holds
    too, unless something rule 1 must see and exact-match cannot explains it: an errored attempt
    (exact-match counts it as the step; `rejected_call`) or a loop (exact-match drops an exact
    repeat; rule 2, `redundant_call`). Repeats to repeatable tools included: the repeat drop keeps
    the copies a match needs (steps `[B, poll]`, calls `[poll~, B, poll]` under `contains`)."""
    if not r.reported_pass or any(c.errored for c in run.calls):
        return
    assert r.accepted is not None or any(c.label == "redundant" for c in r.calls)


def labels_agree_with_their_comparisons(r: RunResult) -> None:
    """What a label says of a call is what comparing it says: `exact` is JSON-equal to its step,
    `equivalent` is equivalent and not equal, a dropped `repeat` is equivalent to the call it
    repeats; and the verdict is a function of the two checks."""
    assert VERDICT[(r.reported_pass, r.true_pass)] == r.verdict
    for c in r.calls:
        if c.label == "exact":
            assert c.comparison is not None and c.comparison.exact
        elif c.label in ("equivalent", "repeat"):
            assert c.comparison is not None and c.comparison.equal
            assert c.label == "repeat" or not c.comparison.exact
        if c.label in ("repeat", "redundant"):
            # the copy the match used, which may come later (SPEC "Precise readings")
            assert c.repeats is not None and c.repeats != c.index
            assert r.calls[c.repeats].tool == c.tool


@given(world=grading_worlds())
def test_laws_of_every_graded_run(world):
    """Every false failure carries a shape; a reported pass satisfies rule 1; labels agree with
    their comparisons. One generated world checks all three (each a function above)."""
    grader, _, records = build(world)
    for n, record in enumerate(records):
        r = grader.grade_record(record, f"runs.jsonl:{n + 1}")
        assert isinstance(r, RunResult)
        every_false_failure_carries_a_shape(r)
        a_reported_pass_satisfies_rule_1(grader, parse_record(record, "-"), r)
        labels_agree_with_their_comparisons(r)


@given(world=grading_worlds())
def test_the_fast_paths_and_the_general_path_agree(world):
    """Exactly-canonical runs (`_CasePlan.exactly_canonical`), memoized grades and runs graded by
    canonical keys give what grading every run pairwise gives."""
    grader, case, records = build(world)
    fresh = Grader(grader.tools, grader.cases, registry=BUILTINS)
    cp = grader._case_plan(case)
    canonical = {"run_id": "canonical", "case_id": case.id, "calls": world[1]["accept"][0]}
    for n, record in enumerate([*records, canonical, *records]):  # the second time from the memo
        run = parse_record(record, f"runs.jsonl:{n + 1}")
        fast = grader._grade_calls(run.calls, case, None)
        calls = grader._prepare(run.calls, None)
        grader._canonical_keys(calls)
        with mock.patch.object(grader, "_pairwise", lambda calls, cp: True):
            pairwise = grader._grade_prepared(calls, cp)
        assert fast == pairwise, record
        assert grader.grade_record(record, "a:1") == fresh.grade(parse_record(record, "a:1"))
        if record is canonical:
            assert fast is cp.exactly_canonical


REPLIES = json_values(4).filter(lambda v: not (isinstance(v, dict) and "error" in v))
"""Replies that do not say the call failed (a result's `error` makes an errored attempt)."""


@given(world=grading_worlds(), data=st.data())
def test_adding_reply_evidence_never_changes_a_verdict(world, data):
    """The calls' replies are evidence on the rules (`summary.reply_evidence`), read by no
    verdict: the same runs with a `result` on any of their calls grade the same, label for
    label, and the summary's numbers other than the evidence stay as they were."""
    grader, _, records = build(world)
    fresh = Grader(grader.tools, grader.cases, registry=BUILTINS)
    without, with_replies = Summary(), Summary()
    for n, record in enumerate(records):
        replied = {
            **record,
            "calls": [
                {**c, "result": data.draw(REPLIES)}
                if "result" not in c and data.draw(st.booleans())
                else c
                for c in record["calls"]
            ],
        }
        a = grader.grade_record(record, f"runs.jsonl:{n + 1}")
        b = fresh.grade_record(replied, f"runs.jsonl:{n + 1}")
        assert isinstance(a, RunResult) and isinstance(b, RunResult)
        assert a._replace(replies=()) == b._replace(replies=())
        without.add(a, (0, n))
        with_replies.add(b, (0, n))
    x, y = without.to_json(), with_replies.to_json()
    for key in ("reply_evidence", "reply_confirmed"):
        x.pop(key), y.pop(key)
    assert x == y


def test_a_false_failure_without_a_shape_is_reported_loudly(monkeypatch):
    """Should the invariant ever break on a user's data, the run says so and the summary counts
    it apart from unscoreable lines, with its source; never a silent null shape."""
    from evalrunner.grade import grader as score

    tool = parse_tool(
        {"name": "t", "parameters": {"properties": {"p": {"x-eval-norm": "casefold"}}}}, "x"
    )
    case = parse_case({"id": "c", "accept": [[{"tool": "t", "args": {"p": "A"}}]]}, "x")
    record = {"run_id": "r", "case_id": "c", "calls": [{"tool": "t", "args": {"p": "a"}}]}
    right = Grader({"t": tool}, {"c": case}, registry=BUILTINS).grade_record(record, "x:1")
    assert right.verdict == "false_failure" and right.internal_error is None
    summary = Summary()
    summary.add(right, (0, 0))
    assert "internal_errors" not in summary.to_json()

    monkeypatch.setattr(score, "_false_failure_shapes", lambda *a: ())
    wrong = Grader({"t": tool}, {"c": case}, registry=BUILTINS).grade_record(record, "x:2")
    assert wrong.verdict == "false_failure" and wrong.shape is None
    assert wrong.internal_error.startswith(
        "internal error: a false failure without a shape (please report it): case 'c'"
    )
    summary.add(wrong, (0, 1))
    other = Summary()
    other.add(wrong, (1, 0))
    summary.merge(other).finish()
    assert (summary.internal_errors, summary.unscoreable, summary.runs) == (2, 0, 3)
    assert summary.to_json()["internal_errors"] == {
        "count": 2,
        "errors": [
            {"source": "x:2", "error": wrong.internal_error},
            {"source": "x:2", "error": wrong.internal_error},
        ],
    }
