"""The Vercel AI SDK's telemetry spans (`formats/spans/vercel_ai.py`): `ai.toolCall` spans, the
step spans' `ai.response.toolCalls`, recordInputs / recordOutputs off. The fixture is written
from the SDK's documented attributes (npm only): `scripts/framework_traces.py vercel-ai-spans`."""

from __future__ import annotations

import json
from typing import Any

from evalrunner.model import MISSING
from tests.conftest import FRAMEWORKS, score_fixture
from tests.formats.common import SCENARIO, read_file, verdicts, write

FIXTURE = FRAMEWORKS / "vercel-ai-spans.jsonl"


def batches() -> list[dict[str, Any]]:
    return [json.loads(line) for line in FIXTURE.read_text().splitlines()]


def spans_of(batch: dict[str, Any]) -> list[dict[str, Any]]:
    return batch["resourceSpans"][0]["scopeSpans"][0]["spans"]


def keep(batch: dict[str, Any], wanted) -> dict[str, Any]:
    scope = batch["resourceSpans"][0]["scopeSpans"][0]
    scope["spans"] = [s for s in scope["spans"] if wanted(s)]
    return batch


def drop_attrs(batch: dict[str, Any], *keys: str) -> dict[str, Any]:
    for span in spans_of(batch):
        span["attributes"] = [kv for kv in span["attributes"] if kv["key"] not in keys]
    return batch


def attr(span: dict[str, Any], key: str) -> Any:
    return next((kv["value"]["stringValue"] for kv in span["attributes"] if kv["key"] == key), None)


def test_the_calls_are_the_tool_call_spans_and_a_tool_that_threw_is_errored(tmp_path):
    every = [s for b in batches() for s in spans_of(b)]
    tools = [s for s in every if s["name"] == "ai.toolCall"]
    assert len(tools) == 6  # the scenario's calls, each run by the SDK
    assert sum(s["status"].get("code") == 2 for s in tools) == 2
    assert {attr(s, "ai.telemetry.metadata.case_id") for s in every} == {*SCENARIO, None}
    doc = score_fixture(FIXTURE)
    assert doc["errors"] == [] and verdicts(doc) == SCENARIO
    # ai.toolCall.args and ai.toolCall.result are JSON text, read decoded
    runs = {r.case_id: r for r in read_file(FIXTURE)}
    assert [(c.args, c.errored, c.result) for c in runs["retry"].calls] == [
        ({"customer_id": "C-9"}, True, MISSING),
        ({"customer_id": "C-1"}, False, {"id": "C-1", "name": "Dana Whitfield"}),
    ]
    # the tool spans alone (no step span, the root keeping the case id) read the same
    alone = [keep(b, lambda s: s["name"] != "ai.generateText.doGenerate") for b in batches()]
    assert verdicts(score_fixture(write(tmp_path / "alone.jsonl", alone))) == SCENARIO


def test_record_inputs_off_reads_the_steps_calls_with_the_tool_spans_errors(tmp_path):
    hidden = [drop_attrs(b, "ai.toolCall.args") for b in batches()]
    assert verdicts(score_fixture(write(tmp_path / "inputs.jsonl", hidden))) == SCENARIO
    # without the step spans, nothing holds the arguments: unscoreable, saying which setting
    alone = [keep(b, lambda s: s["name"] != "ai.generateText.doGenerate") for b in hidden]
    doc = score_fixture(write(tmp_path / "alone.jsonl", alone), exit_code=2)
    assert doc["runs"] == [] and len(doc["errors"]) == 4
    assert all("recordInputs: false" in e["error"] for e in doc["errors"])


def test_record_inputs_and_outputs_off_is_unscoreable_never_zero(tmp_path):
    hidden = [
        drop_attrs(b, "ai.toolCall.args", "ai.toolCall.result", "ai.response.toolCalls")
        for b in batches()
    ]
    doc = score_fixture(write(tmp_path / "hidden.jsonl", hidden), exit_code=2)
    assert doc["runs"] == [] and len(doc["errors"]) == 4
    assert all("recordOutputs: false" in e["error"] for e in doc["errors"])
    # the step spans alone, their calls unrecorded: not a run of no calls
    steps = [keep(b, lambda s: s["name"] != "ai.toolCall") for b in hidden]
    doc = score_fixture(write(tmp_path / "steps.jsonl", steps), exit_code=2)
    assert doc["runs"] == [] and len(doc["errors"]) == 4


def test_step_spans_alone_are_the_calls_but_keep_no_error(tmp_path):
    steps = [keep(b, lambda s: s["name"] != "ai.toolCall") for b in batches()]
    doc = score_fixture(write(tmp_path / "steps.jsonl", steps))
    assert doc["errors"] == []
    assert {c: v[0] for c, v in verdicts(doc).items()} == {
        "retry": "fail",  # the rejected call's error is on its tool span only
        "lookup": "pass",
        "parallel": "pass",
        "raised": "pass",
    }


def test_a_tool_call_span_without_a_name_or_with_broken_arguments(tmp_path):
    lines = [
        b for b in batches() if attr(spans_of(b)[-1], "ai.telemetry.metadata.case_id") == "lookup"
    ]
    [tool] = [s for s in spans_of(lines[0]) if s["name"] == "ai.toolCall"]
    for kv in tool["attributes"]:
        if kv["key"] == "ai.toolCall.args":
            kv["value"]["stringValue"] = '{"invoice_id": "I-1"'  # cut short
    doc = score_fixture(write(tmp_path / "broken.jsonl", lines))
    [run] = doc["runs"]
    assert [c["label"] for c in run["calls"]] == ["malformed"]
    bare = [keep(drop_attrs(lines[0], "ai.toolCall.name"), lambda s: s["name"] == "ai.toolCall")]
    spans_of(bare[0])[0]["attributes"].append(
        {"key": "ai.telemetry.metadata.case_id", "value": {"stringValue": "lookup"}}
    )
    doc = score_fixture(write(tmp_path / "bare.jsonl", bare), exit_code=2)
    assert doc["runs"] == []
    assert "an ai.toolCall span has no ai.toolCall.name" in doc["errors"][0]["error"]
