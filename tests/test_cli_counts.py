"""What the commands say about their counts: graded calls against calls made, effects that
fail with their values, counts in words."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app
from tests.conftest import one_line


def get(i: str) -> dict:
    return {"tool": "get", "args": {"id": i}}


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tool = {
        "name": "get",
        "input_schema": {"type": "object", "properties": {"id": {"type": "string"}}},
    }
    cases = [
        {"id": "around", "match": "contains", "accept": [[get("a")]]},
        {
            "id": "scale",
            "accept": [[get("s")]],
            "effect": [{"at": "/replicas/api-gateway@us-east-1", "equals": 5}],
        },
    ]
    runs = [
        # two calls around the sequence: `extra`, left out of the per-call figures
        {"run_id": "r1", "case_id": "around", "calls": [get("x"), get("a"), get("y")]},
        {
            "run_id": "r2",
            "case_id": "scale",
            "calls": [get("s")],
            "world": {"replicas": {"api-gateway@us-east-1": 3}},
        },
    ]
    for name, data in (("tools/t.json", [tool]), ("cases/c.json", cases)):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(json.dumps(data))
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "t.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    return tmp_path


def test_the_header_says_graded_calls_of_calls_made(project):
    table = CliRunner().invoke(app, ["score"])
    assert one_line(table.stdout).startswith("evalrun · 2 runs · 2 graded calls of 4 · traces")
    md = CliRunner().invoke(app, ["score", "--format", "markdown"])
    assert md.stdout.startswith("### evalrun · 2 runs · 2 graded calls of 4")
    summary = json.loads(CliRunner().invoke(app, ["score", "--format", "json"]).stdout)["summary"]
    assert (summary["calls"], summary["all_calls"]) == (2, 4)


def test_an_equals_effect_says_the_value_found_and_expected(project):
    result = CliRunner().invoke(app, ["score", "--show", "failures"])
    assert "equals at /replicas/api-gateway@us-east-1: failed (3 found, 5 expected)" in one_line(
        result.stdout
    )
    runs = json.loads(CliRunner().invoke(app, ["score", "--format", "json"]).stdout)["runs"]
    assert runs[1]["effects"][0]["detail"] == "3 found, 5 expected"


def test_one_unscoreable_line_is_said_in_the_singular(project):
    with open(project / "traces" / "t.jsonl", "a") as f:
        f.write("{oops\n")
    table = CliRunner().invoke(app, ["score"])
    assert "· 1 unscoreable line\n" in table.stdout.replace("\n\n", "\n")
    html = CliRunner().invoke(app, ["score", "--format", "html", "--output", "r.html"])
    assert html.exit_code == 0
    page = (project / "r.html").read_text()
    assert (
        "1</span> unscoreable line," in page
        or "1</span> unscoreable line<" in page
        or "1</span> unscoreable line " in page
    )
    assert "unscoreable lines" not in page.split("<body")[1].split("</header>")[0]
