"""OpenAI Chat Completions (`formats/openai_chat.py`): a request's messages or a ChatCompletion,
samples built by hand in the SDK's shapes; the story every format tells (an errored attempt,
a call id reused, invalid arguments a malformed call)."""

from __future__ import annotations

import json

import pytest

from tests.formats.common import BAD_ARGS, GOOD, RETRY, WRONG, calls, chat_run, chat_tool_call, one


def test_openai_chat_reused_id_and_error_reply():
    run = one(chat_run(world={"refunds": []}, meta={"model": "gpt-4.1"}))
    assert calls(run) == RETRY
    assert (run.case_id, run.run_id) == ("lookup", "chat-1")
    assert run.world == {"refunds": []} and run.meta == {"model": "gpt-4.1"}
    assert run.calls[0].result == {"error": "customer C-9 not found"}
    assert run.calls[1].result == {"id": "C-1", "name": "Dana"}


def test_openai_chat_invalid_arguments_string_is_a_malformed_call():
    run = one(chat_run(first_args=BAD_ARGS))
    assert calls(run)[0] == ("get_customer", BAD_ARGS, True, True)
    assert "not valid JSON" in run.calls[0].malformed


def test_openai_chat_reply_error_rule():
    def reply(content):
        record = {
            "case_id": "lookup",
            "messages": [
                {"role": "assistant", "tool_calls": [chat_tool_call("c1", "{}")]},
                {"role": "tool", "tool_call_id": "c1", "content": content},
            ],
        }
        return one(record).calls[0].errored

    assert reply('{"error": {"code": 404}}')
    assert reply('{"is_error": true, "content": "nope"}')
    assert not reply('{"error": null, "id": "C-1"}')
    assert not reply("error: customer not found")  # plain text: no flag to read
    assert not reply('["error"]')
    assert not reply("")


@pytest.mark.parametrize("flag", ["is_error", "isError"])
def test_openai_chat_reply_message_error_flag(flag):
    """A logger that flags the tool message itself (`is_error`/`isError` true) marks the call as
    an errored attempt, whatever its text; false or absent leaves the text's rule."""

    def reply(**fields):
        record = {
            "case_id": "lookup",
            "messages": [
                {"role": "assistant", "tool_calls": [chat_tool_call("c1", "{}")]},
                {"role": "tool", "tool_call_id": "c1", "content": "not found", **fields},
                {"role": "assistant", "function_call": {"name": "get_customer", "arguments": "{}"}},
                {"role": "function", "name": "get_customer", "content": "nope", **fields},
            ],
        }
        return [c.errored for c in one(record).calls]

    assert reply(**{flag: True}) == [True, True]
    assert reply(**{flag: False}) == [False, False]
    assert reply() == [False, False]


def test_openai_chat_pairs_by_position_when_ids_do_not_match():
    record = {
        "case_id": "lookup",
        "messages": [
            {
                "role": "assistant",
                "tool_calls": [
                    chat_tool_call("x1", json.dumps(WRONG)),
                    chat_tool_call("x2", json.dumps(GOOD)),
                ],
            },
            # A logger that lost the ids: replies in the order of the calls.
            {"role": "tool", "tool_call_id": "", "content": '{"error": "not found"}'},
            {"role": "tool", "content": "ok"},
        ],
    }
    assert calls(one(record)) == RETRY


def test_openai_chat_completion_object_and_legacy_function_call():
    completion = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1767225600,
        "model": "gpt-4.1",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "logprobs": None,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "refusal": None,
                    "tool_calls": [chat_tool_call("call_z", json.dumps(GOOD))],
                },
            }
        ],
        "metadata": {"case_id": "lookup", "run_id": "cmpl-run"},
    }
    run = one(completion)
    assert calls(run) == [("get_customer", GOOD, False, False)]
    assert (run.case_id, run.run_id) == ("lookup", "cmpl-run")

    custom = {"id": "call_c", "type": "custom", "custom": {"name": "sql", "input": "SELECT 1"}}
    completion["choices"][0]["message"]["tool_calls"].insert(0, custom)
    assert calls(one(completion)) == [("get_customer", GOOD, False, False)]

    legacy = {
        "case_id": "lookup",
        "messages": [
            {"role": "assistant", "function_call": {"name": "get_customer", "arguments": "{}"}},
            {"role": "function", "name": "get_customer", "content": '{"error": "missing id"}'},
        ],
    }
    assert calls(one(legacy)) == [("get_customer", {}, True, False)]
