"""Trace adapters: OpenAI Chat Completions and Responses, Anthropic Messages, MCP, OpenTelemetry.

Samples are built by hand in the shapes the official SDK types (openai, anthropic), the MCP
specification and the OpenTelemetry GenAI semantic conventions define. Each format shows: an
error reply (an errored attempt), a call id reused within the run, an invalid arguments string (a
malformed call, not a crash), and a record of unknown shape (unscoreable, naming the formats).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from evalrunner import MISSING, InputError, Run, TraceError
from evalrunner.cli import app
from evalrunner.traces import TraceReader, parse_line, read_lines, trace_formats
from evalrunner.traces import detect as detect_format
from evalrunner.traces.formats.otel import OtelLimits
from tests.conftest import score_folder

FORMATS = list(trace_formats())


def detect(record):
    found = detect_format(record)
    return found.name if found is not None else None


GOOD = {"customer_id": "C-1"}
WRONG = {"customer_id": "C-9"}
BAD_ARGS = '{"customer_id": "C-1"'  # cut short: not JSON


def lines(*records):
    return [(f"t.jsonl:{i}", orjson.dumps(r)) for i, r in enumerate(records, start=1)]


def read(*records, trace_format="auto", **keys):
    return read_lines(lines(*records), trace_format, **keys)


def one(record, **kw) -> Run:
    [item] = read(record, **kw)
    assert isinstance(item, Run), item
    return item


def calls(run: Run):
    """(tool, args, errored, malformed?) per call."""
    return [(c.tool, c.args, c.errored, c.malformed is not None) for c in run.calls]


# The story each format tells: a call the tool rejects (wrong customer), then the same call id
# reused for the right call, which succeeds. Paired by id naively (last reply wins), the error
# would land on the wrong call.
RETRY = [("get_customer", WRONG, True, False), ("get_customer", GOOD, False, False)]


# ------------------------------------------------------------------------- OpenAI Chat Completions


def chat_tool_call(call_id, args):
    # ChatCompletionMessageToolCall: {id, type: "function", function: {name, arguments: str}}
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": "get_customer", "arguments": args},
    }


def chat_run(case_id="lookup", first_args=None, **extra):
    return {
        "case_id": case_id,
        "run_id": "chat-1",
        "model": "gpt-4.1",
        "messages": [
            {"role": "system", "content": "You are a billing agent."},
            {"role": "user", "content": "Look up customer C-1."},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [chat_tool_call("call_a", first_args or json.dumps(WRONG))],
            },
            {
                "role": "tool",
                "tool_call_id": "call_a",
                "content": '{"error": "customer C-9 not found"}',
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [chat_tool_call("call_a", json.dumps(GOOD))],
            },
            {
                "role": "tool",
                "tool_call_id": "call_a",
                "content": [{"type": "text", "text": '{"id": "C-1", "name": "Dana"}'}],
            },
            {"role": "assistant", "content": "Dana Whitfield, customer C-1."},
        ],
        **extra,
    }


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


# ------------------------------------------------------------------------------ OpenAI Responses


def fc(call_id, args, item_id):
    # ResponseFunctionToolCall: {type, id, call_id, name, arguments: str, status}
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": "get_customer",
        "arguments": args,
        "status": "completed",
    }


def fc_output(call_id, output):
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def responses_run(first_args=None):
    return {
        "id": "resp_2",
        "object": "response",
        "status": "completed",
        "model": "gpt-4.1",
        "metadata": {"case_id": "lookup", "run_id": "resp-run"},
        "input": [
            {"role": "user", "content": "Look up customer C-1."},
            fc("call_a", first_args or json.dumps(WRONG), "fc_1"),
            fc_output("call_a", '{"error": "customer C-9 not found"}'),
        ],
        "output": [
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [],
            },
            fc("call_a", json.dumps(GOOD), "fc_2"),
        ],
    }


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


# ----------------------------------------------------------------------------- Anthropic Messages


def tool_use(tool_id, input):
    # ToolUseBlock: {type: "tool_use", id, name, input: object}
    return {"type": "tool_use", "id": tool_id, "name": "get_customer", "input": input}


def tool_result(tool_id, content, is_error=None):
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    return block


def anthropic_run(first_input=None):
    return {
        "case_id": "lookup",
        "run_id": "claude-1",
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": "You are a billing agent.",
        "messages": [
            {"role": "user", "content": "Look up customer C-1."},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Looking it up."},
                    tool_use("toolu_01", WRONG if first_input is None else first_input),
                ],
            },
            {
                "role": "user",
                "content": [
                    tool_result(
                        "toolu_01", [{"type": "text", "text": "C-9 not found"}], is_error=True
                    )
                ],
            },
            {"role": "assistant", "content": [tool_use("toolu_01", GOOD)]},
            {"role": "user", "content": [tool_result("toolu_01", "Dana Whitfield", False)]},
        ],
    }


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


# -------------------------------------------------------------------------------------------- MCP


def rpc_call(rpc_id, arguments):
    return {
        "jsonrpc": "2.0",
        "id": rpc_id,
        "method": "tools/call",
        "params": {"name": "get_customer", "arguments": arguments},
    }


def mcp_run(first_arguments=None):
    return {
        "case_id": "lookup",
        "run_id": "mcp-1",
        "messages": [
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "agent", "version": "1.0"},
                },
            },
            {
                "jsonrpc": "2.0",
                "id": 0,
                "result": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "billing", "version": "1.0"},
                },
            },
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            rpc_call(1, WRONG if first_arguments is None else first_arguments),
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {
                    "content": [{"type": "text", "text": "customer C-9 not found"}],
                    "isError": True,
                },
            },
            rpc_call(1, GOOD),
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {
                    "content": [{"type": "text", "text": "Dana"}],
                    "structuredContent": {"id": "C-1"},
                    "isError": False,
                },
            },
        ],
    }


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


# ------------------------------------------------------------------------------ OpenTelemetry


TRACE = "5b8efff798038103d269b633813fc60c"
ROOT = "eee19b7ec3c1b174"


def any_value(v):
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}  # int64 is a string in OTLP/JSON
    if isinstance(v, dict):
        return {
            "kvlistValue": {"values": [{"key": k, "value": any_value(x)} for k, x in v.items()]}
        }
    return {"stringValue": v}


def otlp_span(span_id, parent, start, attrs, *, name=None, error=False, trace=TRACE):
    span = {
        "traceId": trace,
        "spanId": span_id,
        "parentSpanId": parent,
        "flags": 256,
        "name": name or f"execute_tool {attrs.get('gen_ai.tool.name', '')}".strip(),
        "kind": 1,  # SPAN_KIND_INTERNAL
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 1_000_000),
        "attributes": [{"key": k, "value": any_value(v)} for k, v in attrs.items()],
        "status": {"code": 2, "message": "tool failed"} if error else {},
    }
    return span


def batch(*spans):
    return {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": "agent"}}]
                },
                "scopeSpans": [{"scope": {"name": "agent-sdk", "version": "1.0"}, "spans": spans}],
            }
        ]
    }


def tool_attrs(call_id, args, error_type=None, result=None):
    attrs = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "get_customer",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.call.arguments": args,
    }
    if result is not None:
        attrs["gen_ai.tool.call.result"] = result
    if error_type is not None:
        attrs["error.type"] = error_type
    return attrs


T0 = 1_767_225_600_000_000_000


def agent_root(start=T0, trace=TRACE, **attrs):
    return otlp_span(
        ROOT,
        "",
        start,
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "billing", **attrs},
        name="invoke_agent billing",
        trace=trace,
    )


def otel_lines(first_args=None):
    """Spans as a BatchSpanProcessor exports them: each when it ends, the root last; the
    second tool span ends (and is written) before the first."""
    wrong = tool_attrs("call_a", first_args or json.dumps(WRONG), error_type="NotFoundError")
    good = tool_attrs("call_a", GOOD, result='{"id": "C-1"}')  # arguments as an object
    return [
        batch(otlp_span("00f067aa0ba902b7", ROOT, T0 + 2_000, good)),
        batch(otlp_span("00f067aa0ba902b6", ROOT, T0 + 1_000, wrong, error=True)),
        batch(agent_root(**{"evalrun.case_id": "lookup"})),
    ]


def test_otel_otlp_batches_grouped_by_trace_ordered_by_start():
    [run] = read(*otel_lines())
    assert calls(run) == RETRY
    assert run.run_id == TRACE  # no evalrun.run_id: the trace id
    assert run.case_id == "lookup"
    assert run.source == "t.jsonl:1"  # the trace's first line
    assert run.calls[1].result == '{"id": "C-1"}'


def test_otel_invalid_arguments_string_is_a_malformed_call():
    [run] = read(*otel_lines(first_args=BAD_ARGS))
    assert calls(run)[0] == ("get_customer", BAD_ARGS, True, True)


def test_otel_one_batch_holding_a_whole_trace_and_run_id_attribute():
    spans = [s for line in otel_lines() for s in line["resourceSpans"][0]["scopeSpans"][0]["spans"]]
    spans[-1]["attributes"].append({"key": "evalrun.run_id", "value": {"stringValue": "otel-1"}})
    [run] = read(batch(*spans))
    assert calls(run) == RETRY and run.run_id == "otel-1"


def sdk_span(span_id, parent, start, attrs, *, error=False):
    """`ReadableSpan.to_json()` of the OpenTelemetry Python SDK, on one line."""
    return {
        "name": f"execute_tool {attrs['gen_ai.tool.name']}" if parent else "invoke_agent",
        "context": {"trace_id": f"0x{TRACE}", "span_id": f"0x{span_id}", "trace_state": "[]"},
        "kind": "SpanKind.INTERNAL",
        "parent_id": f"0x{parent}" if parent else None,
        "start_time": start,
        "end_time": start,
        "status": {"status_code": "ERROR", "description": "not found"}
        if error
        else {"status_code": "UNSET"},
        "attributes": attrs,
        "events": [],
        "links": [],
        "resource": {"attributes": {"service.name": "agent"}, "schema_url": ""},
    }


def test_otel_flat_sdk_spans():
    wrong = tool_attrs("call_a", json.dumps(WRONG))  # failed by its status alone
    good = tool_attrs("call_a", json.dumps(GOOD))
    root = {"gen_ai.operation.name": "invoke_agent", "evalrun.case_id": "lookup"}
    [run] = read(
        sdk_span("00f067aa0ba902b7", ROOT, "2026-03-01T10:00:02.000000Z", good),
        sdk_span("00f067aa0ba902b6", ROOT, "2026-03-01T10:00:01.000000Z", wrong, error=True),
        sdk_span(ROOT, None, "2026-03-01T10:00:00.000000Z", root),
    )
    assert calls(run) == RETRY and run.run_id == TRACE


def test_otel_traces_interleave_and_open_traces_flush_at_file_end():
    other = "0af7651916cd43dd8448eb211c80319c"
    a1, a2, root = otel_lines()
    b_tool = batch(
        otlp_span("b7ad6b7169203331", "b7ad6b7169203330", T0, tool_attrs("x", GOOD), trace=other)
    )
    b_root = batch(
        otlp_span(
            "b7ad6b7169203330",
            "",
            T0,
            {"gen_ai.operation.name": "invoke_agent", "evalrun.case_id": "other"},
            trace=other,
        )
    )
    out = read(a1, b_tool, a2, b_root, root)
    assert [(r.case_id, r.source, len(r.calls)) for r in out] == [
        ("other", "t.jsonl:2", 1),
        ("lookup", "t.jsonl:1", 2),
    ]
    # No root span at all (it lives in another service): the trace ends with the file.
    out = read(
        a1, a2, batch(otlp_span("cccccccccccccccc", ROOT, T0, {"evalrun.case_id": "lookup"}))
    )
    assert [calls(r) for r in out] == [RETRY]


def test_otel_span_after_its_trace_was_scored_is_reported():
    a1, a2, root = otel_lines()
    # Within a file, the root in the middle is no end: the trace ends after its last line.
    assert [calls(r) for r in read(a1, root, a2)] == [RETRY]
    # Lines handed over with no pre-pass: the root span ends the trace, and a late span is
    # reported on its own line, never scored as a second, partial run.
    out = list(TraceReader().read(lines(a1, root, a2)))
    assert isinstance(out[0], Run) and calls(out[0]) == [("get_customer", GOOD, False, False)]
    assert isinstance(out[1], TraceError) and out[1].source == "t.jsonl:3"
    assert f"trace {TRACE} arrived after the trace was scored" in out[1].error
    # A trace split across two files: the first file's part is scored when that file ends.
    reader = TraceReader()
    first = list(reader.read(lines(a1, root), last_lines=lambda: None))
    second = list(reader.read([("u.jsonl:1", orjson.dumps(a2))], last_lines=lambda: None))
    assert [type(x) for x in first + second] == [Run, TraceError]
    assert (
        second[0].source == "u.jsonl:1" and "arrived after the trace was scored" in second[0].error
    )


def test_otel_buffer_overflow_is_reported_and_every_record_counted():
    def trace(n):
        tid = f"{n:032x}"
        tool = otlp_span(f"{n:015x}1", f"{n:015x}0", T0, tool_attrs("c", GOOD), trace=tid)
        root = otlp_span(f"{n:015x}0", "", T0, {"evalrun.case_id": "lookup"}, trace=tid)
        return batch(tool), batch(root)

    (t1, r1), (t2, r2), (t3, r3) = trace(1), trace(2), trace(3)
    reader = TraceReader(otel_limits=OtelLimits(max_open_traces=2))
    out = list(reader.read(lines(t1, t2, t3, r2, r1, r3)))
    errors = [o for o in out if isinstance(o, TraceError)]
    runs = [o for o in out if isinstance(o, Run)]
    assert [r.run_id for r in runs] == [f"{2:032x}", f"{3:032x}"]
    assert [e.source for e in errors] == ["t.jsonl:1", "t.jsonl:5"]
    assert "dropped unfinished: the span buffer was full" in errors[0].error
    assert "arrived after the trace was dropped unfinished" in errors[1].error
    assert reader._groupers["otel"].buffered == (0, 0)
    # Three traces, three records: 2 runs + 1 dropped; the late root of the dropped one is a
    # fourth record, reported on its own line.
    assert len(runs) + len(errors) == 4

    # The byte budget: one trace's tool spans alone exceed it.
    reader = TraceReader(otel_limits=OtelLimits(max_bytes=100))
    big = otlp_span("1" * 16, ROOT, T0, tool_attrs("c", {"note": "x" * 200}))
    [err] = list(reader.read(lines(batch(big))))
    assert isinstance(err, TraceError) and "dropped unfinished" in err.error


def test_otel_traces_that_cannot_be_runs():
    http = otlp_span(
        "1" * 16, "", T0, {"http.request.method": "GET"}, name="GET /health", trace="a" * 32
    )
    chat = otlp_span(
        ROOT, "", T0, {"gen_ai.operation.name": "chat"}, name="chat gpt-4.1", trace="b" * 32
    )
    disagree = batch(
        otlp_span("2" * 16, ROOT, T0, {"evalrun.case_id": "a"}),
        agent_root(**{"evalrun.case_id": "b"}),
    )
    no_id = batch(otlp_span("3" * 16, ROOT, T0, {}, trace=""))
    out = read(batch(http), batch(chat), disagree, no_id, batch())
    assert all(isinstance(o, TraceError) for o in out), out
    reasons = [o.error for o in out]
    assert (
        "is no agent run: no span has gen_ai.operation.name, openinference.span.kind, "
        "langfuse.observation.type or evalrun.case_id or metadata.case_id" in reasons[0]
    )
    assert "no span has the attribute evalrun.case_id or metadata.case_id" in reasons[1]
    assert "its spans disagree on evalrun.case_id ('a', 'b')" in reasons[2]
    assert "1 span(s) without a trace id" in reasons[3]
    assert "the batch holds no spans" in reasons[4]


def test_otel_world_attribute():
    spans = otel_lines()
    root = spans[2]["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    root["attributes"].append({"key": "evalrun.world", "value": {"stringValue": '{"refunds": []}'}})
    [run] = read(*spans)
    assert run.world == {"refunds": []}


# ---------------------------------------------------------------------- detection, keys, shapes


@pytest.mark.parametrize(
    ("record", "fmt"),
    [
        ({"calls": []}, "native"),
        (chat_run(), "openai-chat"),
        (responses_run(), "openai-responses"),
        (anthropic_run(), "anthropic"),
        (mcp_run(), "mcp"),
        (otel_lines()[0], "otel"),
        (sdk_span(ROOT, None, "2026-03-01T10:00:00Z", {}), "otel"),
        ({"messages": [{"role": "user", "content": "hi"}]}, "openai-chat"),
        ({"messages": ["hi"]}, None),
        ({"input": "just a prompt"}, None),
        ({"prompt": "x", "completion": "y"}, None),
        ([1, 2], None),
    ],
)
def test_detect(record, fmt):
    assert detect(record) == fmt


@pytest.mark.parametrize("record", [{"prompt": "x", "completion": "y"}, [1, 2], "text", None])
def test_unknown_shape_names_the_formats_tried(record):
    [err] = read(record)
    assert isinstance(err, TraceError) and err.source == "t.jsonl:1"
    assert "no known trace format" in err.error
    for fmt in FORMATS:
        assert fmt in err.error


def test_forced_format_reads_every_line_in_it():
    out = read(chat_run(), anthropic_run(), trace_format="anthropic")
    assert isinstance(out[0], TraceError)
    assert out[0].error == "anthropic: no anthropic tool calls, but 2 in openai-chat shapes"
    assert calls(out[1]) == RETRY
    [err] = read(chat_run(), trace_format="native")
    assert err.error == 'the record has no "calls" list'
    [err] = read(chat_run(), trace_format="otel")
    assert err.error.startswith("otel: not a span")


def test_native_lines_read_as_before():
    native = {"run_id": "r", "case_id": "c", "calls": [{"tool": "t", "args": "{bad"}]}
    [(source, line)] = lines(native)
    assert read(native) == [parse_line(line, source)]
    assert read(native, trace_format="native") == [parse_line(line, source)]


def test_ids_from_keys_and_metadata():
    record = chat_run(case_id=None, request={"metadata": {"task": "lookup", "attempt": 3}})
    del record["case_id"]
    [err] = read(record)
    assert err.error.startswith(
        'openai-chat: no case id (looked at "case_id", "metadata.case_id"); say where the '
        "record keeps it with --case-key PATH"
    )
    run = one(record, case_key="request.metadata.task", run_key="request.metadata.attempt")
    assert (run.case_id, run.run_id) == ("lookup", "3")
    [err] = read(record, case_key="request.task")
    assert err.error == 'openai-chat: no case id at "request.task" (--case-key)'
    # The keys reach native records too, and OpenTelemetry attributes by name.
    native = {"calls": [], "task": {"id": "lookup"}}
    assert one(native, case_key="task.id").case_id == "lookup"
    spans = otel_lines()
    root = spans[2]["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    root["attributes"].append({"key": "app.task", "value": {"stringValue": "other"}})
    assert one(spans[2], case_key="app.task").case_id == "other"


def test_native_records_read_their_ids_from_metadata_as_documented():
    calls = [{"tool": "get_customer", "args": {"customer_id": "C-1"}}]
    run = one({"metadata": {"case_id": "lookup", "run_id": "m-1"}, "calls": calls})
    assert (run.case_id, run.run_id) == ("lookup", "m-1")
    top = {"case_id": "top", "run_id": "t-1", "metadata": {"case_id": "x", "run_id": "y"}}
    run = one({**top, "calls": calls})
    assert (run.case_id, run.run_id) == ("top", "t-1")
    assert one({"metadata": {}, "calls": calls}).case_id is None  # graded as "no case_id"


def test_bad_options_are_input_errors():
    with pytest.raises(InputError, match="unknown trace format 'xml'"):
        TraceReader("xml")
    with pytest.raises(InputError, match=r"--case-key 'a\.\.b'"):
        TraceReader(case_key="a..b")


# ------------------------------------------------------------------------------------ end to end

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_customer",
            "description": "Get a customer",
            "parameters": {
                "type": "object",
                "properties": {"customer_id": {"type": "string", "x-eval-norm": "casefold"}},
                "required": ["customer_id"],
            },
        },
    }
]
CASES = [{"id": "lookup", "accept": [[{"tool": "get_customer", "args": GOOD}]]}]


def project(tmp_path, name, records):
    (tmp_path / "tools").mkdir()
    (tmp_path / "cases").mkdir()
    (tmp_path / "traces").mkdir()
    (tmp_path / "tools" / "t.json").write_text(json.dumps(TOOLS))
    (tmp_path / "cases" / "c.json").write_text(json.dumps(CASES))
    path = tmp_path / "traces" / name
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


UNKNOWN = {"prompt": "look up C-1", "completion": "done"}


def with_ids(record, run_id):
    return {**record, "run_id": run_id}


# Per format: the retry story, and a run whose only call has an invalid arguments string.
E2E = {
    "openai-chat": [
        chat_run(),
        {
            "case_id": "lookup",
            "messages": [{"role": "assistant", "tool_calls": [chat_tool_call("c", BAD_ARGS)]}],
        },
    ],
    "openai-responses": [
        responses_run(),
        {"metadata": {"case_id": "lookup"}, "output": [fc("c", BAD_ARGS, "fc_9")]},
    ],
    "anthropic": [
        anthropic_run(),
        {
            "case_id": "lookup",
            "messages": [{"role": "assistant", "content": [tool_use("toolu_9", BAD_ARGS)]}],
        },
    ],
    "mcp": [mcp_run(), {"case_id": "lookup", "messages": [rpc_call(1, BAD_ARGS)]}],
}


@pytest.mark.parametrize("fmt", sorted(E2E))
def test_score_each_format(tmp_path, fmt):
    retry, malformed = E2E[fmt]
    project(tmp_path, "a.jsonl", [with_ids(retry, "r1"), with_ids(malformed, "r2"), UNKNOWN])
    doc = score_folder(tmp_path)
    verdicts = {r["run_id"]: (r["verdict"], r["shape"]) for r in doc["runs"]}
    # Exact-match fails the self-corrected run; with the rejected attempt dropped it passes.
    assert verdicts == {"r1": ("false_failure", "errored_attempt"), "r2": ("fail", None)}
    r1, r2 = doc["runs"]
    assert [c["label"] for c in r1["calls"]] == ["errored", "exact"]
    assert [c["label"] for c in r2["calls"]] == ["malformed"]
    assert doc["summary"]["unscoreable"] == 1
    assert doc["summary"]["runs"] + doc["summary"]["unscoreable"] == 3
    [error] = doc["errors"]
    assert error["source"].endswith("a.jsonl:3") and "no known trace format" in error["error"]
    # Forced, the same file reads the same; forced wrong, nothing is scored and all is counted.
    assert score_folder(tmp_path, "--trace-format", fmt)["runs"] == doc["runs"]
    wrong = "otel" if fmt != "otel" else "native"
    # (no run scored is exit 2: a wrong format must not pass CI on nothing)
    forced = score_folder(tmp_path, "--trace-format", wrong, exit_code=2)["summary"]
    assert (forced["runs"], forced["unscoreable"]) == (0, 3)


def test_score_malformed_call_without_error(tmp_path):
    record = chat_run(first_args=BAD_ARGS)
    record["messages"][3]["content"] = "customer not found"  # no error object this time
    project(tmp_path, "a.jsonl", [record])
    [run] = score_folder(tmp_path)["runs"]
    assert run["verdict"] == "fail"
    assert [c["label"] for c in run["calls"]] == ["malformed", "exact"]


def test_score_otel(tmp_path):
    other = otel_lines()
    for line in other:
        for span in line["resourceSpans"][0]["scopeSpans"][0]["spans"]:
            span["traceId"] = "0af7651916cd43dd8448eb211c80319c"
    # Only the good call in the second trace: an exact pass.
    del other[1]
    project(tmp_path, "spans.jsonl", [*otel_lines(), *other, UNKNOWN])
    doc = score_folder(tmp_path)
    verdicts = [(r["run_id"], r["verdict"], r["shape"], r["source"][-13:]) for r in doc["runs"]]
    assert verdicts == [
        (TRACE, "false_failure", "errored_attempt", "spans.jsonl:1"),
        ("0af7651916cd43dd8448eb211c80319c", "pass", None, "spans.jsonl:4"),
    ]
    # Five span lines made two runs; the sixth line is unscoreable: one record each.
    assert (doc["summary"]["runs"], doc["summary"]["unscoreable"]) == (2, 1)
    otel = score_folder(tmp_path, "--trace-format", "otel", "--case-key", "evalrun.case_id")
    assert otel["runs"] == doc["runs"]


def test_score_case_key(tmp_path):
    record = chat_run()
    del record["case_id"]
    record["request"] = {"metadata": {"task": "lookup"}}
    project(tmp_path, "a.jsonl", [record])
    doc = score_folder(tmp_path, "--case-key", "request.metadata.task")
    assert [(r["case_id"], r["verdict"]) for r in doc["runs"]] == [("lookup", "false_failure")]
    result = CliRunner().invoke(app, ["score", str(tmp_path / "traces"), "--trace-format", "xml"])
    assert result.exit_code == 2


def test_score_help_documents_the_options():
    result = CliRunner().invoke(app, ["score", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for option in ("--trace-format", "--case-key", "--run-key", "openai-responses"):
        assert option in result.output


# -------------------------------------------------------------------------- the docs are executed

DOC = Path(__file__).parent.parent / "docs" / "trace-formats.md"
DOC_SECTIONS = {
    "Native": "native",
    "OpenAI Chat Completions": "openai-chat",
    "OpenAI Responses": "openai-responses",
    "Anthropic Messages": "anthropic",
    "MCP": "mcp",
    "OpenTelemetry GenAI spans": "otel",
    "pydantic-ai messages": "pydantic-ai",
    "LangChain messages": "langchain",
    "OpenAI Agents SDK tracing": "openai-agents",
    "Google Gemini (Vertex AI)": "gemini",
    "Amazon Bedrock Converse": "bedrock",
    "smolagents steps": "smolagents",
    "AutoGen AgentChat messages": "autogen",
    "Google ADK sessions": "adk",
    "DSPy ReAct trajectories": "dspy",
    "LlamaIndex chat history and tool results": "llamaindex",
    "Haystack messages": "haystack",
    "Semantic Kernel chat history": "semantic-kernel",
    "Vercel AI SDK messages and steps": "vercel-ai",
    "MLflow traces": "mlflow",
    "CrewAI tool events": "crewai",
    "Agno runs": "agno",
}


def doc_examples():
    """(section, fenced block language, block text) in the order of the page."""
    section, found = None, []
    for m in re.finditer(r"^## ([^\n]+)$|^```(jsonl?)\n(.*?)^```$", DOC.read_text(), re.M | re.S):
        if m.group(1):
            section = m.group(1)
        else:
            found.append((section, m.group(2), m.group(3)))
    return found


def test_docs_cover_every_format():
    sections = {section for section, _, _ in doc_examples()}
    assert set(DOC_SECTIONS) <= sections
    text = DOC.read_text()
    for fmt in [f for f in FORMATS if f != "native"]:
        assert f"--trace-format {fmt} --tools tools --cases cases" in text


@pytest.mark.parametrize(
    "example", [e for e in doc_examples() if e[0] in DOC_SECTIONS], ids=lambda e: e[0]
)
def test_docs_example_scores_as_the_page_says(tmp_path, example):
    section, lang, text = example
    [(_, _, tool), (_, _, case)] = [e for e in doc_examples() if e[0] is None]
    for name, body in (("tools", tool), ("cases", case), ("traces", None)):
        (tmp_path / name).mkdir()
        if body is not None:
            (tmp_path / name / "x.json").write_text(body)
    records = [json.loads(text)] if lang == "json" else [json.loads(x) for x in text.splitlines()]
    (tmp_path / "traces" / "x.jsonl").write_bytes(
        b"".join(orjson.dumps(r) + b"\n" for r in records)
    )
    for fmt in ("auto", DOC_SECTIONS[section]):
        doc = score_folder(tmp_path, "--trace-format", fmt)
        assert doc["errors"] == []
        assert [(r["case_id"], r["verdict"], r["shape"]) for r in doc["runs"]] == [
            ("lookup", "false_failure", "errored_attempt")
        ]
