"""The OpenAI Agents SDK's tracing export (`formats/openai_agents.py`)."""

from __future__ import annotations

from evalrunner import Run
from tests.formats.common import REVIEW, read_file


def test_agents_generation_spans_of_odd_types_and_handoffs():
    """A generation span whose input and output are numbers reads as no call (never a crash);
    with calls read from generation spans, a handoff the model asked for is the SDK's, not a
    call of the tool surface."""
    [run] = read_file(REVIEW / "agents-generation-number.jsonl")
    assert isinstance(run, Run) and [c.tool for c in run.calls] == ["get_customer"]
    [run] = read_file(REVIEW / "agents-generation-handoff.jsonl")
    assert isinstance(run, Run) and [c.tool for c in run.calls] == ["get_customer"]
