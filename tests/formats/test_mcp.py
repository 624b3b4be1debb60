"""MCP (`formats/mcp.py`): the JSON-RPC messages of a session, tools/call requests paired with
their results (`isError`, JSON-RPC errors)."""

from __future__ import annotations

from evalrunner import MISSING
from tests.formats.common import BAD_ARGS, GOOD, RETRY, WRONG, calls, detect, mcp_run, one, rpc_call


def test_mcp_reused_id_and_is_error():
    run = one(mcp_run())
    assert calls(run) == RETRY
    assert run.calls[1].result["structuredContent"] == {"id": "C-1"}


def test_mcp_invalid_arguments_and_a_json_rpc_error():
    record = mcp_run(first_arguments=BAD_ARGS)
    record["messages"] += [
        rpc_call("7", {"customer_id": 7}),
        # The server refused the call itself (invalid params): a JSON-RPC error, no result.
        {"jsonrpc": "2.0", "id": "7", "error": {"code": -32602, "message": "Invalid params"}},
    ]
    run = one(record)
    assert calls(run) == [
        ("get_customer", BAD_ARGS, True, True),
        ("get_customer", GOOD, False, False),
        ("get_customer", {"customer_id": 7}, True, False),
    ]


def test_mcp_json_rpc_batches_count_as_their_messages():
    record = {
        "case_id": "lookup",
        "messages": [
            [rpc_call(1, WRONG), rpc_call(2, GOOD)],
            [
                {"jsonrpc": "2.0", "id": 2, "result": {"content": [], "isError": False}},
                {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": True}},
            ],
        ],
    }
    assert detect(record) == "mcp"
    assert calls(one(record)) == RETRY


def test_mcp_response_to_another_request_is_not_a_tool_reply():
    record = {
        "case_id": "lookup",
        "messages": [
            {"jsonrpc": "2.0", "id": 5, "method": "tools/list"},
            rpc_call(6, GOOD),
            {"jsonrpc": "2.0", "id": 5, "result": {"tools": [], "isError": True}},
        ],
    }
    [call] = one(record).calls
    assert not call.errored and call.result is MISSING
