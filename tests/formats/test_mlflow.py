"""MLflow traces (`formats/mlflow.py`), beyond the scenario every fixture scores in
tests/formats/test_frameworks.py: older schemas, ids kept elsewhere, and records that must be
unscoreable, never a run of no calls."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evalrunner import Run, TraceError
from tests.conftest import FRAMEWORKS, score_fixture
from tests.formats.common import SCENARIO, read_one, verdicts, write


def mlflow_traces() -> list[dict[str, Any]]:
    lines = (FRAMEWORKS / "mlflow-trace-json.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


STORE = sorted((FRAMEWORKS / "mlflow-file-store").glob("*/artifacts/traces.json"))


def test_mlflow_fixtures_are_the_four_runs_of_the_scenario():
    assert len(STORE) == 4 and len(mlflow_traces()) == 4
    doc = score_fixture(FRAMEWORKS / "mlflow-trace-json.jsonl")
    assert {r["run_id"] for r in doc["runs"]} == {t["info"]["trace_id"] for t in mlflow_traces()}


@pytest.mark.parametrize("traces_json", STORE, ids=[p.parts[-3] for p in STORE])
def test_an_mlflow_file_store_traces_json_scores_with_the_case_id_given(traces_json):
    """The file store writes the spans alone in traces.json, the tags in files beside it."""
    case = (traces_json.parent.parent / "tags" / "case_id").read_text()
    doc = score_fixture(traces_json, "--case-id", case)
    assert doc["errors"] == [] and verdicts(doc) == {case: SCENARIO[case]}
    doc = score_fixture(traces_json, exit_code=2)
    [error] = doc["errors"]
    assert error["error"].startswith("mlflow: no case id") and "--case-id" in error["error"]


def _v2(trace: dict[str, Any]) -> dict[str, Any]:
    """A trace as MLflow 2 wrote it: `request_id`, `request_metadata`, spans with `context`,
    `start_time`, `status_code`, and spans of one name de-duplicated (`get_customer_1`)."""
    info = trace["info"]
    spans, names = [], {}
    for span in trace["data"]["spans"]:
        name = span["name"]
        names[name] = names.get(name, 0) + 1
        spans.append(
            {
                "name": f"{name}_{names[name]}" if name.startswith("get_") else name,
                "context": {"span_id": span["span_id"], "trace_id": span["trace_id"]},
                "parent_id": span["parent_span_id"],
                "start_time": span["start_time_unix_nano"],
                "end_time": span["end_time_unix_nano"],
                "status_code": span["status"]["code"].removeprefix("STATUS_CODE_"),
                "status_message": span["status"]["message"],
                "attributes": span["attributes"],
                "events": [],
            }
        )
    return {
        "info": {
            "request_id": info["trace_id"],
            "experiment_id": "0",
            "timestamp_ms": 1,
            "status": info["state"],
            "request_metadata": {},
            "tags": info["tags"],
        },
        "data": {"spans": spans, "request": "{}", "response": "{}"},
    }


def test_mlflow_2_traces_read_as_mlflow_3_traces_do(tmp_path):
    doc = score_fixture(write(tmp_path / "v2.jsonl", [_v2(t) for t in mlflow_traces()]))
    assert doc["errors"] == [] and verdicts(doc) == SCENARIO
    assert [r["calls"][0]["tool"] for r in doc["runs"]] == [
        "get_customer",
        *["get_invoice"] * 2,
        "get_customer",
    ]


def test_mlflow_case_id_in_the_trace_metadata(tmp_path):
    traces = mlflow_traces()
    for t in traces:
        t["info"]["trace_metadata"]["case_id"] = t["info"]["tags"].pop("case_id")
    assert verdicts(score_fixture(write(tmp_path / "meta.jsonl", traces))) == SCENARIO


def _tool_span(trace: dict[str, Any]) -> dict[str, Any]:
    return next(s for s in trace["data"]["spans"] if s["attributes"]["mlflow.spanType"] == '"TOOL"')


def test_an_mlflow_tool_span_without_its_arguments_is_unscoreable():
    trace = mlflow_traces()[1]
    del _tool_span(trace)["attributes"]["mlflow.spanInputs"]
    item = read_one(trace)
    assert isinstance(item, TraceError) and "records no inputs (mlflow.spanInputs)" in item.error
    _tool_span(trace)["attributes"]["mlflow.spanInputs"] = '"I-1"'
    item = read_one(trace)
    assert isinstance(item, TraceError) and "not the arguments object" in item.error


def test_mlflow_model_spans_asking_for_untraced_tools_are_unscoreable_never_zero():
    trace = mlflow_traces()[1]
    tool = _tool_span(trace)
    tool["attributes"]["mlflow.spanType"] = '"CHAT_MODEL"'
    outputs = {"choices": [{"message": {"role": "assistant", "tool_calls": [{"id": "c1"}]}}]}
    tool["attributes"]["mlflow.spanOutputs"] = json.dumps(outputs)
    item = read_one(trace)
    assert isinstance(item, TraceError)
    assert 'no TOOL span, but the CHAT_MODEL span "get_invoice" holds a tool_calls list' in (
        item.error
    )
    # a trace whose spans show no call at all is a run that made none
    del tool["attributes"]["mlflow.spanOutputs"]
    item = read_one(trace)
    assert isinstance(item, Run) and item.calls == () and item.case_id == "lookup"
