"""The OpenAI Agents SDK's tracing export: its `Trace.export()` and `Span.export()` objects, one a
line (`{"object": "trace", ...}`, `{"object": "trace.span", ...}`), or batches of them
(`{"data": [...]}`, as its exporter posts them). A trace is a run.

A tracing processor that writes them is a few lines (docs/trace-formats.md); the case id is the
trace's `metadata` (`RunConfig(trace_metadata={"case_id": ...})`).

The calls are the `function` spans. Without any, they are the `tool_calls` the `generation`
spans (Chat Completions models) record in their output, paired with the `role: "tool"` replies
in later generations' input. A function span whose `input` is null did not record its arguments
(`trace_include_sensitive_data=False`): such a run is unscoreable, never read as calls with
`{}` or null arguments, unless the generation spans hold every call whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...jsonvalue import json_kind
from ...model import TraceError
from ..format import GroupKeys, LoggedRecord, NativeRecord, TraceFormat
from ._grouping import GroupLimits, Trace, TraceGrouper
from ._pairing import id_key, native_call, openai_reply
from ._walk import walk
from .otel import _carry_errors, _nanos, _ordered


@dataclass(slots=True, eq=False)
class _Trace(Trace):
    trace: dict[str, Any] | None = None
    """The trace object (its metadata), once it arrives."""
    calls: list[tuple[int | None, int, dict[str, Any]]] = field(default_factory=list)
    """(start time, arrival, native call) of each function span."""
    requested: list[tuple[int | None, int, Any, dict[str, Any]]] = field(default_factory=list)
    """(start time, arrival, call id, native call) of each call a generation span's output
    holds."""
    replies: dict[Any, dict[str, Any]] = field(default_factory=dict)
    """Replies a generation span's input holds, by call id."""
    handoffs: set[str] = field(default_factory=set)
    """The tool names of the handoffs the trace made (`transfer_to_<agent>`): the model calls
    them like tools, but they are the SDK's, not the tool surface."""


# What the SDK's function span holds without sensitive data: "input": null, "output": null.
UNRECORDED = "args_unrecorded"


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
        if type(data) is not dict:
            return 0
        start = _nanos(span.get("started_at"))
        if data.get("type") == "generation":
            return _generation(trace, data, start)
        if data.get("type") == "handoff":
            to_agent = data.get("to_agent")
            if type(to_agent) is str:
                trace.handoffs.add(handoff_tool(to_agent))
            return 64
        if data.get("type") != "function":
            return 0
        if data.get("input") is None:
            call: dict[str, Any] = {"tool": data.get("name"), UNRECORDED: True}
        else:
            call = native_call(data.get("name"), data, "input")
        if data.get("output") is not None:
            call["result"] = data["output"]
        if span.get("error") is not None:
            call["error"] = span["error"]
        trace.calls.append((start, trace.spans, call))
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
        calls = _calls(trace)
        if isinstance(calls, str):
            return TraceError(trace.source, f"{where}: {calls}")
        run_id = walk(trace.trace, self.run_path)
        native = {
            "case_id": case_id,
            "run_id": run_id if run_id is not None else trace.trace_id,
            "calls": calls,
            "meta": {"trace_id": trace.trace_id, "workflow": trace.trace.get("workflow_name")},
        }
        return LoggedRecord(native, trace.source, trace.trace)  # --group-by: the trace object


def _generation(trace: _Trace, data: dict[str, Any], start: int | None) -> int:
    """A generation span: the tool calls in its output (Chat Completions messages), the
    replies in its input."""
    held = 0
    output, given = data.get("output"), data.get("input")
    for message in output if type(output) is list else []:
        tool_calls = message.get("tool_calls") if type(message) is dict else None
        for tc in tool_calls if type(tool_calls) is list else []:
            if type(tc) is not dict or tc.get("type", "function") != "function":
                continue
            fn = tc.get("function")
            fn = fn if type(fn) is dict else {}
            call = native_call(fn.get("name"), fn, "arguments")
            trace.requested.append((start, trace.spans, tc.get("id"), call))
            held += 64 + len(str(call))
    for message in given if type(given) is list else []:
        if type(message) is dict and message.get("role") == "tool":
            key = id_key(message.get("tool_call_id"))
            if key is not None and key not in trace.replies:
                trace.replies[key] = {"result": openai_reply(message.get("content"))}
                held += 64 + len(str(message.get("content")))
    return held


def handoff_tool(agent: str) -> str:
    """The tool name the SDK gives a handoff to `agent` (`Handoff.default_tool_name`: the name
    in function style, `transfer_to_billing_agent` for "Billing Agent")."""
    return re.sub(r"[^a-zA-Z0-9_]", "_", re.sub(r"\s", "_", f"transfer_to_{agent}")).lower()


def _calls(trace: _Trace) -> list[dict[str, Any]] | str:
    """The function spans, when each recorded its input; else the calls the generation spans
    asked for, when there are any, each with its arguments (the function spans that ran them
    say which failed); else why the run's calls cannot be read."""
    executed = [c for _, _, c in _ordered(trace.calls)]
    unrecorded = [c for c in executed if UNRECORDED in c]
    if not unrecorded and (executed or not trace.requested):
        return executed
    requested, seen = [], set()
    for _, _, call_id, call in _ordered(trace.requested):
        if call.get("tool") in trace.handoffs:
            continue  # a handoff the model asked for: the SDK's, not a call of the tool surface
        key = id_key(call_id)
        if key is not None:
            if key in seen:
                continue
            seen.add(key)
            call = {**call, **trace.replies.get(key, {})}
        requested.append(call)
    if requested and all("args" in c for c in requested):
        _carry_errors(
            requested, [{k: v for k, v in c.items() if k != UNRECORDED} for c in executed]
        )
        return requested
    if unrecorded:
        names = ", ".join(sorted({str(c["tool"]) for c in unrecorded}))
        return (
            f"{len(unrecorded)} function span(s) ({names}) did not record their arguments "
            '("input": null: trace_include_sensitive_data is off); calls whose arguments are not '
            "recorded are not compared as {}: run with RunConfig(trace_include_sensitive_data="
            "True) or OPENAI_AGENTS_TRACE_INCLUDE_SENSITIVE_DATA=true"
        )
    names = ", ".join(sorted({str(c["tool"]) for c in requested if "args" not in c}))
    return (
        f"generation spans ask for tool calls ({names}) without their arguments and no function "
        "span ran them; calls whose arguments are not recorded are not compared as {}"
    )


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
