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
from tests.conftest import FRAMEWORKS, score_fixture

DATA = FRAMEWORKS
SCENARIO = {
    "retry": ("false_failure", "errored_attempt", ["errored", "exact"]),
    "lookup": ("pass", None, ["exact"]),
    "parallel": ("pass", None, ["exact", "exact"]),
    "raised": ("false_pass", "rejected_call", ["errored"]),
}
# fixture -> (the format detected, what the docs' table says evalrun reads in it)
FIXTURES = {
    "pydantic-ai-messages": "pydantic-ai",
    "pydantic-ai-messages-output-type": "pydantic-ai",
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
    "langgraph-dumpd": "langchain",
    "langgraph-openinference": "otel",
    "langgraph-openllmetry": "otel",
    "openai-client-openinference": "otel",
    "openai-client-openllmetry": "otel",
    "smolagents-full-steps": "smolagents",
    "smolagents-run-result": "smolagents",
    "smolagents-openinference": "otel",
    "autogen-task-result": "autogen",
    "autogen-save-state": "autogen",
    "adk-session-json": "adk",
    "adk-session-dump": "adk",
    "adk-events": "adk",
    "adk-spans-content": "otel",
    "adk-spans-legacy": "otel",
    "strands-messages": "bedrock",
    "strands-spans": "otel",
    "dspy-trajectory": "dspy",
    "dspy-prediction": "dspy",
    "llamaindex-tool-results": "llamaindex",
    "haystack-messages": "haystack",
    "haystack-spans-v2": "otel",
    "haystack-spans-v3": "otel",
    "semantic-kernel-chat-history": "semantic-kernel",
    "semantic-kernel-spans": "otel",
    "crewai-task-messages": "openai-chat",
    "crewai-tool-events": "crewai",
    "langfuse-spans": "otel",
    "agno-run-output": "openai-chat",
    "agno-run-messages": "openai-chat",
    "mlflow-trace-json": "mlflow",
    "mlflow-traces-get": "mlflow",
    # written from the SDK's documented parts (npm only, not installable here)
    "vercel-ai-response-messages": "vercel-ai",
    "vercel-ai-steps": "vercel-ai",
    "vercel-ai-spans": "otel",
}
# Real output with the content left out (`make fixtures`, with these settings): each run shows
# tool calls it does not hold, so each is unscoreable, its reason saying so, never scored as a
# run of no calls or of calls with `{}`.
UNRECORDED = {
    # InstrumentationSettings(include_content=False): tool_call parts without "arguments"
    "pydantic-ai-spans-v6-nocontent": "did not record their arguments (content capture is off)",
    # RunConfig(trace_include_sensitive_data=False): function spans with "input": null
    "openai-agents-tracing-nosensitive": "trace_include_sensitive_data is off",
    # OpenInference's OPENINFERENCE_HIDE_INPUTS/OUTPUTS: "__REDACTED__"
    "openai-client-openinference-hidden": "llm.finish_reason 'tool_calls' but records no tool",
    "langgraph-openinference-hidden": "hid their arguments (input.value __REDACTED__",
    # OpenLLMetry with TRACELOOP_TRACE_CONTENT=false
    "langgraph-openllmetry-nocontent": "did not record their arguments (content capture is off)",
    # autogen-core's own spans: execute_tool without arguments, whatever is turned on
    "autogen-otel": "this instrumentation never records them",
    # Google ADK's spans by default (content goes on spans only when asked for)
    "adk-spans-nocontent": "did not record their arguments (content capture is off)",
}


def verdicts(doc: dict) -> dict:
    return {
        r["case_id"]: (r["verdict"], r["shape"], [c["label"] for c in r["calls"]])
        for r in doc["runs"]
    }


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_each_framework_output_scores_as_the_scenario_implies(name):
    path = DATA / f"{name}.jsonl"
    doc = score_fixture(path)
    assert doc["errors"] == []
    assert verdicts(doc) == SCENARIO
    # forced to the format it is in, the same runs
    assert score_fixture(path, "--trace-format", FIXTURES[name])["runs"] == doc["runs"]


