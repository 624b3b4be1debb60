"""Google ADK (Agent Development Kit): a session's events, as `session.model_dump()` (or
`model_dump_json(by_alias=True)`) writes them, or a record's `events`.

Calls are the `function_call` (`functionCall`) parts of the events' content (`id`, `name`,
`args`), paired by `id` with the `function_response` parts (`response`). ADK's documented way for
a tool to fail is a reply `{"status": "error", "error_message": ...}`: that reply is an errored
attempt here (in ADK, unlike elsewhere, a reply's `status` is the framework's convention, not the
tool's own data). One event a line is not a run: it says how to write a session.
"""

from __future__ import annotations

from typing import Any

from ..format import DEFAULT_CASE_PATHS, DEFAULT_RUN_PATHS, TraceFormat
from ._pairing import Pairer, native_call

CALL_KEYS = ("function_call", "functionCall")
REPLY_KEYS = ("function_response", "functionResponse")
ONE_EVENT = (
    "one ADK event on its own line: a run is a session's events; write each session as one "
    "line (session.model_dump_json(by_alias=True), with the case id in the session's state, "
    'create_session(state={"case_id": ...}), or {"case_id": ..., "events": [...]})'
)


def _either(part: dict[str, Any], keys: tuple[str, str]) -> Any:
    found = part.get(keys[0])
    return found if found is not None else part.get(keys[1])


def _event(value: Any) -> bool:
    return (
        type(value) is dict
        and "author" in value
        and ("invocationId" in value or "invocation_id" in value)
    )


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    events = record.get("events")
    if type(events) is not list:
        return ONE_EVENT if _event(record) else 'no "events" list'
    pairer = Pairer()
    for i, event in enumerate(events):
        if type(event) is not dict:
            return f"event {i} is not an object"
        read_event(pairer, event)
    return pairer.calls


def read_event(pairer: Pairer, event: dict[str, Any]) -> None:
    """An event's (or an eval invocation's event's) `function_call` and `function_response`
    parts, into `pairer`."""
    content = event.get("content")
    parts = content.get("parts") if type(content) is dict else None
    if type(parts) is not list:
        return
    for part in parts:
        if type(part) is not dict:
            continue
        call = _either(part, CALL_KEYS)
        if type(call) is dict:
            read_call(pairer, call)
            continue
        reply = _either(part, REPLY_KEYS)
        if type(reply) is dict:
            read_reply(pairer, reply)


def read_call(pairer: Pairer, call: dict[str, Any]) -> None:
    """A `FunctionCall` (`id`, `name`, `args`)."""
    pairer.call(native_call(call.get("name"), call, "args"), call.get("id"))


def read_reply(pairer: Pairer, reply: dict[str, Any]) -> None:
    """A `FunctionResponse` (`id`, `response`): ADK's `{"status": "error"}` is an errored
    attempt."""
    response = reply.get("response")
    fields: dict[str, Any] = {"result": response}
    if type(response) is dict and response.get("status") == "error":
        message = response.get("error_message")
        fields["error"] = message if type(message) is str and message else True
    pairer.reply(reply.get("id"), fields)


def _detect(record: Any) -> bool:
    if type(record) is not dict:
        return False
    events = record.get("events")
    if type(events) is list:
        return any(_event(e) for e in events)
    return _event(record) and "content" in record


FORMAT = TraceFormat(
    name="adk",
    summary="Google ADK: a session's events (session.model_dump(), or a record's events)",
    looks_like='"events" with author and invocationId',
    detect=_detect,
    order=23,
    calls=calls,
    case_paths=(*DEFAULT_CASE_PATHS, ("state", "case_id")),
    run_paths=(*DEFAULT_RUN_PATHS, ("id",)),
)
