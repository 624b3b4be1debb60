"""Semantic Kernel: a `ChatHistory` (`chat_history.serialize()`, or `model_dump()`), its
`messages` with typed `items`.

Calls are the `function_call` items (`id`, `function_name`, `arguments`), paired by `id` with the
`function_result` items (`result`). A call's tool is its `function_name` (the plugin's function:
`get_customer`), not the plugin-qualified `name` (`Billing-get_customer`), which is read only when
no `function_name` is there. A failed function's result is Semantic Kernel's default text ("An
error occurred while invoking the function ..."), read by the built-in error texts.
"""

from __future__ import annotations

from typing import Any

from ..format import TraceFormat
from ._pairing import (
    Pairer,
    has_messages,
    has_part,
    is_str_in,
    message_parts,
    messages_kind,
    openai_reply,
)

ITEM_TYPES = frozenset({"function_call", "function_result"})


def _tool(item: dict[str, Any]) -> Any:
    name = item.get("function_name")
    return name if type(name) is str and name else item.get("name")


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    items = message_parts(record, "items")
    if isinstance(items, str):
        return items
    pairer = Pairer()
    for item in items:
        kind = item.get("content_type")
        if kind == "function_call":
            call: dict[str, Any] = {"tool": _tool(item)}
            if "arguments" in item:
                call["args"] = {} if item["arguments"] is None else item["arguments"]
            pairer.call(call, item.get("id"))
        elif kind == "function_result":
            pairer.reply(item.get("id"), {"result": openai_reply(item.get("result"))})
    return pairer.calls


def _claims(message: Any) -> bool:
    """A ChatMessageContent with function_call / function_result items."""
    return has_part(message, "items", lambda it: is_str_in(it.get("content_type"), ITEM_TYPES))


def _detect(record: Any) -> bool:
    return (
        type(record) is dict and has_messages(record) and messages_kind(record) == "semantic-kernel"
    )


FORMAT = TraceFormat(
    name="semantic-kernel",
    summary="Semantic Kernel: a ChatHistory (serialize()), its items typed function_call/result",
    looks_like='"messages" with items of content_type function_call / function_result',
    detect=_detect,
    order=23,
    calls=calls,
    claims_message=_claims,
)
