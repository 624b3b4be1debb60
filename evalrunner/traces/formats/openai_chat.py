"""OpenAI Chat Completions logs: assistant `tool_calls` and `role: "tool"` replies."""

from __future__ import annotations

from typing import Any

from ..format import TraceFormat
from ._pairing import Pairer, has_messages, messages_kind, native_call, openai_reply


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    """`messages` (and a ChatCompletion's `choices[0].message`): assistant `tool_calls` (or the
    legacy `function_call`) and `role: "tool"` (or `"function"`) replies."""
    messages = record.get("messages")
    if messages is None:
        messages = []
    elif type(messages) is not list:
        return '"messages" is not a list'
    choices = record.get("choices")
    if type(choices) is list and choices and type(choices[0]) is dict:
        message = choices[0].get("message")
        if type(message) is dict:
            messages = [*messages, message]
    elif "messages" not in record:
        return 'no "messages" list (nor a ChatCompletion\'s "choices")'
    pairer = Pairer()
    for i, m in enumerate(messages):
        if type(m) is not dict:
            return f"message {i} is not an object"
        role = m.get("role")
        if role == "tool":
            pairer.reply(m.get("tool_call_id"), _reply(m))
        elif role == "function":  # the deprecated function-calling reply: paired by position
            pairer.reply(None, _reply(m))
        else:
            tool_calls = m.get("tool_calls")
            if type(tool_calls) is list:
                for tc in tool_calls:
                    if type(tc) is not dict:
                        return f"message {i}: a tool call is not an object"
                    if tc.get("type", "function") != "function":
                        continue  # a custom (free-text) tool: not the tool surface cases describe
                    fn = tc.get("function")
                    fn = fn if type(fn) is dict else {}
                    pairer.call(native_call(fn.get("name"), fn, "arguments"), tc.get("id"))
            fc = m.get("function_call")
            if type(fc) is dict:
                pairer.call(native_call(fc.get("name"), fc, "arguments"), None)
    return pairer.calls


def _reply(message: dict[str, Any]) -> dict[str, Any]:
    """A reply's fields for its call: the result, and the error flag a logger may set on the
    message itself (`is_error` or `isError` true, as Anthropic and MCP replies carry it)."""
    fields: dict[str, Any] = {"result": openai_reply(message.get("content"))}
    if (
        message.get("is_error") is True
        or message.get("isError") is True
        or message.get("tool_call_error") is True  # Agno's run.messages
    ):
        fields["is_error"] = True
    return fields


def _claims(message: Any) -> bool:
    """A message with `tool_calls` (or a legacy `function_call`), or a tool's reply."""
    return type(message) is dict and (
        "tool_calls" in message
        or "function_call" in message
        or message.get("role") in ("tool", "function")
    )


def _exchange(
    request: dict[str, Any], response: dict[str, Any], rest: dict[str, Any]
) -> dict[str, Any] | None:
    """A Chat Completions request and its ChatCompletion (`choices`), or a response that is a
    `message`, as Ollama's chat writes it (and others like it)."""
    messages = request.get("messages")
    messages = messages if type(messages) is list else []
    if type(response.get("choices")) is list:
        return {**rest, "messages": messages, "choices": response["choices"]}
    message = response.get("message")
    if type(message) is dict and "role" in message:
        return {**rest, "messages": [*messages, message]}
    return None


def _detect(record: Any) -> bool:
    if type(record) is not dict:
        return False
    if has_messages(record):
        return messages_kind(record) == "openai-chat"
    return type(record.get("choices")) is list  # a ChatCompletion on its own


FORMAT = TraceFormat(
    name="openai-chat",
    summary="OpenAI Chat Completions: a request's messages, or a ChatCompletion",
    looks_like='"messages" with tool_calls or role "tool", or "choices"',
    detect=_detect,
    order=30,
    calls=calls,
    claims_message=_claims,
    plain_messages=True,
    exchange=_exchange,
)
