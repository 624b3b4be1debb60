"""The case store (`read/case_store.py`): the config's cases kept as pickles, read back on demand.

It must read exactly as the dict `load_cases` returns, after its live table has dropped cases,
through a what-if's overlay, and across a pickle (the config goes to every worker)."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest

from evalrunner.read import case_store
from evalrunner.read.case_store import CaseStore, judged_after, judged_ids, with_cases
from evalrunner.read.cases import each_case, load_cases
from evalrunner.scoring import load_config

ROOT = Path(__file__).parent.parent
JUDGED = ROOT / "tests" / "data" / "scenarios" / "judge_step_rules"


def _store(path: Path) -> CaseStore:
    return CaseStore.of(each_case(path, "auto", None))


def test_the_store_reads_as_the_dict(monkeypatch):
    monkeypatch.setattr(case_store, "LIVE_CASES", 4)  # most reads come back from a pickle
    cases = load_cases(ROOT / "cases")
    store = _store(ROOT / "cases")
    assert len(store) == len(cases) > 8
    assert list(store) == list(cases)
    for _ in range(2):  # the second pass reads each case again, after the table dropped it
        for case_id, case in cases.items():
            assert store[case_id] == case and case_id in store
    assert dict(store) == cases
    assert store.get("no such case") is None and "no such case" not in store
    with pytest.raises(KeyError):
        store["no such case"]


def test_a_live_case_is_the_same_object_until_the_table_drops_it(monkeypatch):
    monkeypatch.setattr(case_store, "LIVE_CASES", 2)
    store = _store(ROOT / "cases")
    first, second, third = list(store)[:3]
    a = store[first]
    assert store[first] is a
    store[second], store[third]  # the table is full: the older half (`first`) goes
    assert store[first] is not a and store[first] == a


def test_judged_lists_the_cases_with_a_judged_step():
    cases = load_cases(JUDGED / "cases")
    store = _store(JUDGED / "cases")
    expected = [c.id for c in cases.values() if any(s.judge for seq in c.accept for s in seq)]
    assert expected and list(judged_ids(store)) == expected
    assert list(judged_ids(cases)) == expected  # a dict is read for them


def test_an_overlay_replaces_and_adds_without_touching_its_base():
    store = _store(JUDGED / "cases")
    before = dict(store)
    first_id, first = next(iter(before.items()))
    unjudged = dataclasses.replace(
        first,
        accept=tuple(tuple(dataclasses.replace(s, judge={}) for s in q) for q in first.accept),
    )
    added = dataclasses.replace(first, id="added")
    overlay = store.with_cases({first_id: unjudged, "added": added})
    assert overlay[first_id] == unjudged and overlay["added"] == added
    assert list(overlay) == [*before, "added"] and len(overlay) == len(before) + 1
    assert list(judged_ids(overlay)) == [i for i in judged_ids(store) if i != first_id] + ["added"]
    # what a grader derived with these changes reads for judges, without the overlay
    assert judged_after(judged_ids(store), {first_id: unjudged, "added": added}) == judged_ids(
        overlay
    )
    others = [i for i in before if i != first_id]
    assert all(overlay[i] is store[i] for i in others)  # read through: the same live objects
    assert dict(store) == before  # the base is unchanged
    # as a dict would give (`WhatIf.grader` on a dict of cases)
    assert dict(with_cases(store, {"added": added})) == with_cases(before, {"added": added})


def test_the_store_pickles_as_its_pickles():
    store = _store(ROOT / "cases")
    store[next(iter(store))]  # one case live
    again = pickle.loads(pickle.dumps(store))
    assert again._live == {} and dict(again) == dict(store)
    overlay = store.with_cases({"added": dataclasses.replace(store[next(iter(store))], id="added")})
    assert dict(pickle.loads(pickle.dumps(overlay))) == dict(overlay)


def test_the_config_holds_a_store_that_grades_as_the_dict(monkeypatch):
    """A suite past STORE_FROM is kept as a store; scored with a live table of four cases, the
    example corpus gives the verdicts it gives with the cases as a dict."""
    from evalrunner.grade.grader import Grader
    from evalrunner.traces import read_runs

    assert type(load_config(ROOT / "tools", ROOT / "cases").cases) is dict  # 325 cases: small
    monkeypatch.setattr(case_store, "STORE_FROM", 100)  # the example suite past it
    monkeypatch.setattr(case_store, "LIVE_CASES", 4)
    config = load_config(ROOT / "tools", ROOT / "cases")
    assert type(config.cases) is CaseStore
    assert dict(config.cases) == load_cases(ROOT / "cases")  # the first 100 went in too, in order
    plain = Grader(config.tools, dict(config.cases), registry=config.registry)
    runs = [r for r in read_runs([ROOT / "traces"]) if not hasattr(r, "error")][:400]
    assert len(runs) == 400
    for run in runs:
        assert config.grader.grade(run) == plain.grade(run)


def test_the_pickles_live_in_a_temporary_file_and_in_memory_where_none_can_be_made(monkeypatch):
    """A store's pickles are written to a temporary file (only their places are held), read
    back as written, shipped whole when pickled; with no temporary file to be had they stay in
    memory and read the same."""
    import tempfile

    cases = list(load_cases(ROOT / "cases").values())[:50]
    store = CaseStore.of(cases)
    assert type(store._blobs) is case_store.Pickles  # on disk
    assert [store[c.id] for c in cases] == cases and list(store) == [c.id for c in cases]
    again = pickle.loads(pickle.dumps(store))
    assert again._blobs._file is not store._blobs._file and dict(again) == dict(store)

    def refused(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(tempfile, "TemporaryFile", refused)
    held = CaseStore.of(cases)
    assert type(held._blobs) is dict and dict(held) == dict(store)
    assert "nope" not in held and held.get("nope") is None and len(held) == 50


def test_workers_read_a_store_as_the_parent_does(monkeypatch):
    """`--jobs 2` scores a suite kept as a store (its pickles' file shared with the forked
    workers) exactly as one process does, byte for byte."""
    from tests.conftest import invoke

    monkeypatch.setattr(case_store, "STORE_FROM", 100)
    assert type(load_config(ROOT / "tools", ROOT / "cases").cases) is CaseStore
    args = ["score", ROOT / "traces", "--tools", ROOT / "tools", "--cases", ROOT / "cases"]
    one = invoke(*args, "--format", "jsonl", "--jobs", "1")
    two = invoke(*args, "--format", "jsonl", "--jobs", "2")
    assert one.exit_code == two.exit_code == 0 and one.stdout.count("\n") > 4000
    assert one.stdout == two.stdout
