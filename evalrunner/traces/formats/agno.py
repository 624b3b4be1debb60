"""Agno: the rows of a `JsonDb` store's runs table (`agno_runs.json`, a JSON array: one row a
run, its `RunOutput.to_dict()` in `run_data`). The run's `messages` are Agno's messages, Chat
Completions in shape (`tool_calls`, `role: "tool"` replies, `tool_call_error: true` on a failed
tool's reply): read as the `openai-chat` format reads them. The case id is the run's metadata
(`agent.run(..., metadata={"case_id": ...})`: `run_data.metadata.case_id`).

(`RunOutput.to_dict()` itself, or `run.messages` beside a case id, is a record with `messages`:
the `openai-chat` format reads it.) A row of the sessions table (`agno_sessions.json`) holds no
run: it says where the runs are.
"""

from __future__ import annotations

from typing import Any

from ..format import DEFAULT_CASE_PATHS, TraceFormat
from . import openai_chat

SESSION_ROW = (
    "an Agno session row (the JsonDb sessions table, agno_sessions.json): it holds no run; "
    "score the runs table (agno_runs.json), whose rows hold each run's messages"
)


def _run_data(record: dict[str, Any]) -> Any:
    return record.get("run_data")


def _session_row(record: dict[str, Any]) -> bool:
    return "session_type" in record and ("session_data" in record or "agent_data" in record)


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    data = _run_data(record)
    if type(data) is not dict:
        return SESSION_ROW if _session_row(record) else 'no "run_data" object'
    if type(data.get("messages")) is not list:
        return 'the run\'s "run_data" has no "messages" list'
    return openai_chat.calls(data)


def _detect(record: Any) -> bool:
    if type(record) is not dict:
        return False
    data = _run_data(record)
    if type(data) is dict:
        return "session_id" in record and type(data.get("messages")) is list
    return _session_row(record) and "session_id" in record


FORMAT = TraceFormat(
    name="agno",
    summary="Agno: the rows of a JsonDb runs table (agno_runs.json), each run's messages",
    looks_like='"run_data" with "messages", beside a "session_id"',
    detect=_detect,
    order=23,
    calls=calls,
    case_paths=(*DEFAULT_CASE_PATHS, ("run_data", "metadata", "case_id")),
)
