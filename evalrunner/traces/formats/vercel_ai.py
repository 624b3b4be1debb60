"""The Vercel AI SDK (5): `response.messages` (model messages) in a record's `messages`, or
`result.steps` in a record's `steps`, as `JSON.stringify` writes them.

Calls are `tool-call` parts (`toolCallId`, `toolName`, `input`), paired by `toolCallId` with
`tool-result` parts (`output`: `{"type": "json" | "text", "value"}`; an `output.type` of
`error-text` or `error-json` is an errored attempt) or, in steps, `tool-error` parts (`error`):
an errored attempt. AI SDK 4's `args` / `result` are read too. The case id may be in
`experimental_telemetry.metadata.case_id` as the record keeps it.

Written from the SDK's documented parts (an npm package; not driven here).
"""

from __future__ import annotations

from typing import Any

from ..format import DEFAULT_CASE_PATHS, TraceFormat
from ._pairing import Pairer, has_messages, is_str_in, messages_kind

PART_TYPES = frozenset({"tool-call", "tool-result", "tool-error"})
ERROR_OUTPUTS = frozenset({"error-text", "error-json"})


def _parts(record: dict[str, Any]) -> list[Any] | str:
    messages = record.get("messages")
    if type(messages) is list:
        found: list[Any] = []
        for i, m in enumerate(messages):
            if type(m) is not dict:
                return f"message {i} is not an object"
            content = m.get("content")
            if type(content) is list:
                found.extend(content)
        return found
    steps = record.get("steps")
    if type(steps) is list:
        found = []
        for step in steps:
            content = step.get("content") if type(step) is dict else None
            if type(content) is list:
                found.extend(content)
        return found
    return 'no "messages" or "steps" list'


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    parts = _parts(record)
    if type(parts) is str:
        return parts
    pairer = Pairer()
    for part in parts:
        if type(part) is not dict:
            continue
        kind = part.get("type")
        if kind == "tool-call":
            call: dict[str, Any] = {"tool": part.get("toolName")}
            for key in ("input", "args"):
                if key in part:
                    call["args"] = part[key]
                    break
            pairer.call(call, part.get("toolCallId"))
        elif kind == "tool-result":
            output = part.get("output", part.get("result"))
            fields: dict[str, Any] = {"result": output}
            if type(output) is dict and "type" in output and "value" in output:
                fields["result"] = output["value"]
                if is_str_in(output["type"], ERROR_OUTPUTS):
                    fields["error"] = output["value"] if output["value"] else True
            if part.get("isError") is True:
                fields["is_error"] = True
            pairer.reply(part.get("toolCallId"), fields)
        elif kind == "tool-error":
            error = part.get("error")
            pairer.reply(part.get("toolCallId"), {"error": error if error else True})
    return pairer.calls


def _claims(message: Any) -> bool:
    """A message with a `tool-call` / `tool-result` part that has a `toolCallId`."""
    if type(message) is not dict:
        return False
    content = message.get("content")
    return type(content) is list and any(
        type(p) is dict and is_str_in(p.get("type"), PART_TYPES) and "toolCallId" in p
        for p in content
    )


def _detect(record: Any) -> bool:
    if type(record) is not dict:
        return False
    if has_messages(record):
        return messages_kind(record) == "vercel-ai"
    steps = record.get("steps")
    return type(steps) is list and any(_claims(s) for s in steps)


FORMAT = TraceFormat(
    name="vercel-ai",
    summary="Vercel AI SDK: response.messages or result.steps (tool-call / tool-result parts)",
    looks_like='"messages" or "steps" with tool-call parts that have a toolCallId',
    detect=_detect,
    order=23,
    calls=calls,
    claims_message=_claims,
    case_paths=(*DEFAULT_CASE_PATHS, ("experimental_telemetry", "metadata", "case_id")),
)
