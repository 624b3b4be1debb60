"""OpenLLMetry's (Traceloop's) legacy flat attributes, from before it wrote
`gen_ai.input.messages`/`gen_ai.output.messages`: a model span's completions
(`gen_ai.completion.N.tool_calls.M.{id,name,arguments}`) are the calls it asked for, and its
prompt messages of role `tool` (`gen_ai.prompt.N.{role,content,tool_call_id}`) the replies it
was sent. A completion whose `finish_reason` asks for tools but lists none is not recorded."""

from __future__ import annotations

from typing import Any

from .._walk import json_value
from ._span import Span, SpanConvention, SpanRead, asks_for_tools, indexed

COMPLETION = "gen_ai.completion."
PROMPT = "gen_ai.prompt."


def read(span: Span) -> SpanRead | None:
    attrs = span.attrs
    completions = indexed(attrs, COMPLETION)
    prompts = indexed(attrs, PROMPT)
    if not completions and not prompts:
        return None
    read = SpanRead()
    for fields in completions.values():
        calls = indexed(fields, "tool_calls.")
        for tc in calls.values():
            name = tc.get("name")
            if type(name) is not str or not name:
                read.note = f'span "{span.name}" has a gen_ai.completion tool call without a name'
                continue
            call: dict[str, Any] = {"tool": name}
            if "arguments" in tc:
                call["args"] = tc["arguments"]
            read.requested.append((tc.get("id"), call))
        if not calls and asks_for_tools(fields.get("finish_reason")):
            read.unrecorded = (
                f'span "{span.name}" has a completion that finished with '
                f"{fields['finish_reason']!r} but records no tool call"
            )
    for fields in prompts.values():
        if fields.get("role") == "tool":
            reply = {"result": json_value(fields.get("content"))}
            read.replies.append((fields.get("tool_call_id"), reply))
    return read


CONVENTION = SpanConvention(
    name="OpenLLMetry's legacy attributes",
    summary="`gen_ai.completion.*.tool_calls.*.{id,name,arguments}` (the calls), "
    "`gen_ai.prompt.*` of role `tool` (their replies, by `tool_call_id`)",
    read=read,
)
