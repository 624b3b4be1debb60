"""Read the traces people already have: OpenAI Chat Completions and Responses logs, Anthropic
Messages transcripts, MCP call logs and OpenTelemetry GenAI spans.

Each adapter turns a foreign record into the native run record of SPEC "Traces" (`calls` of
`{tool, args, result?, error flags}`, `world`, `meta`), read by `traces.parse_record`, so
errored attempts, malformed arguments and unreadable calls follow one rule, in one place. The
format is detected per line, or forced; docs/trace-formats.md shows each format.

Every adapter but OpenTelemetry reads one run a line. OpenTelemetry exports one span (or one batch
of spans) a line, so its spans are buffered per trace until the trace's root span ends (or the file
ends), within the bounds of `OtelLimits`.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from enum import Enum
from typing import Any, NamedTuple

import orjson
from dateutil.parser import isoparse

from .jsonvalue import json_kind
from .model import MISSING, InputError, Run, TraceError
from .traces import not_json, parse_record


class NativeRecord(NamedTuple):
    """A run record in the native format (SPEC "Traces"), and the `file:line` it was read from."""

    record: dict[str, Any]
    source: str


class TraceFormat(str, Enum):
    """What `--trace-format` accepts: one format for every line, or `auto` to detect per line."""

    auto = "auto"
    native = "native"
    openai_chat = "openai-chat"
    openai_responses = "openai-responses"
    anthropic = "anthropic"
    mcp = "mcp"
    otel = "otel"


FORMATS = tuple(f.value for f in TraceFormat if f is not TraceFormat.auto)
UNKNOWN_SHAPE = (
    'the record is in no known trace format (tried: native (a "calls" list), openai-chat, '
    'anthropic and mcp (a "messages" list), openai-responses ("input"/"output" items), '
    "otel (a span or resourceSpans))"
)

# Where a run's ids live by default, for every format but OpenTelemetry: the first one present.
DEFAULT_PATHS = ((("case_id",), ("metadata", "case_id")), (("run_id",), ("metadata", "run_id")))
NATIVE_PATHS = ((("case_id",),), (("run_id",),))
# OpenTelemetry: span attributes, on any span of the trace.
OTEL_CASE_ATTR = "evalrun.case_id"
OTEL_RUN_ATTR = "evalrun.run_id"
OTEL_WORLD_ATTR = "evalrun.world"


@dataclass(frozen=True)
class OtelLimits:
    """How much the OpenTelemetry reader may buffer while it waits for traces to end.

    Only tool spans are kept (their name, arguments, result and start time); any other span costs
    a counter. A trace is flushed when its root span ends, or at the end of the file. When more
    traces are open than `max_open_traces`, or the tool spans held take more than `max_bytes`
    (counted as JSON text: held as the JSON strings exporters write, they take about 1.6 times
    that in memory, a few times that when written as OTLP key/value lists), the least recently
    extended trace is dropped and reported as unscoreable. `max_closed_traces` ids of finished
    traces are remembered, so that a span arriving after its trace was scored is reported rather
    than scored as a second, partial run.
    """

    max_open_traces: int = 1000
    max_bytes: int = 32 * 2**20
    max_closed_traces: int = 20_000


class TraceReader:
    """Read trace lines into runs: in one format, or (`auto`) in whichever format each line is in.

    One reader serves one scoring: it remembers which OpenTelemetry traces it has finished across
    files. `case_key` and `run_key` say where a run's ids live instead of the defaults: a dotted
    path into the record (`request.metadata.task`), or for OpenTelemetry a span attribute's name.
    """

    def __init__(
        self,
        trace_format: TraceFormat | str = TraceFormat.auto,
        *,
        case_key: str | None = None,
        run_key: str | None = None,
        otel_limits: OtelLimits | None = None,
    ) -> None:
        try:
            self.format = TraceFormat(trace_format)
        except ValueError:
            choices = ", ".join(f.value for f in TraceFormat)
            raise InputError(f"unknown trace format {trace_format!r} (one of: {choices})") from None
        for flag, key in (("--case-key", case_key), ("--run-key", run_key)):
            if key is not None and (not key or any(not part for part in key.split("."))):
                raise InputError(f"{flag} {key!r}: give a dotted path like metadata.case_id")
        self.case_key = case_key
        self.run_key = run_key
        self._case_paths = None if case_key is None else (tuple(case_key.split(".")),)
        self._run_paths = None if run_key is None else (tuple(run_key.split(".")),)
        self._keyed = case_key is not None or run_key is not None
        self.otel = OtelGrouper(
            otel_limits or OtelLimits(),
            case_attr=case_key or OTEL_CASE_ATTR,
            run_attr=run_key or OTEL_RUN_ATTR,
        )

    def read(self, lines: Iterable[tuple[str, Any]]) -> Iterator[Run | TraceError]:
        """Runs (or unscoreable records) from (`file:line`, bytes) pairs, as `iter_lines` gives.

        OpenTelemetry traces still open when the lines end are flushed then: call once per file.
        """
        for item in self.records(lines):
            yield item if type(item) is TraceError else parse_record(item.record, item.source)

    def records(self, lines: Iterable[tuple[str, Any]]) -> Iterator[NativeRecord | TraceError]:
        """`read`, stopping short of parsing: native run records, as the grader's memo takes them
        (`Grader.grade_record`)."""
        native_first = self.format in (TraceFormat.auto, TraceFormat.native) and not self._keyed
        for source, line in lines:
            if type(line) is TraceError:
                yield line
                continue
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                yield not_json(line, source)
                continue
            # The hot path: a native run, told apart by one lookup before any detection.
            if native_first and type(record) is dict and type(record.get("calls")) is list:
                yield NativeRecord(record, source)
            else:
                yield from self.read_record(record, source)
        yield from self.otel.flush()

    def read_record(self, record: Any, source: str) -> Iterator[NativeRecord | TraceError]:
        """The run(s) one decoded line holds: none yet for a span whose trace is still open."""
        fmt = self.format.value if self.format is not TraceFormat.auto else detect(record)
        if fmt is None:
            if type(record) is dict:
                keys = ", ".join(list(record)[:8]) or "none"
                yield TraceError(source, f"{UNKNOWN_SHAPE}; its keys: {keys}")
            else:
                yield TraceError(source, f"{UNKNOWN_SHAPE}; the line is {json_kind(record)}")
            return
        if fmt == "otel":
            yield from self.otel.add(record, source)
            return
        if type(record) is not dict:
            yield TraceError(source, f"{fmt}: the line is {json_kind(record)}, not an object")
            return
        if fmt == "native":
            calls = record.get("calls")
        else:
            calls = ADAPTERS[fmt](record)
            if not calls and self.format is not TraceFormat.auto:
                calls = _not_elsewhere(record, fmt) or calls
            if type(calls) is str:
                yield TraceError(source, f"{fmt}: {calls}")
                return
        # A native run's ids are top-level; other formats fall back to `metadata`.
        defaults = NATIVE_PATHS if fmt == "native" else DEFAULT_PATHS
        case_id = _first(record, self._case_paths or defaults[0])
        if case_id is MISSING and self.case_key is not None:
            yield TraceError(source, f'{fmt}: no case id at "{self.case_key}" (--case-key)')
            return
        if case_id is MISSING and fmt != "native":
            yield TraceError(source, f'{fmt}: no case id (looked at "case_id", "metadata.case_id")')
            return
        run_id = _first(record, self._run_paths or defaults[1])
        if run_id is MISSING and self.run_key is not None:
            yield TraceError(source, f'{fmt}: no run id at "{self.run_key}" (--run-key)')
            return
        native = {
            "case_id": None if case_id is MISSING else case_id,
            "run_id": None if run_id is MISSING else run_id,
            "calls": calls,
            "world": record.get("world"),
            "meta": record.get("meta"),
        }
        yield NativeRecord(native, source)


def read_lines(
    lines: Iterable[tuple[str, Any]],
    trace_format: TraceFormat | str = TraceFormat.auto,
    **keys: Any,
) -> list[Run | TraceError]:
    """Every run in (`file:line`, bytes) pairs, read by a fresh reader (tests, notebooks)."""
    return list(TraceReader(trace_format, **keys).read(lines))


def _not_elsewhere(record: dict[str, Any], fmt: str) -> str | None:
    """Why a record read as `fmt` with no calls is not a run without calls: its calls are in
    another format's shapes (a forced format must not score a Chat log as an empty Anthropic
    run)."""
    other = detect(record)
    if other is None or other == fmt or other not in ADAPTERS:
        return None
    found = ADAPTERS[other](record)
    if type(found) is list and found:
        return f"no {fmt} tool calls, but {len(found)} in {other} shapes"
    return None


def _first(record: dict[str, Any], paths: tuple[tuple[str, ...], ...]) -> Any:
    """The value at the first of `paths` that leads to one (not null), else MISSING."""
    for path in paths:
        value: Any = record
        for part in path:
            if type(value) is dict:
                value = value.get(part)
            elif type(value) is list and part.isdigit() and int(part) < len(value):
                value = value[int(part)]
            else:
                value = None
            if value is None:
                break
        if value is not None:
            return value
    return MISSING


# ------------------------------------------------------------------------------------ detection


def detect(record: Any) -> str | None:
    """The format a decoded line is in, from its shape; None when it is in none of them."""
    if type(record) is not dict:
        return None
    if type(record.get("calls")) is list:
        return "native"
    if type(record.get("resourceSpans")) is list or _is_flat_span(record):
        return "otel"
    messages = record.get("messages")
    if type(messages) is list:
        return _messages_format(messages)
    if record.get("type") == "message" and type(record.get("content")) is list:
        return "anthropic"  # a Messages API response on its own
    if type(record.get("choices")) is list:
        return "openai-chat"  # a ChatCompletion on its own
    if record.get("object") == "response" or any(
        type(item) is dict and (item.get("type") in RESPONSES_ITEM_TYPES or "role" in item)
        for key in ("input", "output")
        if type(record.get(key)) is list
        for item in record[key]
    ):
        return "openai-responses"
    return None


RESPONSES_ITEM_TYPES = frozenset(
    {"function_call", "function_call_output", "mcp_call", "message", "reasoning"}
)
ANTHROPIC_BLOCKS = frozenset({"tool_use", "tool_result", "mcp_tool_use", "mcp_tool_result"})


def _messages_format(messages: list[Any]) -> str | None:
    """A `messages` list is a Chat Completions, an Anthropic or an MCP log: the first tool
    activity tells which. Without any, it is a conversation without tool calls, which reads the
    same (no calls) in every format; it is read as Chat Completions."""
    for m in messages:
        if type(m) is list and m and type(m[0]) is dict and "jsonrpc" in m[0]:
            return "mcp"  # a JSON-RPC batch
        if type(m) is not dict:
            return None
        if "jsonrpc" in m:
            return "mcp"
        if "tool_calls" in m or "function_call" in m or m.get("role") in ("tool", "function"):
            return "openai-chat"
        content = m.get("content")
        if type(content) is list and any(
            type(b) is dict and b.get("type") in ANTHROPIC_BLOCKS for b in content
        ):
            return "anthropic"
    return "openai-chat" if all(type(m) is dict and "role" in m for m in messages) else None


def _is_flat_span(record: dict[str, Any]) -> bool:
    context = record.get("context")
    if type(context) is dict and "trace_id" in context and "span_id" in context:
        return True  # the OpenTelemetry Python SDK's span.to_json()
    return ("traceId" in record and "spanId" in record) or (
        "trace_id" in record and "span_id" in record
    )


# ------------------------------------------------------------------------------------- pairing


class _Pairer:
    """Calls in order, each reply attached to its call: by id, the earliest unanswered call with
    that id (logs reuse ids within a run), else by position, the earliest unanswered call."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self._by_id: dict[Any, deque[int]] = {}
        self._open: deque[int] = deque()
        self._answered: set[int] = set()

    def call(self, raw: dict[str, Any], call_id: Any) -> None:
        index = len(self.calls)
        self.calls.append(raw)
        self._open.append(index)
        key = _id_key(call_id)
        if key is not None:
            self._by_id.setdefault(key, deque()).append(index)

    def done(self, raw: dict[str, Any]) -> None:
        """A call recorded with its own result: no reply will come for it."""
        self._answered.add(len(self.calls))
        self.calls.append(raw)

    def has_open(self, call_id: Any) -> bool:
        queue = self._by_id.get(_id_key(call_id))
        return bool(queue) and any(i not in self._answered for i in queue)

    def reply(self, call_id: Any, fields: dict[str, Any]) -> None:
        index = None
        queue = self._by_id.get(_id_key(call_id))
        while queue and index is None:
            i = queue.popleft()
            if i not in self._answered:
                index = i
        if index is None:  # no such id (or it was answered already): by position
            while self._open and self._open[0] in self._answered:
                self._open.popleft()
            if not self._open:
                return  # a reply to no call: nothing to score
            index = self._open[0]
        self._answered.add(index)
        self.calls[index].update(fields)


