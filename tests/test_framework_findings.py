"""What an independent pass over real framework output found after issue 20, one test each.

The fixtures are written by scripts/framework_traces.py (`make fixtures`): pydantic-ai 2.68's
`result.all_messages_json()` for an agent with `output_type=` (a structured answer, given through
the output tool `final_result`), and LangGraph's messages through langchain-core's `dumpd()`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalrunner import Run, TraceError
from evalrunner.cli import app
from evalrunner.traces import read_lines
from tests.conftest import score_fixture

DATA = Path(__file__).parent / "data" / "frameworks"


def labels(doc: dict) -> dict:
    return {
        r["case_id"]: (r["verdict"], [(c["tool"], c["label"]) for c in r["calls"]])
        for r in doc["runs"]
    }


def test_pydantic_ai_output_tool_calls_are_not_calls_of_the_tool_surface():
    doc = score_fixture(DATA / "pydantic-ai-messages-output-type.jsonl")
    assert labels(doc) == labels(score_fixture(DATA / "pydantic-ai-messages.jsonl"))
    assert labels(doc)["lookup"] == ("pass", [("get_invoice", "exact")])


def _pydantic_run(*parts: dict) -> Run:
    messages = [{"kind": "response" if "args" in p else "request", "parts": [p]} for p in parts]
    line = json.dumps({"case_id": "c", "messages": messages}).encode() + b"\n"
    [run] = read_lines([("t.jsonl:1", line)], "auto")
    assert isinstance(run, Run)
    return run


def _call(name: str, call_id: str, args: dict | None = None) -> dict:
    return {
        "part_kind": "tool-call",
        "tool_name": name,
        "tool_call_id": call_id,
        "args": args or {},
    }


def test_pydantic_ai_output_tool_rules():
    ret = {"part_kind": "tool-return", "tool_call_id": "o1", "outcome": "success"}
    # answered with the output tool's reply, whatever its name (ToolOutput(name=...))
    run = _pydantic_run(
        _call("answer", "o1"), {**ret, "tool_name": "answer", "content": "Final result processed."}
    )
    assert run.calls == ()
    # an output tool whose answer did not validate, and one the run ended on unanswered
    retry = {
        "part_kind": "retry-prompt",
        "tool_name": "final_result",
        "tool_call_id": "o1",
        "content": "bad",
    }
    assert _pydantic_run(_call("final_result", "o1"), retry).calls == ()
    assert _pydantic_run(_call("final_result_Invoice", "o2")).calls == ()
    # a function tool of that name that returned its own data is a call
    run = _pydantic_run(
        _call("final_result", "o1"), {**ret, "tool_name": "final_result", "content": {"ok": 1}}
    )
    assert [c.tool for c in run.calls] == ["final_result"]


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
            str(DATA / "tools.json"),
            "--cases",
            str(DATA / "cases.json"),
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
            str(DATA / "tools.json"),
            "--cases",
            str(DATA / "cases.json"),
        ],
    )
    assert '{"case_id": ..., "messages": [...]}' in result.stderr


def test_langchain_dumpd_messages_read_as_model_dump_does():
    """`langchain_core.load.dumpd(state["messages"])`: each message a constructor with `kwargs`."""
    dumpd = labels(score_fixture(DATA / "langgraph-dumpd.jsonl"))
    assert dumpd == labels(score_fixture(DATA / "langgraph-model-dump.jsonl"))
    assert dumpd["retry"] == (
        "false_failure",
        [("get_customer", "errored"), ("get_customer", "exact")],
    )
    assert dumpd["raised"][0] == "false_pass"


def test_genai_chat_messages_as_an_array_of_json_strings(tmp_path):
    """OTel attributes cannot hold objects, so some instrumentations record
    `gen_ai.input.messages`/`gen_ai.output.messages` as an array of strings, each message's JSON.
    The committed GenAI chat spans rewritten that way read the same (they read 0 calls before)."""
    rewritten = []
    for line in (DATA / "genai-chat-spans.jsonl").read_text().splitlines():
        span = json.loads(line)
        for key in ("gen_ai.input.messages", "gen_ai.output.messages"):
            value = span["attributes"].get(key)
            if isinstance(value, str):
                span["attributes"][key] = [json.dumps(m) for m in json.loads(value)]
        rewritten.append(json.dumps(span))
    path = tmp_path / "spans.jsonl"
    path.write_text("\n".join(rewritten) + "\n")
    args = ("--error-pattern", "not found", "--error-pattern", "^customer service")
    original = score_fixture(DATA / "genai-chat-spans.jsonl", *args)
    doc = score_fixture(path, *args)
    assert labels(doc) == labels(original)
    assert sum(len(r["calls"]) for r in doc["runs"]) == 6


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


CHAT_CALL = {
    "id": "c1",
    "type": "function",
    "function": {"name": "get_invoice", "arguments": '{"invoice_id": "I-1"}'},
}
EXCHANGES = {
    "chat": (
        {"model": "gpt-4.1", "messages": [{"role": "user", "content": "Is I-1 open?"}]},
        {"choices": [{"message": {"role": "assistant", "tool_calls": [CHAT_CALL]}}]},
    ),
    "anthropic": (
        {"messages": [{"role": "user", "content": "Is I-1 open?"}]},
        {
            "type": "message",
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": "get_invoice",
                    "input": {"invoice_id": "I-1"},
                }
            ],
        },
    ),
    "bedrock": (
        {"messages": [{"role": "user", "content": [{"text": "Is I-1 open?"}]}]},
        {
            "output": {
                "message": {
                    "role": "assistant",
                    "content": [
                        {
                            "toolUse": {
                                "toolUseId": "t1",
                                "name": "get_invoice",
                                "input": {"invoice_id": "I-1"},
                            }
                        }
                    ],
                }
            },
            "stopReason": "tool_use",
        },
    ),
    "gemini": (
        {"contents": [{"role": "user", "parts": [{"text": "Is I-1 open?"}]}]},
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"functionCall": {"name": "get_invoice", "args": {"invoice_id": "I-1"}}}
                        ],
                    }
                }
            ]
        },
    ),
    "responses": (
        {"input": "Is I-1 open?"},
        {
            "object": "response",
            "output": [
                {
                    "type": "function_call",
                    "call_id": "c1",
                    "name": "get_invoice",
                    "arguments": '{"invoice_id": "I-1"}',
                }
            ],
        },
    ),
}


@pytest.mark.parametrize("provider", EXCHANGES)
def test_a_logged_request_response_pair_is_read_as_its_conversation(provider):
    """What gateways and loggers write for one model call, `{"request", "response"}`: the
    request's messages with the response's message; ids from the record as it is."""
    request, response = EXCHANGES[provider]
    record = {
        "request": {**request, "metadata": {"task": "lookup"}},
        "response": response,
        "world": {"w": 1},
    }
    line = json.dumps(record).encode() + b"\n"
    [run] = read_lines([("t.jsonl:1", line)], "auto", case_key="request.metadata.task")
    assert isinstance(run, Run), run
    assert run.case_id == "lookup" and run.world == {"w": 1}
    assert [(c.tool, c.args) for c in run.calls] == [("get_invoice", {"invoice_id": "I-1"})]


def test_a_record_with_its_own_conversation_is_not_read_as_an_exchange():
    from evalrunner.traces.reader import exchange

    chat = {
        "messages": [{"role": "user", "content": "hi"}],
        "request": {"messages": []},
        "response": {},
    }
    assert exchange(chat) is None
    assert exchange({"request": "text", "response": 3}) is None
    assert exchange({"request": {"prompt": "hi"}, "response": {"text": "no"}}) is None


REVIEW = Path(__file__).parent / "data" / "review"


def _read(path: Path) -> list:
    lines = [
        (f"{path.name}:{n}", raw)
        for n, raw in enumerate(path.read_bytes().splitlines(keepends=True), 1)
    ]
    return read_lines(lines, "auto")


def test_a_span_attribute_holding_an_integer_beyond_64_bits_is_read_exactly():
    """A TOOL span's input with 123456789012345678901234: read exactly, and held without a crash
    (the grouper measured what it holds with plain orjson, which refuses such integers)."""
    [run] = _read(REVIEW / "openinference-big-int.jsonl")
    assert isinstance(run, Run), run
    assert run.calls[0].args == {"customer_id": "C-1", "n": 123456789012345678901234}


def test_agents_generation_spans_of_odd_types_and_handoffs():
    """A generation span whose input and output are numbers reads as no call (never a crash);
    with calls read from generation spans, a handoff the model asked for is the SDK's, not a
    call of the tool surface."""
    [run] = _read(REVIEW / "agents-generation-number.jsonl")
    assert isinstance(run, Run) and [c.tool for c in run.calls] == ["get_customer"]
    [run] = _read(REVIEW / "agents-generation-handoff.jsonl")
    assert isinstance(run, Run) and [c.tool for c in run.calls] == ["get_customer"]


@pytest.mark.parametrize(
    "response",
    [
        'data: {"choices":[{"delta":{"tool_calls":[{"function":{"name":"x"}}]}}]}',
        [{"object": "chat.completion.chunk", "choices": [{"delta": {"tool_calls": []}}]}],
        {"error": {"message": "rate limited"}},
        {"object": "response", "status": "failed", "output": None},
    ],
    ids=["sse-text", "chunks", "error-body", "failed-response"],
)
def test_an_exchange_whose_response_is_not_read_is_unscoreable_never_a_run_of_no_calls(response):
    record = {
        "case_id": "lookup",
        "request": {"messages": [{"role": "user", "content": "hi"}]},
        "response": response,
    }
    [item] = read_lines([("t.jsonl:1", json.dumps(record).encode() + b"\n")], "auto")
    assert isinstance(item, TraceError), item
    assert "a request/response record whose response is in no shape evalrun reads" in item.error


def test_exchanges_of_ollama_and_of_gemini_with_automatic_function_calling():
    ollama = {
        "case_id": "lookup",
        "request": {"model": "llama3", "messages": [{"role": "user", "content": "I-1?"}]},
        "response": {
            "message": {
                "role": "assistant",
                "tool_calls": [
                    {"function": {"name": "get_invoice", "arguments": {"invoice_id": "I-1"}}}
                ],
            }
        },
    }
    [run] = read_lines([("t.jsonl:1", json.dumps(ollama).encode() + b"\n")], "auto")
    assert isinstance(run, Run) and [(c.tool, c.args) for c in run.calls] == [
        ("get_invoice", {"invoice_id": "I-1"})
    ]
    # the response's history holds both calls the SDK made, the request only the first
    [run] = _read(REVIEW / "gemini-exchange-afc.jsonl")
    assert isinstance(run, Run), run
    assert [c.args for c in run.calls] == [{"invoice_id": "I-1"}, {"invoice_id": "I-2"}]


def test_gemini_replies_without_ids_pair_by_name():
    """Parallel calls answered in another order: the error belongs to get_customer's reply."""
    [run] = _read(REVIEW / "gemini-parallel-by-name.jsonl")
    assert isinstance(run, Run), run
    assert [(c.tool, c.errored) for c in run.calls] == [
        ("get_invoice", False),
        ("get_customer", True),
    ]


