"""Langfuse's spans: its SDK (v3 and later) is an OpenTelemetry SDK, and its observations are
spans whose `langfuse.observation.type` says what they are, exported as any exporter writes
them (the client's `span_exporter=`, or its tracer provider's other processors).

A `tool` observation is a call: the tool is the span's name (what `@observe(as_type="tool")`
names it: the function's), its arguments `langfuse.observation.input` (JSON text; `@observe`
records a Python call's bound arguments, `{"args": [], "kwargs": {...}}`, unwrapped), its reply
`langfuse.observation.output`; a `langfuse.observation.level` of `ERROR` (what `@observe` sets
when the function raised) or an ERROR status is an errored attempt, its
`langfuse.observation.status_message` the error. A `generation` observation is a model call:
the tool calls in its output (an OpenAI message's `tool_calls`, or LangChain's `{name, args,
id}`) are the calls it asked for, the `role: "tool"` messages of its input their replies.

Trace attributes are JSON text: `langfuse.trace.metadata.case_id` holds `"\\"retry\\""` (what
`propagate_attributes(metadata={"case_id": ...})` writes on every span) and is read decoded.
"""

from __future__ import annotations

from typing import Any

from .._walk import json_value
from ._span import Span, SpanConvention, SpanRead, bound_arguments

TYPE = "langfuse.observation.type"
INPUT = "langfuse.observation.input"
OUTPUT = "langfuse.observation.output"
LEVEL = "langfuse.observation.level"
STATUS = "langfuse.observation.status_message"
TRACE_METADATA = "langfuse.trace.metadata."
OBSERVATION_METADATA = "langfuse.observation.metadata."
MAX_MESSAGES = 10_000


def read(span: Span) -> SpanRead | None:
    attrs = span.attrs
    kind = attrs.get(TYPE)
    if kind == "tool":
        if not span.name:
            return SpanRead(note="a Langfuse tool observation has no name")
        return SpanRead(tool=_tool(span))
    if kind != "generation":
        return None
    found = SpanRead()
    for message in _messages(json_value(attrs.get(OUTPUT))):
        tool_calls = message.get("tool_calls")
        for tc in tool_calls if type(tool_calls) is list else ():
            call = _requested(tc)
            if call is None:
                found.note = f'generation "{span.name}" has a tool call without a name'
                continue
            found.requested.append(call)
    for message in _messages(json_value(attrs.get(INPUT))):
        if message.get("role") == "tool":
            found.replies.append(
                (message.get("tool_call_id"), {"result": json_value(message.get("content"))})
            )
    return found


def _tool(span: Span) -> dict[str, Any]:
    attrs = span.attrs
    call: dict[str, Any] = {"tool": span.name}
    if INPUT in attrs:
        value = json_value(attrs[INPUT])
        args = bound_arguments(value)
        if type(args) is dict and not _positional(args):
            call["args"] = args
        elif (
            type(attrs[INPUT]) is str and attrs[INPUT].lstrip()[:1] == "{" and value is attrs[INPUT]
        ):
            call["args"] = attrs[INPUT]  # JSON the model got wrong: read as malformed, as elsewhere
        else:
            call["args_unusable"] = attrs[INPUT]  # positional arguments, or no object at all
    if OUTPUT in attrs:
        call["result"] = json_value(attrs[OUTPUT])
    if attrs.get(LEVEL) == "ERROR" or span.error:
        message = attrs.get(STATUS) or span.message
        call["error"] = message if type(message) is str and message else True
    return call


def _positional(args: dict[str, Any]) -> bool:
    """A bound-arguments wrapper that kept positional arguments (`{"args": ["C-1"], ...}`):
    their names are not recorded."""
    return "kwargs" in args and type(args.get("args")) is list and bool(args["args"])


def _messages(value: Any) -> list[dict[str, Any]]:
    """The messages an input or output holds: a message, a list of them, or a Chat Completion's
    `choices`."""
    if type(value) is dict:
        choices = value.get("choices")
        if type(choices) is list:
            return [
                c["message"] for c in choices if type(c) is dict and type(c.get("message")) is dict
            ]
        return [value]
    if type(value) is list:
        return [m for m in value[:MAX_MESSAGES] if type(m) is dict]
    return []


def _requested(tc: Any) -> tuple[Any, dict[str, Any]] | None:
    """(call id, native call) of an OpenAI tool call (`function.name`, `function.arguments`) or a
    LangChain one (`name`, `args`)."""
    if type(tc) is not dict:
        return None
    function = tc.get("function")
    if type(function) is dict:
        name, args = function.get("name"), function.get("arguments", _MISSING)
    else:
        name, args = tc.get("name"), tc.get("args", tc.get("arguments", _MISSING))
    if type(name) is not str or not name:
        return None
    call: dict[str, Any] = {"tool": name}
    if args is not _MISSING:
        call["args"] = args
    return tc.get("id"), call


_MISSING = object()


CONVENTION = SpanConvention(
    name="Langfuse",
    summary="observations of `langfuse.observation.type` `tool` (the span's name, "
    "`langfuse.observation.input` unwrapped from `@observe`'s `{args, kwargs}`, "
    "`langfuse.observation.output`, `langfuse.observation.level` `ERROR`) and `generation` "
    "(the tool calls in its output, the tool replies in its input)",
    read=read,
    case_keys=(f"{TRACE_METADATA}case_id", f"{OBSERVATION_METADATA}case_id"),
    marker=TYPE,
    model_kinds=frozenset({"generation"}),
    json_ids=(TRACE_METADATA, OBSERVATION_METADATA),
)
