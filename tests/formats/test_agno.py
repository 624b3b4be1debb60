"""Agno (`formats/agno.py`): a JsonDb runs table, and where a sessions-table row says the runs are."""

from __future__ import annotations

import json

from tests.conftest import FRAMEWORKS, score_fixture
from tests.formats.common import SCENARIO, verdicts

JSONDB = FRAMEWORKS / "agno-jsondb"


def test_an_agno_jsondb_runs_table_scores_each_run():
    doc = score_fixture(JSONDB / "agno_runs.json")
    assert doc["errors"] == [] and verdicts(doc) == SCENARIO
    assert score_fixture(JSONDB / "agno_runs.json", "--trace-format", "agno")["runs"] == doc["runs"]
    # the same runs as RunOutput.to_dict() a line: the same verdicts, the same run ids
    outputs = score_fixture(FRAMEWORKS / "agno-run-output.jsonl")
    assert [r["run_id"] for r in outputs["runs"]] == [r["run_id"] for r in doc["runs"]]


def test_an_agno_sessions_table_says_where_the_runs_are():
    doc = score_fixture(JSONDB / "agno_sessions.json", exit_code=2)
    assert doc["runs"] == [] and len(doc["errors"]) == 4
    assert all("score the runs table (agno_runs.json)" in e["error"] for e in doc["errors"])


def test_agno_tool_call_error_is_what_marks_the_failed_call(tmp_path):
    rows = json.loads((JSONDB / "agno_runs.json").read_text())
    for row in rows:
        for m in row["run_data"]["messages"]:
            m.pop("tool_call_error", None)
    path = tmp_path / "agno_runs.json"
    path.write_text(json.dumps(rows, indent=2))
    # Agno's reply is the exception's text alone: without the flag, a call that succeeded
    assert {c: v[0] for c, v in verdicts(score_fixture(path)).items()}["retry"] == "fail"
