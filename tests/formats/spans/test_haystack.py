"""Haystack's tracing spans (`formats/spans/haystack.py`): Haystack 3's tool spans, Haystack 2's
ToolInvoker component spans, content tracing off. Both fixtures were written by Haystack itself
(`scripts/framework_traces.py haystack-spans`, with Haystack 2.31 and with 3.4 and
opentelemetry-haystack)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import FRAMEWORKS, score_fixture
from tests.formats.common import SCENARIO, verdicts, write

CONTENT_TAGS = (
    "haystack.component.input",
    "haystack.component.output",
    "haystack.agent.input",
    "haystack.agent.output",
    "haystack.agent.step.llm.input",
    "haystack.agent.step.llm.output",
    "haystack.agent.step.tool.input",
    "haystack.agent.step.tool.output",
)
"""What Haystack writes only with HAYSTACK_CONTENT_TRACING_ENABLED=true (`set_content_tag`)."""


def spans(version: int) -> list[dict[str, Any]]:
    path = FRAMEWORKS / f"haystack-spans-v{version}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("version", [2, 3])
def test_haystack_spans_without_content_tracing_are_unscoreable_never_zero(tmp_path, version):
    found = spans(version)
    for span in found:
        for key in CONTENT_TAGS:
            span["attributes"].pop(key, None)
    doc = score_fixture(write(tmp_path / "nocontent.jsonl", found), exit_code=2)
    assert doc["runs"] == [] and len(doc["errors"]) == 4
    assert all("HAYSTACK_CONTENT_TRACING_ENABLED" in e["error"] for e in doc["errors"])


def test_haystack_3_tool_error_tag_marks_the_errored_attempt(tmp_path):
    found = spans(3)
    tools = [s for s in found if s["name"] == "haystack.agent.step.tool"]
    assert (
        len(tools) == 6
        and sum(s["attributes"].get("haystack.tool.error") is True for s in tools) == 2
    )
    failed = [s for s in tools if s["attributes"].get("haystack.tool.error") is True]
    for span in failed:  # the tag alone: the reply made plain text
        span["attributes"]["haystack.agent.step.tool.output"] = "failed"
    assert verdicts(score_fixture(write(tmp_path / "tag.jsonl", found))) == SCENARIO
    for span in failed:  # neither
        span["attributes"].pop("haystack.tool.error")
    doc = score_fixture(write(tmp_path / "noerror.jsonl", found))
    assert verdicts(doc)["retry"][0] == "fail"


def test_haystack_2_tool_call_result_error_marks_the_errored_attempt(tmp_path):
    found = spans(2)
    invokers = [s for s in found if s["attributes"].get("haystack.component.type") == "ToolInvoker"]
    assert len(invokers) == 5  # one a step that called tools: 2 + 1 + 1 + 1
    for span in invokers:
        output = span["attributes"]["haystack.component.output"]
        span["attributes"]["haystack.component.output"] = output.replace(
            '"error": true', '"error": false'
        )
    doc = score_fixture(write(tmp_path / "noerror.jsonl", found))
    assert verdicts(doc)["retry"][0] == "fail"
    # a ToolInvoker whose tool raised (raise_on_tool_invocation_failure on) records no output
    found = spans(2)
    for span in found:
        attrs = span["attributes"]
        if (
            attrs.get("haystack.component.type") == "ToolInvoker"
            and '"error": true' in attrs["haystack.component.output"]
        ):
            del attrs["haystack.component.output"]
            span["status"] = {"status_code": "ERROR", "description": "ToolInvocationError"}
    doc = score_fixture(write(tmp_path / "raised.jsonl", found))
    assert len(doc["errors"]) == 2  # retry, raised
    assert all("raise_on_tool_invocation_failure" in e["error"] for e in doc["errors"])
    # its own advice, not content capture's (content tracing was on)
    assert all("content capture" not in e["error"] for e in doc["errors"])
    assert verdicts(doc) == {c: SCENARIO[c] for c in ("lookup", "parallel")}


@pytest.mark.parametrize("version", [2, 3])
def test_a_haystack_agent_run_that_made_no_call_is_a_run_of_none(tmp_path, version):
    """Its agent span (haystack.agent.max_steps) makes it an agent run, not spans of an unknown
    convention."""
    found = [s for s in spans(version) if s["name"] in ("haystack.agent.run", "eval case")]
    doc = score_fixture(write(tmp_path / "agents.jsonl", found))
    assert doc["errors"] == [] and [r["calls"] for r in doc["runs"]] == [[]] * 4
