"""Anthropic Messages (`formats/anthropic.py`): tool_use and tool_result blocks (`is_error`),
in a conversation's messages or a Message."""

from __future__ import annotations

from tests.formats.common import BAD_ARGS, GOOD, RETRY, anthropic_run, calls, one, tool_use


def test_anthropic_reused_id_and_is_error():
    run = one(anthropic_run())
    assert calls(run) == RETRY
    assert run.calls[0].result == [{"type": "text", "text": "C-9 not found"}]
    assert run.calls[1].result == "Dana Whitfield"


def test_anthropic_input_that_is_no_object_is_a_malformed_call():
    # `input` is an object in the API; a logger that kept the streamed partial_json text did not
    # parse it.
    run = one(anthropic_run(first_input=BAD_ARGS))
    assert calls(run)[0] == ("get_customer", BAD_ARGS, True, True)


def test_anthropic_message_object_alone():
    message = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [tool_use("toolu_02", GOOD)],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
        "metadata": {"case_id": "lookup"},
    }
    assert calls(one(message)) == [("get_customer", GOOD, False, False)]
