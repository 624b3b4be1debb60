"""Grading, scenario by scenario: tests/data/scenarios/<name>/{tools,cases,traces,expected.json}.

Each expected.json names, per run, only what the scenario is about; every key it gives is checked:
verdict, shape, shapes, accepted, labels, missing (step indices), effects (statuses), suspects,
params (per call index: path -> shapes), reasons and repeats (per call index).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalrunner.grade.grader import RunResult
from evalrunner.scoring import load_config, score
from evalrunner.write import Collect
from evalrunner.write.results import run_to_json

SCENARIOS = Path(__file__).parent / "data" / "scenarios"


def grade(name: str):
    d = SCENARIOS / name
    config = load_config(d / "tools", d / "cases")
    results = Collect()
    summary = score(config, [d / "traces"], writer=results)
    return results.items, summary


@pytest.mark.parametrize("name", sorted(p.name for p in SCENARIOS.iterdir()))
def test_scenario(name):
    expected = json.loads((SCENARIOS / name / "expected.json").read_text())["runs"]
    results, summary = grade(name)
    assert all(isinstance(r, RunResult) for r in results)
    assert summary.unscoreable == 0
    got = {r.run_id: r for r in results}
    assert sorted(got) == sorted(expected)
    for run_id, want in expected.items():
        r = got[run_id]
        j = run_to_json(r)
        where = f"{name}/{run_id}"
        if "verdict" in want:
            assert r.verdict == want["verdict"], where
        if "shape" in want:
            assert r.shape == want["shape"], where
        if "shapes" in want:
            assert list(r.shapes) == want["shapes"], where
        if "accepted" in want:
            assert r.accepted == want["accepted"], where
        if "labels" in want:
            assert [c.label for c in r.calls] == want["labels"], where
        if "missing" in want:
            assert [j for j, _ in r.missing] == want["missing"], where
        if "effects" in want:
            assert [e.status for e in r.effects] == want["effects"], where
        if "suspects" in want:
            assert [list(s) for s in r.suspects] == want["suspects"], where
        for index, params in want.get("params", {}).items():
            got_params = j["calls"][int(index)].get("params", {})
            assert {p: v["shapes"] for p, v in got_params.items()} == params, where
        for index, reason in want.get("reasons", {}).items():
            assert r.calls[int(index)].reason == reason, where
        for index, repeats in want.get("repeats", {}).items():
            assert r.calls[int(index)].repeats == repeats, where


def test_verdicts_agree_with_both_checks():
    """verdict is a function of (reported pass, true pass) in every scenario run."""
    table = {
        (True, True): "pass",
        (False, False): "fail",
        (False, True): "false_failure",
        (True, False): "false_pass",
    }
    for d in SCENARIOS.iterdir():
        results, _ = grade(d.name)
        for r in results:
            assert table[(r.reported_pass, r.true_pass)] == r.verdict


def test_summary_of_a_scenario():
    _, s = grade("fp_redundant_call")
    j = s.to_json()
    assert j["runs"] == 4 and j["unscoreable"] == 0
    assert j["verdicts"] == {"pass": 1, "fail": 0, "false_failure": 0, "false_pass": 3}
    assert j["false_passes"] == {
        "forbidden_call": 0,
        "redundant_call": 3,
        "rejected_call": 0,
        "effect_failed": 0,
    }
    # 11 calls, one extra (outside a contains sequence): 10 graded; 4 redundant ones fail truly
    assert j["calls"] == 10
    assert j["true"]["failed_calls"] == 4
    assert j["reported"]["failed_calls"] == 0  # each call in isolation equals a canonical step
    assert j["reported"]["run_failure_rate"] == 0.0 and j["true"]["run_failure_rate"] == 0.75


def test_per_call_false_failure_shapes_by_tool():
    _, s = grade("ff_errored_attempt")
    refunds = s.by_tool["issue_refund"]
    assert refunds.calls == 4
    assert refunds.reported_failed_calls == 3  # two errored attempts and the "42.00" restatement
    assert refunds.true_failed_calls == 0
    assert dict(refunds.false_failures) == {"errored_attempt": 2, "encoding": 1}


def test_effects_counted_and_suspects_summed():
    _, s = grade("effects_without_world")
    assert (s.effects_checked, s.effects_failed, s.effects_unverified) == (0, 0, 4)
    _, s = grade("normalizer_suspect")
    assert dict(s.suspects) == {("lookup_order", "order_id", "casefold"): 1}
    assert s.to_json()["normalizer_suspects"] == [
        {"tool": "lookup_order", "param": "order_id", "norm": "casefold", "runs": 1}
    ]


def test_a_memoized_grade_is_the_grade():
    """grade_record reuses a grade for records that agree on case, calls and world: the result
    must be exactly what grading the record afresh gives, with its own run_id and source."""
    import orjson

    from evalrunner.grade.grader import Grader
    from evalrunner.traces import parse_record

    for d in sorted(SCENARIOS.iterdir()):
        config = load_config(d / "tools", d / "cases")
        fresh = Grader(config.tools, config.cases, registry=config.registry)
        for n, line in enumerate((d / "traces" / "runs.jsonl").read_bytes().splitlines()):
            record = orjson.loads(line)
            want = fresh.grade(parse_record(record, f"a:{n}"))
            first = config.grader.grade_record(record, f"a:{n}")
            again = config.grader.grade_record({**record, "run_id": "other"}, f"b:{n}")
            assert first == want
            assert again == want._replace(run_id="other", source=f"b:{n}")
            assert again.calls is first.calls  # the second one was a memo hit


def test_the_memo_sees_through_cosmetics_but_not_spelling():
    """Call ids, tool results and args sent as JSON text do not change a grade, so such records
    share one; `1.0` is not spelled `1`, so a record that spells a value differently does not."""
    import orjson

    d = SCENARIOS / "ff_encoding"
    config = load_config(d / "tools", d / "cases")
    g = config.grader
    call = {"tool": "search_invoices", "args": {"customer_id": "C-1", "month": "2026-03-15"}}
    first = g.grade_record({"run_id": "a", "case_id": "c", "calls": [call]}, "a:1")
    variants = [
        {
            "id": "call_1",
            "name": "search_invoices",
            "arguments": orjson.dumps(call["args"]).decode(),
        },
        {**call, "result": {"ok": True, "rows": 7}},
        {"tool": "search_invoices", "args": {"month": "2026-03-15", "customer_id": "C-1"}},
    ]
    for v in variants:
        again = g.grade_record({"run_id": "b", "case_id": "c", "calls": [v]}, "b:1")
        assert again.calls is first.calls and again.verdict == "false_failure"
    errored = g.grade_record({"case_id": "c", "calls": [{**call, "error": "boom"}]}, "c:1")
    assert errored.verdict == "fail" and errored.calls is not first.calls
    spelled = {
        "tool": "search_invoices",
        "args": {"customer_id": "C-1", "month": "2026-03-15", "limit": 50.0},
    }
    r = g.grade_record({"case_id": "c", "calls": [spelled]}, "d:1")
    assert r.calls is not first.calls
    (limit,) = [d for d in r.calls[0].comparison.diffs if d.path == "limit"]
    assert limit.shape == "default" and type(limit.actual) is float


def test_tiny_tables_give_the_same_results(monkeypatch, tmp_path):
    """The grader's tables drop their older half when full; ids are never reused, so eviction
    can only cost time. Scored with tables of four entries, the example corpus gives the same
    bytes as with the defaults."""
    from typer.testing import CliRunner

    from evalrunner.cli import app
    from evalrunner.grade import grader as score
    from evalrunner.read import case_store
    from evalrunner.write import results as report

    root = Path(__file__).parent.parent
    args = [
        "score",
        str(root / "traces"),
        "--tools",
        str(root / "tools"),
        "--cases",
        str(root / "cases"),
        "--format",
        "jsonl",
    ]
    normal = CliRunner().invoke(app, args).stdout
    for name in ("MEMO_SIZE", "CALLS_SIZE", "COMPARISONS_SIZE", "CASE_PLANS_SIZE"):
        monkeypatch.setattr(score, name, 4)
    monkeypatch.setattr(report, "_RENDERED_SIZE", 4)
    monkeypatch.setattr(case_store, "STORE_FROM", 4)  # the cases kept as a store, too
    monkeypatch.setattr(case_store, "LIVE_CASES", 4)
    tiny = CliRunner().invoke(app, args).stdout
    assert tiny == normal and normal.count("\n") == 4043


def test_a_judged_step_never_answers_for_another_case_s_judge(monkeypatch):
    """A judged step compares by its case plan's own tool plan; the comparisons it caches must
    stay that plan's when the case plan is dropped (past CASE_PLANS_SIZE) and a later plan takes
    its place in memory. Half the cases let `b@x.io` through, half do not."""
    from evalrunner.grade import grader as score
    from evalrunner.model import Call, Run
    from evalrunner.read.cases import parse_case
    from evalrunner.read.tools import load_tools

    monkeypatch.setattr(score, "CASE_PLANS_SIZE", 2)
    tools = load_tools(SCENARIOS / "judge_step_rules" / "tools")

    def case(case_id: str, allowed: list[str]):
        step = {"tool": "send_email", "args": {"to": "a@x.io", "subject": "Hi"}}
        step["judge"] = {"to": {"one_of": allowed}}
        return parse_case({"id": case_id, "accept": [[step]]}, case_id)

    cases = {}
    for i in range(100):
        cases[f"wide{i}"] = case(f"wide{i}", ["a@x.io", "b@x.io"])
        cases[f"narrow{i}"] = case(f"narrow{i}", ["a@x.io", "c@x.io"])
    grader = score.Grader(tools, cases)
    call = Call("send_email", {"to": "b@x.io", "subject": "Hi"})
    order = [f"{kind}{i}" for i in range(100) for kind in ("wide", "narrow")] * 3
    wrong = []
    for case_id in order:
        result = grader.grade(Run("r", case_id, (call,)))
        assert isinstance(result, RunResult)
        if (result.accepted is not None) != case_id.startswith("wide"):
            wrong.append(case_id)
    assert wrong == []


def test_grading_makes_no_reference_cycles():
    """Scoring leaves nothing for the cyclic collector: every scenario and the example corpus,
    scored with the collector off, free all they made by reference counts. The command line
    runs the collector rarely on that ground (`cli.YOUNG_OBJECTS`); a nested function that calls
    itself (`matching_size`'s search, the judge check's walk) was a cycle per call."""
    import gc

    root = Path(__file__).parent.parent
    found = {}
    for d in [*sorted(SCENARIOS.iterdir()), root]:
        config = load_config(d / "tools", d / "cases")
        score(config, [d / "traces"], writer=Collect())  # imports, first-use caches
        config = load_config(d / "tools", d / "cases")
        gc.collect()
        gc.disable()
        try:
            score(config, [d / "traces"], writer=Collect())
            found[d.name] = gc.collect()
        finally:
            gc.enable()
    assert {name: n for name, n in found.items() if n} == {}
