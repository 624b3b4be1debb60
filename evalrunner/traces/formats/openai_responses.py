"""OpenAI Responses: `function_call` and `function_call_output` items, and `mcp_call` items."""

from __future__ import annotations

from typing import Any

from ..format import TraceFormat
from ._pairing import Pairer, has_messages, is_str_in, native_call, openai_reply

ITEM_TYPES = frozenset(
    {"function_call", "function_call_output", "mcp_call", "message", "reasoning"}
)


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    """Response items from `input` then `output`: `function_call` (`call_id`, `name`,
    `arguments`) paired with `function_call_output`, and `mcp_call` (its own output and error)."""
    items: list[Any] = []
    for key in ("input", "output"):
        value = record.get(key)
        if type(value) is list:
            items.extend(value)
    pairer = Pairer()
    for i, item in enumerate(items):
        if type(item) is not dict:
            return f"item {i} is not an object"
        kind = item.get("type")
        if kind == "function_call":
            pairer.call(native_call(item.get("name"), item, "arguments"), item.get("call_id"))
        elif kind == "function_call_output":
            pairer.reply(item.get("call_id"), {"result": openai_reply(item.get("output"))})
        elif kind == "mcp_call":
            call = native_call(item.get("name"), item, "arguments")
            call["result"] = item.get("output")
            call["error"] = item.get("error")
            pairer.done(call)
    return pairer.calls


def _exchange(
    request: dict[str, Any], response: dict[str, Any], rest: dict[str, Any]
) -> dict[str, Any] | None:
    """A Responses request (`input`: items, or the user's text) and its response's `output`."""
    output = response.get("output")
    if type(output) is not list:
        return None
    given = request.get("input")
    items = given if type(given) is list else [{"role": "user", "content": given}]
    return {**rest, "input": items, "output": output}


def _detect(record: Any) -> bool:
    if type(record) is not dict or has_messages(record):
        return False
    return record.get("object") == "response" or any(
        type(item) is dict and (is_str_in(item.get("type"), ITEM_TYPES) or "role" in item)
        for key in ("input", "output")
        if type(record.get(key)) is list
        for item in record[key]
    )


FORMAT = TraceFormat(
    name="openai-responses",
    summary="OpenAI Responses: a response's input and output items",
    looks_like='"input"/"output" items, or "object": "response"',
    detect=_detect,
    order=50,
    calls=calls,
    exchange=_exchange,
    call_types=frozenset({"function_call", "mcp_call"}),
)