def _id_key(call_id: Any) -> Any:
    if call_id is None or call_id == "":
        return None
    if type(call_id) in (str, int, float):
        return (type(call_id), call_id)  # JSON-RPC's 1 and "1" are different ids
    return orjson.dumps(call_id, option=orjson.OPT_SORT_KEYS)


def _call(name: Any, source: dict[str, Any], args_key: str) -> dict[str, Any]:
    """A native call: args only when recorded (a call without args has `{}`; null is malformed)."""
    call = {"tool": name}
    if args_key in source:
        call["args"] = source[args_key]
    return call


# ------------------------------------------------------------------------------------- adapters
# Each takes a record (a dict) and returns the native `calls` list, or (a string) why it cannot.


def openai_reply(content: Any) -> Any:
    """A Chat Completions tool message's (or a Responses function_call_output's) result.

    OpenAI replies carry no error flag, so the rule is: a reply whose text parses as a JSON object
    is that object, and the native rule reads it (an `error` key not null or false, or
    `is_error`/`isError` true, makes an errored attempt). Text is the content string, or its
    text parts joined; anything else is kept as it is.
    """
    text = content
    if type(content) is list:
        parts = [p.get("text") for p in content if type(p) is dict]
        if parts and all(type(t) is str for t in parts):
            text = "".join(parts)
    if type(text) is str and text[:1] == "{":
        try:
            parsed = orjson.loads(text)
        except orjson.JSONDecodeError:
            return content
        if type(parsed) is dict:
            return parsed
    return content


