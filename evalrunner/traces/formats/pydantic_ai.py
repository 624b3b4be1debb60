"""pydantic-ai messages: `result.all_messages_json()` (a list of ModelRequest and ModelResponse
objects), one run's list in a record's `messages`."""

from __future__ import annotations

import re
from typing import Any

from ..format import AllCalls, TraceFormat
from ._pairing import Pairer, is_str_in, native_call

ERROR_OUTCOMES = frozenset({"failed", "retried"})
"""A `tool-return` with one of these `outcome`s reached the model as an error (pydantic-ai's
`messages.ERROR_OUTCOMES`: the tool raised, or `ModelRetry` asked for another try)."""

OUTPUT_REPLIES = frozenset(
    {"Final result processed.", "Output tool not used - a final result was already processed."}
)
"""What pydantic-ai replies to a call of an output tool (`_tool_execution.py`): the call carried
the agent's structured answer (`output_type=`), it did not use the tool surface."""
OUTPUT_TOOL = re.compile(r"final_result(_\w+)?")
"""pydantic-ai's output tool names: `final_result`, or `final_result_<Type>` for a union."""
_OUTPUT = "\0output"  # a mark on a paired call, never a key a trace can hold


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    """`tool-call` parts of responses (`tool_name`, `args`: an object or its JSON text,
    `tool_call_id`), paired with `tool-return` parts (an `outcome` of `failed` or `retried` is an
    errored attempt) and `retry-prompt` parts (the tool or its arguments were rejected: an
    errored attempt) of the next requests.

    Calls of an output tool are not calls of the tool surface, so they are left out: a call
    answered with an output tool's reply, and a call named `final_result` (or `final_result_...`)
    that was answered with a retry prompt (its answer did not validate) or not at all."""
    messages = record.get("messages")
    if type(messages) is not list:
        return 'no "messages" list'
    pairer = Pairer()
    for i, m in enumerate(messages):
        if type(m) is not dict or type(m.get("parts")) is not list:
            return f'message {i} is not a pydantic-ai message (an object with "parts")'
        for part in m["parts"]:
            if type(part) is not dict:
                return f"message {i}: a part is not an object"
            kind = part.get("part_kind")
            if kind == "tool-call":
                pairer.call(
                    native_call(part.get("tool_name"), part, "args"), part.get("tool_call_id")
                )
            elif kind == "tool-return":
                fields: dict[str, Any] = {"result": part.get("content")}
                if is_str_in(part.get("outcome"), ERROR_OUTCOMES):
                    fields["error"] = part.get("outcome")
                elif is_str_in(part.get("content"), OUTPUT_REPLIES):
                    fields[_OUTPUT] = True
                pairer.reply(part.get("tool_call_id"), fields)
            elif kind == "retry-prompt" and part.get("tool_name") is not None:
                # a retry-prompt without tool_name answers the model's text, not a call
                pairer.reply(
                    part.get("tool_call_id"), {"result": part.get("content"), "error": "retry"}
                )
    kept = [c for c in pairer.calls if not _is_output(c)]
    # a run whose only calls were of the output tool made no call (not a shape missed)
    return AllCalls() if not kept and pairer.calls else kept


def _is_output(call: dict[str, Any]) -> bool:
    if call.pop(_OUTPUT, False):
        return True
    name = call.get("tool")
    return (
        type(name) is str
        and OUTPUT_TOOL.fullmatch(name) is not None
        and ("result" not in call or call.get("error") == "retry")
    )


def is_messages(messages: Any) -> bool:
    """A list of pydantic-ai messages: objects with `kind` request/response and `parts`."""
    return (
        type(messages) is list
        and bool(messages)
        and all(
            type(m) is dict and m.get("kind") in ("request", "response") and "parts" in m
            for m in messages
        )
    )


def _detect(record: Any) -> bool:
    return type(record) is dict and is_messages(record.get("messages"))


FORMAT = TraceFormat(
    name="pydantic-ai",
    summary="pydantic-ai messages: result.all_messages_json(), in a record's messages",
    looks_like='"messages" of kind request/response with parts',
    detect=_detect,
    order=22,
    calls=calls,
    call_types=frozenset({"tool-call"}),
)
