"""Anthropic Messages transcripts: `tool_use` and `tool_result` content blocks."""

from __future__ import annotations

from typing import Any

from ..format import TraceFormat
from ._pairing import ANTHROPIC_BLOCKS, Pairer, has_messages, is_str_in, messages_kind, native_call


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    """`messages` content blocks (or a Message's own `content`): `tool_use` (`id`, `name`,
    `input`) paired with `tool_result` (`tool_use_id`, `content`, `is_error`); the MCP
    connector's `mcp_tool_use`/`mcp_tool_result` alike."""
    messages = record.get("messages")
    if messages is None and record.get("type") == "message":
        messages = [record]
    if type(messages) is not list:
        return 'no "messages" list'
    pairer = Pairer()
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
                pairer.call(native_call(block.get("name"), block, "input"), block.get("id"))
            elif kind in ("tool_result", "mcp_tool_result"):
                fields: dict[str, Any] = {}
                if "content" in block:
                    fields["result"] = block["content"]
                if block.get("is_error") is True:
                    fields["is_error"] = True
                pairer.reply(block.get("tool_use_id"), fields)
    return pairer.calls


def _claims(message: Any) -> bool:
    """A message with a tool_use or tool_result block (or their MCP connector kin)."""
    if type(message) is not dict:
        return False
    content = message.get("content")
    return type(content) is list and any(
        type(b) is dict and is_str_in(b.get("type"), ANTHROPIC_BLOCKS) for b in content
    )


def _exchange(
    request: dict[str, Any], response: dict[str, Any], rest: dict[str, Any]
) -> dict[str, Any] | None:
    """A Messages API request and its response, a Message."""
    if response.get("type") == "message" and type(response.get("content")) is list:
        messages = request.get("messages")
        messages = messages if type(messages) is list else []
        reply = {"role": response.get("role", "assistant"), "content": response["content"]}
        return {**rest, "messages": [*messages, reply]}
    return None


def _detect(record: Any) -> bool:
    if type(record) is not dict:
        return False
    if has_messages(record):
        return messages_kind(record) == "anthropic"
    # a Messages API response on its own
    return record.get("type") == "message" and type(record.get("content")) is list


FORMAT = TraceFormat(
    name="anthropic",
    summary="Anthropic Messages: a conversation's messages, or a Message",
    looks_like='"messages" with tool_use/tool_result blocks, or "type": "message"',
    detect=_detect,
    order=25,
    calls=calls,
    claims_message=_claims,
    exchange=_exchange,
    call_types=frozenset({"tool_use", "mcp_tool_use"}),
)
