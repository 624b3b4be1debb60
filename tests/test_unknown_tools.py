"""Calls that name a tool no schema defines are graded (as JSON, under no rule), and the scoring
says so once, in its warnings (stderr, and the results' top-level `warnings`): how many calls,
how many tools, where each is first named. Semantic Kernel's plugin-qualified names are the case
that motivated it (issue 27): read by their function's name they match, and nothing is said."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from evalrunner.cli import app
from evalrunner.summary.unknown_tools import MAX_NAMES, UnknownTools

DATA = Path(__file__).parent / "data" / "frameworks"
SAID = "no schema defines"


def score(path: Path, *args: str) -> tuple[dict[str, Any], str]:
    base = ["--tools", str(DATA / "tools.json"), "--cases", str(DATA / "cases.json")]
    result = CliRunner().invoke(app, ["score", str(path), *base, "--format", "json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), result.stderr


def about_unknown(doc: dict[str, Any]) -> list[str]:
    return [w for w in doc["warnings"] if SAID in w]


def runs(*calls: list[str]) -> str:
    return "".join(
        json.dumps({"case_id": "lookup", "calls": [{"tool": t, "args": {}} for t in c]}) + "\n"
        for c in calls
    )


def test_calls_of_undefined_tools_are_warned_about_once_with_count_and_first_place(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(runs(["get_invoice", "get_client"], ["get_client", "lookup_customer"], []))
    doc, stderr = score(path)
    [warning] = about_unknown(doc)
    assert warning.startswith("3 call(s) in the runs name 2 tool(s) no schema defines: ")
    assert f'"get_client" (first at {path}:1), "lookup_customer" (first at {path}:2)' in warning
    assert stderr.count(SAID) == 1 and f"warning: {warning}" in stderr
    # the runs are still graded: the calls are there, under their own names
    assert [c["tool"] for c in doc["runs"][1]["calls"]] == ["get_client", "lookup_customer"]


def test_runs_that_name_only_defined_tools_warn_of_nothing(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(runs(["get_invoice"], ["get_customer", "get_invoice"]))
    assert about_unknown(score(path)[0]) == []


def test_semantic_kernel_names_read_by_function_match_and_plugin_names_are_warned(tmp_path):
    fixture = DATA / "semantic-kernel-chat-history.jsonl"
    assert about_unknown(score(fixture)[0]) == []
    # the same history without function_name: its calls are named "Billing-get_customer"
    lines = []
    for line in fixture.read_text().splitlines():
        record = json.loads(line)
        for message in record["messages"]:
            for item in message.get("items", []):
                item.pop("function_name", None)
        lines.append(json.dumps(record) + "\n")
    path = tmp_path / "sk.jsonl"
    path.write_text("".join(lines))
    [warning] = about_unknown(score(path)[0])
    assert '"Billing-get_customer" (first at ' in warning and '"Billing-get_invoice"' in warning
    assert warning.startswith("6 call(s) in the runs name 2 tool(s)")


def test_the_warning_is_the_same_under_jobs_and_across_files(tmp_path):
    traces = tmp_path / "traces"
    traces.mkdir()
    for n in range(6):
        (traces / f"{n}.jsonl").write_text(runs(*[["get_invoice", f"tool_{n % 4}"]] * 300))
    one, _ = score(traces)
    assert about_unknown(one) == about_unknown(score(traces, "--jobs", "2")[0])
    [warning] = about_unknown(one)
    assert warning.startswith("1,800 call(s) in the runs name 4 tool(s)")
    assert f'"tool_0" (first at {traces / "0.jsonl"}:1)' in warning and "and 1 more" in warning


def test_names_are_bounded_and_the_count_stays_exact():
    seen = UnknownTools()
    for n in range(3 * MAX_NAMES):
        seen.add(f"t{n}", (0, 3 * MAX_NAMES - n), f"f:{n}")  # later names stand earlier
    other = UnknownTools()
    other.add("t0", (0, 0), "g:1")
    seen.merge(other)
    assert seen.calls == 3 * MAX_NAMES + 1 and len(seen.first) == MAX_NAMES
    warning = seen.warning()
    assert warning is not None and warning.startswith(
        "3,001 call(s) in the runs name 1,000 or more"
    )
    assert '"t0" (first at g:1)' in warning  # the earliest place of a name wins
