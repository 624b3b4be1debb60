"""An Inspect AI scorer: grade a sample's tool calls against its case (`pip install
'evalrun[inspect]'`).

    from inspect_ai import Task
    from evalrunner.integrations.inspect import tool_calls

    Task(dataset=..., solver=[use_tools(...), generate()], scorer=tool_calls("tools", "cases"))

The case is the sample's `metadata["case"]` (a case as a case file writes it), else the case
whose id is `metadata["case_id"]`, else the one whose id is the sample's id. The `Score` is
`CORRECT` when the run truly passes; its `answer` is the verdict (`false_failure`, …), its
`explanation` the run's explanation, its `metadata` the verdicts and the shapes. A tool call the
tool answered with an error is an errored attempt, as in a trace.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai.model import ChatMessageAssistant, ChatMessageTool
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, scorer
from inspect_ai.solver import TaskState

from ..testing import explanation
from . import Suite, verdict_metadata


def calls_of(state: TaskState) -> list[dict[str, Any]]:
    """The sample's tool calls in order, as evalrun's own calls."""
    errored = {
        m.tool_call_id
        for m in state.messages
        if isinstance(m, ChatMessageTool) and m.error is not None and m.tool_call_id
    }
    return [
        {"tool": c.function, "args": c.arguments, **({"error": True} if c.id in errored else {})}
        for m in state.messages
        if isinstance(m, ChatMessageAssistant)
        for c in m.tool_calls or []
    ]


@scorer(metrics=[accuracy()])
def tool_calls(
    tools: str | Path = "tools", cases: str | Path | None = "cases", case_format: str = "auto"
) -> Scorer:
    """evalrun's true verdict on the sample's tool calls."""
    suite = Suite.load(
        tools,
        cases if cases is not None and Path(cases).exists() else None,
        case_format=case_format,
    )

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata or {}
        case = meta.get("case") or meta.get("case_id") or str(state.sample_id)
        result = suite.grade(calls_of(state), case)
        return Score(
            value=CORRECT if result.true_pass else INCORRECT,
            answer=result.verdict,
            explanation=explanation(result),
            metadata=verdict_metadata(result),
        )

    return score
