"""evalrun's metric on a DeepEval test case (no model is called).

python examples/integrations/deepeval_metric.py
"""

from pathlib import Path

from deepeval.test_case import LLMTestCase, ToolCall

from evalrunner.integrations.deepeval import ToolCallsMetric

HERE = Path(__file__).parent


def main() -> dict:
    test_case = LLMTestCase(
        input="Weather in Paris?",
        actual_output="Sunny in Paris.",
        tools_called=[
            ToolCall(name="get_weather", input_parameters={"city": "PARIS", "unit": "celsius"})
        ],
        expected_tools=[ToolCall(name="get_weather", input_parameters={"city": "Paris"})],
    )
    metric = ToolCallsMetric(tools=HERE / "tools.json")
    metric.measure(test_case)
    print(metric.score, metric.success)
    print(metric.reason)
    return {"score": metric.score, "success": metric.success, "reason": metric.reason}


if __name__ == "__main__":
    main()
