"""Summaries merge exactly: any split of the runs, summarized part by part and merged, is the whole."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from evalrunner.model import TraceError
from evalrunner.scoring import load_config
from evalrunner.summary import MAX_ERROR_EXAMPLES, Summary
from evalrunner.traces import read_file, trace_files
from tests.conftest import EXPENSIVE

SCENARIOS = Path(__file__).parent / "data" / "scenarios"


def _pool():
    """(order, result) for every run of every scenario, plus some unscoreable lines."""
    items = []
    config = None
    for k, d in enumerate(sorted(SCENARIOS.iterdir())):
        config = load_config(d / "tools", d / "cases")
        for name in trace_files([d / "traces"]):
            for n, item in enumerate(read_file(name)):
                items.append(((k, n), config.grader.grade(item)))
    for n in range(MAX_ERROR_EXAMPLES + 5):
        items.append(((99, n), TraceError(f"x.jsonl:{n + 1}", "line is not valid JSON: boom")))
    return items, config


POOL, CONFIG = _pool()


def summarize(items) -> Summary:
    s = Summary.for_tools(CONFIG.tools)
    for order, item in items:
        s.add(item, order)
    return s.finish()


WHOLE = summarize(POOL)


def snapshot(s: Summary):
    return s.to_json(), s.errors, s.unscoreable


@EXPENSIVE
@given(
    parts=st.lists(st.integers(min_value=0, max_value=4), min_size=len(POOL), max_size=len(POOL)),
    order=st.permutations(range(5)),
)
def test_merging_any_split_equals_the_whole(parts, order):
    groups = [[item for item, p in zip(POOL, parts) if p == g] for g in range(5)]
    summaries = [summarize(groups[g]) for g in order]
    merged = Summary.for_tools(CONFIG.tools)
    for s in summaries:
        merged.merge(s)
    assert snapshot(merged.finish()) == snapshot(WHOLE)


def test_the_whole_is_not_trivial():
    j = WHOLE.to_json()
    assert j["runs"] > 50 and j["unscoreable"] == MAX_ERROR_EXAMPLES + 5
    assert all(j["verdicts"][v] for v in ("pass", "fail", "false_failure", "false_pass"))
    assert len(WHOLE.errors) == MAX_ERROR_EXAMPLES  # kept for the table; all are counted
    assert WHOLE.lines == j["runs"] + j["unscoreable"]


def test_examples_are_the_earliest_run_of_each_shape():
    for shape, (order, example) in WHOLE.examples.items():
        earliest = min(o for o, r in POOL if not isinstance(r, TraceError) and shape in r.shapes)
        assert order == earliest, shape
        assert example["detail"], shape
