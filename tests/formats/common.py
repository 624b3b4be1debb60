"""What the trace-format tests share: the story every format tells (a call the tool rejects, then
the right one under the same call id), the frameworks' scenario, and small readers of records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
from typer.testing import CliRunner

from evalrunner import Run, TraceError
from evalrunner.cli import app
from evalrunner.traces import detect as detect_format
from evalrunner.traces import read_lines, trace_formats
from tests.conftest import DATA, FRAMEWORKS

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


SCENARIO = {  # as in test_frameworks.py: the verdicts the scenario implies
    "retry": ("false_failure", "errored_attempt", ["errored", "exact"]),
    "lookup": ("pass", None, ["exact"]),
    "parallel": ("pass", None, ["exact", "exact"]),
    "raised": ("false_pass", "rejected_call", ["errored"]),
}


def verdicts(doc: dict[str, Any]) -> dict[str, Any]:
    return {
        r["case_id"]: (r["verdict"], r["shape"], [c["label"] for c in r["calls"]])
        for r in doc["runs"]
    }


def write(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def read_one(record: Any) -> Run | TraceError:
    [item] = read_lines([("t.jsonl:1", json.dumps(record).encode() + b"\n")], "auto")
    return item


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


TRACE = "5b8efff798038103d269b633813fc60c"


ROOT_SPAN = "eee19b7ec3c1b174"


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
        ROOT_SPAN,
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
        batch(otlp_span("00f067aa0ba902b7", ROOT_SPAN, T0 + 2_000, good)),
        batch(otlp_span("00f067aa0ba902b6", ROOT_SPAN, T0 + 1_000, wrong, error=True)),
        batch(agent_root(**{"evalrun.case_id": "lookup"})),
    ]


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


def gemini_fc(args: Any, call_id: str | None = None) -> dict[str, Any]:
    """A `functionCall` part as the REST API writes it (camelCase)."""
    call: dict[str, Any] = {"name": "get_customer", "args": args}
    if call_id is not None:
        call["id"] = call_id
    return {"functionCall": call}


def fr(response: Any, call_id: str | None = None) -> dict[str, Any]:
    reply: dict[str, Any] = {"name": "get_customer", "response": response}
    if call_id is not None:
        reply["id"] = call_id
    return {"functionResponse": reply}


def gemini_run(first=None, ids=(None, None), key="contents", reply_role="user"):
    return {
        "case_id": "lookup",
        "run_id": "gemini-1",
        key: [
            {"role": "user", "parts": [{"text": "Look up customer C-1."}]},
            {"role": "model", "parts": [first or gemini_fc(WRONG, ids[0])]},
            {"role": reply_role, "parts": [fr({"error": "customer C-9 not found"}, ids[0])]},
            {"role": "model", "parts": [{"text": "Trying C-1."}, gemini_fc(GOOD, ids[1])]},
            {"role": reply_role, "parts": [fr({"result": {"id": "C-1"}}, ids[1])]},
            {"role": "model", "parts": [{"text": "Dana Whitfield is customer C-1."}]},
        ],
    }


def dumped(part: dict[str, Any]) -> dict[str, Any]:
    """A part as the Python SDK's `Part.model_dump()` writes it: snake_case, every unset field
    null (a text part carries `"function_call": null`)."""
    out: dict[str, Any] = dict.fromkeys(
        ("video_metadata", "thought", "inline_data", "file_data", "function_call"), None
    )
    out |= {"function_response": None, "text": None}
    if "functionCall" in part:
        out["function_call"] = {"id": None, "args": None, **part["functionCall"]}
    elif "functionResponse" in part:
        out["function_response"] = {"id": None, "will_continue": None, **part["functionResponse"]}
    else:
        out["text"] = part["text"]
    return out


def bedrock_tool_use(tool_id, input):
    return {"toolUse": {"toolUseId": tool_id, "name": "get_customer", "input": input}}


def bedrock_tool_result(tool_id, content, status=None):
    result: dict[str, Any] = {"content": content}
    if tool_id is not None:
        result["toolUseId"] = tool_id
    if status is not None:
        result["status"] = status
    return {"toolResult": result}


def bedrock_run(first=None, ids=("tooluse_1", "tooluse_2")):
    return {
        "case_id": "lookup",
        "run_id": "bedrock-1",
        "modelId": "anthropic.claude-3-5-sonnet-20240620-v1:0",
        "messages": [
            {"role": "user", "content": [{"text": "Look up customer C-1."}]},
            {
                "role": "assistant",
                "content": [{"text": "Looking."}, first or bedrock_tool_use(ids[0], WRONG)],
            },
            {
                "role": "user",
                "content": [
                    bedrock_tool_result(ids[0], [{"text": "customer C-9 not found"}], "error")
                ],
            },
            {"role": "assistant", "content": [bedrock_tool_use(ids[1], GOOD)]},
            {
                "role": "user",
                "content": [bedrock_tool_result(ids[1], [{"json": {"id": "C-1"}}], "success")],
            },
        ],
    }


def score(
    path: Path,
    *args: str,
    tools: Path = FRAMEWORKS / "tools.json",
    cases: Path = FRAMEWORKS / "cases.json",
) -> dict[str, Any]:
    argv = ["score", str(path), "--tools", str(tools), "--cases", str(cases), "--format", "json"]
    result = CliRunner().invoke(app, [*argv, *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def langfuse_spans() -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in (FRAMEWORKS / "langfuse-spans.jsonl").read_text().splitlines()
    ]


def _observed(span: dict[str, Any]) -> Any:
    return span["attributes"].get("langfuse.observation.type")


REVIEW = DATA / "review"


def read_file(path: Path) -> list:
    lines = [
        (f"{path.name}:{n}", raw)
        for n, raw in enumerate(path.read_bytes().splitlines(keepends=True), 1)
    ]
    return read_lines(lines, "auto")


def labels(doc: dict) -> dict:
    return {
        r["case_id"]: (r["verdict"], [(c["tool"], c["label"]) for c in r["calls"]])
        for r in doc["runs"]
    }
