"""OpenAI Responses (`formats/openai_responses.py`): a response's input and output items,
function calls paired with their outputs by call id."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from evalrunner import MISSING
from evalrunner.cli import app
from tests.conftest import FRAMEWORKS, score_fixture
from tests.formats.common import BAD_ARGS, GOOD, RETRY, calls, fc_output, labels, one, responses_run


def test_openai_responses_reused_id_and_error_reply():
    run = one(responses_run())
    assert calls(run) == RETRY
    assert (run.case_id, run.run_id) == ("lookup", "resp-run")  # from metadata
    assert run.calls[1].result is MISSING  # its output is not in this record yet


def test_openai_responses_invalid_arguments_and_mcp_call():
    record = responses_run(first_args=BAD_ARGS)
    record["output"].append(
        {
            "type": "mcp_call",
            "id": "mcp_1",
            "server_label": "billing",
            "name": "get_customer",
            "arguments": json.dumps(GOOD),
            "output": None,
            "error": "upstream timeout",
        }
    )
    record["output"].append(fc_output("call_a", "ok"))
    run = one(record)
    assert calls(run) == [
        ("get_customer", BAD_ARGS, True, True),
        ("get_customer", GOOD, False, False),
        ("get_customer", GOOD, True, False),  # the mcp_call carried its own error
    ]
    assert run.calls[1].result == "ok"  # paired to the function call, not to the mcp_call


AGENTS_ITEMS = [
    {"content": "Look up customer C-1.", "role": "user"},
    {
        "type": "function_call",
        "call_id": "c1",
        "name": "get_customer",
        "arguments": '{"customer_id": "C-9"}',
    },
    {
        "type": "function_call_output",
        "call_id": "c1",
        "output": "An error occurred while running the tool. Please try again.",
    },
    {
        "type": "function_call",
        "call_id": "c2",
        "name": "get_customer",
        "arguments": '{"customer_id": "C-1"}',
    },
    {"type": "function_call_output", "call_id": "c2", "output": "{'id': 'C-1'}"},
]


def test_a_bare_agents_sdk_input_list_is_read_as_responses_items(tmp_path):
    """`result.to_input_list()` on a line: the hint names the `input` wrapper (the `messages` one
    would not be read as Responses), and `--case-id` reads it."""
    trace = tmp_path / "bare.jsonl"
    trace.write_text(json.dumps(AGENTS_ITEMS) + "\n")
    result = CliRunner().invoke(
        app,
        [
            "score",
            str(trace),
            "--tools",
            str(FRAMEWORKS / "tools.json"),
            "--cases",
            str(FRAMEWORKS / "cases.json"),
        ],
    )
    assert result.exit_code == 2
    assert '{"case_id": ..., "input": [...]}' in result.stderr
    doc = score_fixture(trace, "--case-id", "retry")
    assert labels(doc) == {
        "retry": ("false_failure", [("get_customer", "errored"), ("get_customer", "exact")])
    }
    wrapped = tmp_path / "wrapped.jsonl"
    wrapped.write_text(json.dumps({"case_id": "retry", "input": AGENTS_ITEMS}) + "\n")
    assert labels(score_fixture(wrapped)) == labels(doc)
    # a bare list of chat messages keeps the messages wrapper
    chat = tmp_path / "chat.jsonl"
    chat.write_text(json.dumps([{"role": "user", "content": "hi"}]) + "\n")
    result = CliRunner().invoke(
        app,
        [
            "score",
            str(chat),
            "--tools",
            str(FRAMEWORKS / "tools.json"),
            "--cases",
            str(FRAMEWORKS / "cases.json"),
        ],
    )
    assert '{"case_id": ..., "messages": [...]}' in result.stderr