def test_grouped_outputs_in_any_order_and_under_jobs(tmp_path):
    for name in ("openai-agents-tracing", "langgraph-openllmetry", "pydantic-ai-spans-v2-flat"):
        lines = (DATA / f"{name}.jsonl").read_text().splitlines(keepends=True)
        random.Random(3).shuffle(lines)
        shuffled = tmp_path / f"{name}.jsonl"
        shuffled.write_text("".join(lines))
        doc = score_fixture(shuffled)
        assert doc["errors"] == [] and verdicts(doc) == SCENARIO
        assert score_fixture(shuffled, "--jobs", "2") == doc


def test_genai_chat_spans_carry_no_error_flag_and_error_pattern_says_which():
    """pydantic-ai's chat spans alone: the replies are the tools' error text, with no flag. Read
    as data, the rejected attempts look like calls that succeeded; --error-pattern names them."""
    path = DATA / "genai-chat-spans.jsonl"
    doc = score_fixture(path)
    assert doc["errors"] == []
    assert {c: v[0] for c, v in verdicts(doc).items()} == {
        "retry": "fail",
        "lookup": "pass",
        "parallel": "pass",
        "raised": "pass",
    }
    doc = score_fixture(
        path, "--error-pattern", "not found", "--error-pattern", "^customer service"
    )
    assert verdicts(doc) == SCENARIO


def test_a_bare_list_of_messages_says_how_to_give_it_a_case(tmp_path):
    path = DATA / "pydantic-ai-messages-bare.jsonl"
    doc = score_fixture(path, exit_code=2)  # no run scored: exit 2, the document still written
    assert doc["runs"] == [] and len(doc["errors"]) == 4
    assert '{"case_id": ..., "messages": [...]}' in doc["errors"][0]["error"]
    assert "--case-id" in doc["errors"][0]["error"]
    one = tmp_path / "retry.jsonl"
    one.write_text(path.read_text().splitlines(keepends=True)[0])
    assert verdicts(score_fixture(one, "--case-id", "retry")) == {"retry": SCENARIO["retry"]}
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


@pytest.mark.parametrize("name", sorted(UNRECORDED))
def test_calls_whose_content_is_not_recorded_are_unscoreable(name):
    doc = score_fixture(DATA / f"{name}.jsonl", exit_code=2)
    assert doc["runs"] == [] and len(doc["errors"]) == len(SCENARIO)
    for error in doc["errors"]:
        assert UNRECORDED[name] in error["error"], error
        assert "not compared as {}" in error["error"]
        assert f"{name}.jsonl:" in error["source"]


# Real output whose calls are in a convention evalrun does not parse (issue 27, never a silent
# zero): each run is unscoreable, its reason naming what was seen and what to export instead.
NOT_PARSED = {
    # smolagents' agent.write_memory_to_messages(): calls as "Calling tools:" text
    "smolagents-memory-messages": "export agent.memory.get_full_steps()",
    # CrewAI's task messages with an LLM without function calling: ReAct text
    "crewai-task-messages-react": "ReAct text (Action: / Action Input:)",
}


@pytest.mark.parametrize("name", sorted(NOT_PARSED))
def test_calls_in_a_convention_not_parsed_are_unscoreable_never_zero(name):
    doc = score_fixture(DATA / f"{name}.jsonl", exit_code=2)
    assert doc["runs"] == [] and len(doc["errors"]) == len(SCENARIO)
    for error in doc["errors"]:
        assert NOT_PARSED[name] in error["error"], error
        assert "no tool call read" in error["error"]


