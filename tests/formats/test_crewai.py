"""CrewAI (`formats/crewai.py`): its tool events, paired and in emission order, its default error
text in task messages, and the records that must be unscoreable."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evalrunner import Run
from tests.conftest import FRAMEWORKS, score_fixture
from tests.formats.common import SCENARIO, read_one, verdicts, write


def crewai_runs(name: str = "crewai-tool-events") -> list[dict[str, Any]]:
    return [json.loads(line) for line in (FRAMEWORKS / f"{name}.jsonl").read_text().splitlines()]


def test_crewai_tool_events_in_react_mode_are_each_attempt_its_tool_usage_made():
    """Without function calling, CrewAI's ToolUsage tries a failing tool three times: each try
    is an attempt its events show (the started event keeps the arguments as JSON text)."""
    doc = score_fixture(FRAMEWORKS / "crewai-tool-events-react.jsonl")
    assert doc["errors"] == []
    assert verdicts(doc) == {
        "retry": ("false_failure", "errored_attempt", ["errored"] * 3 + ["exact"]),
        "lookup": SCENARIO["lookup"],
        "parallel": SCENARIO["parallel"],
        "raised": ("false_pass", "rejected_call", ["errored"] * 3),
    }


def test_crewai_events_one_a_line_say_how_to_write_a_run(tmp_path):
    doc = score_fixture(write(tmp_path / "events.jsonl", crewai_runs()[0]["events"]), exit_code=2)
    assert doc["runs"] == [] and len(doc["errors"]) == 4
    assert all("one CrewAI event on its own line" in e["error"] for e in doc["errors"])


def test_crewai_finishes_without_starts_are_calls_of_their_own(tmp_path):
    runs = crewai_runs()
    for run in runs:
        run["events"] = [e for e in run["events"] if e["type"] != "tool_usage_started"]
    assert verdicts(score_fixture(write(tmp_path / "ends.jsonl", runs))) == SCENARIO


def test_crewai_ends_pair_by_tool_and_arguments_without_started_event_ids(tmp_path):
    runs = crewai_runs()
    for run in runs:
        for event in run["events"]:
            event["started_event_id"] = None
    assert verdicts(score_fixture(write(tmp_path / "old.jsonl", runs))) == SCENARIO


@pytest.mark.parametrize("args", [None, ["C-1"], 7])
def test_crewai_arguments_that_are_no_object_are_a_malformed_call_never_empty(args):
    """`tool_args` that is neither an object nor its JSON text was read as {}: a silent zero of
    the arguments. The call is malformed, saying what it holds."""
    lookup = crewai_runs()[1]
    events = [{**e, "tool_args": args} for e in lookup["events"]]
    item = read_one({**lookup, "events": events})
    assert isinstance(item, Run) and item.calls
    assert all(c.malformed is not None and "not an object" in c.malformed for c in item.calls)


def test_crewai_a_reported_failure_and_arguments_the_schema_rejects_are_errored_attempts():
    lookup = crewai_runs()[1]
    started, finished = lookup["events"]
    failed = {**finished, "failure": {"message": "invoice locked", "reason": "tool_failure"}}
    item = read_one({**lookup, "events": [started, failed]})
    assert isinstance(item, Run) and [c.errored for c in item.calls] == [True]
    invalid = {**started, "type": "tool_validate_input_error", "error": "invoice_id required"}
    item = read_one({**lookup, "events": [invalid, started, finished]})
    assert isinstance(item, Run) and [c.errored for c in item.calls] == [True, False]


def test_crewai_default_error_text_marks_a_chat_reply_errored():
    messages = crewai_runs("crewai-task-messages")[0]["messages"]
    item = read_one({"case_id": "retry", "messages": messages})
    assert isinstance(item, Run) and [c.errored for c in item.calls] == [True, False]
    # the same words inside a tool's own data are not its error text
    for m in messages:
        if m["role"] == "tool" and m["content"].startswith("Error executing tool: "):
            m["content"] = "note: " + m["content"]
    item = read_one({"case_id": "retry", "messages": messages})
    assert isinstance(item, Run) and [c.errored for c in item.calls] == [False, False]


def test_crewai_events_are_read_in_the_order_crewai_emitted_them(tmp_path):
    """CrewAI's event bus runs handlers on a thread pool: a listener may get a tool's error
    before its start (seen in the react fixture's own making). emission_sequence orders them."""
    runs = crewai_runs()
    for run in runs:
        run["events"].reverse()
    assert verdicts(score_fixture(write(tmp_path / "reversed.jsonl", runs))) == SCENARIO
