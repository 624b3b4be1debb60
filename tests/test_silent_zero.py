"""Never a silent zero, as a guard, not per format (issue 27): a record or a span trace read with
no call, that shows signs of calls evalrun did not read, is unscoreable with a reason that names
what was seen and what to export instead; a conversation that truly made no call still scores."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evalrunner import Run, TraceError
from evalrunner.traces import read_lines


def _one(record: Any) -> Run | TraceError:
    [item] = read_lines([("t.jsonl:1", json.dumps(record).encode() + b"\n")], "auto")
    return item


def _lines(*records: Any) -> list[Run | TraceError]:
    pairs = [(f"t.jsonl:{i}", json.dumps(r).encode() + b"\n") for i, r in enumerate(records, 1)]
    return read_lines(pairs, "auto")


USER = {"role": "user", "content": "Look up customer C-1."}


@pytest.mark.parametrize(
    ("messages", "said"),
    [
        # a tool's reply, but the call that asked for it is in no shape read
        (
            [USER, {"role": "assistant", "content": ""}, {"role": "tool", "content": "{}"}],
            'role "tool"',
        ),
        (
            [USER, {"role": "assistant", "content": "", "finish_reason": "tool_calls"}],
            "finish_reason",
        ),
        (
            [
                USER,
                {
                    "role": "assistant",
                    "content": "Thought: look it up\nAction: get_customer\n"
                    'Action Input: {"customer_id": "C-1"}',
                },
            ],
            "ReAct",
        ),
        (
            [
                USER,
                {
                    "role": "assistant",
                    "content": "Calling tools:\n[{'id': 'call_1', 'type': 'function', "
                    "'function': {'name': 'get_customer', 'arguments': {'customer_id': 'C-1'}}}]",
                },
            ],
            "Calling tools:",
        ),
        (
            [USER, {"role": "assistant", "content": '<tool_call>{"name": "get_customer"}'}],
            "<tool_call>",
        ),
    ],
)
def test_a_record_with_signs_of_calls_not_read_is_unscoreable(messages, said):
    item = _one({"case_id": "lookup", "messages": messages})
    assert isinstance(item, TraceError), item
    assert said in item.error and "no tool call read" in item.error
    assert "export" in item.error or "docs/trace-formats.md" in item.error


def test_a_conversation_without_calls_still_scores_as_one():
    item = _one(
        {
            "case_id": "lookup",
            "messages": [USER, {"role": "assistant", "content": "I cannot look that up."}],
        }
    )
    assert isinstance(item, Run) and item.calls == ()


def _span(name: str, attrs: dict[str, Any], span_id: str, parent: str | None) -> dict[str, Any]:
    return {
        "name": name,
        "context": {"trace_id": "0x189afd5b866dc01da134b863ff248554", "span_id": span_id},
        "parent_id": parent,
        "start_time": "2026-11-30T16:22:33.637718Z",
        "end_time": "2026-11-30T16:22:33.657503Z",
        "status": {"status_code": "UNSET"},
        "attributes": attrs,
    }


ROOT = _span("eval case", {"evalrun.case_id": "lookup"}, "0xa78f96f006530a4a", None)


def test_a_span_trace_of_only_the_case_id_span_is_unscoreable():
    [item] = _lines(ROOT)
    assert isinstance(item, TraceError), item
    assert "only the span that carries the case id" in item.error


def test_spans_of_an_unknown_convention_that_mention_tools_are_unscoreable():
    child = _span(
        "execute_tool get_customer",
        {"mytracer.tool.input": '{"customer_id": "C-1"}'},
        "0x0000000000000001",
        "0xa78f96f006530a4a",
    )
    [item] = _lines(child, ROOT)
    assert isinstance(item, TraceError), item
    assert "mention tools" in item.error and "execute_tool get_customer" in item.error


def test_one_json_rpc_message_a_line_says_how_to_write_a_session():
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "get_customer", "arguments": {"customer_id": "C-1"}},
    }
    reply = {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": False}}
    items = _lines(request, reply)
    assert len(items) == 2 and all(isinstance(i, TraceError) for i in items)
    for item in items:
        assert isinstance(item, TraceError) and "one JSON-RPC message on its own line" in item.error


def test_agno_tool_call_error_marks_an_errored_attempt():
    messages = [
        USER,
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_customer", "arguments": '{"customer_id": "C-9"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "not found", "tool_call_error": True},
    ]
    item = _one({"case_id": "lookup", "messages": messages})
    assert isinstance(item, Run) and [c.errored for c in item.calls] == [True]


CALL_LIKE = {
    # shapes evalrun reads no call from, each holding one: unscoreable, never a run of 0 calls
    "a gemini functionCall part beside a chat log": {
        "messages": [{"role": "user", "content": "hi"}],
        "result": {"parts": [{"functionCall": {"name": "get_invoice", "args": {}}}]},
    },
    "a gemini SDK function_call part beside a chat log": {
        "messages": [{"role": "user", "content": "hi"}],
        "result": {"parts": [{"function_call": {"name": "get_invoice", "args": {}}}]},
    },
    "a bedrock toolUse block beside a chat log": {
        "messages": [{"role": "user", "content": "hi"}],
        "trace": [{"toolUse": {"toolUseId": "t", "name": "x", "input": {}}}],
    },
    "a chat tool_calls list where chat has none": {
        "messages": [{"role": "user", "content": "hi"}],
        "response": {"choices": [{"message": {"tool_calls": [{"id": "c", "function": {}}]}}]},
    },
    "a streamed delta": {
        "messages": [{"role": "user", "content": "hi"}],
        "choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"name": "x"}}]}}],
    },
    "an AI SDK tool-call part": {
        "messages": [{"role": "assistant", "content": [{"type": "tool-call", "toolName": "x"}]}]
    },
}


@pytest.mark.parametrize("record", CALL_LIKE.values(), ids=CALL_LIKE.keys())
def test_a_record_holding_a_call_it_cannot_read_is_never_a_run_of_no_calls(record):
    line = json.dumps({"case_id": "lookup", **record}).encode() + b"\n"
    [item] = read_lines([("t.jsonl:1", line)], "auto")
    assert isinstance(item, TraceError), item
    assert "no tool call read, but the record holds" in item.error


def test_a_conversation_without_tool_activity_is_a_run_of_no_calls():
    record = {
        "case_id": "lookup",
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
    }
    [run] = read_lines([("t.jsonl:1", json.dumps(record).encode() + b"\n")], "auto")
    assert isinstance(run, Run) and run.calls == ()
