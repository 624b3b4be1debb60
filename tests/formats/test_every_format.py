"""What every trace format does alike: detection (per line, in the registry's order), the keys
that hold ids, wrong types anywhere answered with a reason, the CLI end to end, and the
examples of docs/trace-formats.md executed."""

from __future__ import annotations

import json
import re
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from evalrunner import InputError, Run, TraceError
from evalrunner.cli import app
from evalrunner.grade.grader import Grader
from evalrunner.read.cases import parse_case
from evalrunner.read.tools import parse_tool
from evalrunner.traces import TraceReader, parse_line, read_lines
from tests.conftest import DATA, FRAMEWORKS, ROOT, score_folder
from tests.formats.common import (
    BAD_ARGS,
    FORMATS,
    GOOD,
    RETRY,
    REVIEW,
    ROOT_SPAN,
    SCENARIO,
    TRACE,
    anthropic_run,
    bedrock_run,
    calls,
    chat_run,
    chat_tool_call,
    detect,
    dumped,
    fc,
    gemini_run,
    lines,
    mcp_run,
    one,
    otel_lines,
    read,
    read_file,
    responses_run,
    rpc_call,
    score,
    sdk_span,
    tool_use,
)


@pytest.mark.parametrize(
    ("record", "fmt"),
    [
        ({"calls": []}, "native"),
        (chat_run(), "openai-chat"),
        (responses_run(), "openai-responses"),
        (anthropic_run(), "anthropic"),
        (mcp_run(), "mcp"),
        (otel_lines()[0], "otel"),
        (sdk_span(ROOT_SPAN, None, "2026-03-01T10:00:00Z", {}), "otel"),
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


DOC = ROOT / "docs" / "trace-formats.md"


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
    "Google ADK eval history": "adk-eval",
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


@pytest.mark.parametrize(
    ("record", "fmt"),
    [
        (gemini_run(), "gemini"),
        (gemini_run(key="messages"), "gemini"),
        ({"contents": [{"role": "model", "parts": [{"text": "hi"}]}]}, "gemini"),
        ({"candidates": [{"content": {"role": "model", "parts": []}}]}, "gemini"),
        (bedrock_run(), "bedrock"),
        # no tool activity: a conversation of no call in any format, read as before
        ({"messages": [{"role": "user", "parts": [{"text": "hi"}]}]}, "openai-chat"),
        ({"messages": [{"role": "user", "content": [{"text": "hi"}]}]}, "openai-chat"),
        ({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}, None),
        ({"candidates": []}, None),
        ({"output": {"message": {"content": []}}}, None),  # no stopReason: not a Converse answer
        # a model_dump() text part names function_call with a null: no call, no detection
        ({"contents": [{"role": "user", "parts": [dumped({"text": "hi"})]}]}, None),
    ],
)
def test_detect_gemini_and_bedrock(record, fmt):
    assert detect(record) == fmt


def test_forced_formats_name_the_shapes_they_saw():
    [err] = read(gemini_run(key="messages"), trace_format="openai-chat")
    assert err.error == "openai-chat: no openai-chat tool calls, but 2 in gemini shapes"
    [err] = read(bedrock_run(), trace_format="gemini")
    assert err.error == "gemini: no gemini tool calls, but 2 in bedrock shapes"
    [err] = read({"case_id": "c", "prompt": "x"}, trace_format="bedrock")
    assert err.error.startswith('bedrock: no "messages" list')
    assert calls(read(gemini_run(), trace_format="gemini")[0]) == RETRY


WRONG_TYPES = ([], {}, "x", 7, None, True, [{}], ["get_customer"])


def paths(value: Any, at: tuple[Any, ...] = ()):
    """Every place in a JSON value: the path of keys and indexes to it."""
    if at:
        yield at
    if type(value) is dict:
        for k, v in value.items():
            yield from paths(v, (*at, k))
    elif type(value) is list:
        for i, v in enumerate(value):
            yield from paths(v, (*at, i))


def replaced(value: Any, at: tuple[Any, ...], new: Any) -> Any:
    value = json.loads(json.dumps(value))
    inner = value
    for step in at[:-1]:
        inner = inner[step]
    inner[at[-1]] = new
    return value


def fixture_records(name: str) -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in (DATA / "formats" / f"{name}.jsonl").read_text().splitlines()
    ]


def grader() -> Grader:
    tools = [
        parse_tool(t, "tools.json") for t in json.loads((FRAMEWORKS / "tools.json").read_text())
    ]
    cases = [
        parse_case(c, "cases.json") for c in json.loads((FRAMEWORKS / "cases.json").read_text())
    ]
    return Grader({t.name: t for t in tools}, {c.id: c for c in cases})


@pytest.mark.parametrize("name", ["gemini", "bedrock"])
def test_a_wrong_type_in_any_field_gives_a_run_or_a_reason(name):
    """Each field of each fixture record, replaced by a value of each wrong type (a list where a
    name belongs, a string where parts belong, null, an object...): read as detected and forced,
    then graded, every line gives a run or a TraceError, never an exception."""
    grade = grader()
    mutants = [
        replaced(record, at, new)
        for record in fixture_records(name)
        for at in paths(record)
        for new in WRONG_TYPES
    ]
    assert len(mutants) > 1000
    lines = [(f"m:{i}", orjson.dumps(m)) for i, m in enumerate(mutants, start=1)]
    for fmt in ("auto", name):
        out = list(TraceReader(fmt).records(lines))
        assert len(out) == len(lines)  # one answer a line
        for item in out:
            if not isinstance(item, TraceError):
                grade.grade_record(*item)


@pytest.mark.parametrize("name", ["gemini", "bedrock"])
def test_score_the_scenario(name):
    """tests/data/formats/: the frameworks' scenario, in each format's shapes (camelCase and
    model_dump() ones, a response alone, ids and none, automatic function calling)."""
    path = DATA / "formats" / f"{name}.jsonl"
    doc = score(path)
    assert doc["errors"] == []
    verdicts = {
        r["case_id"]: (r["verdict"], r["shape"], [c["label"] for c in r["calls"]])
        for r in doc["runs"]
    }
    assert verdicts == SCENARIO
    assert score(path, "--trace-format", name)["runs"] == doc["runs"]


@pytest.mark.parametrize("section", ["Google Gemini (Vertex AI)", "Amazon Bedrock Converse"])
def test_gemini_and_bedrock_docs_examples_score_as_the_page_says(tmp_path, section):
    [(_, _, tool), (_, _, case)] = [e for e in doc_examples() if e[0] is None]
    [(_, _, text)] = [e for e in doc_examples() if e[0] == section]
    (tmp_path / "tools.json").write_text(tool)
    (tmp_path / "cases.json").write_text(case)
    (tmp_path / "x.jsonl").write_bytes(orjson.dumps(json.loads(text)) + b"\n")
    fmt = {"Google Gemini (Vertex AI)": "gemini", "Amazon Bedrock Converse": "bedrock"}[section]
    for trace_format in ("auto", fmt):
        doc = score(
            tmp_path / "x.jsonl",
            "--trace-format",
            trace_format,
            tools=tmp_path / "tools.json",
            cases=tmp_path / "cases.json",
        )
        assert doc["errors"] == []
        assert [(r["case_id"], r["verdict"], r["shape"]) for r in doc["runs"]] == [
            ("lookup", "false_failure", "errored_attempt")
        ]


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
    [run] = read_file(REVIEW / "gemini-exchange-afc.jsonl")
    assert isinstance(run, Run), run
    assert [c.args for c in run.calls] == [{"invoice_id": "I-1"}, {"invoice_id": "I-2"}]


def test_settings_named_like_calls_are_not_calls():
    """Chat's request parameter `"function_call": {"name": ...}`, a `tool_choice`, a
    `{"toolUse": {"enabled": true}}` setting: runs that answered in text, with no call."""
    items = read_file(REVIEW / "settings-not-calls.jsonl")
    assert all(isinstance(i, Run) for i in items), items
    assert [len(i.calls) for i in items] == [0, 0, 1, 0]
