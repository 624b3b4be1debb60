"""Write the fixtures of tests/data/case_formats/ that a harness's own code can write.

Run where the harness is installed: DeepEval in the integrations environment (`make
integrations` makes .venv/integrations), Google ADK in one with google-adk (the frameworks
extra's, or `pip install google-adk` in a throwaway venv); a writer whose harness is absent is
skipped, saying so:

    .venv/integrations/bin/python scripts/case_fixtures.py

DeepEval's goldens are saved by `EvaluationDataset.save_as(file_type="json")`, as a team's
suite would be; ADK's eval set by its `LocalEvalSetsManager` (as `adk web` saves one) and its
`test_config.json` by its `EvalConfig`; MLflow's dataset by `mlflow.genai.datasets` (MLflow in
the integrations environment); agentevals' examples by langchain-core's own serializers; the
other sources are written in their documented formats
(docs/case-formats.md names the version of each).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "case_formats"


def deepeval_goldens() -> None:
    import deepeval
    from deepeval.dataset import EvaluationDataset, Golden
    from deepeval.test_case import ToolCall

    goldens = [
        Golden(
            input="Weather in Lisbon, then book Lisbon to Porto on 1 March 2026",
            expected_tools=[
                ToolCall(name="get_weather", input_parameters={"city": "Lisbon"}),
                ToolCall(
                    name="book_flight",
                    input_parameters={
                        "origin": "Lisbon",
                        "destination": "Porto",
                        "date": "2026-03-01",
                    },
                ),
            ],
            expected_output="Booked.",
        ),
        Golden(input="Is it raining in Faro?", expected_tools=[ToolCall(name="get_weather")]),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        written = EvaluationDataset(goldens=goldens).save_as(
            file_type="json", directory=tmp, file_name="goldens"
        )
        target = OUT / "deepeval" / f"goldens.deepeval-{deepeval.__version__}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        for old in target.parent.glob("goldens.deepeval-*.json"):
            old.unlink()
        shutil.copy(written, target)
        print(f"wrote {target.relative_to(OUT.parent.parent.parent)}")


def adk_evalset() -> None:
    """An eval set as ADK's own eval-set manager saves it, and the `test_config.json` ADK's
    `EvalConfig` writes (its match type an Enum number: `"match_type": 2`)."""
    from importlib.metadata import version

    from google.adk.evaluation.eval_case import EvalCase, IntermediateData, Invocation
    from google.adk.evaluation.eval_config import EvalConfig
    from google.adk.evaluation.eval_metrics import ToolTrajectoryCriterion
    from google.adk.evaluation.local_eval_sets_manager import LocalEvalSetsManager
    from google.genai import types

    def text(role: str, said: str) -> types.Content:
        return types.Content(role=role, parts=[types.Part(text=said)])

    case = EvalCase(
        eval_id="adk_written_weather",
        conversation=[
            Invocation(
                invocation_id="e-1",
                user_content=text("user", "Weather in Madrid and in Seville?"),
                final_response=text("model", "Sunny in both."),
                intermediate_data=IntermediateData(
                    tool_uses=[
                        types.FunctionCall(id="adk-1", name="get_weather", args={"city": "Madrid"}),
                        types.FunctionCall(
                            id="adk-2", name="get_weather", args={"city": "Seville"}
                        ),
                    ]
                ),
            )
        ],
    )
    target = OUT / "adk_written"
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as agents:
        manager = LocalEvalSetsManager(agents_dir=agents)
        manager.create_eval_set("weather_agent", "weather_adk")
        manager.add_eval_case("weather_agent", "weather_adk", case)
        shutil.copy(Path(agents) / "weather_agent" / "weather_adk.evalset.json", target)
    criterion = ToolTrajectoryCriterion(threshold=1.0, match_type="ANY_ORDER")
    config = EvalConfig(criteria={"tool_trajectory_avg_score": criterion})
    (target / "test_config.json").write_text(config.model_dump_json(indent=2) + "\n")
    print(
        f"wrote {target.relative_to(OUT.parent.parent.parent)} (google-adk {version('google-adk')})"
    )


def mlflow_dataset() -> None:
    """An MLflow evaluation dataset made with `mlflow.genai.datasets` on a local store, exported as
    a team would keep it: `to_df().to_json(orient="records", lines=True)`."""
    import mlflow
    from mlflow.genai.datasets import create_dataset

    records = [
        {
            "inputs": {"question": "Weather in Bergen, in fahrenheit?"},
            "expectations": {
                "expected_tool_calls": [
                    {"name": "get_weather", "arguments": {"city": "Bergen", "unit": "fahrenheit"}}
                ],
                "expected_facts": ["It rains in Bergen."],
            },
        },
        # MLflow's ToolCallCorrectness: a call without arguments checks the tool's name only
        {
            "inputs": {"question": "Is it raining anywhere you know?"},
            "expectations": {"expected_tool_calls": [{"name": "get_weather"}]},
        },
    ]
    target = OUT / "mlflow" / f"dataset.mlflow-{mlflow.__version__}.jsonl"
    with tempfile.TemporaryDirectory() as store:
        mlflow.set_tracking_uri(f"sqlite:///{store}/mlflow.db")
        experiment = mlflow.set_experiment("evalrun-case-fixtures")
        dataset = create_dataset(name="weather", experiment_id=experiment.experiment_id)
        dataset.merge_records(records)
        table = dataset.to_df().sort_values("created_time", kind="stable")
        for old in target.parent.glob("dataset.mlflow-*.jsonl"):
            old.unlink()
        table.to_json(target, orient="records", lines=True)
    print(f"wrote {target.relative_to(OUT.parent.parent.parent)}")


def langchain_examples() -> None:
    """LangSmith-style examples whose reference outputs are one trajectory of LangChain messages,
    serialized each way LangChain does: `dumpd()`, `messages_to_dict()`, `model_dump()`."""
    import json

    import langchain_core
    from langchain_core.load import dumpd
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, messages_to_dict

    question = "Weather in Nice and in Cannes?"
    calls = [
        {"name": "get_weather", "args": {"city": "Nice"}, "id": "call_1"},
        {"name": "get_weather", "args": {"city": "Cannes"}, "id": "call_2"},
    ]
    messages = [
        HumanMessage(question),
        AIMessage("", tool_calls=calls),
        ToolMessage("sunny", tool_call_id="call_1"),
        ToolMessage("sunny", tool_call_id="call_2"),
        AIMessage("Sunny in both."),
    ]
    dumps = {
        "ae-dumpd": [dumpd(m) for m in messages],
        "ae-messages-to-dict": messages_to_dict(messages),
        "ae-model-dump": [m.model_dump() for m in messages],
    }
    target = OUT / "agentevals" / f"examples.langchain-core-{langchain_core.__version__}.jsonl"
    for old in target.parent.glob("examples.langchain-core-*.jsonl"):
        old.unlink()
    with target.open("w") as out:
        for case_id, dumped in dumps.items():
            example = {
                "id": case_id,
                "inputs": {"question": question},
                "outputs": {"messages": dumped},
                "metadata": {"trajectory_match_mode": "unordered"},
            }
            out.write(json.dumps(example, sort_keys=True) + "\n")
    print(f"wrote {target.relative_to(OUT.parent.parent.parent)}")


if __name__ == "__main__":
    writers = (
        (deepeval_goldens, "deepeval"),
        (adk_evalset, "google.adk"),
        (mlflow_dataset, "mlflow"),
        (langchain_examples, "langchain_core"),
    )
    for writer, package in writers:
        try:
            __import__(package)
        except ImportError:
            print(f"skipped {writer.__name__}: {package} is not installed here")
            continue
        writer()
