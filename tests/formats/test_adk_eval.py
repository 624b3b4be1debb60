"""Google ADK eval history (`formats/adk_eval.py`): an `EvalSetResult` as `adk eval` saves it, one
run per eval case result."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from evalrunner import Run, TraceError
from tests.conftest import FRAMEWORKS, score_fixture
from tests.formats.common import SCENARIO, read, verdicts

# written by ADK 2.13's own classes (scripts/framework_traces.py, `adk_eval_history`)
FIXTURES = ("adk-eval-history", "adk-eval-history-tool-uses")


def result(name: str = "adk-eval-history") -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((FRAMEWORKS / f"{name}.evalset_result.json").read_text())
    return doc


DATA_KEYS = ("args", "response", "state")


def camel(value: Any) -> Any:
    """`model_dump(by_alias=True)`'s spelling of a snake_case dump (`eval_id` -> `evalId`); a
    call's `args` and a reply's `response` are its data, kept as they are."""
    if type(value) is dict:
        out = {}
        for k, v in value.items():
            head, *rest = k.split("_")
            out[head + "".join(w.title() for w in rest)] = v if k in DATA_KEYS else camel(v)
        return out
    if type(value) is list:
        return [camel(v) for v in value]
    return value


@pytest.mark.parametrize("name", FIXTURES)
def test_an_eval_set_result_scores_each_eval_case_as_a_run(name, tmp_path):
    path = FRAMEWORKS / f"{name}.evalset_result.json"
    doc = score_fixture(path)
    assert doc["errors"] == [] and verdicts(doc) == SCENARIO
    set_id = result(name)["eval_set_result_id"]
    assert [r["run_id"] for r in doc["runs"]] == [f"{set_id}/{c}" for c in SCENARIO]
    assert score_fixture(path, "--trace-format", "adk-eval")["runs"] == doc["runs"]
    assert score_fixture(path, "--jobs", "2")["runs"] == doc["runs"]
    # compact, one result a line; and camelCase, as model_dump(by_alias=True) writes it
    lines = tmp_path / "results.jsonl"
    lines.write_text(json.dumps(result(name)) + "\n" + json.dumps(camel(result(name))) + "\n")
    both = score_fixture(lines)
    assert both["errors"] == [] and len(both["runs"]) == 8
    assert verdicts({"runs": both["runs"][4:]}) == SCENARIO


def test_the_two_shapes_of_intermediate_data_read_alike():
    runs = [score_fixture(FRAMEWORKS / f"{n}.evalset_result.json")["runs"] for n in FIXTURES]
    for run in runs:
        for r in run:
            r.pop("source", None)
    assert [r["calls"] for r in runs[0]] == [r["calls"] for r in runs[1]]


def _one_case(doc: dict[str, Any], case: str) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    doc["eval_case_results"] = [c for c in doc["eval_case_results"] if c["eval_id"] == case]
    return doc


def test_expected_invocations_are_not_the_run():
    """The eval case's reference calls (`expected_invocation`) are not read as calls, nor taken
    by the guard for calls the run made: a run whose agent made none scores as one of no call."""
    doc = _one_case(result("adk-eval-history-tool-uses"), "lookup")
    for per in doc["eval_case_results"][0]["eval_metric_result_per_invocation"]:
        per["actual_invocation"]["intermediate_data"] = {"tool_uses": [], "tool_responses": []}
        assert per["expected_invocation"]["intermediate_data"]["tool_uses"]
    [run] = read(doc)
    assert isinstance(run, Run) and run.case_id == "lookup" and run.calls == ()


def test_a_result_with_no_tool_uses_that_shows_calls_is_unscoreable_never_zero():
    doc = _one_case(result("adk-eval-history-tool-uses"), "lookup")
    case = doc["eval_case_results"][0]
    # the replies kept, the calls not: no run of no call
    for per in case["eval_metric_result_per_invocation"]:
        del per["actual_invocation"]["intermediate_data"]["tool_uses"]
    [err] = read(doc)
    assert isinstance(err, TraceError)
    assert err.error == "adk-eval: 1 tool responses but no tool_uses: the calls were not recorded"
    # no intermediate data at all, but the session's events hold the call
    session = json.loads((FRAMEWORKS / "adk-session-dump.jsonl").read_text().splitlines()[1])
    assert session["state"]["case_id"] == "lookup"
    for per in case["eval_metric_result_per_invocation"]:
        per["actual_invocation"]["intermediate_data"] = None
    case["session_details"] = session
    [err] = read(doc)
    assert isinstance(err, TraceError) and "no tool call read, but the record holds" in err.error
    assert "session_details.events" in err.error


def test_one_eval_case_result_alone_is_a_run_and_a_case_run_again_keeps_its_own_id():
    doc = result()
    [case] = _one_case(doc, "retry")["eval_case_results"]
    [run] = read(case)
    assert isinstance(run, Run) and run.case_id == "retry" and run.run_id == case["session_id"]
    doc["eval_case_results"].append(copy.deepcopy(case))
    ids = [r.run_id for r in read(doc) if isinstance(r, Run)]
    set_id = doc["eval_set_result_id"]
    assert ids[0] == f"{set_id}/retry" and ids[-1] == f"{set_id}/retry#2"
    assert len(set(ids)) == 5


def test_a_malformed_eval_case_result_is_unscoreable():
    doc = result()
    doc["eval_case_results"][1] = "lookup"
    [err] = read(doc)
    assert (
        isinstance(err, TraceError) and err.error == "adk-eval: eval case result 1 is not an object"
    )
    case = _one_case(result(), "lookup")
    del case["eval_case_results"][0]["eval_metric_result_per_invocation"][0]["actual_invocation"]
    [err] = read(case)
    assert isinstance(err, TraceError)
    assert err.error == "adk-eval: invocation 0 has no actual_invocation object"