def openai_chat(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    """`messages` (and a ChatCompletion's `choices[0].message`): assistant `tool_calls` (or the
    legacy `function_call`) and `role: "tool"` (or `"function"`) replies."""
    messages = record.get("messages")
    if messages is None:
        messages = []
    elif type(messages) is not list:
        return '"messages" is not a list'
    choices = record.get("choices")
    if type(choices) is list and choices and type(choices[0]) is dict:
        message = choices[0].get("message")
        if type(message) is dict:
            messages = [*messages, message]
    elif "messages" not in record:
        return 'no "messages" list (nor a ChatCompletion\'s "choices")'
    pairer = _Pairer()
    for i, m in enumerate(messages):
        if type(m) is not dict:
            return f"message {i} is not an object"
        role = m.get("role")
        if role == "tool":
            pairer.reply(m.get("tool_call_id"), {"result": openai_reply(m.get("content"))})
        elif role == "function":  # the deprecated function-calling reply: paired by position
            pairer.reply(None, {"result": openai_reply(m.get("content"))})
        else:
            tool_calls = m.get("tool_calls")
            if type(tool_calls) is list:
                for tc in tool_calls:
                    if type(tc) is not dict:
                        return f"message {i}: a tool call is not an object"
                    if tc.get("type", "function") != "function":
                        continue  # a custom (free-text) tool: not the tool surface cases describe
                    fn = tc.get("function")
                    fn = fn if type(fn) is dict else {}
                    pairer.call(_call(fn.get("name"), fn, "arguments"), tc.get("id"))
            fc = m.get("function_call")
            if type(fc) is dict:
                pairer.call(_call(fc.get("name"), fc, "arguments"), None)
    return pairer.calls


def openai_responses(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    """Response items from `input` then `output`: `function_call` (`call_id`, `name`,
    `arguments`) paired with `function_call_output`, and `mcp_call` (its own output and error)."""
    items: list[Any] = []
    for key in ("input", "output"):
        value = record.get(key)
        if type(value) is list:
            items.extend(value)
    pairer = _Pairer()
    for i, item in enumerate(items):
        if type(item) is not dict:
            return f"item {i} is not an object"
        kind = item.get("type")
        if kind == "function_call":
            pairer.call(_call(item.get("name"), item, "arguments"), item.get("call_id"))
        elif kind == "function_call_output":
            pairer.reply(item.get("call_id"), {"result": openai_reply(item.get("output"))})
        elif kind == "mcp_call":
            call = _call(item.get("name"), item, "arguments")
            call["result"] = item.get("output")
            call["error"] = item.get("error")
            pairer.done(call)
    return pairer.calls


def anthropic(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    """`messages` content blocks (or a Message's own `content`): `tool_use` (`id`, `name`,
    `input`) paired with `tool_result` (`tool_use_id`, `content`, `is_error`); the MCP
    connector's `mcp_tool_use`/`mcp_tool_result` alike."""
    messages = record.get("messages")
    if messages is None and record.get("type") == "message":
        messages = [record]
    if type(messages) is not list:
        return 'no "messages" list'
    pairer = _Pairer()
    for i, m in enumerate(messages):
        if type(m) is not dict:
            return f"message {i} is not an object"
        content = m.get("content")
        if type(content) is not list:
            continue  # a plain text turn
        for block in content:
            if type(block) is not dict:
                return f"message {i}: a content block is not an object"
            kind = block.get("type")
            if kind in ("tool_use", "mcp_tool_use"):
                pairer.call(_call(block.get("name"), block, "input"), block.get("id"))
            elif kind in ("tool_result", "mcp_tool_result"):
                fields: dict[str, Any] = {}
                if "content" in block:
                    fields["result"] = block["content"]
                if block.get("is_error") is True:
                    fields["is_error"] = True
                pairer.reply(block.get("tool_use_id"), fields)
    return pairer.calls


def mcp(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    """JSON-RPC messages in `messages`: `tools/call` requests (`params.name`,
    `params.arguments`) paired by `id` with their responses; a result with `isError: true`, or a
    JSON-RPC error response (the server refused the call), makes an errored attempt."""
    messages = record.get("messages")
    if type(messages) is not list:
        return 'no "messages" list'
    # A JSON-RPC batch (an array of messages, MCP 2025-03-26) counts as its messages.
    messages = [x for m in messages for x in (m if type(m) is list else (m,))]
    pairer = _Pairer()
    others: set[Any] = set()  # ids of other requests (initialize, tools/list): not tool replies
    for i, m in enumerate(messages):
        if type(m) is not dict:
            return f"message {i} is not an object"
        method = m.get("method")
        if method is not None:
            if method == "tools/call":
                params = m.get("params")
                params = params if type(params) is dict else {}
                pairer.call(_call(params.get("name"), params, "arguments"), m.get("id"))
            elif "id" in m:
                others.add(_id_key(m.get("id")))
        elif "result" in m or "error" in m:
            call_id = m.get("id")
            if _id_key(call_id) in others and not pairer.has_open(call_id):
                others.discard(_id_key(call_id))
                continue
            if "error" in m:
                error = m.get("error")
                pairer.reply(call_id, {"error": error if error is not None else True})
            else:
                pairer.reply(call_id, {"result": m.get("result")})
    return pairer.calls


ADAPTERS: dict[str, Callable[[dict[str, Any]], list[dict[str, Any]] | str]] = {
    "openai-chat": openai_chat,
    "openai-responses": openai_responses,
    "anthropic": anthropic,
    "mcp": mcp,
}


# -------------------------------------------------------------------------------- OpenTelemetry


@dataclass(slots=True)
class _Span:
    trace_id: str | None
    ends_trace: bool
    """A root span, or one whose parent is remote: when it ends, the trace (here) is complete."""
    start: int | None
    attrs: dict[str, Any]
    error: bool


@dataclass(slots=True)
class _Trace:
    trace_id: str
    source: str
    """`file:line` of the trace's first span: the run's source."""
    seq: int
    calls: list[tuple[int | None, int, dict[str, Any]]] = field(default_factory=list)
    """(start time, arrival, native call) of each tool span."""
    attrs: dict[str, Any] = field(default_factory=dict)
    """The evalrun attributes (case and run id, world) found on any span."""
    conflict: str | None = None
    genai: bool = False
    spans: int = 0
    size: int = 0


class OtelGrouper:
    """Spans in, runs out: one run per trace, its tool spans ordered by start time.

    `add` takes one decoded line (a flat span or an OTLP/JSON batch) and yields the traces it
    completes; `flush` yields the traces still open. Every line is accounted for: a trace counts
    once (a run, or unscoreable), and a line that cannot join a trace counts once per trace it
    names, as unscoreable (a span without a trace id, a span of a trace already finished or
    dropped, an empty batch).
    """

    def __init__(self, limits: OtelLimits, *, case_attr: str, run_attr: str) -> None:
        self.limits = limits
        self.case_attr = case_attr
        self.run_attr = run_attr
        self._open: OrderedDict[str, _Trace] = OrderedDict()
        self._closed: OrderedDict[str, str] = OrderedDict()
        self._size = 0
        self._seq = 0

    @property
    def buffered(self) -> tuple[int, int]:
        """(open traces, bytes of tool spans held)."""
        return len(self._open), self._size

    def add(self, record: Any, source: str) -> Iterator[NativeRecord | TraceError]:
        spans = _otel_spans(record)
        if type(spans) is str:
            yield TraceError(source, f"otel: {spans}")
            return
        if not spans:
            yield TraceError(source, "otel: the batch holds no spans")
            return
        by_trace: dict[str | None, list[_Span]] = {}
        for span in spans:
            by_trace.setdefault(span.trace_id, []).append(span)
        for trace_id, group in by_trace.items():
            if not trace_id:
                yield TraceError(source, f"otel: {len(group)} span(s) without a trace id")
                continue
            closed = self._closed.get(trace_id)
            if closed is not None:
                yield TraceError(
                    source,
                    f"otel: {len(group)} span(s) of trace {trace_id} arrived after the trace was "
                    f"{closed}",
                )
                continue
            trace = self._open.get(trace_id)
            if trace is None:
                self._seq += 1
                trace = self._open[trace_id] = _Trace(trace_id, source, self._seq)
            else:
                self._open.move_to_end(trace_id)
            for span in group:
                self._absorb(trace, span)
            if any(span.ends_trace for span in group):
                yield self._finish(trace)
            else:
                yield from self._evict()

    def flush(self) -> Iterator[NativeRecord | TraceError]:
        """Every trace still open, in the order they began (at the end of a file)."""
        for trace in sorted(self._open.values(), key=lambda t: t.seq):
            yield self._finish(trace)

    def _absorb(self, trace: _Trace, span: _Span) -> None:
        trace.spans += 1
        attrs = span.attrs
        operation = attrs.get("gen_ai.operation.name")
        if operation is not None:
            trace.genai = True
        for name in (self.case_attr, self.run_attr, OTEL_WORLD_ATTR):
            value = attrs.get(name)
            if value is not None:
                seen = trace.attrs.setdefault(name, value)
                if seen != value and trace.conflict is None:
                    trace.conflict = f"its spans disagree on {name} ({seen!r}, {value!r})"
        if operation != "execute_tool":
            return
        call = _call(attrs.get("gen_ai.tool.name"), attrs, "gen_ai.tool.call.arguments")
        if "gen_ai.tool.call.result" in attrs:
            call["result"] = attrs["gen_ai.tool.call.result"]
        if span.error:
            call["error"] = attrs.get("error.type") or True
        size = 64 + _size(call.get("args")) + _size(call.get("result"))
        trace.calls.append((span.start, trace.spans, call))
        trace.size += size
        self._size += size

    def _evict(self) -> Iterator[TraceError]:
        limits = self.limits
        while self._open and (
            len(self._open) > limits.max_open_traces or self._size > limits.max_bytes
        ):
            trace = next(iter(self._open.values()))
            self._close(trace, "dropped unfinished (the span buffer was full)")
            yield TraceError(
                trace.source,
                f"otel: trace {trace.trace_id} ({trace.spans} spans) dropped unfinished: the span "
                f"buffer was full (limits: {limits.max_open_traces:,} open traces, "
                f"{limits.max_bytes:,} bytes of tool spans) before its root span ended",
            )

    def _close(self, trace: _Trace, why: str) -> None:
        del self._open[trace.trace_id]
        self._size -= trace.size
        self._closed[trace.trace_id] = why
        if len(self._closed) > self.limits.max_closed_traces:
            self._closed.popitem(last=False)

    def _finish(self, trace: _Trace) -> NativeRecord | TraceError:
        self._close(trace, "scored (its root span, or its file, had ended)")
        where = f"otel: trace {trace.trace_id}"
        if trace.conflict is not None:
            return TraceError(trace.source, f"{where}: {trace.conflict}")
        case_id = trace.attrs.get(self.case_attr)
        if case_id is None:
            if not trace.genai:
                return TraceError(
                    trace.source,
                    f"{where} ({trace.spans} spans) is no agent run: no span has "
                    f"gen_ai.operation.name or {self.case_attr}",
                )
            return TraceError(trace.source, f"{where}: no span has the attribute {self.case_attr}")
        calls = trace.calls
        if all(start is not None for start, _, _ in calls):
            calls = sorted(calls, key=lambda c: (c[0], c[1]))
        world = trace.attrs.get(OTEL_WORLD_ATTR)
        if type(world) is str:
            try:
                world = orjson.loads(world)
            except orjson.JSONDecodeError:
                return TraceError(trace.source, f"{where}: {OTEL_WORLD_ATTR} is not valid JSON")
        native = {
            "case_id": case_id,
            "run_id": trace.attrs.get(self.run_attr, trace.trace_id),
            "calls": [call for _, _, call in calls],
            "world": world,
            "meta": {"trace_id": trace.trace_id},
        }
        return NativeRecord(native, trace.source)


def _size(value: Any) -> int:
    if value is None:
        return 0
    if type(value) is str:
        return len(value)
    return len(orjson.dumps(value))


def _otel_spans(record: Any) -> list[_Span] | str:
    """The spans of a line: an OTLP/JSON batch (`resourceSpans`) or one flat span."""
    if type(record) is not dict:
        return f"the line is {json_kind(record)}, not a span"
    batch = record.get("resourceSpans")
    if batch is None:
        if not _is_flat_span(record):
            return "not a span (no trace id and span id) nor a batch (resourceSpans)"
        return [_flat_span(record)]
    if type(batch) is not list:
        return "resourceSpans is not a list"
    spans = []
    for rs in batch:
        scopes = rs.get("scopeSpans") if type(rs) is dict else None
        if type(scopes) is not list:
            return "a resourceSpans entry has no scopeSpans list"
        for ss in scopes:
            raw = ss.get("spans") if type(ss) is dict else None
            if type(raw) is not list:
                return "a scopeSpans entry has no spans list"
            for span in raw:
                if type(span) is not dict:
                    return "a span is not an object"
                spans.append(_otlp_span(span))
    return spans


# OTLP span flags: the parent's is-remote bit is known (0x100), and it is set (0x200).
_PARENT_REMOTE = 0x300


def _otlp_span(span: dict[str, Any]) -> _Span:
    parent = span.get("parentSpanId")
    flags = span.get("flags")
    remote = type(flags) is int and flags & _PARENT_REMOTE == _PARENT_REMOTE
    status = span.get("status")
    code = status.get("code") if type(status) is dict else None
    attrs = _otlp_attributes(span.get("attributes"))
    return _Span(
        trace_id=_hex_id(span.get("traceId")),
        ends_trace=not parent or remote,
        start=_nanos(span.get("startTimeUnixNano")),
        attrs=attrs,
        error=code in (2, "STATUS_CODE_ERROR") or bool(attrs.get("error.type")),
    )


def _flat_span(span: dict[str, Any]) -> _Span:
    """A span as exporters write it flat: the Python SDK's `to_json()` (`context.trace_id`,
    `parent_id`, ISO `start_time`, `status.status_code`, attributes as an object), or the OTLP
    field names with attributes as an object or a key/value list."""
    context = span.get("context")
    context = context if type(context) is dict else {}
    trace_id = context.get("trace_id", span.get("traceId", span.get("trace_id")))
    parent = span.get("parent_id", span.get("parentSpanId", span.get("parent_span_id")))
    start = span.get("start_time", span.get("startTimeUnixNano", span.get("start_time_unix_nano")))
    status = span.get("status")
    status = status if type(status) is dict else {}
    code = status.get("status_code", status.get("code"))
    raw = span.get("attributes")
    attrs = raw if type(raw) is dict else _otlp_attributes(raw)
    return _Span(
        trace_id=_hex_id(trace_id),
        ends_trace=not parent,
        start=_nanos(start),
        attrs=attrs,
        error=code in ("ERROR", "STATUS_CODE_ERROR", 2) or bool(attrs.get("error.type")),
    )


def _otlp_attributes(raw: Any) -> dict[str, Any]:
    """OTLP/JSON attributes (`[{"key", "value": AnyValue}]`) as a plain object."""
    if type(raw) is not list:
        return {}
    return {
        kv["key"]: _any_value(kv.get("value"))
        for kv in raw
        if type(kv) is dict and type(kv.get("key")) is str
    }


def _any_value(value: Any) -> Any:
    """An OTLP/JSON AnyValue as plain JSON (an int64 is written as a string there)."""
    if type(value) is not dict:
        return value
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        n = value["intValue"]
        return int(n) if type(n) is str and n.lstrip("-").isdigit() else n
    if "boolValue" in value:
        return value["boolValue"]
    if "doubleValue" in value:
        return value["doubleValue"]
    if "arrayValue" in value:
        inner = value["arrayValue"]
        values = inner.get("values", []) if type(inner) is dict else []
        return [_any_value(v) for v in values] if type(values) is list else []
    if "kvlistValue" in value:
        inner = value["kvlistValue"]
        return _otlp_attributes(inner.get("values") if type(inner) is dict else None)
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def _hex_id(value: Any) -> str | None:
    if type(value) is not str or not value:
        return None
    return value[2:].lower() if value[:2] in ("0x", "0X") else value.lower()


def _nanos(value: Any) -> int | None:
    """A start time as nanoseconds since the epoch: a number, a string of digits (OTLP/JSON),
    or an ISO 8601 date-time (the Python SDK's `start_time`; without an offset, UTC)."""
    if type(value) is int:
        return value
    if type(value) is float:
        return int(value)
    if type(value) is not str or not value:
        return None
    if value.isdigit():
        return int(value)
    try:
        moment = isoparse(value)
    except (ValueError, OverflowError):
        return None
    epoch = _EPOCH if moment.tzinfo is not None else _EPOCH_NAIVE
    return (moment - epoch) // _MICROSECOND * 1000


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_EPOCH_NAIVE = datetime(1970, 1, 1)
_MICROSECOND = timedelta(microseconds=1)
