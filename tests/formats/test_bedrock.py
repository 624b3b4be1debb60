"""Amazon Bedrock Converse (`formats/bedrock.py`): toolUse and toolResult blocks (`status:
"error"`), in a request's messages or a Converse response."""

from __future__ import annotations

import pytest

from tests.formats.common import (
    BAD_ARGS,
    GOOD,
    RETRY,
    bedrock_run,
    bedrock_tool_result,
    bedrock_tool_use,
    calls,
    detect,
    one,
)


def test_bedrock_rejected_call_then_retry():
    run = one(bedrock_run())
    assert calls(run) == RETRY
    assert run.calls[0].result == "customer C-9 not found"  # one text block: its text
    assert run.calls[1].result == {"id": "C-1"}  # one json block: its value


def test_bedrock_reused_id_and_replies_without_ids():
    assert calls(one(bedrock_run(ids=("tooluse_1", "tooluse_1")))) == RETRY
    # a logger that lost the ids: replies by position
    assert calls(one(bedrock_run(ids=(None, None)))) == RETRY


@pytest.mark.parametrize(
    ("first", "args", "malformed"),
    [
        (
            bedrock_tool_use("tooluse_1", BAD_ARGS),
            BAD_ARGS,
            True,
        ),  # ConverseStream's text, cut short
        (bedrock_tool_use("tooluse_1", ["C-9"]), ["C-9"], True),
        ({"toolUse": {"toolUseId": "tooluse_1", "name": "get_customer"}}, {}, False),
    ],
)
def test_bedrock_invalid_or_absent_input(first, args, malformed):
    [first_call, _] = calls(one(bedrock_run(first=first)))
    assert first_call == ("get_customer", args, True, malformed)


def test_bedrock_results_and_the_error_rule():
    def reply(content, status=None):
        record = {
            "case_id": "lookup",
            "messages": [
                {"role": "assistant", "content": [bedrock_tool_use("t", GOOD)]},
                {"role": "user", "content": [bedrock_tool_result("t", content, status)]},
            ],
        }
        [call] = one(record).calls
        return call.result, call.errored

    assert reply([{"json": {"open": True}}]) == ({"open": True}, False)
    assert reply([{"text": "open"}], "success") == ("open", False)
    two = [{"text": "a"}, {"json": {"b": 1}}]
    assert reply(two) == (two, False)  # several blocks: as they are
    assert reply([{"text": "nope"}], "error") == ("nope", True)
    # a json result is the call's result: the native rule reads its `error`
    assert reply([{"json": {"error": "not found"}}]) == ({"error": "not found"}, True)
    assert reply([{"text": '{"error": "not found"}'}]) == ('{"error": "not found"}', False)


def test_bedrock_converse_response_alone():
    response = {
        "metadata": {"case_id": "lookup"},
        "output": {"message": {"role": "assistant", "content": [bedrock_tool_use("t", GOOD)]}},
        "stopReason": "tool_use",
        "usage": {"inputTokens": 3, "outputTokens": 4, "totalTokens": 7},
    }
    assert detect(response) == "bedrock"
    assert calls(one(response)) == [("get_customer", GOOD, False, False)]
    text_answer = {**response, "output": {"message": {"role": "assistant", "content": []}}}
    assert detect(text_answer) == "bedrock" and one(text_answer).calls == ()
