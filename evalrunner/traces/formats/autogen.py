"""AutoGen AgentChat: a run's messages and events (`TaskResult.messages`, each
`model_dump()`), and an agent's `save_state()` (its `llm_context.messages`).

Calls are `ToolCallRequestEvent` (and, in a model context, `AssistantMessage`) contents: function
calls (`id`, `name`, `arguments`, JSON text), paired by `call_id` with the results of
`ToolCallExecutionEvent` (or `FunctionExecutionResultMessage`): `content`, and `is_error`, which
makes an errored attempt.
"""

from __future__ import annotations

from typing import Any

from ..format import TraceFormat
from ._pairing import Pairer, is_str_in, native_call, openai_reply

CALLS = frozenset({"ToolCallRequestEvent", "AssistantMessage"})
RESULTS = frozenset({"ToolCallExecutionEvent", "FunctionExecutionResultMessage"})


def _messages(record: dict[str, Any]) -> Any:
    """The messages: `messages` (TaskResult), else a saved state's `llm_context.messages`
    (the state itself, or under `state`)."""
    if type(record.get("messages")) is list:
        return record["messages"]
    for holder in (record, record.get("state")):
        if type(holder) is dict:
            context = holder.get("llm_context")
            if type(context) is dict and type(context.get("messages")) is list:
                return context["messages"]
    return None


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    messages = _messages(record)
    if messages is None:
        return 'no "messages" list (nor a saved state\'s "llm_context.messages")'
    pairer = Pairer()
    for i, m in enumerate(messages):
        if type(m) is not dict:
            return f"message {i} is not an object"
        kind = m.get("type")
        content = m.get("content")
        if is_str_in(kind, CALLS) and type(content) is list:
            for fc in content:
                if type(fc) is dict and "name" in fc:
                    pairer.call(native_call(fc.get("name"), fc, "arguments"), fc.get("id"))
        elif is_str_in(kind, RESULTS) and type(content) is list:
            for result in content:
                if type(result) is not dict:
                    continue
                fields: dict[str, Any] = {"result": openai_reply(result.get("content"))}
                if result.get("is_error") is True:
                    fields["is_error"] = True
                pairer.reply(result.get("call_id"), fields)
    return pairer.calls


def _typed(kind: Any) -> bool:
    """AutoGen's message and event types are class names (`TextMessage`, `ThoughtEvent`)."""
    return type(kind) is str and kind[:1].isupper()


def _detect(record: Any) -> bool:
    if type(record) is not dict:
        return False
    messages = _messages(record)
    return (
        type(messages) is list
        and bool(messages)
        and all(type(m) is dict and _typed(m.get("type")) for m in messages)
        and any(is_str_in(m.get("type"), CALLS | RESULTS) for m in messages)
    )


FORMAT = TraceFormat(
    name="autogen",
    summary="AutoGen AgentChat: TaskResult.messages (model_dump()), or save_state()'s llm_context",
    looks_like='"messages" (or "llm_context.messages") of type ToolCallRequestEvent, '
    "AssistantMessage...",
    detect=_detect,
    order=23,
    calls=calls,
)