@pytest.mark.parametrize(
    ("folder", "fmt"),
    [
        ("tools-g1", "bare"),  # functionDeclarations, Gemini's capital OpenAPI types
        ("tools-g2", "gemini"),  # model_dump(): function_declarations, parameters_json_schema
        ("tools-g3", "bedrock"),  # {"toolConfig": {"tools": [...]}}
        ("tools-g4", "bedrock"),  # a cachePoint among the tools
    ],
)
def test_gemini_and_bedrock_tool_files_in_their_usual_forms(folder, fmt):
    from evalrunner.read.tools import load_tools

    tools = load_tools(REVIEW / folder)
    assert list(tools) == ["get_customer"] and tools["get_customer"].format == fmt
    params = tools["get_customer"].params.properties
    assert params is not None and "customer_id" in params


def test_x_eval_repeatable_inside_a_bedrock_tool_spec_is_read():
    data = REVIEW / "bedrock-repeatable"
    base = ["--tools", str(data / "tools"), "--cases", str(data / "cases")]
    result = CliRunner().invoke(app, ["score", *base, str(data / "traces"), "--format", "json"])
    assert result.exit_code == 0, result.output
    [run] = json.loads(result.stdout)["runs"]
    assert run["verdict"] == "pass" and [c["label"] for c in run["calls"]] == ["exact", "repeat"]


def test_settings_named_like_calls_are_not_calls():
    """Chat's request parameter `"function_call": {"name": ...}`, a `tool_choice`, a
    `{"toolUse": {"enabled": true}}` setting: runs that answered in text, with no call."""
    items = _read(REVIEW / "settings-not-calls.jsonl")
    assert all(isinstance(i, Run) for i in items), items
    assert [len(i.calls) for i in items] == [0, 0, 1, 0]
