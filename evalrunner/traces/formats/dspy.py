"""DSPy: a ReAct program's `trajectory` (`pred.trajectory`, or `pred.toDict()` whole), in a
record with its case id.

The trajectory numbers each step: `tool_name_N`, `tool_args_N` (an object), `observation_N` (the
reply). ReAct's own `finish` step ends the run and is left out; an observation that starts with
`Execution error in` (what ReAct writes when the tool raised) is an errored attempt.
"""

from __future__ import annotations

from typing import Any

from ..format import TraceFormat

FINISH = "finish"
ERROR_TEXT = "Execution error in "
MAX_STEPS = 100_000


def _trajectory(record: dict[str, Any]) -> Any:
    return record.get("trajectory")


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    trajectory = _trajectory(record)
    if type(trajectory) is not dict:
        return 'no "trajectory" object'
    out: list[dict[str, Any]] = []
    for n in range(MAX_STEPS):
        key = f"tool_name_{n}"
        if key not in trajectory:
            break
        name = trajectory[key]
        if name == FINISH:
            continue
        call: dict[str, Any] = {"tool": name}
        if f"tool_args_{n}" in trajectory:
            call["args"] = trajectory[f"tool_args_{n}"]
        if f"observation_{n}" in trajectory:
            observation = trajectory[f"observation_{n}"]
            call["result"] = observation
            if type(observation) is str and observation.startswith(ERROR_TEXT):
                call["error"] = observation.split("\n", 1)[0] or True
        out.append(call)
    return out


def _detect(record: Any) -> bool:
    if type(record) is not dict:
        return False
    trajectory = _trajectory(record)
    return type(trajectory) is dict and "tool_name_0" in trajectory


FORMAT = TraceFormat(
    name="dspy",
    summary="DSPy ReAct: a prediction's trajectory (tool_name_N, tool_args_N, observation_N)",
    looks_like='a "trajectory" with tool_name_0',
    detect=_detect,
    order=23,
    calls=calls,
)
