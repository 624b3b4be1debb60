"""Trace exports of MLflow, Langfuse, CrewAI and Agno (issue 27), beyond the scenario every
fixture scores in tests/test_frameworks.py: the forms derived from the real fixtures (older
schemas, ids kept elsewhere), and the records that must be unscoreable, never a run of no calls.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalrunner import Run, TraceError
from evalrunner.traces import read_lines
from tests.conftest import score_fixture

DATA = Path(__file__).parent / "data" / "frameworks"
SCENARIO = {
    "retry": ("false_failure", "errored_attempt", ["errored", "exact"]),
    "lookup": ("pass", None, ["exact"]),
    "parallel": ("pass", None, ["exact", "exact"]),
    "raised": ("false_pass", "rejected_call", ["errored"]),
}


def verdicts(doc: dict[str, Any]) -> dict[str, Any]:
    return {
        r["case_id"]: (r["verdict"], r["shape"], [c["label"] for c in r["calls"]])
        for r in doc["runs"]
    }


def write(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def one(record: Any) -> Run | TraceError:
    [item] = read_lines([("t.jsonl:1", json.dumps(record).encode() + b"\n")], "auto")
    return item


# ------------------------------------------------------------------------------------ MLflow


def mlflow_traces() -> list[dict[str, Any]]:
    lines = (DATA / "mlflow-trace-json.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


STORE = sorted((DATA / "mlflow-file-store").glob("*/artifacts/traces.json"))


def test_mlflow_fixtures_are_the_four_runs_of_the_scenario():
    assert len(STORE) == 4 and len(mlflow_traces()) == 4
    doc = score_fixture(DATA / "mlflow-trace-json.jsonl")
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
    item = one(trace)
    assert isinstance(item, TraceError) and "records no inputs (mlflow.spanInputs)" in item.error
    _tool_span(trace)["attributes"]["mlflow.spanInputs"] = '"I-1"'
    item = one(trace)
    assert isinstance(item, TraceError) and "not the arguments object" in item.error


def test_mlflow_model_spans_asking_for_untraced_tools_are_unscoreable_never_zero():
    trace = mlflow_traces()[1]
    tool = _tool_span(trace)
    tool["attributes"]["mlflow.spanType"] = '"CHAT_MODEL"'
    outputs = {"choices": [{"message": {"role": "assistant", "tool_calls": [{"id": "c1"}]}}]}
    tool["attributes"]["mlflow.spanOutputs"] = json.dumps(outputs)
    item = one(trace)
    assert isinstance(item, TraceError)
    assert 'no TOOL span, but the CHAT_MODEL span "get_invoice" holds a tool_calls list' in (
        item.error
    )
    # a trace whose spans show no call at all is a run that made none
    del tool["attributes"]["mlflow.spanOutputs"]
    item = one(trace)
    assert isinstance(item, Run) and item.calls == () and item.case_id == "lookup"


# ------------------------------------------------------------------------------------ CrewAI


def crewai_runs(name: str = "crewai-tool-events") -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DATA / f"{name}.jsonl").read_text().splitlines()]


def test_crewai_tool_events_in_react_mode_are_each_attempt_its_tool_usage_made():
    """Without function calling, CrewAI's ToolUsage tries a failing tool three times: each try
    is an attempt its events show (the started event keeps the arguments as JSON text)."""
    doc = score_fixture(DATA / "crewai-tool-events-react.jsonl")
    assert doc["errors"] == []
    assert verdicts(doc) == {
        "retry": ("false_failure", "errored_attempt", ["errored"] * 3 + ["exact"]),
        "lookup": SCENARIO["lookup"],
        "parallel": SCENARIO["parallel"],
        "raised": ("false_pass", "rejected_call", ["errored"] * 3),
    }


def test_crewai_events_one_a_line_say_how_to_write_a_run(tmp_path):
    doc = score_fixture(write(tmp_path / "events.jsonl", crewai_runs()[0]["events"]), exit_code=2)
    assert doc["runs"] == [] and len(doc["errors"]) == 4
    assert all("one CrewAI event on its own line" in e["error"] for e in doc["errors"])


def test_crewai_finishes_without_starts_are_calls_of_their_own(tmp_path):
    runs = crewai_runs()
    for run in runs:
        run["events"] = [e for e in run["events"] if e["type"] != "tool_usage_started"]
    assert verdicts(score_fixture(write(tmp_path / "ends.jsonl", runs))) == SCENARIO


def test_crewai_ends_pair_by_tool_and_arguments_without_started_event_ids(tmp_path):
    runs = crewai_runs()
    for run in runs:
        for event in run["events"]:
            event["started_event_id"] = None
    assert verdicts(score_fixture(write(tmp_path / "old.jsonl", runs))) == SCENARIO


@pytest.mark.parametrize("args", [None, ["C-1"], 7])
def test_crewai_arguments_that_are_no_object_are_a_malformed_call_never_empty(args):
    """`tool_args` that is neither an object nor its JSON text was read as {}: a silent zero of
    the arguments. The call is malformed, saying what it holds."""
    lookup = crewai_runs()[1]
    events = [{**e, "tool_args": args} for e in lookup["events"]]
    item = one({**lookup, "events": events})
    assert isinstance(item, Run) and item.calls
    assert all(c.malformed is not None and "not an object" in c.malformed for c in item.calls)


def test_crewai_a_reported_failure_and_arguments_the_schema_rejects_are_errored_attempts():
    lookup = crewai_runs()[1]
    started, finished = lookup["events"]
    failed = {**finished, "failure": {"message": "invoice locked", "reason": "tool_failure"}}
    item = one({**lookup, "events": [started, failed]})
    assert isinstance(item, Run) and [c.errored for c in item.calls] == [True]
    invalid = {**started, "type": "tool_validate_input_error", "error": "invoice_id required"}
    item = one({**lookup, "events": [invalid, started, finished]})
    assert isinstance(item, Run) and [c.errored for c in item.calls] == [True, False]


def test_crewai_default_error_text_marks_a_chat_reply_errored():
    messages = crewai_runs("crewai-task-messages")[0]["messages"]
    item = one({"case_id": "retry", "messages": messages})
    assert isinstance(item, Run) and [c.errored for c in item.calls] == [True, False]
    # the same words inside a tool's own data are not its error text
    for m in messages:
        if m["role"] == "tool" and m["content"].startswith("Error executing tool: "):
            m["content"] = "note: " + m["content"]
    item = one({"case_id": "retry", "messages": messages})
    assert isinstance(item, Run) and [c.errored for c in item.calls] == [False, False]


def test_crewai_events_are_read_in_the_order_crewai_emitted_them(tmp_path):
    """CrewAI's event bus runs handlers on a thread pool: a listener may get a tool's error
    before its start (seen in the react fixture's own making). emission_sequence orders them."""
    runs = crewai_runs()
    for run in runs:
        run["events"].reverse()
    assert verdicts(score_fixture(write(tmp_path / "reversed.jsonl", runs))) == SCENARIO


# ---------------------------------------------------------------------------------- Langfuse


def langfuse_spans() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DATA / "langfuse-spans.jsonl").read_text().splitlines()]


