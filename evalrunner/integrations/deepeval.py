"""A DeepEval metric: evalrun's verdict on a test case's `tools_called` (`pip install
'evalrun[deepeval]'`).

    from deepeval.test_case import LLMTestCase, ToolCall
    from evalrunner.integrations.deepeval import ToolCallsMetric

    metric = ToolCallsMetric(tools="tools")
    metric.measure(LLMTestCase(input=..., actual_output=..., tools_called=[...],
                               expected_tools=[ToolCall(name=..., input_parameters={...})]))
    metric.score, metric.success, metric.reason

The case is the test case's `expected_tools` (a `ToolCall` without `input_parameters` judged by
its name, as DeepEval's own metric does), or with `cases=` the case whose id is the test case's
`name` or `additional_metadata["case_id"]`. No model is called: the score is 1.0 when the run
truly passes and 0.0 when it fails; `reason` is the run's explanation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepeval.metrics import BaseMetric
from deepeval.test_case import LLMTestCase

from ..grade.grader import RunResult
from ..testing import explanation
from . import Suite, expected_case, verdict_metadata


def _call(tool: Any) -> dict[str, Any]:
    return {"tool": tool.name, "args": tool.input_parameters}


class ToolCallsMetric(BaseMetric):
    """evalrun's true verdict on `tools_called`, with the explanation as `reason`."""

    def __init__(
        self,
        tools: str | Path = "tools",
        cases: str | Path | None = None,
        *,
        threshold: float = 1.0,
        match: str = "exact",
    ) -> None:
        # kept under the parameters' names: DeepEval's evaluate() copies a metric by calling its
        # class with the attributes so named (deepeval.metrics.utils.copy_metrics)
        self.tools = tools
        self.cases = cases
        self.suite = Suite.load(tools, cases)
        self.threshold = threshold
        self.match = match
        self.include_reason = True
        self.async_mode = False
        self.strict_mode = False
        self.evaluation_model = None
        self.score: float | None = None
        self.success: bool | None = None
        self.reason: str | None = None
        self.error: str | None = None
        self.result: RunResult | None = None
        self.metadata: dict[str, Any] = {}

    def _case(self, test_case: LLMTestCase) -> Any:
        meta = (
            getattr(test_case, "additional_metadata", None)
            or getattr(test_case, "metadata", None)
            or {}
        )
        key = meta.get("case_id") or getattr(test_case, "name", None)
        if key and key in self.suite.cases:
            return key
        expected = [_call(t) for t in test_case.expected_tools or []]
        return expected_case(str(key or "deepeval"), expected, match=self.match)

    def measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        calls = [
            _call(t) | {"args": t.input_parameters or {}} for t in test_case.tools_called or []
        ]
        result = self.suite.grade(calls, self._case(test_case))
        self.result = result
        self.score = 1.0 if result.true_pass else 0.0
        self.success = self.score >= self.threshold
        self.reason = explanation(result)
        self.metadata = verdict_metadata(result)
        return self.score

    async def a_measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        return self.measure(test_case, *args, **kwargs)

    def is_successful(self) -> bool:
        return bool(self.success)

    @property
    def __name__(self) -> str:
        return "evalrun Tool Calls"
