"""OpenTelemetry GenAI spans: one span (or one OTLP/JSON batch of spans) a line, a trace a run.

Tool spans have `gen_ai.operation.name = "execute_tool"`, `gen_ai.tool.name`,
`gen_ai.tool.call.arguments` and, when rejected, an error status or `error.type`; a trace's case
id is the attribute `evalrun.case_id` on any of its spans. Spans are buffered per trace until the
trace's last line in its file (or, without a pre-pass, its root span), within the bounds of
`_grouping.GroupLimits`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from dateutil.parser import isoparse

from ...jsonvalue import dumps as json_dumps
from ...jsonvalue import json_kind, loads
from ...model import TraceError
from ..format import GroupKeys, LoggedRecord, NativeRecord, TraceFormat
from ._grouping import GroupLimits, Trace, TraceGrouper
from ._pairing import id_key, is_str_in
from ._walk import walk
from .spans import CONVENTIONS, Span, SpanConvention

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
    name: str = ""
    message: str | None = None
    events: tuple[tuple[str, dict[str, Any]], ...] = ()
    """The span's GenAI events (`gen_ai.*`), as (name, attributes)."""
    resource: dict[str, Any] | None = None
    """Its resource's attributes (`service.name`, `service.version`), where `--group-by` looks
    after the span's own."""


@dataclass(slots=True, eq=False)
class _Trace(Trace):
    calls: list[tuple[int | None, int, dict[str, Any]]] = field(default_factory=list)
    """(start time, arrival, native call) of each tool span."""
    requested: list[tuple[int | None, int, Any, dict[str, Any]]] = field(default_factory=list)
    """(start time, arrival, call id, native call) of each call a model asked for."""
    replies: dict[Any, dict[str, Any]] = field(default_factory=dict)
    """Replies to requested calls, by call id."""
    ran: set[Any] = field(default_factory=set)
    """The call ids of the tool spans that keep one (`SpanRead.tool_id`)."""
    unidentified: int = 0
    """Tool spans that keep no call id: which requested calls they ran is not known."""
    ids: dict[str, Any] = field(default_factory=dict)
    """The ids and world found on any span, by the key they were found at."""
    notes: list[str] = field(default_factory=list)
    unrecorded: list[str] = field(default_factory=list)
    """Why spans show tool calls whose arguments they do not hold (`SpanRead.unrecorded`)."""
    fixes: list[str | None] = field(default_factory=list)
    """What to do about each of `unrecorded` (`SpanRead.unrecorded_fix`), None for the default:
    turning on content capture."""
    renames: dict[str, str] = field(default_factory=dict)
    """Tool names read as others (`SpanRead.renames`)."""
    conflict: str | None = None
    group: tuple[tuple[bool, int, int], Any] | None = None
    """`--group-by`: the value of its span attribute on the earliest span that has it, with that
    span's place ((no start time, start time, arrival)): spans may disagree (a model per step),
    and the run is scored as it is without --group-by."""
    genai: bool = False
    models: bool = False
    """A model (LLM or chat) span is in the trace."""
    unknown: list[str] = field(default_factory=list)
    """The names of the first spans in no convention evalrun reads (for the guard's reason)."""
    tools_named: int = 0
    """How many spans in no convention evalrun reads mention tools (in a name or a key)."""


