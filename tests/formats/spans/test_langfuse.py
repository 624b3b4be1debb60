"""Langfuse's OpenTelemetry spans (`formats/spans/langfuse.py`): tool observations, @observe's
bound arguments, levels, generations' tool calls, trace metadata."""

from __future__ import annotations

import json

from tests.conftest import FRAMEWORKS, score_fixture
from tests.formats.common import SCENARIO, _observed, langfuse_spans, verdicts, write


def test_langfuse_trace_metadata_is_json_text_read_decoded():
    spans = langfuse_spans()
    assert {s["attributes"]["langfuse.trace.metadata.case_id"] for s in spans} == {
        f'"{case}"' for case in SCENARIO
    }
    doc = score_fixture(
        FRAMEWORKS / "langfuse-spans.jsonl", "--group-by", "langfuse.trace.metadata.case_id"
    )
    assert set(doc["summary"]["groups"]) == set(SCENARIO)


def test_langfuse_tool_observations_with_positional_arguments_fall_back_on_the_generations(
    tmp_path,
):
    """`@observe` records a call `tool("C-1")` as {"args": ["C-1"], "kwargs": {}}: no names. The
    generations' tool calls have them, and the tool observations still say which failed."""
    spans = langfuse_spans()
    for span in spans:
        attrs = span["attributes"]
        if _observed(span) == "tool":
            kwargs = json.loads(attrs["langfuse.observation.input"])["kwargs"]
            attrs["langfuse.observation.input"] = json.dumps(
                {"args": [*kwargs.values()]} | {"kwargs": {}}
            )
    assert verdicts(score_fixture(write(tmp_path / "positional.jsonl", spans))) == SCENARIO
    alone = [s for s in spans if _observed(s) != "generation"]
    doc = score_fixture(write(tmp_path / "alone.jsonl", alone), exit_code=2)
    assert doc["runs"] == [] and len(doc["errors"]) == 4
    assert all("not the arguments object" in e["error"] for e in doc["errors"])
    # the content was captured: the advice is the model spans, not a setting that changes nothing
    assert all("content capture" not in e["error"] for e in doc["errors"])
    assert all("export them too" in e["error"] for e in doc["errors"])


def test_langfuse_generations_alone_are_the_calls_but_keep_no_error_flag(tmp_path):
    spans = [s for s in langfuse_spans() if _observed(s) != "tool"]
    path = write(tmp_path / "generations.jsonl", spans)
    doc = score_fixture(path)
    assert doc["errors"] == []
    assert {c: v[0] for c, v in verdicts(doc).items()} == {
        "retry": "fail",
        "lookup": "pass",
        "parallel": "pass",
        "raised": "pass",  # the agent gave up: no reply to the call was ever sent to the model
    }
    # the replies the model was sent are the agent's own error text: --error-pattern names it
    doc = score_fixture(path, "--error-pattern", "^Error: ")
    assert verdicts(doc)["retry"] == SCENARIO["retry"]


def test_langfuse_level_error_alone_marks_an_errored_attempt(tmp_path):
    spans = langfuse_spans()
    for span in spans:
        span["status"] = {"status_code": "UNSET"}
    assert verdicts(score_fixture(write(tmp_path / "level.jsonl", spans))) == SCENARIO
    for span in spans:
        span["attributes"].pop("langfuse.observation.level", None)
    assert verdicts(score_fixture(write(tmp_path / "none.jsonl", spans)))["retry"][0] == "fail"


def test_a_langfuse_trace_that_made_no_call_is_a_run_of_none(tmp_path):
    """Its spans are a convention evalrun reads (langfuse.observation.type): not the guard's
    'no span is in a convention evalrun reads'."""
    spans = [s for s in langfuse_spans() if _observed(s) == "agent"]
    doc = score_fixture(write(tmp_path / "agents.jsonl", spans))
    assert doc["errors"] == [] and [r["calls"] for r in doc["runs"]] == [[]] * 4
