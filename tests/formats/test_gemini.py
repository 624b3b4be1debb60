"""Google Gemini / Vertex AI (`formats/gemini.py`): functionCall and functionResponse parts in a
request's contents or a response (REST and google-genai's `model_dump()` shapes)."""

from __future__ import annotations

import pytest

from evalrunner import Run
from tests.formats.common import (
    BAD_ARGS,
    GOOD,
    RETRY,
    REVIEW,
    WRONG,
    calls,
    detect,
    dumped,
    fr,
    gemini_fc,
    gemini_run,
    one,
    read_file,
)


def test_gemini_rejected_call_then_retry_paired_by_position():
    """No ids (the Gemini API gives none): each reply goes to the earliest call waiting."""
    run = one(gemini_run())
    assert calls(run) == RETRY
    assert run.calls[0].result == {"error": "customer C-9 not found"}
    assert run.calls[1].result == {"result": {"id": "C-1"}}
    assert (run.case_id, run.run_id) == ("lookup", "gemini-1")


def test_gemini_reused_id_and_messages_with_role_function():
    """Vertex AI's older samples give replies the role "function": read as Chat Completions, that
    was a conversation of no call."""
    record = gemini_run(ids=("fc-1", "fc-1"), key="messages", reply_role="function")
    assert detect(record) == "gemini"
    assert calls(one(record)) == RETRY


def test_gemini_model_dump_snake_case_with_nulls():
    record = gemini_run(ids=("fc-1", "fc-2"))
    for turn in record["contents"]:
        turn["parts"] = [dumped(p) for p in turn["parts"]]
    assert detect(record) == "gemini"
    assert calls(one(record)) == RETRY
    # model_dump() writes an unset `args` as null: a call without arguments, not null arguments
    no_args = gemini_run(first=dumped({"functionCall": {"name": "get_customer"}}))
    assert calls(one(no_args))[0] == ("get_customer", {}, True, False)


@pytest.mark.parametrize(
    ("first", "args", "malformed"),
    [
        (
            gemini_fc(BAD_ARGS),
            BAD_ARGS,
            True,
        ),  # a logger that kept the arguments as text, cut short
        (gemini_fc(["C-9"]), ["C-9"], True),
        (gemini_fc("{}"), {}, False),  # JSON text of an object reads as the object
        ({"functionCall": {"name": "get_customer"}}, {}, False),  # no args: {}
    ],
)
def test_gemini_invalid_or_absent_args(first, args, malformed):
    [first_call, _] = calls(one(gemini_run(first=first)))
    assert first_call == ("get_customer", args, True, malformed)


def test_gemini_reply_error_rule():
    def errored(response):
        record = {
            "case_id": "lookup",
            "contents": [
                {"role": "model", "parts": [gemini_fc(GOOD)]},
                {"role": "user", "parts": [fr(response)]},
            ],
        }
        return one(record).calls[0].errored

    assert errored({"error": "customer service unavailable"})  # the SDK's reply when a tool raises
    assert errored({"error": {"code": 404}})
    assert not errored({"error": None, "result": "ok"})
    assert not errored({"error": False})
    assert not errored({"result": "error: not found"})  # text: no flag to read
    assert not errored(None)


def test_gemini_parallel_replies_paired_by_id():
    record = {
        "case_id": "lookup",
        "contents": [
            {"role": "model", "parts": [gemini_fc(WRONG, "a"), gemini_fc(GOOD, "b")]},
            {"role": "user", "parts": [fr({"result": "C-1"}, "b"), fr({"error": "nope"}, "a")]},
        ],
    }
    assert calls(one(record)) == RETRY


def test_gemini_response_alone_and_automatic_function_calling_history():
    response = {
        "metadata": {"case_id": "lookup"},
        "candidates": [
            {"content": {"role": "model", "parts": [gemini_fc(GOOD)]}, "finishReason": "STOP"}
        ],
        "usageMetadata": {"promptTokenCount": 10},
    }
    assert detect(response) == "gemini"
    assert calls(one(response)) == [("get_customer", GOOD, False, False)]
    # After automatic function calling the candidates hold only the final answer; the calls are
    # in the history (which starts with the request's contents).
    turns = gemini_run()["contents"]
    afc = {
        "case_id": "lookup",
        "contents": turns[:1],
        "candidates": [{"content": turns[-1], "finish_reason": "STOP"}],
        "automatic_function_calling_history": turns[:-1],
    }
    assert detect(afc) == "gemini"
    assert calls(one(afc)) == RETRY


def test_gemini_replies_without_ids_pair_by_name():
    """Parallel calls answered in another order: the error belongs to get_customer's reply."""
    [run] = read_file(REVIEW / "gemini-parallel-by-name.jsonl")
    assert isinstance(run, Run), run
    assert [(c.tool, c.errored) for c in run.calls] == [
        ("get_invoice", False),
        ("get_customer", True),
    ]
