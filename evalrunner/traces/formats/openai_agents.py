"""The OpenAI Agents SDK's tracing export: its `Trace.export()` and `Span.export()` objects, one a
line (`{"object": "trace", ...}`, `{"object": "trace.span", ...}`), or batches of them
(`{"data": [...]}`, as its exporter posts them). A trace is a run.

A tracing processor that writes them is a few lines (docs/trace-formats.md); the case id is the
trace's `metadata` (`RunConfig(trace_metadata={"case_id": ...})`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...jsonvalue import json_kind
from ...model import TraceError
from ..format import GroupKeys, NativeRecord, TraceFormat
from ._grouping import GroupLimits, Trace, TraceGrouper
from ._pairing import native_call
from .otel import _nanos, walk


@dataclass(slots=True, eq=False)
class _Trace(Trace):
    trace: dict[str, Any] | None = None
    """The trace object (its metadata), once it arrives."""
    calls: list[tuple[int | None, int, dict[str, Any]]] = field(default_factory=list)


class AgentsGrouper(TraceGrouper[dict[str, Any], _Trace]):
    name = "openai-agents"
    root_name = "end of file"

    def __init__(self, limits: GroupLimits, *, case_key: str | None, run_key: str | None) -> None:
        super().__init__(limits)
        self.case_path = tuple((case_key or "metadata.case_id").split("."))
        self.run_path = tuple((run_key or "metadata.run_id").split("."))

    def spans(self, record: Any) -> list[dict[str, Any]] | str:
        if type(record) is not dict:
            return f"the line is {json_kind(record)}, not a trace or a span"
        items = record.get("data") if record.get("object") is None else [record]
        if type(items) is not list or not all(type(i) is dict for i in items):
            return 'not a trace or a span (an "object" of "trace" or "trace.span")'
        return [i for i in items if i.get("object") in ("trace", "trace.span")]

    def trace_id(self, span: dict[str, Any]) -> str | None:
        tid = span.get("id") if span.get("object") == "trace" else span.get("trace_id")
        return tid if type(tid) is str and tid else None

    def new_trace(self, trace_id: str, source: str, seq: int) -> _Trace:
        return _Trace(trace_id, source, seq)

    def absorb(self, trace: _Trace, span: dict[str, Any]) -> int:
        if span.get("object") == "trace":
            trace.trace = span
            return 64
        data = span.get("span_data")
        if type(data) is not dict or data.get("type") != "function":
            return 0
        call = native_call(data.get("name"), data, "input")
        if data.get("output") is not None:
            call["result"] = data["output"]
        if span.get("error") is not None:
            call["error"] = span["error"]
        trace.calls.append((_nanos(span.get("started_at")), trace.spans, call))
        return 64 + sum(len(str(v)) for v in call.values())

    def finish(self, trace: _Trace) -> NativeRecord | TraceError:
        where = f"openai-agents: trace {trace.trace_id}"
        if trace.trace is None:
            return TraceError(
                trace.source,
                f"{where}: its trace object (with the metadata) is not in this file",
            )
        case_id = walk(trace.trace, self.case_path)
        if case_id is None:
            return TraceError(
                trace.source, f"{where}: no case id at {'.'.join(self.case_path)} of the trace"
            )
        calls = trace.calls
        if all(start is not None for start, _, _ in calls):
            calls = sorted(calls, key=lambda c: (c[0], c[1]))
        run_id = walk(trace.trace, self.run_path)
        native = {
            "case_id": case_id,
            "run_id": run_id if run_id is not None else trace.trace_id,
            "calls": [c for _, _, c in calls],
            "meta": {"trace_id": trace.trace_id, "workflow": trace.trace.get("workflow_name")},
        }
        return NativeRecord(native, trace.source)


def _detect(record: Any) -> bool:
    if type(record) is not dict:
        return False
    if record.get("object") in ("trace", "trace.span"):
        return True
    data = record.get("data")
    return (
        type(data) is list
        and bool(data)
        and all(type(i) is dict and i.get("object") in ("trace", "trace.span") for i in data)
    )


def _grouper(keys: GroupKeys, *, otel_limits: GroupLimits | None = None, **_: Any) -> AgentsGrouper:
    return AgentsGrouper(otel_limits or GroupLimits(), case_key=keys.case_key, run_key=keys.run_key)


FORMAT = TraceFormat(
    name="openai-agents",
    summary="OpenAI Agents SDK tracing export: trace and trace.span objects, a trace a run",
    looks_like='"object": "trace" or "trace.span"',
    detect=_detect,
    order=12,
    group=_grouper,
)
