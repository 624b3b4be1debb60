"""An MLflow scorer for `mlflow.genai.evaluate`: evalrun's verdict on a trace's tool spans
(`pip install 'evalrun[mlflow]'`).

    import mlflow
    from evalrunner.integrations.mlflow import tool_calls

    mlflow.genai.evaluate(data=records, predict_fn=agent, scorers=[tool_calls(tools="tools")])

The calls are the trace's spans of type `TOOL`, in start order (name, inputs); a span whose
status is `ERROR` is an errored attempt, one whose inputs are not an object a `malformed` call.
The case is the record's `expectations["expected_tool_calls"]` (`{name, arguments}`), or with
`cases=` the case whose id is `expectations["case_id"]` (or `inputs["case_id"]`). The `Feedback`
is true when the run truly passes; its rationale is the run's explanation, its metadata the
verdicts and the shapes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mlflow.entities import Feedback, SpanType, Trace
from mlflow.genai.scorers import scorer

from ..testing import explanation
from . import Suite, expected_case, verdict_metadata


def calls_of(trace: Trace) -> list[dict[str, Any]]:
    """The trace's tool spans in start order, as evalrun's own calls."""
    spans = sorted(trace.search_spans(span_type=SpanType.TOOL), key=lambda s: s.start_time_ns)
    out = []
    for s in spans:
        # Inputs that are not an object (a positional value, none at all) stay as recorded: the
        # call is then `malformed`, saying why, never graded as a call with no arguments.
        call: dict[str, Any] = {"tool": s.name, "args": s.inputs}
        if str(getattr(s.status, "status_code", "")).endswith("ERROR"):
            call["error"] = True
        out.append(call)
    return out


def tool_calls(
    tools: str | Path = "tools",
    cases: str | Path | None = None,
    *,
    name: str = "evalrun_tool_calls",
    match: str = "exact",
) -> Any:
    """A scorer giving evalrun's true verdict on each trace's tool calls."""
    suite = Suite.load(tools, cases)

    @scorer(name=name)
    def evalrun_tool_calls(
        trace: Trace, expectations: dict[str, Any] | None = None, inputs: Any = None
    ) -> Feedback:
        expectations = expectations or {}
        key = expectations.get("case_id") or (
            inputs.get("case_id") if isinstance(inputs, dict) else None
        )
        if key and key in suite.cases:
            case: Any = key
        else:
            case = expected_case(
                str(key or trace.info.trace_id),
                expectations.get("expected_tool_calls"),
                match=match,
            )
        result = suite.grade(calls_of(trace), case)
        return Feedback(
            value=result.true_pass,
            rationale=explanation(result),
            metadata=verdict_metadata(result),
        )

    return evalrun_tool_calls
