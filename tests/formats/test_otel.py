"""OpenTelemetry spans (`formats/otel.py` and the conventions in `formats/spans/`): a trace a run,
spans assembled per trace, the GenAI, pydantic-ai, OpenInference and OpenLLMetry conventions,
and the calls a framework rejected before running them."""

from __future__ import annotations

import gzip
import io
import json
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from evalrunner import Run, TraceError
from evalrunner.cli import app
from evalrunner.traces import LastLines, Reading, TraceReader, read_runs
from evalrunner.traces.formats.otel import OtelLimits
from tests.conftest import FRAMEWORKS, score_fixture
from tests.formats.common import (
    BAD_ARGS,
    GOOD,
    RETRY,
    REVIEW,
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
    read_file,
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
        "langfuse.observation.type, ai.operationId, haystack.agent.max_steps or evalrun.case_id "
        "or metadata.case_id" in reasons[0]
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


# ------------------------------------------------------------- spans in any order within a file
# OpenTelemetry spans in any order within a file (issue 12 §4): the same runs as their native
# form, root first, root last, interleaved or shuffled; the buffer bounds still hold, and what they
# drop is reported, never half-scored.


TOOLS = [
    {
        "name": "get_customer",
        "input_schema": {
            "type": "object",
            "properties": {"customer_id": {"type": "string", "x-eval-norm": "casefold"}},
        },
    },
    {"name": "list_invoices", "input_schema": {"type": "object", "properties": {}}},
]


CASES = [
    {"id": "lookup", "accept": [[{"tool": "get_customer", "args": {"customer_id": "C-1"}}]]},
    {
        "id": "invoices",
        "match": "unordered",
        "accept": [
            [
                {"tool": "list_invoices", "args": {}},
                {"tool": "get_customer", "args": {"customer_id": "C-2"}},
            ]
        ],
    },
]


def run_calls(n: int) -> tuple[str, list[dict]]:
    """Run n's case and native calls: a retry after an error, an equivalent call, a pass, a
    failure, a loop."""
    kind = n % 5
    if kind == 0:
        return "lookup", [
            {"tool": "get_customer", "args": {"customer_id": "C-9"}, "error": "NotFound"},
            {"tool": "get_customer", "args": {"customer_id": "C-1"}},
        ]
    if kind == 1:
        return "lookup", [{"tool": "get_customer", "args": {"customer_id": "c-1"}}]
    if kind == 2:
        return "invoices", [
            {"tool": "get_customer", "args": {"customer_id": "C-2"}},
            {"tool": "list_invoices", "args": {}},
        ]
    if kind == 3:
        return "invoices", [{"tool": "list_invoices", "args": {}}]
    return "lookup", [{"tool": "get_customer", "args": {"customer_id": "C-1"}}] * 2


def trace_spans(n: int) -> tuple[dict, list[dict]]:
    """Run n as its native record and as spans: a root (the agent, with the ids), a chat span,
    and a tool span per call, each with its start time; every other trace as OTLP batches."""
    case_id, calls = run_calls(n)
    trace = f"{n + 1:032x}"
    root = f"{n + 1:08x}00000000"

    def span(i: int, parent: str, attrs: dict, error: bool = False) -> dict:
        at = T0 + n * 10_000 + i * 100
        if n % 2:
            return {
                "name": "span",
                "context": {"trace_id": f"0x{trace}", "span_id": f"0x{n + 1:08x}{i:08x}"},
                "parent_id": f"0x{parent}" if parent else None,
                "start_time": f"2026-01-01T00:00:{n % 60:02d}.{i:06d}Z",
                "status": {"status_code": "ERROR" if error else "UNSET"},
                "attributes": attrs,
            }
        kv = [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()]
        otlp = {
            "traceId": trace,
            "spanId": f"{n + 1:08x}{i:08x}",
            "parentSpanId": parent,
            "name": "span",
            "startTimeUnixNano": str(at),
            "attributes": kv,
            "status": {"code": 2} if error else {},
        }
        return {"resourceSpans": [{"scopeSpans": [{"spans": [otlp]}]}]}

    spans = [
        span(
            0,
            "",
            {
                "gen_ai.operation.name": "invoke_agent",
                "evalrun.case_id": case_id,
                "evalrun.run_id": f"r{n}",
            },
        ),
        span(1, root, {"gen_ai.operation.name": "chat"}),
    ]
    for i, call in enumerate(calls, start=2):
        attrs = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": call["tool"],
            "gen_ai.tool.call.arguments": json.dumps(call["args"]),
        }
        if "error" in call:
            attrs["error.type"] = call["error"]
        spans.append(span(i, root, attrs, error="error" in call))
    native = {"run_id": f"r{n}", "case_id": case_id, "calls": calls}
    return native, spans


