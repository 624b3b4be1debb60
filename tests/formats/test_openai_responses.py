"""OpenAI Responses (`formats/openai_responses.py`): a response's input and output items,
function calls paired with their outputs by call id."""

from __future__ import annotations

import json

from evalrunner import MISSING
from tests.formats.common import BAD_ARGS, GOOD, RETRY, calls, fc_output, one, responses_run


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