def _observed(span: dict[str, Any]) -> Any:
    return span["attributes"].get("langfuse.observation.type")


def test_langfuse_trace_metadata_is_json_text_read_decoded():
    spans = langfuse_spans()
    assert {s["attributes"]["langfuse.trace.metadata.case_id"] for s in spans} == {
        f'"{case}"' for case in SCENARIO
    }
    doc = score_fixture(
        DATA / "langfuse-spans.jsonl", "--group-by", "langfuse.trace.metadata.case_id"
    )
    assert set(doc["summary"]["groups"]) == set(SCENARIO)


def test_langfuse_tool_observations_with_positional_arguments_fall_back_on_the_generations(
    tmp_path,
):
    """`@observe` records a call `tool("C-1")` as {"args": ["C-1"], "kwargs": {}}: no names. The
    generations' tool calls have them, and the tool observations still say which failed."""
    spans = langfuse_spans()
    for span in spans:
        attrs = span["attributes"]
        if _observed(span) == "tool":
            kwargs = json.loads(attrs["langfuse.observation.input"])["kwargs"]
            attrs["langfuse.observation.input"] = json.dumps(
                {"args": [*kwargs.values()]} | {"kwargs": {}}
            )
    assert verdicts(score_fixture(write(tmp_path / "positional.jsonl", spans))) == SCENARIO
    alone = [s for s in spans if _observed(s) != "generation"]
    doc = score_fixture(write(tmp_path / "alone.jsonl", alone), exit_code=2)
    assert doc["runs"] == [] and len(doc["errors"]) == 4
    assert all("not the arguments object" in e["error"] for e in doc["errors"])
    # the content was captured: the advice is the model spans, not a setting that changes nothing
    assert all("content capture" not in e["error"] for e in doc["errors"])
    assert all("export them too" in e["error"] for e in doc["errors"])


def test_langfuse_generations_alone_are_the_calls_but_keep_no_error_flag(tmp_path):
    spans = [s for s in langfuse_spans() if _observed(s) != "tool"]
    path = write(tmp_path / "generations.jsonl", spans)
    doc = score_fixture(path)
    assert doc["errors"] == []
    assert {c: v[0] for c, v in verdicts(doc).items()} == {
        "retry": "fail",
        "lookup": "pass",
        "parallel": "pass",
        "raised": "pass",  # the agent gave up: no reply to the call was ever sent to the model
    }
    # the replies the model was sent are the agent's own error text: --error-pattern names it
    doc = score_fixture(path, "--error-pattern", "^Error: ")
    assert verdicts(doc)["retry"] == SCENARIO["retry"]


