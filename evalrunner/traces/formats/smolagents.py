"""smolagents: an agent's steps, as `agent.memory.get_full_steps()` or `RunResult.steps`
(`agent.run(..., return_full_result=True)`, `result.dict()`) give them.

Each action step (`step_number`) holds the calls its model asked for in
`model_output_message.tool_calls` (its own `tool_calls` is emptied when the step failed); a
step's `error` marks its calls errored (the calls it names, when it names any); smolagents'
`final_answer` tool ends the run and is left out. A CodeAgent's steps call tools inside Python
code, which is not read: its OpenInference spans are.
"""

from __future__ import annotations

from typing import Any

from ..format import TraceFormat

FINAL_ANSWER = "final_answer"
CODE_TOOL = "python_interpreter"


def _step_calls(step: dict[str, Any]) -> list[Any]:
    message = step.get("model_output_message")
    found = message.get("tool_calls") if type(message) is dict else None
    if not found:
        found = step.get("tool_calls")
    return found if type(found) is list else []


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    steps = record.get("steps")
    if type(steps) is not list:
        return 'no "steps" list'
    out: list[dict[str, Any]] = []
    for i, step in enumerate(steps):
        if type(step) is not dict or "step_number" not in step:
            continue  # the task, a planning step
        made: list[dict[str, Any]] = []
        for tc in _step_calls(step):
            function = tc.get("function") if type(tc) is dict else None
            if type(function) is not dict:
                return f"step {i}: a tool call without a function"
            name = function.get("name")
            if name == FINAL_ANSWER:
                continue
            if name == CODE_TOOL and step.get("code_action") is not None:
                return (
                    "a CodeAgent's steps call tools inside Python code (python_interpreter), "
                    "which evalrun does not parse: export its OpenInference spans, whose TOOL "
                    "spans record each call, or use a ToolCallingAgent"
                )
            call: dict[str, Any] = {"tool": name}
            if "arguments" in function:
                call["args"] = function["arguments"]
            if type(tc.get("id")) is str:
                call["id"] = tc["id"]
            made.append(call)
        error = step.get("error")
        if error is not None and error is not False and made:
            text = error.get("message") if type(error) is dict else error
            text = text if type(text) is str and text else str(error)
            named = [c for c in made if f"'{c['tool']}'" in text]
            for c in named or made:
                c["error"] = text
        elif len(made) == 1 and step.get("observations") is not None:
            made[0]["result"] = step["observations"]
        out.extend(made)
    return out


def _detect(record: Any) -> bool:
    if type(record) is not dict:
        return False
    steps = record.get("steps")
    return type(steps) is list and any(
        type(s) is dict
        and "step_number" in s
        and ("model_output_message" in s or "tool_calls" in s)
        for s in steps
    )


FORMAT = TraceFormat(
    name="smolagents",
    summary="smolagents: an agent's steps (agent.memory.get_full_steps(), RunResult.steps)",
    looks_like='"steps" with step_number and model_output_message',
    detect=_detect,
    order=21,
    calls=calls,
)
