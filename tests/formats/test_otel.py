"""OpenTelemetry spans (`formats/otel.py` and the conventions in `formats/spans/`): a trace a run,
spans assembled per trace, the GenAI, pydantic-ai, OpenInference and OpenLLMetry conventions,
and the calls a framework rejected before running them."""

from __future__ import annotations

import json
from typing import Any

import orjson

from evalrunner import Run, TraceError
from evalrunner.traces import TraceReader
from evalrunner.traces.formats.otel import OtelLimits
from tests.conftest import FRAMEWORKS, score_fixture
from tests.formats.common import (
    BAD_ARGS,
    GOOD,
    RETRY,
    ROOT_SPAN,
    SCENARIO,
    T0,
    TRACE,
    WRONG,
    _observed,
    agent_root,
    batch,
    calls,
    langfuse_spans,
    lines,
    otel_lines,
    otlp_span,
    read,
    sdk_span,
    tool_attrs,
    verdicts,
    write,
)


def test_otel_otlp_batches_grouped_by_trace_ordered_by_start():
    [run] = read(*otel_lines())
    assert calls(run) == RETRY
    assert run.run_id == TRACE  # no evalrun.run_id: the trace id
    assert run.case_id == "lookup"
    assert run.source == "t.jsonl:1"  # the trace's first line
    assert run.calls[1].result == '{"id": "C-1"}'


def test_otel_invalid_arguments_string_is_a_malformed_call():
    [run] = read(*otel_lines(first_args=BAD_ARGS))
    assert calls(run)[0] == ("get_customer", BAD_ARGS, True, True)


def test_otel_one_batch_holding_a_whole_trace_and_run_id_attribute():
    spans = [s for line in otel_lines() for s in line["resourceSpans"][0]["scopeSpans"][0]["spans"]]
    spans[-1]["attributes"].append({"key": "evalrun.run_id", "value": {"stringValue": "otel-1"}})
    [run] = read(batch(*spans))
    assert calls(run) == RETRY and run.run_id == "otel-1"


def test_otel_flat_sdk_spans():
    wrong = tool_attrs("call_a", json.dumps(WRONG))  # failed by its status alone
    good = tool_attrs("call_a", json.dumps(GOOD))
    root = {"gen_ai.operation.name": "invoke_agent", "evalrun.case_id": "lookup"}
    [run] = read(
        sdk_span("00f067aa0ba902b7", ROOT_SPAN, "2026-03-01T10:00:02.000000Z", good),
        sdk_span("00f067aa0ba902b6", ROOT_SPAN, "2026-03-01T10:00:01.000000Z", wrong, error=True),
        sdk_span(ROOT_SPAN, None, "2026-03-01T10:00:00.000000Z", root),
    )
    assert calls(run) == RETRY and run.run_id == TRACE


def test_otel_traces_interleave_and_open_traces_flush_at_file_end():
    other = "0af7651916cd43dd8448eb211c80319c"
    a1, a2, root = otel_lines()
    b_tool = batch(
        otlp_span("b7ad6b7169203331", "b7ad6b7169203330", T0, tool_attrs("x", GOOD), trace=other)
    )
    b_root = batch(
        otlp_span(
            "b7ad6b7169203330",
            "",
            T0,
            {"gen_ai.operation.name": "invoke_agent", "evalrun.case_id": "other"},
            trace=other,
        )
    )
    out = read(a1, b_tool, a2, b_root, root)
    assert [(r.case_id, r.source, len(r.calls)) for r in out] == [
        ("other", "t.jsonl:2", 1),
        ("lookup", "t.jsonl:1", 2),
    ]
    # No root span at all (it lives in another service): the trace ends with the file.
    out = read(
        a1, a2, batch(otlp_span("cccccccccccccccc", ROOT_SPAN, T0, {"evalrun.case_id": "lookup"}))
    )
    assert [calls(r) for r in out] == [RETRY]


def test_otel_span_after_its_trace_was_scored_is_reported():
    a1, a2, root = otel_lines()
    # Within a file, the root in the middle is no end: the trace ends after its last line.
    assert [calls(r) for r in read(a1, root, a2)] == [RETRY]
    # Lines handed over with no pre-pass: the root span ends the trace, and a late span is
    # reported on its own line, never scored as a second, partial run.
    out = list(TraceReader().read(lines(a1, root, a2)))
    assert isinstance(out[0], Run) and calls(out[0]) == [("get_customer", GOOD, False, False)]
    assert isinstance(out[1], TraceError) and out[1].source == "t.jsonl:3"
    assert f"trace {TRACE} arrived after the trace was scored" in out[1].error
    # A trace split across two files: the first file's part is scored when that file ends.
    reader = TraceReader()
    first = list(reader.read(lines(a1, root), last_lines=lambda: None))
    second = list(reader.read([("u.jsonl:1", orjson.dumps(a2))], last_lines=lambda: None))
    assert [type(x) for x in first + second] == [Run, TraceError]
    assert (
        second[0].source == "u.jsonl:1" and "arrived after the trace was scored" in second[0].error
    )


