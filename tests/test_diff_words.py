"""What `evalrun diff` says: names printed as they are written, pairing reasons that say what was
compared, flips that moved, causes with their values, keys in natural order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalrunner.diff.pairing import natural_key
from tests.conftest import one_line
from tests.test_diff import (
    RUNS,
    corpus,
    diff_json,
    invoke,
    score_to,
    search_tool,
    write_json,
    write_jsonl,
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project directory (the current directory) with the month rule not yet added."""
    monkeypatch.chdir(tmp_path)
    return corpus(tmp_path, month_rule=False)


# ------------------------------------------------------------------ names are not markup


def bracket_tool(*, month_rule: bool) -> dict:
    month: dict = {"type": "string"}
    if month_rule:
        month["x-eval-norm"] = "month"
    return {"name": "get[v2]", "parameters": {"type": "object", "properties": {"month": month}}}


CASE_ID = "[bold]c[/bold]"
CLOSER = "[/]r-1"
LINK = "[link=https://evil.example]r-2[/link]"


@pytest.fixture
def bracketed(tmp_path, monkeypatch):
    """Ids and a tool name that Rich would read as markup, scored before and after a rule."""
    monkeypatch.chdir(tmp_path)
    write_json(tmp_path / "tools" / "t.json", [bracket_tool(month_rule=False)])
    case = {
        "id": CASE_ID,
        "accept": [[{"tool": "get[v2]", "args": {"month": "2026-03"}}]],
        "effect": [{"at": "/refunds", "count": 1}],
    }
    write_json(tmp_path / "cases" / "c.json", [case])
    write_jsonl(
        tmp_path / "traces" / "t.jsonl",
        [
            {
                "run_id": CLOSER,
                "case_id": CASE_ID,
                "calls": [{"tool": "get[v2]", "args": {"month": "2026-03-01"}}],
                "world": {"refunds": [1]},
            },
            {
                "run_id": LINK,
                "case_id": CASE_ID,
                "calls": [{"tool": "get[v2]", "args": {"month": "2026-03-15"}}],
                "world": {"refunds": []},
            },
        ],
    )
    score_to(tmp_path / "old.json")
    write_json(tmp_path / "tools" / "t.json", [bracket_tool(month_rule=True)])
    return tmp_path


def test_ids_and_tool_names_are_printed_as_written(bracketed):
    result = invoke("diff", "old.json", "traces")

    assert result.exit_code == 0, result.output
    text = one_line(result.stdout)
    assert (
        f"{CLOSER} fail → false_failure (encoding) now equivalent through `month` on "
        'get[v2].month: "2026-03-01" ~ "2026-03"'
    ) in text
    assert f"month on get[v2].month: 1 run with failing effects ({LINK})" in text
    assert "warning: calls now match through month on get[v2].month while" in one_line(
        result.stderr
    )


def test_case_ids_are_printed_as_written(bracketed):
    result = invoke("diff", "old.json", "traces", "--pairing", "case_id")

    assert result.exit_code == 0, result.output
    assert f"{CASE_ID} 0% → 50%" in one_line(result.stdout)
    assert "get[v2].month differs" in one_line(result.stdout)


def test_the_json_carries_the_names_unchanged(bracketed):
    out = diff_json("old.json", "traces")
    assert [f["key"] for f in out["flips"]] == [CLOSER]
    assert out["suspect_rules"][0]["keys"] == [LINK]


def test_a_file_name_with_brackets(bracketed):
    Path("[red]old.json").write_bytes(Path("old.json").read_bytes())
    result = invoke("diff", "[red]old.json", "traces")
    assert result.exit_code == 0, result.output
    assert "old results file [red]old.json" in one_line(result.stdout)
    assert json.loads(invoke("diff", "[red]old.json", "traces", "-f", "json").stdout)


# ----------------------------------------------------------------------- natural order


def lookup(q: str) -> dict:
    return {"tool": "lookup", "args": {"q": q}}


LOOKUP_TOOL = {"name": "lookup", "input_schema": {"type": "object", "properties": {}}}


