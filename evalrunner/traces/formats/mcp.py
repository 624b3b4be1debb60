"""MCP call logs: JSON-RPC `tools/call` requests and their responses."""

from __future__ import annotations

from typing import Any

from ..format import TraceFormat
from ._pairing import Pairer, id_key, messages_kind, native_call


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    """JSON-RPC messages in `messages`: `tools/call` requests (`params.name`,
    `params.arguments`) paired by `id` with their responses; a result with `isError: true`, or a
    JSON-RPC error response (the server refused the call), makes an errored attempt."""
    messages = record.get("messages")
    if type(messages) is not list:
        return ONE_MESSAGE if _json_rpc(record) else 'no "messages" list'
    # A JSON-RPC batch (an array of messages, MCP 2025-03-26) counts as its messages.
    messages = [x for m in messages for x in (m if type(m) is list else (m,))]
    pairer = Pairer()
    others: set[Any] = set()  # ids of other requests (initialize, tools/list): not tool replies
    for i, m in enumerate(messages):
        if type(m) is not dict:
            return f"message {i} is not an object"
        method = m.get("method")
        if method is not None:
            if method == "tools/call":
                params = m.get("params")
                params = params if type(params) is dict else {}
                pairer.call(native_call(params.get("name"), params, "arguments"), m.get("id"))
            elif "id" in m:
                others.add(id_key(m.get("id")))
        elif "result" in m or "error" in m:
            call_id = m.get("id")
            if id_key(call_id) in others and not pairer.has_open(call_id):
                others.discard(id_key(call_id))
                continue
            if "error" in m:
                error = m.get("error")
                pairer.reply(call_id, {"error": error if error is not None else True})
            else:
                pairer.reply(call_id, {"result": m.get("result")})
    return pairer.calls


def _claims(message: Any) -> bool:
    """A JSON-RPC message, or a JSON-RPC batch (MCP 2025-03-26)."""
    if type(message) is list:
        return bool(message) and type(message[0]) is dict and "jsonrpc" in message[0]
    return type(message) is dict and "jsonrpc" in message


ONE_MESSAGE = (
    "one JSON-RPC message on its own line (an MCP session's message, as a transport log writes "
    "it): a run is a whole session; write each session as one line "
    '{"case_id": ..., "messages": [its JSON-RPC messages, in order]}'
)


def _json_rpc(record: dict[str, Any]) -> bool:
    """A JSON-RPC message on its own: `jsonrpc`, and a method, a result or an error."""
    return "jsonrpc" in record and any(k in record for k in ("method", "result", "error"))


def _detect(record: Any) -> bool:
    if type(record) is not dict:
        return False
    if "messages" not in record and _json_rpc(record):
        return True
    return messages_kind(record) == "mcp"


FORMAT = TraceFormat(
    name="mcp",
    summary="MCP: the JSON-RPC messages of a session (tools/call and their results)",
    looks_like='"messages" that are JSON-RPC',
    detect=_detect,
    order=20,
    calls=calls,
    claims_message=_claims,
)