class OtelGrouper(TraceGrouper[_Span, _Trace]):
    """Spans in, runs out: one run per trace, its tool calls ordered by start time.

    `add` takes one decoded line (a flat span or an OTLP/JSON batch) and yields the traces it
    completes; `flush` yields the traces still open. Each span is read by every span convention
    (`spans.CONVENTIONS`).
    """

    name = "otel"

    def __init__(
        self,
        limits: GroupLimits,
        *,
        case_keys: tuple[str, ...],
        run_keys: tuple[str, ...],
        conventions: tuple[SpanConvention, ...] = CONVENTIONS,
        group_key: str | None = None,
    ) -> None:
        super().__init__(limits)
        self.case_keys = case_keys
        self.run_keys = run_keys
        self.conventions = conventions
        self.group_key = group_key
        """`--group-by`: a span attribute, kept from the earliest span of the trace that has it."""
        self._markers = tuple((c.marker, c.model_kinds) for c in conventions if c.marker)
        """(attribute, its model values) that make a span one of a convention read."""
        json_ids = tuple(p for c in conventions for p in c.json_ids)

        def lookup(key: str) -> _Lookup:
            return key, _prefixes(key), bool(json_ids) and key.startswith(json_ids)

        self._lookups = tuple(map(lookup, (*case_keys, *run_keys, WORLD_ATTR)))
        """Each id key looked for on every span, split once (`_prefixes`), and whether its value
        is JSON text (`SpanConvention.json_ids`): spans that disagree on one make the run
        unscoreable."""
        self._group_lookup = lookup(group_key) if group_key else None
        """The --group-by key, looked for the same way; spans may disagree on it (not an id)."""

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
        marked = [is_str_in(attrs[m], kinds) for m, kinds in self._markers if m in attrs]
        if marked:
            trace.genai = True
            trace.models = trace.models or any(marked)
        else:
            if len(trace.unknown) < 3:
                trace.unknown.append(span.name or "(unnamed)")
            if _mentions_tools(span.name, attrs):
                trace.tools_named += 1
        for lookup in self._lookups:
            value = _looked_up(attrs, lookup)
            if value is not None:
                key = lookup[0]
                seen = trace.ids.setdefault(key, value)
                if seen != value and trace.conflict is None:
                    trace.conflict = f"its spans disagree on {key} ({seen!r}, {value!r})"
        if self._group_lookup is not None:
            value = _looked_up(attrs, self._group_lookup)
            if value is None and span.resource:
                value = _looked_up(span.resource, self._group_lookup)
            # Spans disagree on a model or a step's kind (a router's two models, CHAIN and LLM):
            # a group is a label, not an id, so the earliest span's value names the run (the
            # outermost, which starts first), whatever order the spans were written in.
            place = (span.start is None, span.start or 0, trace.spans)
            if value is not None and (trace.group is None or place < trace.group[0]):
                trace.group = (place, value)
        held = 0
        view = Span(span.name, attrs, span.error, span.message, span.events)
        unrecorded: str | None = None
        fix: str | None = None
        requested = False
        for convention in self.conventions:
            found = convention.read(view)
            if found is None:
                continue
            if found.note is not None:
                trace.notes.append(found.note)
            if unrecorded is None and found.unrecorded is not None:
                unrecorded, fix = found.unrecorded, found.unrecorded_fix
            requested = requested or bool(found.requested)
            trace.renames.update(found.renames)
            if found.tool is not None:
                trace.calls.append((span.start, trace.spans, found.tool))
                held += _held(found.tool)
                key = id_key(found.tool_id)
                if key is None:
                    trace.unidentified += 1
                else:
                    trace.ran.add(key)
            for call_id, call in found.requested:
                trace.requested.append((span.start, trace.spans, call_id, call))
                held += _held(call)
            for call_id, fields in found.replies:
                trace.replies[id_key(call_id)] = fields
                held += _held(fields)
        if unrecorded is not None and not requested:
            # one convention's sign of hidden calls, unless another read them from the span
            trace.unrecorded.append(unrecorded)
            trace.fixes.append(fix)
        return held

    def finish(self, trace: _Trace) -> NativeRecord | TraceError:
        where = f"otel: trace {trace.trace_id}"
        if trace.conflict is not None:
            return TraceError(trace.source, f"{where}: {trace.conflict}")
        case_id = next((trace.ids[k] for k in self.case_keys if k in trace.ids), None)
        if case_id is None:
            looked = " or ".join(self.case_keys)
            if not trace.genai:
                markers = ", ".join(m for m, _ in self._markers)
                return TraceError(
                    trace.source,
                    f"{where} ({trace.spans} spans) is no agent run: no span has "
                    f"{markers} or {looked}",
                )
            return TraceError(trace.source, f"{where}: no span has the attribute {looked}")
        calls = _calls(trace)
        if isinstance(calls, str):
            return TraceError(trace.source, f"{where}: {calls}")
        if not calls and not trace.genai:
            return TraceError(trace.source, f"{where}: {_no_convention(trace)}")
        if trace.renames:
            calls = [
                {**c, "tool": trace.renames[c["tool"]]} if c["tool"] in trace.renames else c
                for c in calls
            ]
        world = trace.ids.get(WORLD_ATTR)
        if type(world) is str:
            try:
                world = loads(world)
            except ValueError:
                return TraceError(trace.source, f"{where}: {WORLD_ATTR} is not valid JSON")
        run_id = next((trace.ids[k] for k in self.run_keys if k in trace.ids), trace.trace_id)
        native = {
            "case_id": case_id,
            "run_id": run_id,
            "calls": calls,
            "world": world,
            "meta": {"trace_id": trace.trace_id},
        }
        key = self.group_key
        logged = {key: trace.group[1]} if key is not None and trace.group is not None else None
        return LoggedRecord(native, trace.source, logged)