RUNS = 25


def corpus(order: str) -> tuple[list[dict], list[dict]]:
    """(native records, span lines) of the same runs, the spans in `order`."""
    natives, traces = zip(*(trace_spans(n) for n in range(RUNS)))
    if order == "root_last":
        lines = [s for spans in traces for s in [*spans[1:], spans[0]]]
    elif order == "root_first":
        lines = [s for spans in traces for s in spans]
    elif order == "interleaved":
        # round-robin over the traces, roots first in some, last in others
        queues = [
            list(spans if n % 3 else [*spans[1:], spans[0]]) for n, spans in enumerate(traces)
        ]
        lines = []
        while any(queues):
            for q in queues:
                if q:
                    lines.append(q.pop(0))
    else:
        lines = [s for spans in traces for s in spans]
        random.Random(12).shuffle(lines)
    return list(natives), lines


def project(tmp_path: Path, name: str, records: list[dict]) -> Path:
    for d, body in (("tools", TOOLS), ("cases", CASES)):
        (tmp_path / d).mkdir(exist_ok=True)
        (tmp_path / d / "x.json").write_text(json.dumps(body))
    (tmp_path / "traces").mkdir(exist_ok=True)
    data = b"".join(orjson.dumps(r) + b"\n" for r in records)
    path = tmp_path / "traces" / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return path


