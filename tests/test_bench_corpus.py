"""The bench generator's (scripts/bench_corpus.py) distinct-run corpus (issue 31): no run repeats
an earlier one, so a memo of graded runs serves none; the repeating corpus does repeat, and says
how much."""

from __future__ import annotations

import orjson

from evalrunner.read.cases import load_cases
from scripts import bench_corpus


def _keys(corpus) -> list:
    cases = load_cases(corpus / "cases")
    keys = []
    for part in sorted((corpus / "traces").glob("*.jsonl")):
        for line in part.read_bytes().splitlines():
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue  # the generator's truncated lines
            if record.get("case_id") in cases:
                keys.append(bench_corpus._same_run_key(record, cases[record["case_id"]]))
    return keys


def test_the_distinct_corpus_repeats_no_run(tmp_path):
    info = bench_corpus.generate(4000, tmp_path / "d", None, distinct=True)
    keys = _keys(tmp_path / "d")
    assert info["repeats"] == 0 and info["calls"] >= 4000
    assert len(keys) > 1000 and len(set(keys)) == len(keys)


def test_the_repeating_corpus_counts_its_repeats(tmp_path):
    info = bench_corpus.generate(4000, tmp_path / "r", None)
    keys = _keys(tmp_path / "r")
    assert info["repeats"] == len(keys) - len(set(keys)) > 0


def test_each_kind_has_its_own_folder(tmp_path):
    distinct = bench_corpus.ensure_corpus(2000, tmp_path, None, quiet=True, distinct=True)
    repeating = bench_corpus.ensure_corpus(2000, tmp_path, None, quiet=True)
    assert distinct != repeating
    # distinct in calls, whatever the world (f53a3ad stamped "calls" where True was)
    assert orjson.loads((distinct / "corpus.json").read_bytes())["distinct"] == "calls"
    assert "distinct" not in orjson.loads((repeating / "corpus.json").read_bytes())


def test_the_many_cases_corpus_copies_each_case_and_deals_its_runs_out(tmp_path, monkeypatch):
    """About `CALLS_PER_CASE` calls a case: each case copied under `ID~k`, its runs dealt to its
    copies in turn, every run still distinct (from every run of the original case too). A small
    corpus of few calls a case, so that it is quick and each case has several copies."""
    monkeypatch.setattr(bench_corpus, "CALLS_PER_CASE", 2)
    info = bench_corpus.generate(4000, tmp_path / "m", None, many_cases=True)
    corpus = tmp_path / "m"
    cases = load_cases(corpus / "cases")
    originals = {c.split("~")[0] for c in cases}
    copies = bench_corpus.case_copies_for(4000, len(originals))
    assert copies > 1 and len(cases) == len(originals) * copies == info["cases"]
    used: dict[str, set[str]] = {}
    for part in sorted((corpus / "traces").glob("*.jsonl")):
        for line in part.read_bytes().splitlines():
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            case_id = record.get("case_id")
            if case_id in cases:
                used.setdefault(case_id.split("~")[0], set()).add(case_id)
    # a case with at least `copies` runs has a run in each of its copies
    assert any(len(ids) == copies for ids in used.values())
    keys = [(k[0].split("~")[0], *k[1:]) for k in _keys(corpus)]
    assert info["repeats"] == 0 and len(set(keys)) == len(keys)