def _calls(trace: _Trace) -> list[dict[str, Any]] | str:
    """A trace's calls: its tool spans, when each recorded its arguments; else the calls its
    models asked for (LLM and chat spans), when each recorded its arguments and no model span
    hid one, their replies paired by id, and the errors of the tool spans that ran them (in
    order, by tool name); else why there are none. Never a silent zero: calls a span shows but
    does not hold make the run unscoreable, not a run of fewer calls or of calls with `{}`."""
    executed = [c for _, _, c in _ordered(trace.calls)]
    unusable = [c for c in executed if "args" not in c or "args_unusable" in c]
    if trace.notes and executed:
        # A span that looks like a call but cannot be read (a tool span with no tool name) is a
        # call the run made: grading the others without it could pass a run that failed. Nor can
        # the models' requests stand in: whether the unread call failed is on its span alone.
        more = f" (and {len(trace.notes) - 1} more)" if len(trace.notes) > 1 else ""
        return (
            f"{len(executed)} tool call(s) read, but {trace.notes[0]}{more}: a call evalrun "
            "cannot read is not left out; see docs/trace-formats.md for the span conventions"
        )
    if executed and not unusable:
        rejected = _rejected(trace)
        if not rejected:
            return executed
        return [c for _, _, c in _ordered([*trace.calls, *rejected], by_arrival=True)]
    requested = _requested(trace)
    bare = [c for c in requested if "args" not in c]
    if requested and not bare and not trace.unrecorded:
        _carry_errors(requested, executed)
        return requested
    if unusable or bare or trace.unrecorded:
        return _not_recorded(trace, unusable, bare)
    if trace.notes:
        return (
            f"no tool call read, but {trace.notes[0]}"
            + (f" (and {len(trace.notes) - 1} more)" if len(trace.notes) > 1 else "")
            + "; see docs/trace-formats.md for the span conventions evalrun reads"
        )
    return []


def _json_text(value: str) -> Any:
    """An attribute kept as JSON text (`"\"retry\""`), decoded: a JSON string's text; anything
    else as it is (an object or list is walked into where it is read)."""
    if value[:1] == '"':
        try:
            decoded = loads(value)
        except ValueError:
            return value
        return decoded if type(decoded) is str else value
    return value


def _mentions_tools(name: str, attrs: dict[str, Any]) -> bool:
    return "tool" in name.lower() or any("tool" in k.lower() for k in attrs)


def _no_convention(trace: _Trace) -> str:
    """Why a trace with a case id, no call read and no span of a convention evalrun reads is
    unscoreable (never a silent zero): it cannot tell a run that made no call from one whose
    calls are in spans it does not read."""
    names = ", ".join(f'"{n}"' for n in trace.unknown)
    others = trace.spans - 1
    if trace.tools_named:
        seen = (
            f"{trace.tools_named} span(s) mention tools in a convention evalrun does not read "
            f"(spans: {names})"
        )
    elif others <= 0:
        seen = "it holds only the span that carries the case id"
    else:
        seen = f"no span is in a convention evalrun reads (spans: {names})"
    return (
        f"no tool call read, and {seen}: export the framework's GenAI (gen_ai.*) or "
        "OpenInference spans together with the case-id span, or its message log (see "
        "docs/trace-formats.md)"
    )