def test_llamaindex_chat_history_keeps_no_error_flag_and_error_pattern_says_which():
    """A FunctionAgent's memory holds a failed tool's exception as plain text: with the one flag
    the docs name, the scenario scores right; without it, the rejected attempts are calls."""
    path = DATA / "llamaindex-chat-history.jsonl"
    doc = score_fixture(path, "--error-pattern", "not found|unavailable")
    assert doc["errors"] == [] and verdicts(doc) == SCENARIO
    assert (
        score_fixture(
            path, "--trace-format", "llamaindex", "--error-pattern", "not found|unavailable"
        )["runs"]
        == doc["runs"]
    )
    plain = verdicts(score_fixture(path))
    assert plain["lookup"] == SCENARIO["lookup"] and plain["retry"] != SCENARIO["retry"]


def test_adk_events_one_a_line_say_how_to_write_a_session():
    doc = score_fixture(DATA / "adk-event-lines.jsonl", exit_code=2)
    assert doc["runs"] == [] and doc["errors"]
    for error in doc["errors"]:
        assert "one ADK event on its own line" in error["error"], error


def test_error_pattern_searches_object_replies_as_json_text(tmp_path):
    """`--error-pattern` applies to a reply that is an object too (its JSON text)."""
    record = {
        "case_id": "lookup",
        "calls": [
            {"tool": "get_invoice", "args": {"invoice_id": "I-9"}, "result": {"code": 404}},
            {"tool": "get_invoice", "args": {"invoice_id": "I-1"}, "result": {"code": 200}},
        ],
    }
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(record) + "\n")
    [run] = score_fixture(path, "--error-pattern", '"code":404')["runs"]
    assert [c["label"] for c in run["calls"]] == ["errored", "exact"]


def spans_of(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / f"{name}.jsonl").read_text().splitlines()]


def write_spans(path: Path, spans: list[dict]) -> Path:
    path.write_text("".join(json.dumps(s) + "\n" for s in spans))
    return path


def test_genai_finish_reasons_asking_for_tools_without_the_calls_are_unscoreable(tmp_path):
    """OpenLLMetry's OpenAI spans with their messages left out (as content capture off leaves
    them): only `gen_ai.response.finish_reasons: ["tool_call"]` says the model asked for tools."""
    spans = spans_of("openai-client-openllmetry")
    for s in spans:
        for key in ("gen_ai.input.messages", "gen_ai.output.messages"):
            s["attributes"].pop(key, None)
    doc = score_fixture(write_spans(tmp_path / "t.jsonl", spans), exit_code=2)
    assert len(doc["errors"]) == len(SCENARIO)
    assert all(
        "finish_reasons ['tool_call'] but records no tool call" in e["error"] for e in doc["errors"]
    )


def _legacy(attrs: dict) -> dict:
    """OpenLLMetry's GenAI messages as its older releases wrote them: flat gen_ai.prompt.N.* and
    gen_ai.completion.N.* attributes."""
    out = {k: v for k, v in attrs.items() if not k.startswith("gen_ai.input.messages")}
    out.pop("gen_ai.output.messages", None)
    for prefix, key in (
        ("gen_ai.prompt", "gen_ai.input.messages"),
        ("gen_ai.completion", "gen_ai.output.messages"),
    ):
        for n, message in enumerate(json.loads(attrs.get(key, "[]"))):
            out[f"{prefix}.{n}.role"] = message["role"]
            calls = [p for p in message["parts"] if p["type"] == "tool_call"]
            for m, part in enumerate(calls):
                out[f"{prefix}.{n}.tool_calls.{m}.id"] = part["id"]
                out[f"{prefix}.{n}.tool_calls.{m}.name"] = part["name"]
                out[f"{prefix}.{n}.tool_calls.{m}.arguments"] = json.dumps(part["arguments"])
            for part in message["parts"]:
                if part["type"] == "tool_call_response":
                    out[f"{prefix}.{n}.tool_call_id"] = part["id"]
                    out[f"{prefix}.{n}.content"] = part["response"]
    return out


