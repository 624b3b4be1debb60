"""Write the fixtures of tests/data/case_formats/ that a harness's own code can write.

Run in the integrations environment (`make integrations` makes .venv/integrations):

    .venv/integrations/bin/python scripts/case_fixtures.py

DeepEval's goldens are saved by `EvaluationDataset.save_as(file_type="json")`, as a team's
suite would be; the other sources are written in their documented formats (docs/case-formats.md
names the version of each).
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


if __name__ == "__main__":
    deepeval_goldens()
