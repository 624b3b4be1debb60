"""Haystack: `ChatMessage.to_dict()` of each message (an Agent's `result["messages"]`), in a
record's `messages`.

Calls are the `tool_call` contents of assistant messages (`tool_name`, `arguments`, `id`),
paired by `origin.id` with the `tool_call_result` contents of tool messages (`result`, `error`:
true makes an errored attempt, as the Agent writes it with
`raise_on_tool_invocation_failure=False`).
"""

from __future__ import annotations

from typing import Any

from ..format import TraceFormat
from ._pairing import (
    Pairer,
    has_messages,
    has_part,
    message_parts,
    messages_kind,
    native_call,
    openai_reply,
)


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    parts = message_parts(record, "content")
    if isinstance(parts, str):
        return parts
    pairer = Pairer()
    for part in parts:
        call = part.get("tool_call")
        if type(call) is dict:
            pairer.call(native_call(call.get("tool_name"), call, "arguments"), call.get("id"))
            continue
        result = part.get("tool_call_result")
        if type(result) is dict:
            origin = result.get("origin")
            call_id = origin.get("id") if type(origin) is dict else None
            fields: dict[str, Any] = {"result": openai_reply(result.get("result"))}
            if result.get("error") is True:
                fields["is_error"] = True
            pairer.reply(call_id, fields)
    return pairer.calls


def _claims(message: Any) -> bool:
    """A message with a `tool_call` or `tool_call_result` content (Haystack's to_dict())."""
    return has_part(message, "content", lambda p: "tool_call" in p or "tool_call_result" in p)


def _detect(record: Any) -> bool:
    return type(record) is dict and has_messages(record) and messages_kind(record) == "haystack"


FORMAT = TraceFormat(
    name="haystack",
    summary="Haystack: ChatMessage.to_dict() of each message (an Agent's messages)",
    looks_like='"messages" with tool_call / tool_call_result contents',
    detect=_detect,
    order=23,
    calls=calls,
    claims_message=_claims,
)