def _not_recorded(
    trace: _Trace,
    unusable: list[dict[str, Any]],
    bare: list[dict[str, Any]],
) -> str:
    """Why a trace whose calls are shown but not held is unscoreable: arguments not recorded."""
    why = []
    never = [c["args_never"] for c in unusable if "args_never" in c]
    if never and len(never) == len(unusable) and not bare and not trace.unrecorded:
        names = ", ".join(sorted({c["tool"] for c in unusable}))
        return (
            f"{len(unusable)} tool span(s) ({names}) hold no arguments, and this "
            f"instrumentation never records them ({never[0]}); "
            "calls whose arguments are not recorded are not compared as {}"
        )
    if unusable:
        names = ", ".join(sorted({c["tool"] for c in unusable}))
        shown = [c["args_unusable"] for c in unusable if "args_unusable" in c][:1]
        hidden = [c["args_hidden"] for c in unusable if "args_hidden" in c][:1]
        if shown:
            what = f"recorded their input as {shown[0]!r}, not the arguments object"
        elif hidden:
            what = f"hid their arguments ({hidden[0]}: the instrumentation hides inputs)"
        else:
            what = "did not record their arguments (content capture is off)"
        why.append(f"{len(unusable)} tool span(s) ({names}) {what}")
    if bare:
        names = ", ".join(sorted({c["tool"] for c in bare}))
        why.append(
            f"{len(bare)} tool call(s) a model asked for ({names}) did not record their "
            "arguments (content capture is off)"
        )
    if trace.unrecorded:
        more = len(trace.unrecorded) - 1
        why.append(trace.unrecorded[0] + (f" (and {more} more span(s))" if more else ""))
    also = (
        ""
        if trace.models or bare or trace.unrecorded
        else ", or export the model (LLM or chat) spans too, whose tool calls carry the arguments"
    )
    fix = f"turn on the instrumentation's content capture{also}"
    own = [f for f in trace.fixes if f is not None]
    if not (unusable or bare) and own and len(own) == len(trace.fixes):
        fix = "; ".join(dict.fromkeys(own))  # each convention said what to do instead
    if unusable and not (bare or trace.unrecorded) and all("args_unusable" in c for c in unusable):
        # The content was captured: the tool was called with something else than named
        # arguments (LangChain's input string, positional arguments), which no setting changes.
        fix = (
            "the model (LLM or chat) spans' tool calls carry the arguments: export them too"
            if not trace.models
            else "call the tools with named arguments (an object), which their spans then record"
        )
    return (
        "; ".join(why) + "; calls whose arguments are not recorded are not compared as {}: " + fix
    )


def _ordered(items: list[Any], *, by_arrival: bool = False) -> list[Any]:
    """By start time (then arrival) when every item has one; else as they came (`by_arrival`:
    by their arrival numbers, for items gathered from more than one list)."""
    if all(item[0] is not None for item in items):
        return sorted(items, key=lambda c: (c[0], c[1]))
    return sorted(items, key=lambda c: c[1]) if by_arrival else items


def _rejected(trace: _Trace) -> list[tuple[int | None, int, dict[str, Any]]]:
    """Calls a model asked for that the framework answered without running them: a requested
    call whose id no tool span ran, while every tool span of the trace keeps its call's id, and
    whose reply a later model span was sent (pydantic-ai's "Unknown tool name: ..."). Each is an
    errored attempt, at its model span's place; its reply is the error. A requested call with no
    reply (an output tool that ended the run, a trace cut short) is not one: nothing says it
    was rejected."""
    if trace.unidentified or not trace.ran:
        return []
    out, seen = [], set()
    for start, arrival, call_id, call in trace.requested:
        key = id_key(call_id)
        if key is None or key in seen or key in trace.ran:
            continue
        seen.add(key)
        reply = trace.replies.get(key)
        if reply is None or "args" not in call:
            continue
        result = reply.get("result")
        error = result if type(result) is str and result else True
        out.append((start, arrival, {**call, **reply, "error": error}))
    return out


def _requested(trace: _Trace) -> list[dict[str, Any]]:
    calls, seen = [], set()
    for _, _, call_id, call in _ordered(trace.requested):
        key = id_key(call_id)
        if key is not None:
            if key in seen:
                continue  # the same call, recorded again (by a second instrumentation)
            seen.add(key)
        call = dict(call)
        reply = trace.replies.get(key) if key is not None else None
        if reply is not None:
            call.update(reply)
        calls.append(call)
    return calls


def _carry_errors(requested: list[dict[str, Any]], executed: list[dict[str, Any]]) -> None:
    """The tool span that ran each requested call (the next one of that tool, in order) says
    whether it failed."""
    at: dict[str, int] = {}
    by_tool: dict[str, list[dict[str, Any]]] = {}
    for call in executed:
        by_tool.setdefault(call["tool"], []).append(call)
    for call in requested:
        ran = by_tool.get(call["tool"], [])
        n = at.get(call["tool"], 0)
        if n < len(ran):
            at[call["tool"]] = n + 1
            if ran[n].get("error"):
                call["error"] = ran[n]["error"]
            if "result" not in call and "result" in ran[n]:
                call["result"] = ran[n]["result"]


_Lookup = tuple[str, tuple[tuple[str, tuple[str, ...]], ...], bool]
"""A key looked for on every span: the key, `_prefixes(key)`, and whether its value is JSON
text."""


def _looked_up(attrs: dict[str, Any], lookup: _Lookup) -> Any:
    """A span's value at a looked-for key (`OtelGrouper._lookups`); None when it has none."""
    key, prefixes, json_text = lookup
    value = attrs.get(key)
    if value is None:
        for name, rest in prefixes:
            if name in attrs:
                value = walk(attrs[name], rest)
                break
    if json_text and type(value) is str:
        value = _json_text(value)
    return value


