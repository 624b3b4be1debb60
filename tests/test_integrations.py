"""The Inspect AI scorer, the DeepEval metric and the MLflow scorer, each run against the real
package offline (Inspect's mock model; a DeepEval test case; an MLflow trace of a traced agent in
a local store), through the examples docs/integrations.md shows.

The packages are heavy (about 1.2 GB together), so they live in `.venv/integrations` (`make
integrations` installs them and runs this file there); in the dev environment each test is
skipped, saying which package is absent.
"""

from __future__ import annotations

import os
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples" / "integrations"
DOC = (ROOT / "docs" / "integrations.md").read_text()


def run_example(name: str) -> dict:
    return runpy.run_path(str(EXAMPLES / f"{name}.py"))["main"]()


@pytest.mark.parametrize("name", ["inspect_task", "deepeval_metric", "mlflow_scorer"])
def test_the_docs_show_each_example_as_it_is(name: str) -> None:
    assert (EXAMPLES / f"{name}.py").read_text().strip() in DOC


@pytest.mark.filterwarnings("ignore")  # the harnesses' own deprecations are theirs
def test_inspect_scorer_on_the_mock_model() -> None:
    pytest.importorskip("inspect_ai", reason="inspect-ai is not installed (make integrations)")
    out = run_example("inspect_task")
    assert out["value"] == "C"
    assert out["answer"] == "false_failure"
    meta = out["metadata"]
    assert (meta["reported_pass"], meta["true_pass"]) == (False, True)
    assert meta["shapes"] == ["encoding", "default"]
    assert 'city: "paris" ~ "Paris" → "paris" by casefold (encoding)' in meta["explanation"]


@pytest.mark.filterwarnings("ignore")
def test_deepeval_metric() -> None:
    os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
    pytest.importorskip("deepeval", reason="deepeval is not installed (make integrations)")
    out = run_example("deepeval_metric")
    assert (out["score"], out["success"]) == (1.0, True)
    assert "false failure (encoding, default)" in out["reason"]

    from deepeval.test_case import LLMTestCase, ToolCall

    from evalrunner.integrations.deepeval import ToolCallsMetric

    metric = ToolCallsMetric(tools=EXAMPLES / "tools.json")
    wrong = LLMTestCase(
        input="Weather in Paris?",
        actual_output="",
        tools_called=[ToolCall(name="get_weather", input_parameters={"city": "Rome"})],
        expected_tools=[ToolCall(name="get_weather", input_parameters={"city": "Paris"})],
    )
    assert metric.measure(wrong) == 0.0 and not metric.is_successful()
    assert 'city: "Rome" → "rome" ≠ "Paris" → "paris"' in (metric.reason or "")


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("run_async", [False, True])
def test_deepeval_metric_in_deepevals_own_evaluate(
    run_async: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DeepEval's evaluate() copies each metric by calling its class with the attributes named
    like the constructor's parameters: the metric kept only its Suite, so the copy read the
    default tools/ and evaluate() failed ("tools directory 'tools' does not exist")."""
    os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
    pytest.importorskip("deepeval", reason="deepeval is not installed (make integrations)")
    from deepeval import evaluate
    from deepeval.evaluate.configs import AsyncConfig, DisplayConfig
    from deepeval.test_case import LLMTestCase, ToolCall

    from evalrunner.integrations.deepeval import ToolCallsMetric

    monkeypatch.chdir(tmp_path)  # DeepEval keeps its .deepeval/ where it runs
    expected = [ToolCall(name="get_weather", input_parameters={"city": "Paris"})]
    test_cases = [
        LLMTestCase(
            input=f"Weather in Paris? ({city})",
            actual_output="",
            tools_called=[ToolCall(name="get_weather", input_parameters={"city": city})],
            expected_tools=expected,
        )
        for city in ("PARIS", "Rome")
    ]
    result = evaluate(
        test_cases=test_cases,
        metrics=[ToolCallsMetric(tools=EXAMPLES / "tools.json")],
        async_config=AsyncConfig(run_async=run_async),
        display_config=DisplayConfig(print_results=False, show_indicator=False),
    )
    scored = {t.input: (t.success, [m.score for m in t.metrics_data]) for t in result.test_results}
    assert scored == {
        "Weather in Paris? (PARIS)": (True, [1.0]),
        "Weather in Paris? (Rome)": (False, [0.0]),
    }


@pytest.mark.filterwarnings("ignore")
def test_mlflow_scorer_in_genai_evaluate() -> None:
    pytest.importorskip("mlflow.genai", reason="mlflow is not installed (make integrations)")
    out = run_example("mlflow_scorer")
    assert bool(out["value"]) is True


@pytest.mark.filterwarnings("ignore")
def test_mlflow_tool_span_without_an_argument_object_is_malformed_not_empty() -> None:
    """A TOOL span whose inputs are not an object (none recorded, a positional value) was graded
    as a call with `{}`: a silent zero of its arguments. It is a malformed call, saying why."""
    pytest.importorskip("mlflow.genai", reason="mlflow is not installed (make integrations)")
    from types import SimpleNamespace

    from evalrunner.integrations import Suite, expected_case
    from evalrunner.integrations.mlflow import calls_of

    spans = [
        SimpleNamespace(name="get_weather", inputs=None, status=None, start_time_ns=2),
        SimpleNamespace(name="get_weather", inputs="Paris", status=None, start_time_ns=1),
    ]
    trace = SimpleNamespace(search_spans=lambda span_type: spans)
    calls = calls_of(trace)  # type: ignore[arg-type]
    assert [c["args"] for c in calls] == ["Paris", None]
    suite = Suite.load(EXAMPLES / "tools.json", None)
    case = expected_case("t", [{"name": "get_weather", "arguments": {"city": "Paris"}}])
    result = suite.grade(calls, case)
    assert [c.label for c in result.calls] == ["malformed", "malformed"]
    assert not result.true_pass
