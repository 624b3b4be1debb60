"""evalrun's scorer in an Inspect AI task, run offline on Inspect's mock model.

python examples/integrations/inspect_task.py
"""

import tempfile
from pathlib import Path

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import tool

from evalrunner.integrations.inspect import tool_calls

HERE = Path(__file__).parent


@tool
def get_weather():  # type: ignore[no-untyped-def]
    async def execute(city: str, unit: str = "celsius") -> str:
        """The weather in a city.

        Args:
            city: the city
            unit: celsius or fahrenheit
        """
        return "sunny"

    return execute


def main() -> dict:
    # The mock model calls the tool with a lower-cased city and the default unit spelled out:
    # exact-match fails it; evalrun does not.
    outputs = [
        ModelOutput.for_tool_call(
            "mockllm/model", "get_weather", {"city": "paris", "unit": "celsius"}
        ),
        ModelOutput.from_content("mockllm/model", "Sunny in Paris."),
    ]
    for output in outputs:  # stated, so the mock model counts no tokens (that needs a download)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    model = get_model("mockllm/model", custom_outputs=outputs)
    task = Task(
        dataset=[Sample(input="Weather in Paris?", id="weather-paris")],
        solver=[use_tools(get_weather()), generate()],
        scorer=tool_calls(HERE / "tools.json", HERE / "cases"),
    )
    with tempfile.TemporaryDirectory() as logs:
        log = eval(task, model=model, log_dir=logs, display="none")[0]
        score = log.samples[0].scores["tool_calls"]
    print(score.value, score.answer)
    print(score.explanation)
    return {"value": score.value, "answer": score.answer, "metadata": score.metadata}


if __name__ == "__main__":
    main()