def _prefixes(key: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Where a dotted key's value may be, after the attribute of that very name: the attribute
    names it starts with, longest first, each with the path left into its value (a JSON string is
    read as JSON there). pydantic-ai keeps `agent.run(metadata=...)` as the attribute `metadata`,
    a JSON string, so `metadata.case_id` reaches into it."""
    parts = key.split(".")
    return tuple(
        (".".join(parts[:cut]), tuple(parts[cut:])) for cut in range(len(parts) - 1, 0, -1)
    )


def _held(value: Any) -> int:
    return 64 + sum(_size(v) for v in value.values()) if type(value) is dict else 64


def _size(value: Any) -> int:
    if value is None:
        return 0
    if type(value) is str:
        return len(value)
    return len(json_dumps(value))


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
        resource = _resource(rs)
        for ss in scopes:
            raw = ss.get("spans") if type(ss) is dict else None
            if type(raw) is not list:
                return "a scopeSpans entry has no spans list"
            for span in raw:
                if type(span) is not dict:
                    return "a span is not an object"
                spans.append(_otlp_span(span, resource))
    return spans


def _resource(holder: dict[str, Any]) -> dict[str, Any] | None:
    """The attributes of a batch's or a flat span's `resource` (OTLP's key/value list, or the
    Python SDK's object); None when it has none."""
    resource = holder.get("resource")
    raw = resource.get("attributes") if type(resource) is dict else None
    if type(raw) is dict:
        return raw
    return _otlp_attributes(raw) if type(raw) is list else None


# OTLP span flags: the parent's is-remote bit is known (0x100), and it is set (0x200).
_PARENT_REMOTE = 0x300


def _otlp_span(span: dict[str, Any], resource: dict[str, Any] | None = None) -> _Span:
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
        name=_text(span.get("name")),
        message=_message(status),
        events=_events(span.get("events")),
        resource=resource,
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
        name=_text(span.get("name")),
        message=_message(status),
        events=_events(span.get("events")),
        resource=_resource(span),
    )


def _events(raw: Any) -> tuple[tuple[str, dict[str, Any]], ...]:
    """A span's GenAI events (the GenAI event convention: `gen_ai.tool.message`,
    `gen_ai.choice`...), flat or OTLP; other events (exceptions, logs) are not kept."""
    if type(raw) is not list or not raw:
        return ()
    found = []
    for event in raw:
        if type(event) is not dict:
            continue
        name = event.get("name")
        if type(name) is str and name.startswith("gen_ai."):
            attrs = event.get("attributes")
            found.append((name, attrs if type(attrs) is dict else _otlp_attributes(attrs)))
    return tuple(found)


def _text(value: Any) -> str:
    return value if type(value) is str else ""


def _message(status: Any) -> str | None:
    """A failed span's status description, its first line (Python tracebacks follow it)."""
    if type(status) is not dict:
        return None
    text = status.get("description", status.get("message"))
    return (
        text.split("Traceback (most recent call last)")[0].strip() or None
        if type(text) is str
        else None
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
    """A trace or span id as one spelling: hex (OTLP/JSON, the SDKs' `0x...`) in lower case
    without `0x`; any other id (base64, as protobuf's own JSON mapping writes bytes) as it is,
    since base64 tells `a` from `A` and two traces must not become one."""
    if type(value) is not str or not value:
        return None
    digits = value[2:] if value[:2] in ("0x", "0X") else value
    return digits.lower() if digits and _HEX.fullmatch(digits) else value


_HEX = re.compile(r"[0-9a-fA-F]+")


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


CASE_KEYS = (
    CASE_ATTR,
    "metadata.case_id",
    *(k for c in CONVENTIONS for k in c.case_keys),
)
"""Where a trace's case id is looked for by default, on any span (`--case-key` replaces them)."""
RUN_KEYS = (RUN_ATTR, "metadata.run_id")


def _grouper(keys: GroupKeys, *, otel_limits: GroupLimits | None = None, **_: Any) -> OtelGrouper:
    return OtelGrouper(
        otel_limits or GroupLimits(),
        case_keys=(keys.case_key,) if keys.case_key else CASE_KEYS,
        run_keys=(keys.run_key,) if keys.run_key else RUN_KEYS,
        group_key=keys.group_key,
    )


FORMAT = TraceFormat(
    name="otel",
    summary="OpenTelemetry GenAI spans: one span or OTLP/JSON batch a line, a trace a run",
    looks_like="a span or resourceSpans",
    detect=_detect,
    order=10,
    group=_grouper,
)
