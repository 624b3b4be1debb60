"""OpenTelemetry spans in any order within a file (issue 12 §4): the same runs as their native
form, root first, root last, interleaved or shuffled; the buffer bounds still hold, and what they
drop is reported, never half-scored."""

from __future__ import annotations

import gzip
import io
import json
import random
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from evalrunner import Run, TraceError
from evalrunner.cli import app
from evalrunner.traces import LastLines, Reading, TraceReader, read_runs
from evalrunner.traces.formats.otel import OtelLimits

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
T0 = 1_767_225_600_000_000_000


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
