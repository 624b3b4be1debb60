"""LlamaIndex: an agent's chat history (`ChatMessage.model_dump()`: `blocks`, `additional_kwargs`)
in a record's `messages`, or its `ToolCallResult` events (`model_dump()`) in a record's `events`.

In the history, calls are `tool_call` blocks (`tool_call_id`, `tool_name`, `tool_kwargs`) or
`additional_kwargs.tool_calls` (as the provider wrote them), paired with `tool` messages by
`additional_kwargs.tool_call_id`; the history keeps no error flag (a tool's exception is its
text: `--error-pattern` says which). A `ToolCallResult` event holds a call whole: `tool_name`,
`tool_kwargs`, `tool_output` with `is_error`.
"""

from __future__ import annotations

from typing import Any

from ..format import TraceFormat
from ._pairing import Pairer, has_messages, messages_kind


def _text(message: dict[str, Any]) -> Any:
    blocks = message.get("blocks")
    if type(blocks) is list:
        texts = [b.get("text") for b in blocks if type(b) is dict and b.get("block_type") == "text"]
        if texts and all(type(t) is str for t in texts):
            return "".join(t for t in texts if type(t) is str)
    return message.get("content")


def _history(messages: list[Any]) -> list[dict[str, Any]] | str:
    pairer = Pairer()
    for i, m in enumerate(messages):
        if type(m) is not dict:
            return f"message {i} is not an object"
        extra = m.get("additional_kwargs")
        extra = extra if type(extra) is dict else {}
        if m.get("role") == "tool":
            pairer.reply(extra.get("tool_call_id"), {"result": _text(m)})
            continue
        blocks = m.get("blocks")
        for b in blocks if type(blocks) is list else []:
            if type(b) is dict and b.get("block_type") == "tool_call":
                call = {"tool": b.get("tool_name")}
                if "tool_kwargs" in b:
                    call["args"] = b["tool_kwargs"]
                pairer.call(call, b.get("tool_call_id"))
        tool_calls = extra.get("tool_calls")
        for tc in tool_calls if type(tool_calls) is list else []:
            if type(tc) is not dict:
                continue
            function = tc.get("function")
            if type(function) is dict:  # as an OpenAI-like provider wrote it
                call = {"tool": function.get("name")}
                if "arguments" in function:
                    call["args"] = function["arguments"]
                pairer.call(call, tc.get("id"))
            elif "tool_name" in tc:  # a ToolSelection
                call = {"tool": tc.get("tool_name")}
                if "tool_kwargs" in tc:
                    call["args"] = tc["tool_kwargs"]
                pairer.call(call, tc.get("tool_id"))
    return pairer.calls


def _results(events: list[Any]) -> list[dict[str, Any]]:
    out = []
    for event in events:
        if type(event) is not dict or type(event.get("tool_output")) is not dict:
            continue  # ToolCall (its result follows), AgentOutput, AgentInput...
        output = event["tool_output"]
        call: dict[str, Any] = {"tool": event.get("tool_name")}
        if "tool_kwargs" in event:
            call["args"] = event["tool_kwargs"]
        call["result"] = output.get("raw_output", _text(output))
        if output.get("is_error") is True:
            call["is_error"] = True
        out.append(call)
    return out


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    events = record.get("events")
    if type(events) is list and _has_results(events):
        return _results(events)
    messages = record.get("messages")
    if type(messages) is not list:
        return 'no "messages" list (nor "events" with ToolCallResult events)'
    return _history(messages)


def _claims(message: Any) -> bool:
    """A LlamaIndex ChatMessage: content `blocks` typed by `block_type`."""
    if type(message) is not dict:
        return False
    blocks = message.get("blocks")
    return type(blocks) is list and any(type(b) is dict and "block_type" in b for b in blocks)


def _has_results(events: list[Any]) -> bool:
    return any(type(e) is dict and type(e.get("tool_output")) is dict for e in events)


def _detect(record: Any) -> bool:
    if type(record) is not dict:
        return False
    if has_messages(record):
        return messages_kind(record) == "llamaindex"
    events = record.get("events")
    return type(events) is list and _has_results(events)


FORMAT = TraceFormat(
    name="llamaindex",
    summary="LlamaIndex: an agent's chat history (ChatMessage blocks), or its ToolCallResult events",
    looks_like='"messages" with block_type blocks, or "events" with tool_output',
    detect=_detect,
    order=23,
    calls=calls,
    claims_message=_claims,
)
