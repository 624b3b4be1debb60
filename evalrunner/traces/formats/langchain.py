"""LangChain messages: `message.model_dump()` (`{"type": "ai", "tool_calls": [...]}`),
`messages_to_dict()` (`{"type": "ai", "data": {...}}`) or `dumpd()` (`{"lc": 1, "type":
"constructor", "id": [..., "AIMessage"], "kwargs": {...}}`), one run's list in a record's
`messages` (LangGraph's `state["messages"]`)."""

from __future__ import annotations

from typing import Any

from ..format import TraceFormat
from ._pairing import Pairer, is_str_in, native_call

TYPES = frozenset({"ai", "human", "tool", "system", "function", "chat", "AIMessageChunk"})


CLASSES = {
    "AIMessage": "ai",
    "AIMessageChunk": "AIMessageChunk",
    "HumanMessage": "human",
    "HumanMessageChunk": "human",
    "ToolMessage": "tool",
    "ToolMessageChunk": "tool",
    "SystemMessage": "system",
    "SystemMessageChunk": "system",
    "FunctionMessage": "function",
    "ChatMessage": "chat",
}
"""`dumpd()`'s class names (the last of its `id`), for a dump whose `kwargs` has no `type`."""


def _fields(m: Any) -> dict[str, Any] | None:
    """A message's fields, whichever way it was dumped."""
    if type(m) is not dict:
        return None
    kwargs = m.get("kwargs")
    if m.get("lc") == 1 and m.get("type") == "constructor" and type(kwargs) is dict:
        path = m.get("id")  # dumpd: the class's import path, and its constructor's arguments
        name = path[-1] if type(path) is list and path else None
        if "type" not in kwargs and type(name) is str and name in CLASSES:
            kwargs = {**kwargs, "type": CLASSES[name]}
        return kwargs
    data = m.get("data")
    if type(data) is dict and "type" in m and "content" in data:
        return data  # messages_to_dict
    return m


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    """AI messages' `tool_calls` (`name`, `args`, an object, `id`) and `invalid_tool_calls` (the
    model's arguments did not parse: `args` is their text, a malformed call), paired with tool
    messages by `tool_call_id`; a tool message with `status: "error"` is an errored attempt."""
    messages = record.get("messages")
    if type(messages) is not list:
        return 'no "messages" list'
    pairer = Pairer()
    for i, m in enumerate(messages):
        fields = _fields(m)
        if fields is None:
            return f"message {i} is not an object"
        kind = fields.get("type")
        if kind in ("ai", "AIMessageChunk"):
            for key in ("tool_calls", "invalid_tool_calls"):
                found = fields.get(key)
                if not isinstance(found, list):
                    continue
                for tc in found:
                    if type(tc) is not dict:
                        return f"message {i}: a tool call is not an object"
                    call = native_call(tc.get("name"), tc, "args")
                    if key == "invalid_tool_calls" and type(call.get("args")) is not str:
                        call["args"] = f"{call.get('args')!r}"  # unparsed: never compared as {}
                    pairer.call(call, tc.get("id"))
        elif kind == "tool":
            reply: dict[str, Any] = {"result": fields.get("content")}
            if fields.get("status") == "error":
                reply["status"] = "error"
            pairer.reply(fields.get("tool_call_id"), reply)
    return pairer.calls


def is_messages(messages: Any) -> bool:
    """A list of LangChain messages: each has a LangChain `type` and no `role`."""
    if type(messages) is not list or not messages:
        return False
    for m in messages:
        fields = _fields(m)
        if fields is None or "role" in fields or not is_str_in(fields.get("type"), TYPES):
            return False
    return True


def _detect(record: Any) -> bool:
    return type(record) is dict and is_messages(record.get("messages"))


FORMAT = TraceFormat(
    name="langchain",
    summary="LangChain messages: model_dump(), messages_to_dict() or dumpd(), in a record's messages",
    looks_like='"messages" with a LangChain "type" (ai, human, tool)',
    detect=_detect,
    order=24,
    calls=calls,
    call_types=frozenset({"tool_call"}),
)
