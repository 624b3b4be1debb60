"""evalrun's verdict inside other harnesses, each in an extra of its own:

- `evalrunner.integrations.inspect.tool_calls()`: an Inspect AI scorer (`evalrun[inspect]`);
- `evalrunner.integrations.deepeval.ToolCallsMetric`: a DeepEval metric (`evalrun[deepeval]`);
- `evalrunner.integrations.mlflow.tool_calls()`: an MLflow scorer for `mlflow.genai.evaluate`
  (`evalrun[mlflow]`).

Each turns the harness's record of a run into calls, finds the case (by id in the cases folder,
or built from the harness's own expected tool calls), and grades it as `evalrun score` would. This
module holds what they share; it imports none of the harnesses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..grade.grader import RunResult
from ..jsonvalue import MISSING
from ..model import Case, Tool
from ..read.cases import load_cases
from ..read.tools import load_tools
from ..testing import CaseArg, explanation, grade_calls

__all__ = ["Suite", "expected_case", "verdict_metadata"]


@dataclass
class Suite:
    """The tools and cases a scorer grades with, read once."""

    tools: Mapping[str, Tool]
    cases: Mapping[str, Case] = field(default_factory=dict)

    @classmethod
    def load(
        cls,
        tools: str | Path | Mapping[str, Tool] = "tools",
        cases: str | Path | Mapping[str, Case] | None = None,
        *,
        case_format: str = "auto",
    ) -> Suite:
        found_tools = load_tools(tools) if isinstance(tools, (str, Path)) else dict(tools)
        if cases is None:
            found_cases: Mapping[str, Case] = {}
        elif isinstance(cases, (str, Path)):
            found_cases = load_cases(cases, case_format=case_format)
        else:
            found_cases = dict(cases)
        return cls(found_tools, found_cases)

    def grade(self, calls: Any, case: CaseArg, *, world: Any = MISSING) -> RunResult:
        return grade_calls(calls, case, tools=self.tools, cases=self.cases, world=world)


def expected_case(case_id: str, calls: Any, *, match: str = "exact") -> dict[str, Any]:
    """A case, as a case file writes it, from a harness's expected calls (`{name, arguments}`
    in any call shape); a call whose arguments are None is judged by its name only."""
    from ..testing import native_call

    steps = []
    for call in calls or []:
        native = native_call(call)
        step: dict[str, Any] = {"tool": native["tool"], "args": native.get("args") or {}}
        if native.get("args") is None:
            step["judge"] = {"": "any"}
        steps.append(step)
    return {"id": case_id, "accept": [steps], "match": match}


def verdict_metadata(result: RunResult) -> dict[str, Any]:
    """What a harness's score carries besides its value: the verdicts and the shapes."""
    return {
        "case_id": result.case_id,
        "verdict": result.verdict,
        "reported_pass": result.reported_pass,
        "true_pass": result.true_pass,
        "shape": result.shape,
        "shapes": list(result.shapes),
        "explanation": explanation(result),
    }