def test_flips_are_listed_in_natural_order(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_json(tmp_path / "tools" / "t.json", [LOOKUP_TOOL])
    ids = ["r10", "r2", "r1", "r9", "r11"]
    write_jsonl(
        tmp_path / "traces" / "t.jsonl",
        [{"run_id": i, "case_id": "q", "calls": [lookup("B" if i != "r1" else "C")]} for i in ids],
    )
    write_json(tmp_path / "v1" / "c.json", [{"id": "q", "accept": [[lookup("A")]]}])
    write_json(tmp_path / "v2" / "c.json", [{"id": "q", "accept": [[lookup("B")]]}])
    score_to(tmp_path / "v1.json", "--cases", "v1")

    out = diff_json("v1.json", "traces", "--cases", "v2")

    assert [f["key"] for f in out["flips"]] == ["r2", "r9", "r10", "r11"]  # not r10, r11, r2, r9


def test_the_natural_order_is_total_and_reads_digits_as_numbers():
    ids = ["r10", "r2", "r02", "r1", "a", "1a", "", "r", "x" + "9" * 5000, "x1" + "0" * 20]
    assert sorted(ids, key=natural_key) == [
        "",
        "1a",
        "a",
        "r",
        "r1",
        "r02",
        "r2",
        "r10",
        "x1" + "0" * 20,
        "x" + "9" * 5000,
    ]
    assert sorted(reversed(ids), key=natural_key) == sorted(ids, key=natural_key)


# ------------------------------------------------------------- case flips are true moves


def test_cases_whose_true_pass_fraction_did_not_move_are_not_flips(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tool = {
        "name": "lookup",
        "input_schema": {
            "type": "object",
            "properties": {"q": {"type": "string", "x-eval-norm": "casefold"}},
        },
    }
    write_json(tmp_path / "tools" / "t.json", [tool])
    cases = [{"id": k, "accept": [[lookup("A")]]} for k in ("k", "m")]
    write_json(tmp_path / "cases" / "c.json", cases)

    def runs(prefix: str, k: list[str], m: list[str]) -> list[dict]:
        return [
            {"run_id": f"{prefix}{case}{i}", "case_id": case, "calls": [lookup(q)]}
            for case, qs in (("k", k), ("m", m))
            for i, q in enumerate(qs)
        ]

    # k: 3 of 4 trials pass on both sides; exact-match passes 0 of 4, then 2 of 4
    write_jsonl(tmp_path / "old.jsonl", runs("o", ["a", "a", "a", "x"], ["x"]))
    write_jsonl(tmp_path / "new.jsonl", runs("n", ["A", "A", "a", "x"], ["A"]))

    out = diff_json("old.jsonl", "new.jsonl")

    assert out["pairing"] == "case_id"
    assert [(f["key"], f["old"], f["new"]) for f in out["flips"]] == [("m", 0.0, 1.0)]
    assert out["reported_only"] == 1
    text = one_line(invoke("diff", "old.jsonl", "new.jsonl").stdout)
    assert (
        "Flips: 1 case changed true pass fraction (1 more case changed only their exact-match "
        "pass fraction: not flips)"
    ) in text
    assert "75% → 75%" not in text


# --------------------------------------------------------------- what pairing compared


def test_run_pairing_says_what_both_sides_share(project):
    score_to(project / "old.json")
    write_json(project / "tools" / "billing.json", [search_tool(month_rule=True)])

    out = diff_json("old.json", "traces")

    assert out["pairing"] == "run_id"
    assert out["pairing_reason"] == (
        "both sides hold the same 6 runs (same ids, cases and tools called, and the same "
        "arguments wherever both sides record them)"
    )


def test_the_same_ids_calling_the_same_tools_with_other_arguments_pair_by_case(project):
    score_to(project / "old.json")
    # re-recorded under the same ids: r3 and r4 now ask for other months, tools as before
    moved = [dict(r) for r in RUNS]
    for run, month in ((moved[2], "2026-05"), (moved[3], "2026-06")):
        run["calls"] = [{"tool": "search_invoices", "args": {"customer_id": "C-1", "month": month}}]
    write_jsonl(project / "traces" / "runs.jsonl", moved)

    out = diff_json("old.json", "traces")

    assert out["pairing"] == "case_id"
    assert out["pairing_reason"] == (
        "2 runs' arguments changed (run 'r3': search_invoices.month \"2026-03-15\" → "
        '"2026-05"): the same ids name different recordings'
    )


# -------------------------------------------------------------- causes show their values


def march(month: str, **extra) -> dict:
    call = {"tool": "search_invoices", "args": {"customer_id": "C-1", "month": month}}
    return {"id": "march", "accept": [[call]], **extra}


def test_a_changed_case_shows_the_values_on_both_sides(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    corpus(tmp_path, month_rule=True, cases=[march("2026-03")], runs=RUNS[:3])
    score_to(tmp_path / "old.json")
    write_json(tmp_path / "cases" / "cases.json", [march("2026-04")])

    out = diff_json("old.json", "traces")

    assert [(f["key"], f["cause"]) for f in out["flips"]] == [
        (
            "r1",
            "the calls no longer match any accepted sequence (was #0); "
            'search_invoices.month now differs from the case: "2026-03" ≠ "2026-04"; '
            "exact-match now fails call 0 (search_invoices)",
        ),
        (
            "r2",
            "the calls no longer match any accepted sequence (was #0); no longer equivalent: "
            "search_invoices.month (was through `month`): "
            '"2026-03-01" ≠ "2026-04" (the case had "2026-03")',
        ),
        (
            "r3",
            "the calls no longer match any accepted sequence (was #0); no longer equivalent: "
            "search_invoices.month (was through `month`): "
            '"2026-03-15" ≠ "2026-04" (the case had "2026-03")',
        ),
    ]
    assert [f["shape"] for f in out["flips"]] == [
        {"old": None, "new": None},
        {"old": "encoding", "new": None},
        {"old": "encoding", "new": None},
    ]


def test_an_effect_that_now_fails_says_what_was_found(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    corpus(tmp_path, month_rule=True, cases=[march("2026-03")], runs=RUNS[:3])
    score_to(tmp_path / "old.json")
    refunded = march("2026-03", effect=[{"at": "/refunds", "count": 1}])
    write_json(tmp_path / "cases" / "cases.json", [refunded])

    out = diff_json("old.json", "traces")

    assert out["flips"] == [
        {
            "key": "r3",
            "old": "false_failure",
            "new": "fail",
            "shape": {"old": "encoding", "new": None},
            "cause": "effect now fails: count at /refunds (0 found, 1 expected)",
        }
    ]
    table = one_line(invoke("diff", "old.json", "traces").stdout)
    assert "r3 false_failure (encoding) → fail effect now fails: count at /refunds" in table
