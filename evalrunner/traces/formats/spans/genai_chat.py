"""GenAI chat spans: a model call's `gen_ai.output.messages` (the calls it asked for, parts of
type `tool_call`) and `gen_ai.input.messages` (the replies it was sent, parts of type
`tool_call_response`), as OpenTelemetry's own instrumentations (latest conventions), pydantic-ai
and OpenLLMetry write them. A chat span whose `gen_ai.response.finish_reasons` say the model
asked for tools, but that lists no `tool_call` part (content capture off), records calls it does
not hold; so does a `tool_call` part without `arguments` (pydantic-ai's
`include_content=False`): the reader reports such a run as unscoreable, never as no calls or
`{}`."""

from __future__ import annotations

from typing import Any

from .._walk import json_value
from ._span import Span, SpanConvention, SpanRead, asks_for_tools

FINISH_REASONS = "gen_ai.response.finish_reasons"


def read(span: Span) -> SpanRead | None:
    attrs = span.attrs
    if (
        "gen_ai.output.messages" not in attrs
        and "gen_ai.input.messages" not in attrs
        and FINISH_REASONS not in attrs
    ):
        return None
    read = SpanRead()
    for part in _parts(attrs.get("gen_ai.output.messages")):
        if part.get("type") != "tool_call":
            continue
        name = part.get("name")
        if type(name) is not str or not name:
            read.note = f'chat span "{span.name}" has a tool_call part without a name'
            continue
        call: dict[str, Any] = {"tool": name}
        if "arguments" in part:
            call["args"] = part["arguments"]
        read.requested.append((part.get("id"), call))
    for part in _parts(attrs.get("gen_ai.input.messages")):
        if part.get("type") == "tool_call_response":
            result = part.get("response", part.get("result"))
            read.replies.append((part.get("id"), {"result": json_value(result)}))
    if not read.requested and asks_for_tools(attrs.get(FINISH_REASONS)):
        read.unrecorded = (
            f'chat span "{span.name}" finished with {FINISH_REASONS} '
            f"{attrs[FINISH_REASONS]!r} but records no tool call (content capture is off)"
        )
    return read


def _parts(messages: Any) -> list[dict[str, Any]]:
    value = json_value(messages)
    if type(value) is not list:
        return []
    # some instrumentations store the list's messages each as its own JSON text
    messages = [json_value(m) for m in value]
    return [
        p
        for m in messages
        if type(m) is dict and type(m.get("parts")) is list
        for p in m["parts"]
        if type(p) is dict
    ]


CONVENTION = SpanConvention(
    name="GenAI chat spans",
    summary="`gen_ai.output.messages` parts of type `tool_call` (the calls), "
    "`gen_ai.input.messages` parts of type `tool_call_response` (their replies); "
    "`gen_ai.response.finish_reasons` asking for tools with no such part: not recorded",
    read=read,
)
