"""Google ADK eval history: the `EvalSetResult` that `adk eval` and the ADK web UI save as
`<agent>/.adk/eval_history/<name>.evalset_result.json` (`model_dump_json(indent=2)`: snake_case,
pretty-printed; camelCase, as the API serves it, is read too).

One result holds several runs: each of its `eval_case_results` is one run, its case id the eval
case's `eval_id`, its run id `<eval_set_result_id>/<eval_id>`. A run's calls are its invocations'
(`eval_metric_result_per_invocation[].actual_invocation`) intermediate data: ADK 2's
`invocation_events` (events whose parts are `function_call` / `function_response`, read as the
`adk` format reads a session's events), or the older `tool_uses` (`FunctionCall`: `id`, `name`,
`args`) paired by `id` with `tool_responses` (`FunctionResponse`: `id`, `response`). ADK's
`{"status": "error", "error_message": ...}` reply is an errored attempt, as in a session. The
`expected_invocation` (the eval case's reference) is not the run, and is left out of it. One
`EvalCaseResult` alone is read as one run.
"""

from __future__ import annotations

from typing import Any

from ..format import TraceFormat
from ._pairing import Pairer
from .adk import read_call, read_event, read_reply

SET_RESULT_ID = ("eval_set_result_id", "evalSetResultId")
CASE_RESULTS = ("eval_case_results", "evalCaseResults")
PER_INVOCATION = ("eval_metric_result_per_invocation", "evalMetricResultPerInvocation")
ACTUAL = ("actual_invocation", "actualInvocation")
EXPECTED = ("expected_invocation", "expectedInvocation")
INTERMEDIATE = ("intermediate_data", "intermediateData")
EVENTS = ("invocation_events", "invocationEvents")
TOOL_USES = ("tool_uses", "toolUses")
TOOL_RESPONSES = ("tool_responses", "toolResponses")
EVAL_ID = ("eval_id", "evalId")
RUN_ID = "run_id"


def _get(value: dict[str, Any], keys: tuple[str, str]) -> Any:
    found = value.get(keys[0])
    return found if found is not None else value.get(keys[1])


def _case_result(value: Any) -> bool:
    return (
        type(value) is dict
        and _get(value, EVAL_ID) is not None
        and type(_get(value, PER_INVOCATION)) is list
    )


def _set_result(value: Any) -> bool:
    return (
        type(value) is dict
        and _get(value, SET_RESULT_ID) is not None
        and type(_get(value, CASE_RESULTS)) is list
    )


def runs(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    """Each eval case result as a run's record: the case result, without its expected
    invocations, with its run id (`<eval_set_result_id>/<eval_id>`, `#2`, `#3` for an eval case
    run again in the same result)."""
    if _case_result(record):
        return [_run(record, None)]
    results = _get(record, CASE_RESULTS)
    if type(results) is not list:
        return 'no "eval_case_results" list'
    set_id = _get(record, SET_RESULT_ID)
    found: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for i, result in enumerate(results):
        if type(result) is not dict:
            return f"eval case result {i} is not an object"
        run_id = f"{set_id}/{_get(result, EVAL_ID)}"
        seen[run_id] = seen.get(run_id, 0) + 1
        if seen[run_id] > 1:
            run_id = f"{run_id}#{seen[run_id]}"
        found.append(_run(result, run_id))
    return found


def _run(result: dict[str, Any], run_id: str | None) -> dict[str, Any]:
    run = dict(result)
    per = _get(result, PER_INVOCATION)
    if type(per) is list:
        key = PER_INVOCATION[0] if PER_INVOCATION[0] in result else PER_INVOCATION[1]
        run[key] = [
            {k: v for k, v in p.items() if k not in EXPECTED} if type(p) is dict else p for p in per
        ]
    if run_id is not None and RUN_ID not in run:
        run[RUN_ID] = run_id
    return run


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    per = _get(record, PER_INVOCATION)
    if type(per) is not list:
        return 'no "eval_metric_result_per_invocation" list'
    pairer = Pairer()
    replies = 0
    for i, entry in enumerate(per):
        invocation = _get(entry, ACTUAL) if type(entry) is dict else None
        if type(invocation) is not dict:
            return f"invocation {i} has no actual_invocation object"
        data = _get(invocation, INTERMEDIATE)
        if data is None:
            continue  # an invocation with no intermediate steps: no call
        if type(data) is not dict:
            return f"invocation {i}'s intermediate_data is not an object"
        events = _get(data, EVENTS)
        if type(events) is list:
            for event in events:
                if type(event) is dict:
                    read_event(pairer, event)
            continue
        uses, responses = _get(data, TOOL_USES), _get(data, TOOL_RESPONSES)
        for use in uses if type(uses) is list else ():
            if type(use) is dict:
                read_call(pairer, use)
        for response in responses if type(responses) is list else ():
            if type(response) is dict:
                replies += 1
                read_reply(pairer, response)
    if replies and not pairer.calls:
        return f"{replies} tool responses but no tool_uses: the calls were not recorded"
    return pairer.calls


def _detect(record: Any) -> bool:
    return _set_result(record) or _case_result(record)


FORMAT = TraceFormat(
    name="adk-eval",
    summary="Google ADK eval history: an EvalSetResult (.adk/eval_history/*.evalset_result.json)",
    looks_like='"eval_set_result_id" with "eval_case_results"',
    detect=_detect,
    order=23,
    calls=calls,
    runs=runs,
    case_paths=(("eval_id",), ("evalId",)),
    run_paths=(("run_id",), ("session_id",), ("sessionId",)),
)