def test_langfuse_level_error_alone_marks_an_errored_attempt(tmp_path):
    spans = langfuse_spans()
    for span in spans:
        span["status"] = {"status_code": "UNSET"}
    assert verdicts(score_fixture(write(tmp_path / "level.jsonl", spans))) == SCENARIO
    for span in spans:
        span["attributes"].pop("langfuse.observation.level", None)
    assert verdicts(score_fixture(write(tmp_path / "none.jsonl", spans)))["retry"][0] == "fail"


def test_a_langfuse_trace_that_made_no_call_is_a_run_of_none(tmp_path):
    """Its spans are a convention evalrun reads (langfuse.observation.type): not the guard's
    'no span is in a convention evalrun reads'."""
    spans = [s for s in langfuse_spans() if _observed(s) == "agent"]
    doc = score_fixture(write(tmp_path / "agents.jsonl", spans))
    assert doc["errors"] == [] and [r["calls"] for r in doc["runs"]] == [[]] * 4


# -------------------------------------------------------------------------------------- Agno

JSONDB = DATA / "agno-jsondb"


def test_an_agno_jsondb_runs_table_scores_each_run():
    doc = score_fixture(JSONDB / "agno_runs.json")
    assert doc["errors"] == [] and verdicts(doc) == SCENARIO
    assert score_fixture(JSONDB / "agno_runs.json", "--trace-format", "agno")["runs"] == doc["runs"]
    # the same runs as RunOutput.to_dict() a line: the same verdicts, the same run ids
    outputs = score_fixture(DATA / "agno-run-output.jsonl")
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


# ----------------------------------------------- calls a framework rejected before running them


def rejected_spans() -> list[dict[str, Any]]:
    path = DATA / "pydantic-ai-spans-v5-unknown-tool.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def calls_of(doc: dict[str, Any]) -> list[tuple[str, str]]:
    [run] = doc["runs"]
    return [(c["tool"], c["label"]) for c in run["calls"]]


REJECTED = [("get_client", "errored"), ("get_customer", "exact")]


def test_a_call_pydantic_ai_rejected_before_running_it_is_read_from_its_spans():
    """The model asked for get_client, which the agent has not: pydantic-ai answered "Unknown
    tool name" and ran no tool. Its spans hold the call only in the chat spans; read as the
    messages read it, an errored attempt (the exact-match check fails the run, evalrun not)."""
    spans = score_fixture(DATA / "pydantic-ai-spans-v5-unknown-tool.jsonl")
    messages = score_fixture(DATA / "pydantic-ai-messages-unknown-tool.jsonl")
    assert calls_of(spans) == calls_of(messages) == REJECTED
    assert verdicts(spans) == {"retry": SCENARIO["retry"]}
    assert not any(
        s["attributes"].get("gen_ai.tool.name") == "get_client" for s in rejected_spans()
    )


def _without(spans: list[dict[str, Any]], drop: Any) -> list[dict[str, Any]]:
    for span in spans:
        drop(span["attributes"])
    return spans


def test_a_requested_call_without_a_reply_is_not_read_as_rejected(tmp_path):
    """Nothing says a call no tool span ran was rejected unless the framework answered it (an
    output tool ends the run unanswered; a trace may be cut short): such a call is left out."""

    def no_reply(attrs: dict[str, Any]) -> None:
        if "gen_ai.input.messages" in attrs:
            messages = json.loads(attrs["gen_ai.input.messages"])
            for m in messages:
                m["parts"] = [p for p in m["parts"] if p.get("name") != "get_client"]
            attrs["gen_ai.input.messages"] = json.dumps(messages)

    doc = score_fixture(write(tmp_path / "t.jsonl", _without(rejected_spans(), no_reply)))
    assert calls_of(doc) == [("get_customer", "exact")]


def test_rejected_calls_are_read_only_when_every_tool_span_keeps_its_call_id(tmp_path):
    def no_ids(attrs: dict[str, Any]) -> None:
        attrs.pop("gen_ai.tool.call.id", None)

    doc = score_fixture(write(tmp_path / "t.jsonl", _without(rejected_spans(), no_ids)))
    assert calls_of(doc) == [("get_customer", "exact")]


def test_rejected_calls_keep_their_place_without_start_times(tmp_path):
    spans = rejected_spans()
    for span in spans:
        del span["start_time"]
    assert calls_of(score_fixture(write(tmp_path / "t.jsonl", spans))) == REJECTED


def test_langfuse_observations_of_odd_shapes_are_errors_or_nothing_never_a_crash(tmp_path):
    spans = [
        s
        for s in langfuse_spans()
        if s["attributes"]["langfuse.trace.metadata.case_id"] == '"lookup"'
    ]
    tool = next(s for s in spans if _observed(s) == "tool")
    tool["name"] = ""
    generation = next(s for s in spans if _observed(s) == "generation")
    generation["attributes"]["langfuse.observation.output"] = json.dumps({"tool_calls": "x"})
    doc = score_fixture(write(tmp_path / "odd.jsonl", spans), exit_code=2)
    [error] = doc["errors"]
    assert "a Langfuse tool observation has no name" in error["error"]