def test_openllmetry_legacy_flat_attributes_are_read(tmp_path):
    spans = spans_of("openai-client-openllmetry")
    legacy = [{**s, "attributes": _legacy(s["attributes"])} for s in spans]
    assert not any("gen_ai.output.messages" in s["attributes"] for s in legacy)
    assert any("gen_ai.completion.0.tool_calls.0.name" in s["attributes"] for s in legacy)
    assert any(s["attributes"].get("gen_ai.prompt.2.role") == "tool" for s in legacy)
    doc = score_fixture(write_spans(tmp_path / "t.jsonl", legacy))
    assert doc["errors"] == [] and verdicts(doc) == SCENARIO


def test_pydantic_ai_spans_older_than_gen_ai_operation_name_are_read(tmp_path):
    """pydantic-ai's version-2 spans without the attributes later releases added: its older
    releases' `running tool` spans (gen_ai.tool.name, tool_arguments, tool_response)."""
    newer = ("gen_ai.operation.name", "gen_ai.agent.", "gen_ai.conversation.", "pydantic_ai.")
    spans = spans_of("pydantic-ai-spans-v2-flat")
    for s in spans:
        s["attributes"] = {k: v for k, v in s["attributes"].items() if not k.startswith(newer)}
    doc = score_fixture(write_spans(tmp_path / "old.jsonl", spans))
    assert doc["errors"] == [] and verdicts(doc) == SCENARIO
    for s in spans:  # without content (old releases wrote no messages then): not recorded
        for key in ("tool_arguments", "tool_response", "gen_ai.input.messages"):
            s["attributes"].pop(key, None)
        s["attributes"].pop("gen_ai.output.messages", None)
    doc = score_fixture(write_spans(tmp_path / "old-nocontent.jsonl", spans), exit_code=2)
    assert len(doc["errors"]) == len(SCENARIO)
    assert all("did not record their arguments" in e["error"] for e in doc["errors"])


def test_an_openinference_tool_input_that_is_invalid_json_is_a_malformed_call(tmp_path):
    spans = spans_of("openai-agents-openinference")
    for s in spans:
        if s["attributes"].get("input.value") == '{"invoice_id": "I-1"}' and (
            s["attributes"].get("openinference.span.kind") == "TOOL"
        ):
            s["attributes"]["input.value"] = '{"invoice_id": "I-1"'
    doc = score_fixture(write_spans(tmp_path / "t.jsonl", spans))
    assert doc["errors"] == []
    assert verdicts(doc)["lookup"][2] == ["malformed"]


def test_openai_agents_generation_spans_are_the_calls_without_function_spans(tmp_path):
    """The SDK with a Chat Completions model records `generation` spans (GenerationSpanData:
    input and output messages); made from the scenario's function spans, which are then left
    out. Their replies come from a later generation's input, paired by id."""
    records = spans_of("openai-agents-tracing")
    out, by_trace = [], {}
    for r in records:
        data = r.get("span_data") or {}
        if data.get("type") != "function":
            out.append(r)
            continue
        n = by_trace.setdefault(r["trace_id"], [0])
        n[0] += 1
        call_id = f"call_{n[0]}"
        message = {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": data["name"], "arguments": data["input"]},
                }
            ],
        }
        reply = {"role": "tool", "tool_call_id": call_id, "content": data["output"]}
        generation = {"type": "generation", "input": [], "output": [message], "model": "m"}
        later = {"type": "generation", "input": [message, reply], "output": [], "model": "m"}
        out.append({**r, "span_data": generation, "error": None})
        out.append({**r, "id": r["id"] + "-next", "span_data": later, "error": None})
    doc = score_fixture(write_spans(tmp_path / "t.jsonl", out))
    assert doc["errors"] == []
    # the SDK's error text in the replies marks the failed attempts, as in the function spans
    assert verdicts(doc) == SCENARIO