def test_otel_buffer_overflow_is_reported_and_every_record_counted():
    def trace(n):
        tid = f"{n:032x}"
        tool = otlp_span(f"{n:015x}1", f"{n:015x}0", T0, tool_attrs("c", GOOD), trace=tid)
        root = otlp_span(f"{n:015x}0", "", T0, {"evalrun.case_id": "lookup"}, trace=tid)
        return batch(tool), batch(root)

    (t1, r1), (t2, r2), (t3, r3) = trace(1), trace(2), trace(3)
    reader = TraceReader(otel_limits=OtelLimits(max_open_traces=2))
    out = list(reader.read(lines(t1, t2, t3, r2, r1, r3)))
    errors = [o for o in out if isinstance(o, TraceError)]
    runs = [o for o in out if isinstance(o, Run)]
    assert [r.run_id for r in runs] == [f"{2:032x}", f"{3:032x}"]
    assert [e.source for e in errors] == ["t.jsonl:1", "t.jsonl:5"]
    assert "dropped unfinished: the span buffer was full" in errors[0].error
    assert "arrived after the trace was dropped unfinished" in errors[1].error
    assert reader._groupers["otel"].buffered == (0, 0)
    # Three traces, three records: 2 runs + 1 dropped; the late root of the dropped one is a
    # fourth record, reported on its own line.
    assert len(runs) + len(errors) == 4

    # The byte budget: one trace's tool spans alone exceed it.
    reader = TraceReader(otel_limits=OtelLimits(max_bytes=100))
    big = otlp_span("1" * 16, ROOT_SPAN, T0, tool_attrs("c", {"note": "x" * 200}))
    [err] = list(reader.read(lines(batch(big))))
    assert isinstance(err, TraceError) and "dropped unfinished" in err.error


def test_otel_traces_that_cannot_be_runs():
    http = otlp_span(
        "1" * 16, "", T0, {"http.request.method": "GET"}, name="GET /health", trace="a" * 32
    )
    chat = otlp_span(
        ROOT_SPAN, "", T0, {"gen_ai.operation.name": "chat"}, name="chat gpt-4.1", trace="b" * 32
    )
    disagree = batch(
        otlp_span("2" * 16, ROOT_SPAN, T0, {"evalrun.case_id": "a"}),
        agent_root(**{"evalrun.case_id": "b"}),
    )
    no_id = batch(otlp_span("3" * 16, ROOT_SPAN, T0, {}, trace=""))
    out = read(batch(http), batch(chat), disagree, no_id, batch())
    assert all(isinstance(o, TraceError) for o in out), out
    reasons = [o.error for o in out]
    assert (
        "is no agent run: no span has gen_ai.operation.name, openinference.span.kind, "
        "langfuse.observation.type or evalrun.case_id or metadata.case_id" in reasons[0]
    )
    assert "no span has the attribute evalrun.case_id or metadata.case_id" in reasons[1]
    assert "its spans disagree on evalrun.case_id ('a', 'b')" in reasons[2]
    assert "1 span(s) without a trace id" in reasons[3]
    assert "the batch holds no spans" in reasons[4]


def test_otel_world_attribute():
    spans = otel_lines()
    root = spans[2]["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    root["attributes"].append({"key": "evalrun.world", "value": {"stringValue": '{"refunds": []}'}})
    [run] = read(*spans)
    assert run.world == {"refunds": []}


def rejected_spans() -> list[dict[str, Any]]:
    path = FRAMEWORKS / "pydantic-ai-spans-v5-unknown-tool.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def calls_of(doc: dict[str, Any]) -> list[tuple[str, str]]:
    [run] = doc["runs"]
    return [(c["tool"], c["label"]) for c in run["calls"]]


REJECTED = [("get_client", "errored"), ("get_customer", "exact")]


def test_a_call_pydantic_ai_rejected_before_running_it_is_read_from_its_spans():
    """The model asked for get_client, which the agent has not: pydantic-ai answered "Unknown
    tool name" and ran no tool. Its spans hold the call only in the chat spans; read as the
    messages read it, an errored attempt (the exact-match check fails the run, evalrun not)."""
    spans = score_fixture(FRAMEWORKS / "pydantic-ai-spans-v5-unknown-tool.jsonl")
    messages = score_fixture(FRAMEWORKS / "pydantic-ai-messages-unknown-tool.jsonl")
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
