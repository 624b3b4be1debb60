"""Amazon Bedrock Converse conversations: `toolUse` and `toolResult` content blocks."""

from __future__ import annotations

from typing import Any

from ..format import TraceFormat
from ._pairing import Pairer, native_call


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    """`messages` (and a Converse response's `output.message`) content blocks: `toolUse`
    (`toolUseId`, `name`, `input`) paired with `toolResult` (`toolUseId`, `content`, `status`;
    `"error"` is an errored attempt)."""
    messages = record.get("messages")
    if messages is None:
        messages = []
    elif type(messages) is not list:
        return '"messages" is not a list'
    answer = _output_message(record)
    if answer is not None:
        messages = [*messages, answer]
    elif "messages" not in record:
        return 'no "messages" list (nor a Converse response\'s "output.message")'
    pairer = Pairer()
    for i, m in enumerate(messages):
        if type(m) is not dict:
            return f"message {i} is not an object"
        content = m.get("content")
        if type(content) is not list:
            continue
        for block in content:
            if type(block) is not dict:
                return f"message {i}: a content block is not an object"
            use = block.get("toolUse")
            if use is not None:
                if type(use) is not dict:
                    return f"message {i}: a toolUse is not an object"
                pairer.call(native_call(use.get("name"), use, "input"), use.get("toolUseId"))
            reply = block.get("toolResult")
            if reply is not None:
                if type(reply) is not dict:
                    return f"message {i}: a toolResult is not an object"
                fields: dict[str, Any] = {}
                if "content" in reply:
                    fields["result"] = _result(reply["content"])
                if reply.get("status") == "error":
                    fields["is_error"] = True
                pairer.reply(reply.get("toolUseId"), fields)
    return pairer.calls


def _result(content: Any) -> Any:
    """A toolResult's content: the value of its one `json` block, the text of its one `text`
    block, else the blocks as they are (several, or an image or a document)."""
    if type(content) is list and len(content) == 1 and type(content[0]) is dict:
        block = content[0]
        for kind in ("json", "text"):
            if kind in block and len(block) == 1:
                return block[kind]
    return content


def _output_message(record: dict[str, Any]) -> Any:
    output = record.get("output")
    return output.get("message") if type(output) is dict else None


def _has_tool_block(message: Any) -> bool:
    return (
        type(message) is dict
        and type(message.get("content")) is list
        and any(
            type(b) is dict and ("toolUse" in b or "toolResult" in b) for b in message["content"]
        )
    )


def _detect(record: Any) -> bool:
    if type(record) is not dict:
        return False
    answer = _output_message(record)
    if _has_tool_block(answer):
        return True
    if "stopReason" in record and type(answer) is dict and type(answer.get("content")) is list:
        return True  # a Converse response that answered in text: {"output": ..., "stopReason"}
    messages = record.get("messages")
    return type(messages) is list and any(_has_tool_block(m) for m in messages)


def _exchange(
    request: dict[str, Any], response: dict[str, Any], rest: dict[str, Any]
) -> dict[str, Any] | None:
    """A Converse request and its response's `output.message`."""
    output = response.get("output")
    if type(output) is dict and type(output.get("message")) is dict:
        messages = request.get("messages")
        messages = messages if type(messages) is list else []
        return {**rest, "messages": [*messages, output["message"]]}
    return None


FORMAT = TraceFormat(
    name="bedrock",
    summary="Amazon Bedrock Converse: a request's messages, or a Converse response",
    looks_like='"messages" with toolUse/toolResult blocks, or "output": {"message": ...}',
    detect=_detect,
    order=27,
    calls=calls,
    exchange=_exchange,
    call_keys=("toolUse", "tool_use"),
)
