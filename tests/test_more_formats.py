"""Google Gemini (google-genai, Vertex AI) and Amazon Bedrock Converse conversations.

Before these formats, both read as Chat Completions conversations of no call (a Gemini reply turn
has the role "function", a Bedrock message a role): a run scored "fail" as if the agent had made
no call. Samples are built by hand in the shapes the REST APIs, google-genai's `model_dump()` and
boto3's `converse()` write; each format tells the story the others tell in test_adapters.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from evalrunner import TraceError
from evalrunner.cli import app
from evalrunner.grade.grader import Grader
from evalrunner.read.cases import parse_case
from evalrunner.read.tools import parse_tool
from evalrunner.traces import TraceReader
from tests.test_adapters import BAD_ARGS, GOOD, RETRY, WRONG, calls, detect, doc_examples, one, read

DATA = Path(__file__).parent / "data"
FRAMEWORKS = DATA / "frameworks"
SCENARIO = {  # as in test_frameworks.py: the verdicts the scenario implies
    "retry": ("false_failure", "errored_attempt", ["errored", "exact"]),
    "lookup": ("pass", None, ["exact"]),
    "parallel": ("pass", None, ["exact", "exact"]),
    "raised": ("false_pass", "rejected_call", ["errored"]),
}

# ---------------------------------------------------------------------------------------- Gemini


def fc(args: Any, call_id: str | None = None) -> dict[str, Any]:
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
            {"role": "model", "parts": [first or fc(WRONG, ids[0])]},
            {"role": reply_role, "parts": [fr({"error": "customer C-9 not found"}, ids[0])]},
            {"role": "model", "parts": [{"text": "Trying C-1."}, fc(GOOD, ids[1])]},
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
        (fc(BAD_ARGS), BAD_ARGS, True),  # a logger that kept the arguments as text, cut short
        (fc(["C-9"]), ["C-9"], True),
        (fc("{}"), {}, False),  # JSON text of an object reads as the object
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
                {"role": "model", "parts": [fc(GOOD)]},
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
            {"role": "model", "parts": [fc(WRONG, "a"), fc(GOOD, "b")]},
            {"role": "user", "parts": [fr({"result": "C-1"}, "b"), fr({"error": "nope"}, "a")]},
        ],
    }
    assert calls(one(record)) == RETRY


def test_gemini_response_alone_and_automatic_function_calling_history():
    response = {
        "metadata": {"case_id": "lookup"},
        "candidates": [{"content": {"role": "model", "parts": [fc(GOOD)]}, "finishReason": "STOP"}],
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


# --------------------------------------------------------------------------------------- Bedrock


def tool_use(tool_id, input):
    return {"toolUse": {"toolUseId": tool_id, "name": "get_customer", "input": input}}


def tool_result(tool_id, content, status=None):
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
                "content": [{"text": "Looking."}, first or tool_use(ids[0], WRONG)],
            },
            {
                "role": "user",
                "content": [tool_result(ids[0], [{"text": "customer C-9 not found"}], "error")],
            },
            {"role": "assistant", "content": [tool_use(ids[1], GOOD)]},
            {
                "role": "user",
                "content": [tool_result(ids[1], [{"json": {"id": "C-1"}}], "success")],
            },
        ],
    }


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
        (tool_use("tooluse_1", BAD_ARGS), BAD_ARGS, True),  # ConverseStream's text, cut short
        (tool_use("tooluse_1", ["C-9"]), ["C-9"], True),
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
                {"role": "assistant", "content": [tool_use("t", GOOD)]},
                {"role": "user", "content": [tool_result("t", content, status)]},
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
        "output": {"message": {"role": "assistant", "content": [tool_use("t", GOOD)]}},
        "stopReason": "tool_use",
        "usage": {"inputTokens": 3, "outputTokens": 4, "totalTokens": 7},
    }
    assert detect(response) == "bedrock"
    assert calls(one(response)) == [("get_customer", GOOD, False, False)]
    text_answer = {**response, "output": {"message": {"role": "assistant", "content": []}}}
    assert detect(text_answer) == "bedrock" and one(text_answer).calls == ()


# ------------------------------------------------------------------------------------- detection


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
def test_detect(record, fmt):
    assert detect(record) == fmt


def test_forced_formats_name_the_shapes_they_saw():
    [err] = read(gemini_run(key="messages"), trace_format="openai-chat")
    assert err.error == "openai-chat: no openai-chat tool calls, but 2 in gemini shapes"
    [err] = read(bedrock_run(), trace_format="gemini")
    assert err.error == "gemini: no gemini tool calls, but 2 in bedrock shapes"
    [err] = read({"case_id": "c", "prompt": "x"}, trace_format="bedrock")
    assert err.error.startswith('bedrock: no "messages" list')
    assert calls(read(gemini_run(), trace_format="gemini")[0]) == RETRY


# --------------------------------------------------------------------------- wrong types anywhere

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


# ------------------------------------------------------------------------------------------ CLI


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
def test_docs_example_scores_as_the_page_says(tmp_path, section):
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
