"""CrewAI: the tool events of a crew's run, as an event listener collects them
(`event.to_json()` of `ToolUsageStartedEvent`, `ToolUsageFinishedEvent`, `ToolUsageErrorEvent`),
in a record's `events` beside its case id. (A task's messages, `task.output.messages`, are Chat
Completions messages: the `openai-chat` format reads them, CrewAI's default error text
`Error executing tool: ...` among the built-in error texts.)

A call is a `tool_usage_started` event (`tool_name`, `tool_args`), finished by the
`tool_usage_finished` (`output`; a `failure` the tool reported) or `tool_usage_error` (`error`)
event whose `started_event_id` names it, else by the earliest open call of that tool with the
same arguments; a finish with no start (a listener of finishes only) is a call of its own. An
error event, a finish with a `failure`, and a `tool_validate_input_error` (the arguments failed
the tool's schema) are errored attempts. Events are read in the order CrewAI emitted them
(`emission_sequence`): a listener may receive them out of it. Other events (LLM calls, agents,
tasks) are not read. One event on its own line is not a run: it says how to write a run's
events.
"""

from __future__ import annotations

from typing import Any

from ...jsonvalue import decoded
from ..format import TraceFormat

STARTED = "tool_usage_started"
FINISHED = "tool_usage_finished"
ERROR = "tool_usage_error"
INVALID = "tool_validate_input_error"
TOOL_EVENTS = frozenset({STARTED, FINISHED, ERROR, INVALID})
ONE_EVENT = (
    "one CrewAI event on its own line: a run is a crew's tool events; collect each run's events "
    'in the listener and write them as one line, {"case_id": ..., "events": [event.to_json(), '
    "...]}"
)


def _tool_event(value: Any) -> bool:
    """A tool event: an object whose `type` is one (a type that is a list or an object is a
    record of something else, not an error)."""
    return type(value) is dict and type(kind := value.get("type")) is str and kind in TOOL_EVENTS


def _event(value: Any) -> bool:
    return _tool_event(value) and "tool_name" in value


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    events = record.get("events")
    if type(events) is not list:
        return ONE_EVENT if _event(record) else 'no "events" list'
    out: list[dict[str, Any]] = []
    by_id: dict[str, int] = {}
    open_calls: list[int] = []
    for i, event in _in_order(events):
        if type(event) is not dict:
            return f"event {i} is not an object"
        if not _tool_event(event):
            continue  # another event of the crew's (an agent's, a task's)
        kind = event["type"]
        if "tool_name" not in event:
            return f'event {i} ({kind}) has no "tool_name"'
        call: dict[str, Any] = {"tool": event["tool_name"]}
        if "tool_args" in event:
            # an object or its JSON text; anything else is kept, and read as malformed (never {})
            call["args"] = event["tool_args"]
        if kind == STARTED:
            if type(event.get("event_id")) is str:
                by_id[event["event_id"]] = len(out)
            open_calls.append(len(out))
            out.append(call)
            continue
        fields: dict[str, Any] = {}
        if kind == FINISHED:
            fields["result"] = event.get("output")
            failure = event.get("failure")
            if failure:
                message = failure.get("message") if type(failure) is dict else None
                fields["error"] = message if type(message) is str and message else True
        else:
            error = event.get("error")
            fields["error"] = error if error else True
        index = _started(event, call, out, by_id, open_calls)
        if index is None:
            call.update(fields)
            out.append(call)
        else:
            open_calls.remove(index)
            out[index].update(fields)
    return out


def _in_order(events: list[Any]) -> list[tuple[int, Any]]:
    """The events in the order CrewAI emitted them: by `emission_sequence` when each tool event
    has one (its event bus runs handlers on a thread pool, so a listener may receive a tool's
    error before its start), else as they come."""
    numbered = list(enumerate(events))
    tools = [e for e in events if _tool_event(e)]
    if tools and all(type(e.get("emission_sequence")) is int for e in tools):
        numbered.sort(key=lambda p: (_sequence(p[1]), p[0]))
    return numbered


def _sequence(event: Any) -> int:
    found = event.get("emission_sequence") if type(event) is dict else None
    return found if type(found) is int else -1


def _started(
    event: dict[str, Any],
    call: dict[str, Any],
    out: list[dict[str, Any]],
    by_id: dict[str, int],
    open_calls: list[int],
) -> int | None:
    """The open call an ending event finishes: the one its `started_event_id` names, else the
    earliest open call of the same tool and arguments (a started event may keep them as JSON
    text, the finish as an object: compared as they read)."""
    started = event.get("started_event_id")
    if type(started) is str and by_id.get(started) in open_calls:
        return by_id[started]
    for index in open_calls:
        if out[index]["tool"] == call["tool"] and _same(out[index].get("args"), call.get("args")):
            return index
    return None


def _same(a: Any, b: Any) -> bool:
    return bool(decoded(a) == decoded(b))


def _detect(record: Any) -> bool:
    if type(record) is not dict:
        return False
    events = record.get("events")
    if type(events) is list:
        return any(_event(e) for e in events)
    return _event(record) and "event_id" in record


FORMAT = TraceFormat(
    name="crewai",
    summary="CrewAI: a run's tool events (ToolUsageStarted/Finished/ErrorEvent.to_json())",
    looks_like='"events" of type tool_usage_started / tool_usage_finished / tool_usage_error',
    detect=_detect,
    order=23,
    calls=calls,
)
