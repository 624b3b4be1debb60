"""What real agent frameworks write, scored with no glue (issue 20).

The fixtures in tests/data/frameworks/ were written by the frameworks themselves, driven offline
through one scenario by scripts/framework_traces.py (`make fixtures`); these tests need none of
them. Every form must give the verdicts the scenario implies:

- `retry`: a call the tool rejected, then the right one: exact-match fails it, evalrun drops the
  errored attempt (false_failure, errored_attempt);
- `lookup`: one right call (pass); `parallel`: two calls in one turn, in another order than the
  case's (unordered: pass);
- `raised`: the right call, but its tool raised and it was never retried: exact-match passes it,
  the step never happened (false_pass, rejected_call).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalrunner import Run, TraceError
from evalrunner.cli import app
from evalrunner.traces import read_lines
from evalrunner.traces.errors import FRAMEWORK_ERRORS, ErrorPatterns
from evalrunner.traces.formats.spans.genai import _unwrap

DATA = Path(__file__).parent / "data" / "frameworks"
SCENARIO = {
    "retry": ("false_failure", "errored_attempt", ["errored", "exact"]),
    "lookup": ("pass", None, ["exact"]),
    "parallel": ("pass", None, ["exact", "exact"]),
    "raised": ("false_pass", "rejected_call", ["errored"]),
}
# fixture -> (the format detected, what the docs' table says evalrun reads in it)
FIXTURES = {
    "pydantic-ai-messages": "pydantic-ai",
    "pydantic-ai-spans-v5-flat": "otel",
    "pydantic-ai-spans-v5-console": "otel",
    "pydantic-ai-spans-v5-metadata": "otel",
    "pydantic-ai-spans-v2-flat": "otel",
    "openai-agents-input-list": "openai-responses",
    "openai-agents-tracing": "openai-agents",
    "openai-agents-openinference": "otel",
    "langgraph-openai-messages": "openai-chat",
    "langgraph-model-dump": "langchain",
    "langgraph-messages-to-dict": "langchain",
    "langgraph-openinference": "otel",
    "langgraph-openllmetry": "otel",
    "openai-client-openinference": "otel",
}


def score(path: Path | str, *args: str, exit_code: int = 0) -> dict:
    result = CliRunner().invoke(
        app,
        [
            "score",
            str(path),
            "--tools",
            str(DATA / "tools.json"),
            "--cases",
            str(DATA / "cases.json"),
            "--format",
            "json",
            *args,
        ],
    )
    assert result.exit_code == exit_code, result.output
    return json.loads(result.stdout)


def verdicts(doc: dict) -> dict:
    return {
        r["case_id"]: (r["verdict"], r["shape"], [c["label"] for c in r["calls"]])
        for r in doc["runs"]
    }


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_each_framework_output_scores_as_the_scenario_implies(name):
    path = DATA / f"{name}.jsonl"
    doc = score(path)
    assert doc["errors"] == []
    assert verdicts(doc) == SCENARIO
    # forced to the format it is in, the same runs
    assert score(path, "--trace-format", FIXTURES[name])["runs"] == doc["runs"]


def test_grouped_outputs_in_any_order_and_under_jobs(tmp_path):
    for name in ("openai-agents-tracing", "langgraph-openllmetry", "pydantic-ai-spans-v2-flat"):
        lines = (DATA / f"{name}.jsonl").read_text().splitlines(keepends=True)
        random.Random(3).shuffle(lines)
        shuffled = tmp_path / f"{name}.jsonl"
        shuffled.write_text("".join(lines))
        doc = score(shuffled)
        assert doc["errors"] == [] and verdicts(doc) == SCENARIO
        assert score(shuffled, "--jobs", "2") == doc


def test_genai_chat_spans_carry_no_error_flag_and_error_pattern_says_which():
    """pydantic-ai's chat spans alone: the replies are the tools' error text, with no flag. Read
    as data, the rejected attempts look like calls that succeeded; --error-pattern names them."""
    path = DATA / "genai-chat-spans.jsonl"
    doc = score(path)
    assert doc["errors"] == []
    assert {c: v[0] for c, v in verdicts(doc).items()} == {
        "retry": "fail",
        "lookup": "pass",
        "parallel": "pass",
        "raised": "pass",
    }
    doc = score(path, "--error-pattern", "not found", "--error-pattern", "^customer service")
    assert verdicts(doc) == SCENARIO


def test_a_bare_list_of_messages_says_how_to_give_it_a_case(tmp_path):
    path = DATA / "pydantic-ai-messages-bare.jsonl"
    doc = score(path, exit_code=2)  # no run scored: exit 2, the document still written
    assert doc["runs"] == [] and len(doc["errors"]) == 4
    assert '{"case_id": ..., "messages": [...]}' in doc["errors"][0]["error"]
    assert "--case-id" in doc["errors"][0]["error"]
    one = tmp_path / "retry.jsonl"
    one.write_text(path.read_text().splitlines(keepends=True)[0])
    assert verdicts(score(one, "--case-id", "retry")) == {"retry": SCENARIO["retry"]}
    result = CliRunner().invoke(
        app, ["score", str(one), "--case-id", "retry", "--case-key", "x", "--tools", "t"]
    )
    assert result.exit_code == 2


def test_case_key_follows_a_path_into_json_text():
    record = {
        "metadata": json.dumps({"task": {"id": "lookup"}}),
        "calls": [{"tool": "get_invoice", "args": {"invoice_id": "I-1"}}],
    }
    [run] = read_lines([("t.jsonl:1", json.dumps(record).encode())], case_key="metadata.task.id")
    assert isinstance(run, Run) and run.case_id == "lookup"


def test_the_framework_error_texts_match_their_own_examples():
    patterns = ErrorPatterns()
    for error in FRAMEWORK_ERRORS:
        example = error.example.encode().decode("unicode_escape")
        calls = [{"tool": "t", "result": example}, {"tool": "t", "result": "ok: " + example}]
        patterns.mark(calls, builtin=True)
        assert calls[0].get("is_error") is True, error
        # anchored: the same words inside a tool's own data are not an error
        assert "is_error" not in calls[1] or error.framework == "pydantic-ai", error


def test_user_error_patterns_reach_native_records_and_bad_ones_are_input_errors():
    record = {"case_id": "c", "calls": [{"tool": "t", "args": {}, "result": "ERR: nope"}]}
    line = [("t.jsonl:1", json.dumps(record).encode())]
    [plain] = read_lines(line)
    [flagged] = read_lines(line, error_patterns=["^ERR:"])
    assert (plain.calls[0].errored, flagged.calls[0].errored) == (False, True)
    result = CliRunner().invoke(app, ["score", "x", "--error-pattern", "(unclosed"])
    assert result.exit_code == 2 and "not a regular expression" in result.output


def span(name: str, attrs: dict, *, parent: str | None = "0x01", trace: str = "ab" * 16) -> bytes:
    record = {
        "name": name,
        "context": {"trace_id": f"0x{trace}", "span_id": f"0x{len(attrs):016x}"},
        "parent_id": parent,
        "start_time": "2026-01-01T00:00:00Z",
        "status": {"status_code": "UNSET"},
        "attributes": attrs,
    }
    return json.dumps(record).encode()


def test_never_a_silent_zero():
    root = span(
        "run", {"evalrun.case_id": "lookup", "gen_ai.operation.name": "invoke_agent"}, parent=None
    )
    # a tool span whose arguments were not recorded (content capture off)
    no_args = span(
        "execute_tool get_invoice",
        {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_invoice"},
    )
    [err] = read_lines([("t.jsonl:1", no_args), ("t.jsonl:2", root)])
    assert isinstance(err, TraceError) and "did not record their arguments" in err.error
    assert "not compared as {}" in err.error
    # a TOOL span without its tool's name
    nameless = span("tool", {"openinference.span.kind": "TOOL", "input.value": "{}"})
    [err] = read_lines([("t.jsonl:1", nameless), ("t.jsonl:2", root)])
    assert isinstance(err, TraceError) and 'TOOL span "tool" has no tool.name' in err.error
    # a Chat record whose tool_calls are in no shape read
    chat = {
        "case_id": "lookup",
        "messages": [{"role": "assistant", "tool_calls": [{"type": "mcp", "id": "c1"}]}],
    }
    [err] = read_lines([("t.jsonl:1", json.dumps(chat).encode())])
    assert (
        isinstance(err, TraceError)
        and "a tool_calls list of 1 at messages[0].tool_calls" in err.error
    )
    # a forced format that finds nothing of its shape
    langchain = json.loads((DATA / "langgraph-model-dump.jsonl").read_text().splitlines()[1])
    [err] = read_lines([("t.jsonl:1", json.dumps(langchain).encode())], "openai-responses")
    assert (
        err.error == "openai-responses: no openai-responses tool calls, but 1 in langchain shapes"
    )
    langchain["messages"] = langchain["messages"][:1]  # the user's turn alone: no call anywhere
    [err] = read_lines([("t.jsonl:1", json.dumps(langchain).encode())], "openai-responses")
    assert isinstance(err, TraceError), err
    assert err.error == (
        'openai-responses: nothing in the record has its shape ("input"/"output" items, or '
        '"object": "response"); it looks like langchain'
    )


def test_openllmetry_arguments_are_unwrapped():
    wrapped = {"input_str": "{'customer_id': 'C-1'}", "tags": [], "metadata": {}, "kwargs": {}}
    assert _unwrap(json.dumps(wrapped)) == {"customer_id": "C-1"}
    assert _unwrap(json.dumps({**wrapped, "inputs": {"customer_id": "C-2"}})) == {
        "customer_id": "C-2"
    }
    assert _unwrap('{"input_str": "x"}') == '{"input_str": "x"}'  # a tool's own argument
