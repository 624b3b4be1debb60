"""OpenTelemetry GenAI spans: one span (or one OTLP/JSON batch of spans) a line, a trace a run.

Tool spans have `gen_ai.operation.name = "execute_tool"`, `gen_ai.tool.name`,
`gen_ai.tool.call.arguments` and, when rejected, an error status or `error.type`; a trace's case
id is the attribute `evalrun.case_id` on any of its spans. Spans are buffered per trace until the
trace's last line in its file (or, without a pre-pass, its root span), within the bounds of
`_grouping.GroupLimits`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import orjson
from dateutil.parser import isoparse

from ...jsonvalue import json_kind
from ...model import TraceError
from ..format import GroupKeys, NativeRecord, TraceFormat
from ._grouping import GroupLimits, Trace, TraceGrouper
from ._pairing import native_call

# Span attributes, on any span of the trace.
CASE_ATTR = "evalrun.case_id"
RUN_ATTR = "evalrun.run_id"
WORLD_ATTR = "evalrun.world"


OtelLimits = GroupLimits
"""How much the OpenTelemetry reader may buffer (`_grouping.GroupLimits`)."""


@dataclass(slots=True)
class _Span:
    trace_id: str | None
    ends_trace: bool
    """A root span, or one whose parent is remote: where no pre-pass says where the trace ends,
    the trace (here) is complete when it ends."""
    start: int | None
    attrs: dict[str, Any]
    error: bool


@dataclass(slots=True, eq=False)
class _Trace(Trace):
    calls: list[tuple[int | None, int, dict[str, Any]]] = field(default_factory=list)
    """(start time, arrival, native call) of each tool span."""
    attrs: dict[str, Any] = field(default_factory=dict)
    """The evalrun attributes (case and run id, world) found on any span."""
    conflict: str | None = None
    genai: bool = False


class OtelGrouper(TraceGrouper[_Span, _Trace]):
    """Spans in, runs out: one run per trace, its tool spans ordered by start time.

    `add` takes one decoded line (a flat span or an OTLP/JSON batch) and yields the traces it
    completes; `flush` yields the traces still open.
    """

    name = "otel"

    def __init__(self, limits: GroupLimits, *, case_attr: str, run_attr: str) -> None:
        super().__init__(limits)
        self.case_attr = case_attr
        self.run_attr = run_attr

    def spans(self, record: Any) -> list[_Span] | str:
        return _otel_spans(record)

    def trace_id(self, span: _Span) -> str | None:
        return span.trace_id

    def ends_trace(self, span: _Span) -> bool:
        return span.ends_trace

    def new_trace(self, trace_id: str, source: str, seq: int) -> _Trace:
        return _Trace(trace_id, source, seq)

    def absorb(self, trace: _Trace, span: _Span) -> int:
        attrs = span.attrs
        operation = attrs.get("gen_ai.operation.name")
        if operation is not None:
            trace.genai = True
        for name in (self.case_attr, self.run_attr, WORLD_ATTR):
            value = attrs.get(name)
            if value is not None:
                seen = trace.attrs.setdefault(name, value)
                if seen != value and trace.conflict is None:
                    trace.conflict = f"its spans disagree on {name} ({seen!r}, {value!r})"
        if operation != "execute_tool":
            return 0
        call = native_call(attrs.get("gen_ai.tool.name"), attrs, "gen_ai.tool.call.arguments")
        if "gen_ai.tool.call.result" in attrs:
            call["result"] = attrs["gen_ai.tool.call.result"]
        if span.error:
            call["error"] = attrs.get("error.type") or True
        trace.calls.append((span.start, trace.spans, call))
        return 64 + _size(call.get("args")) + _size(call.get("result"))

    def finish(self, trace: _Trace) -> NativeRecord | TraceError:
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
        world = trace.attrs.get(WORLD_ATTR)
        if type(world) is str:
            try:
                world = orjson.loads(world)
            except orjson.JSONDecodeError:
                return TraceError(trace.source, f"{where}: {WORLD_ATTR} is not valid JSON")
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


def _detect(record: Any) -> bool:
    return type(record) is dict and (
        type(record.get("resourceSpans")) is list or _is_flat_span(record)
    )


def _is_flat_span(record: dict[str, Any]) -> bool:
    context = record.get("context")
    if type(context) is dict and "trace_id" in context and "span_id" in context:
        return True  # the OpenTelemetry Python SDK's span.to_json()
    return ("traceId" in record and "spanId" in record) or (
        "trace_id" in record and "span_id" in record
    )


def _grouper(keys: GroupKeys, *, otel_limits: GroupLimits | None = None, **_: Any) -> OtelGrouper:
    return OtelGrouper(
        otel_limits or GroupLimits(),
        case_attr=keys.case_key or CASE_ATTR,
        run_attr=keys.run_key or RUN_ATTR,
    )


FORMAT = TraceFormat(
    name="otel",
    summary="OpenTelemetry GenAI spans: one span or OTLP/JSON batch a line, a trace a run",
    looks_like="a span or resourceSpans",
    detect=_detect,
    order=10,
    group=_grouper,
)