def score(tmp_path: Path, path: Path | str, *args: str, stdin: bytes | None = None) -> dict:
    result = CliRunner().invoke(
        app,
        [
            "score",
            str(path),
            "--tools",
            str(tmp_path / "tools"),
            "--cases",
            str(tmp_path / "cases"),
            "--format",
            "json",
            *args,
        ],
        input=stdin,
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def by_run(doc: dict) -> dict[str, dict]:
    """Each run's result without its source (a span run's is its first span's line)."""
    return {r["run_id"]: {k: v for k, v in r.items() if k != "source"} for r in doc["runs"]}


@pytest.mark.parametrize("order", ["root_last", "root_first", "interleaved", "shuffled"])
def test_spans_in_any_order_score_as_their_native_form(tmp_path, order):
    natives, spans = corpus(order)
    native = score(tmp_path, project(tmp_path, "native.jsonl", natives))
    assert native["errors"] == [] and len(native["runs"]) == RUNS
    verdicts = {r["verdict"] for r in native["runs"]}
    assert verdicts == {"pass", "fail", "false_failure", "false_pass"}
    path = project(tmp_path, "spans.jsonl", spans)
    doc = score(tmp_path, path)
    assert doc["errors"] == []
    assert by_run(doc) == by_run(native)
    # the same summary (its examples name a source: a span run's is its first span's line)
    assert {**doc["summary"], "examples": None} == {**native["summary"], "examples": None}
    # --jobs: the span file is read in this process, byte for byte the same output
    assert score(tmp_path, path, "--jobs", "2") == doc
    # gzip, and standard input (spooled to a temporary file: it starts with spans)
    assert by_run(score(tmp_path, project(tmp_path, "spans.jsonl.gz", spans))) == by_run(native)
    piped = score(tmp_path, "-", stdin=path.read_bytes())
    assert by_run(piped) == by_run(native)


def test_pretty_printed_spans_in_any_order(tmp_path):
    """ConsoleSpanExporter writes `to_json()` with indent=4: a trace id stands on a line below
    its record's first line."""
    natives, spans = corpus("root_first")
    flat = [s for s in spans if "context" in s]
    text = "".join(json.dumps(s, indent=4) + "\n" for s in flat)
    (tmp_path / "traces").mkdir()
    path = tmp_path / "traces" / "console.jsonl"
    path.write_text(text)
    project(tmp_path, "native.jsonl", [n for i, n in enumerate(natives) if i % 2])
    (tmp_path / "traces" / "native.jsonl").rename(tmp_path / "native.jsonl")
    native = score(tmp_path, tmp_path / "native.jsonl")
    doc = score(tmp_path, path)
    assert doc["errors"] == [] and by_run(doc) == by_run(native)
    assert score(tmp_path, path, "--jobs", "2") == doc


def test_standard_input_whose_spans_start_late_is_grouped_by_root():
    """Standard input is spooled when its first block (1 MiB) holds trace ids; spans that start
    later in it are grouped as they come: a trace ends with its root span (docs say so)."""
    native = orjson.dumps({"run_id": "n", "case_id": "lookup", "calls": []}) + b"\n"
    pad = native * (2**20 // len(native) + 1)
    for order in ("root_last", "root_first"):
        _, spans = corpus(order)
        data = pad + b"".join(orjson.dumps(r) + b"\n" for r in spans)
        items = list(read_runs(["-"], stdin=io.BytesIO(data)))
        errors = [i for i in items if isinstance(i, TraceError)]
        # root first: every other span of a trace comes after its root ended it
        late = 0 if order == "root_last" else len(spans) - RUNS
        assert len(errors) == late and all("arrived after" in e.error for e in errors)
        # the same bytes starting with the spans: spooled, and read in any order
        data = b"".join(orjson.dumps(r) + b"\n" for r in spans) + pad
        assert not any(isinstance(i, TraceError) for i in read_runs(["-"], stdin=io.BytesIO(data)))


def test_the_buffer_bounds_hold_and_what_they_drop_is_reported(tmp_path):
    natives, spans = corpus("interleaved")
    path = project(tmp_path, "spans.jsonl", spans)
    lines = [(f"{path}:{i}", line) for i, line in enumerate(path.read_bytes().splitlines(), 1)]
    last = LastLines.of_lines(lines)
    reader = TraceReader(otel_limits=OtelLimits(max_open_traces=5))
    out = list(reader.read(lines, last_lines=lambda: last))
    runs = [o for o in out if isinstance(o, Run)]
    dropped = [o for o in out if isinstance(o, TraceError) and "dropped unfinished: the" in o.error]
    late = [o for o in out if isinstance(o, TraceError) and "arrived after" in o.error]
    assert runs and dropped and len(runs) + len(dropped) == RUNS
    assert len(out) == len(runs) + len(dropped) + len(late)
    assert "before its last line" in dropped[0].error
    # a trace scored is whole: exactly its native calls
    expected = {n["run_id"]: len(n["calls"]) for n in natives}
    assert all(len(r.calls) == expected[r.run_id] for r in runs)
    assert reader._groupers["otel"].buffered == (0, 0)


def test_the_pre_pass_is_conservative():
    """A trace id named anywhere later (a link, an attribute) only makes its trace wait."""
    last = LastLines()
    last.feed(b'{"traceId": "0xAB", "x": 1}\n\n{"links": [{"trace_id": "ab"}]}\n{"other"')
    last.feed(b': 1, "trace_id": "cd"}\n{"object": "trace", "id": "trace_9"}')
    last.close()
    assert (last.get("ab"), last.get("0xab"), last.get("cd"), last.get("trace_9")) == (3, 3, 4, 5)
    assert last.get("ef") is None
    capped = LastLines(max_traces=1)
    capped.feed(b'{"traceId": "a"}\n{"traceId": "b"}\n{"traceId": "a"}\n')
    assert (capped.get("a"), capped.get("b"), capped.full) == (3, None, True)
    # a line longer than the reader reads, fed in pieces: skipped, not held, still counted
    data = b'{"traceId": "a"}\n{"traceId": "b", "pad": "' + b"x" * 40 + b'"}\n\n{"traceId": "a"}'
    long = LastLines(max_line=20)
    for at in range(0, len(data), 7):
        long.feed(data[at : at + 7])
    long.close()
    assert (long.get("a"), long.get("b")) == (4, None)


def test_reading_options_reach_a_file_read_in_any_order(tmp_path):
    _, spans = corpus("shuffled")
    path = project(tmp_path, "spans.jsonl", spans)
    items = list(read_runs([path], reading=Reading("otel", run_key="evalrun.run_id")))
    assert sorted(i.run_id for i in items) == sorted(f"r{n}" for n in range(RUNS))


def test_a_span_attribute_holding_an_integer_beyond_64_bits_is_read_exactly():
    """A TOOL span's input with 123456789012345678901234: read exactly, and held without a crash
    (the grouper measured what it holds with plain orjson, which refuses such integers)."""
    [run] = read_file(REVIEW / "openinference-big-int.jsonl")
    assert isinstance(run, Run), run
    assert run.calls[0].args == {"customer_id": "C-1", "n": 123456789012345678901234}


# ------------------------------------------------------------------ a tool span it cannot read


def _unnamed_first_tool(spans: list[dict]) -> list[dict]:
    """The spans with the first execute_tool span's tool name taken away (the retry's first
    attempt: the call the tool rejected)."""
    out, done = [], False
    for span in spans:
        if not done and span["name"].startswith("execute_tool"):
            attrs = {k: v for k, v in span["attributes"].items() if k != "gen_ai.tool.name"}
            span, done = {**span, "attributes": attrs}, True
        out.append(span)
    return out


def test_a_tool_span_it_cannot_read_is_never_left_out_of_the_run(tmp_path):
    """A tool span with no tool name beside spans that read: the run was graded without that
    call (the retry's rejected attempt gone: a false failure scored as a plain pass). Nor can the
    model spans' requests stand in (whether it failed is on its span alone): unscoreable."""
    fixture = FRAMEWORKS / "pydantic-ai-spans-v5-flat.jsonl"
    spans = [json.loads(line) for line in fixture.read_text().splitlines()]
    doc = score_fixture(write(tmp_path / "unnamed.jsonl", _unnamed_first_tool(spans)))
    [error] = [e for e in doc["errors"] if "cannot read is not left out" in e["error"]]
    assert "1 tool call(s) read, but" in error["error"]
    assert "has no gen_ai.tool.name" in error["error"]
    assert "retry" not in verdicts(doc)
    assert verdicts(doc) == {k: v for k, v in SCENARIO.items() if k != "retry"}


def test_base64_trace_ids_that_differ_in_case_are_two_traces():
    """protobuf's JSON mapping writes a trace id as base64, which tells `a` from `A`: lowering
    it (as hex ids are) would make two traces one run. Hex ids still meet in one spelling."""
    ids = ("W47/95gDgQPSabYzgT/GDA==", "w47/95gDgQPSabYzgT/GDA==")
    good = tool_attrs("call_a", GOOD, result='{"id": "C-1"}')
    spans = [
        span
        for n, trace in enumerate(ids)
        for span in (
            otlp_span(f"00f067aa0ba902b{n}", ROOT_SPAN, T0 + 1_000, good, trace=trace),
            agent_root(trace=trace, **{"evalrun.case_id": "lookup"}),
        )
    ]
    runs = read(batch(*spans))
    assert sorted(r.run_id for r in runs) == sorted(ids)
    assert all(len(r.calls) == 1 for r in runs)
    hex_spans = [
        otlp_span("00f067aa0ba902b7", ROOT_SPAN, T0 + 1_000, good, trace="0X" + TRACE.upper()),
        agent_root(**{"evalrun.case_id": "lookup"}),
    ]
    [run] = read(batch(*hex_spans))
    assert run.run_id == TRACE and len(run.calls) == 1
