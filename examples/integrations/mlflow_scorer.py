"""evalrun's scorer in `mlflow.genai.evaluate`, on traces of a traced agent (offline: a local
tracking store in a temporary folder, no model).

    python examples/integrations/mlflow_scorer.py
"""

import tempfile
from pathlib import Path

import mlflow
from mlflow.entities import SpanType

from evalrunner.integrations.mlflow import tool_calls

HERE = Path(__file__).parent


@mlflow.trace(span_type=SpanType.TOOL, name="get_weather")
def get_weather(city: str, unit: str = "celsius") -> str:
    return "sunny"


def agent(question: str) -> str:
    get_weather(city="paris", unit="celsius")  # what the model asked for
    return "Sunny in Paris."


def main() -> dict:
    with tempfile.TemporaryDirectory() as store:
        mlflow.set_tracking_uri(f"sqlite:///{store}/mlflow.db")
        mlflow.set_experiment("evalrun-example")
        data = [
            {
                "inputs": {"question": "Weather in Paris?"},
                "expectations": {
                    "expected_tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]
                },
            }
        ]
        results = mlflow.genai.evaluate(
            data=data, predict_fn=agent, scorers=[tool_calls(tools=HERE / "tools.json")]
        )
        table = results.result_df
        value = table["evalrun_tool_calls/value"].iloc[0]
    print(value)
    return {"value": value, "metrics": dict(results.metrics)}


if __name__ == "__main__":
    main()
