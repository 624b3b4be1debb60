"""`score --reported list`: the plain `calls == expected` check beside SPEC's per-call reading,
on real files, and recorded in the results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app

TOOLS = [
    {"name": "get", "input_schema": {"type": "object", "properties": {"id": {"type": "string"}}}},
    {"name": "poll", "input_schema": {"type": "object"}, "x-eval-repeatable": True},
]


def get(i: str) -> dict:
    return {"tool": "get", "args": {"id": i}}


CASES = [
    {"id": "one", "accept": [[get("a")]]},
    {"id": "around", "match": "contains", "accept": [[get("a")]]},
    {"id": "polls", "accept": [[{"tool": "poll", "args": {}}, get("a")]]},
]
RUNS = [
    {"run_id": "exact", "case_id": "one", "calls": [get("a")]},
    # a loop: each call is right on its own, so the per-call assertion passes it
    {"run_id": "loop", "case_id": "one", "calls": [get("a"), get("a")]},
    # contains: a call around the sequence is allowed
    {"run_id": "extra", "case_id": "around", "calls": [get("b"), get("a")]},
    # polling twice, to a repeatable tool
    {
        "run_id": "poll",
        "case_id": "polls",
        "calls": [{"tool": "poll", "args": {}}, {"tool": "poll", "args": {}}, get("a")],
    },
    {"run_id": "wrong", "case_id": "one", "calls": [get("z")]},
]


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, data in (("tools/t.json", TOOLS), ("cases/c.json", CASES)):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(json.dumps(data))
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "t.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RUNS))
    return tmp_path


def scored(*args: str) -> dict:
    result = CliRunner().invoke(app, ["score", "--format", "json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def verdicts(out: dict) -> dict:
    return {r["run_id"]: (r["verdict"], r["shape"]) for r in out["runs"]}


def test_the_per_call_reading_forgives_repeats_and_follows_match(project):
    out = scored()
    assert out["summary"]["reported_reading"] == "per-call"
    assert verdicts(out) == {
        "exact": ("pass", None),
        "loop": ("false_pass", "redundant_call"),
        "extra": ("pass", None),
        "poll": ("pass", None),
        "wrong": ("fail", None),
    }


def test_the_list_reading_compares_the_whole_list(project):
    out = scored("--reported", "list")
    assert out["summary"]["reported_reading"] == "list"
    assert verdicts(out) == {
        "exact": ("pass", None),
        "loop": ("fail", None),  # the loop is a reported failure too now
        "extra": ("false_failure", "unjudged"),  # the call contains allows, not judged
        "poll": ("false_failure", "unjudged"),
        "wrong": ("fail", None),
    }
    assert out["summary"]["reported"]["failed_runs"] == 4
    assert out["summary"]["true"]["failed_runs"] == 2  # the truth does not move
    assert "internal_errors" not in out["summary"]


def test_the_table_says_which_reading_it_shows(project):
    per_call = CliRunner().invoke(app, ["score"])
    text = " ".join(per_call.stdout.split())
    assert "so an exact repeat passes (--reported list compares the whole call list)" in text
    listed = CliRunner().invoke(app, ["score", "--reported", "list"])
    assert "repeats and errored attempts and all (--reported list)" in " ".join(
        listed.stdout.split()
    )
    md = CliRunner().invoke(app, ["score", "--format", "markdown", "--reported", "list"])
    assert "(--reported list)" in md.stdout
    page = CliRunner().invoke(
        app, ["score", "--format", "html", "--output", "r.html", "--reported", "list"]
    )
    assert page.exit_code == 0
    assert (
        "repeats and errored attempts and all (--reported list)" in (project / "r.html").read_text()
    )


def test_the_reading_is_a_setting(project):
    (project / "evalrun.toml").write_text('reported = "list"\n')
    assert scored()["summary"]["reported_reading"] == "list"
    (project / "evalrun.toml").write_text('reported = "whole"\n')
    result = CliRunner().invoke(app, ["score"])
    assert result.exit_code == 2
    assert 'reported must be "per-call" or "list"' in " ".join(result.stderr.split())


def test_the_reading_is_in_the_results_schema():
    schema = json.loads(
        (Path(__file__).parent.parent / "evalrunner" / "results.schema.json").read_text()
    )
    assert "reported_reading" in schema["$defs"]["summary"]["properties"]


def diffed(*args: str, exit_code: int = 0):
    result = CliRunner().invoke(app, ["diff", *args])
    assert result.exit_code == exit_code, result.output
    return result


def test_diff_refuses_sides_that_read_the_reported_check_differently(project):
    """A results file scored with --reported list against the same traces scored per call gave
    three flips (loop, extra, poll) and a reported rate 60 points lower, with no true verdict
    moved: the reading, not a change."""
    for args in (["--reported", "list", "-o", "list.json"], ["-o", "per-call.json"]):
        assert CliRunner().invoke(app, ["score", "-f", "json", *args]).exit_code == 0
    mixed = diffed("list.json", "traces", exit_code=2)
    assert " ".join(mixed.stderr.split()) == (
        "error: OLD (list.json) is a results file scored with --reported list, NEW (traces) is "
        "scored with --reported per-call: the reported verdicts would compare two readings of "
        "exact-match, not two scorings; give --reported list to score the other side alike"
    )
    both = diffed("per-call.json", "list.json", exit_code=2)
    assert "score one of them again with the other's --reported" in " ".join(both.stderr.split())
    # read alike, nothing moved
    out = json.loads(diffed("list.json", "traces", "--reported", "list", "-f", "json").stdout)
    assert out["flips"] == [] and out["delta"]["reported_run_failure_rate"] == 0.0
    assert out["new"]["summary"]["reported_reading"] == "list"
    assert json.loads(diffed("per-call.json", "traces", "-f", "json").stdout)["flips"] == []


def test_diff_takes_the_reading_from_the_settings(project):
    listed = ["score", "--reported", "list", "-f", "json", "-o", "list.json"]
    assert CliRunner().invoke(app, listed).exit_code == 0
    (project / "evalrun.toml").write_text('reported = "list"\n')
    out = json.loads(diffed("list.json", "traces", "-f", "json").stdout)
    assert out["flips"] == [] and out["new"]["summary"]["reported_reading"] == "list"
    # a flag wins over the file
    diffed("list.json", "traces", "--reported", "per-call", exit_code=2)
