"""Haystack's tracing spans, with content tracing on (`HAYSTACK_CONTENT_TRACING_ENABLED=true`:
without it no span holds a call's arguments), as its OpenTelemetry tracer writes them (Haystack
2's `OpenTelemetryTracer`; Haystack 3's, from `opentelemetry-haystack`). A tag that is not a
plain value is JSON text.

Haystack 3 writes a span a tool call, `haystack.agent.step.tool`: the tool
`haystack.tool.name`, its arguments `haystack.agent.step.tool.input`, its reply
`haystack.agent.step.tool.output` (`{"error": ...}` when it failed), `haystack.tool.error`
true when it failed. Haystack 2 has no tool span: an Agent's tools run in its `ToolInvoker`
component, whose `haystack.component.run` span (`haystack.component.type` `ToolInvoker`) keeps
its output, `{"tool_messages": [ChatMessage...]}`: each message's `tool_call_result` is one
call, its `origin` the call (`tool_name`, `arguments`, `id`), its `result`, and `error` true
when the tool failed.

The Agent's run span (`haystack.agent.run`, with `haystack.agent.max_steps`, written whatever is
traced) makes the trace an agent run, one that made no call too.
"""

from __future__ import annotations

from typing import Any

from .._walk import json_value
from ._span import Span, SpanConvention, SpanRead, put_args

TOOL_SPAN = "haystack.agent.step.tool"
TOOL_NAME = "haystack.tool.name"
TOOL_INPUT = "haystack.agent.step.tool.input"
TOOL_OUTPUT = "haystack.agent.step.tool.output"
TOOL_ERROR = "haystack.tool.error"
COMPONENT_TYPE = "haystack.component.type"
COMPONENT_OUTPUT = "haystack.component.output"
TOOL_INVOKER = "ToolInvoker"
AGENT_MARKER = "haystack.agent.max_steps"
CONTENT_OFF = "HAYSTACK_CONTENT_TRACING_ENABLED is not true"
MAX_MESSAGES = 10_000


def read(span: Span) -> SpanRead | None:
    attrs = span.attrs
    if span.name == TOOL_SPAN or TOOL_NAME in attrs:
        return _tool_span(span)
    if attrs.get(COMPONENT_TYPE) == TOOL_INVOKER:
        return _tool_invoker(span)
    return None


def _tool_span(span: Span) -> SpanRead:
    attrs = span.attrs
    name = attrs.get(TOOL_NAME)
    if type(name) is not str or not name:
        return SpanRead(note=f"a {TOOL_SPAN} span has no {TOOL_NAME}")
    call: dict[str, Any] = {"tool": name}
    if TOOL_INPUT in attrs:
        put_args(call, attrs[TOOL_INPUT], json_value(attrs[TOOL_INPUT]))
    else:
        call["args_hidden"] = CONTENT_OFF
    output = json_value(attrs[TOOL_OUTPUT]) if TOOL_OUTPUT in attrs else None
    if TOOL_OUTPUT in attrs:
        call["result"] = output
    if attrs.get(TOOL_ERROR) is True or span.error:
        message = output.get("error") if type(output) is dict else None
        call["error"] = message if type(message) is str and message else span.message or True
    return SpanRead(tool=call)


def _tool_invoker(span: Span) -> SpanRead:
    found = SpanRead()
    if COMPONENT_OUTPUT not in span.attrs and span.error:
        found.unrecorded = (
            f"a {TOOL_INVOKER} span failed before it recorded its output (a tool raised, and "
            "raise_on_tool_invocation_failure is on)"
        )
        found.unrecorded_fix = "run the Agent with raise_on_tool_invocation_failure off"
        return found
    if COMPONENT_OUTPUT not in span.attrs:
        found.unrecorded = (
            f"a {TOOL_INVOKER} span ran tools but records no {COMPONENT_OUTPUT} "
            f"({CONTENT_OFF}: set it to record the calls)"
        )
        return found
    output = json_value(span.attrs[COMPONENT_OUTPUT])
    messages = output.get("tool_messages") if type(output) is dict else None
    if type(messages) is not list:
        found.note = f"a {TOOL_INVOKER} span's {COMPONENT_OUTPUT} has no tool_messages list"
        return found
    for message in messages[:MAX_MESSAGES]:
        content = message.get("content") if type(message) is dict else None
        for part in content if type(content) is list else ():
            reply = part.get("tool_call_result") if type(part) is dict else None
            if type(reply) is not dict:
                continue
            origin = reply.get("origin")
            name = origin.get("tool_name") if type(origin) is dict else None
            if type(origin) is not dict or type(name) is not str or not name:
                found.note = f"a {TOOL_INVOKER} span's tool_call_result has no origin tool_name"
                continue
            call: dict[str, Any] = {"tool": name}
            if "arguments" in origin:
                call["args"] = origin["arguments"]
            fields: dict[str, Any] = {"result": reply.get("result")}
            if reply.get("error") is True:
                result = reply.get("result")
                fields["error"] = result if type(result) is str and result else True
            call_id = origin.get("id")
            found.requested.append((call_id, call))
            if call_id is None:
                call.update(fields)  # no id to pair its reply by: the reply goes with the call
            else:
                found.replies.append((call_id, fields))
    return found


CONVENTION = SpanConvention(
    name="Haystack",
    summary="Haystack 3's `haystack.agent.step.tool` spans (`haystack.tool.name`, "
    "`haystack.agent.step.tool.input` / `.output`, `haystack.tool.error`); Haystack 2's "
    "`ToolInvoker` component spans (`haystack.component.output`'s `tool_messages`, each "
    "`tool_call_result` with its `origin` call and `error`); content tracing on",
    read=read,
    marker=AGENT_MARKER,
)
