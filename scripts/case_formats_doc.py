"""Write docs/case-formats.md from the case-format registry: the table, and a section per format
from its module's docstring (tests/test_case_formats.py checks the file is what this writes).

    python scripts/case_formats_doc.py
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

from evalrunner.read.case_formats import CASE_FORMATS, formats_table

DOC = Path(__file__).resolve().parent.parent / "docs" / "case-formats.md"

INTRO = """# Case formats

evalrun reads cases from where suites already live. Each file under `--cases` is read in the
format it is in (detected per file, in the order below; evalrun's own format is the fallback for
`.json` and `.jsonl`), or in the one `--case-format NAME` (setting `case_format`) names: then a
file in another shape is an input error naming it (exit 2). Every command reads them directly
(`score`, `lint`, `cases`, `suggest` and `diff` take `--case-format` and the setting; `audit`
detects each file's format); `evalrun cases` prints them in evalrun's own JSONL, to migrate and
then edit:

    evalrun cases --cases evals/ > cases/migrated.jsonl

What a source holds that evalrun cannot express (a model-graded assertion, an expected reply, a
simulated user's action) is a warning on stderr, and in the results' `warnings`, naming the
file and the field: never a silent drop. Ids are the source's own where it has them; otherwise a
stable id made from the record's content (`goldens-89a7e245aed2`: the same on every read, whatever
the record's place in the file). The lines `evalrun cases` prints read back to the same cases and
grade identically (tests/test_case_formats.py checks it for every source, and as a law for any
case).

A step may judge the whole arguments with the path `""`: `{"judge": {"": "any"}}` (the tool is
called; its arguments are not judged). The formats whose harness compares tool names only
(promptfoo's `tool-call-f1`, DeepEval's `ToolCall` without `input_parameters`) are read that way.

The table and the sections below are generated from the registry (`evalrunner/read/case_formats/`)
by `scripts/case_formats_doc.py`; a test keeps them the same.

"""

OUTRO = """
## Fixtures

`tests/data/case_formats/<source>/` holds one suite per source, scored against
`tests/data/case_formats/traces/runs.jsonl`. DeepEval's goldens are written by DeepEval's own
`EvaluationDataset.save_as` (`scripts/case_fixtures.py`, run in `.venv/integrations`: `make
integrations`); the file name carries the version that wrote them. `adk_written/` is written by
google-adk 2.13's own `LocalEvalSetsManager` (the eval set, as `adk web` saves one) and
`EvalConfig` (its `test_config.json`, whose match type is the Enum's number) with the same script,
and MLflow's `dataset.mlflow-*.jsonl` by `mlflow.genai.datasets` (its `to_df()`, exported as
JSON lines), and agentevals' `examples.langchain-core-*.jsonl` by langchain-core's own `dumpd()`,
`messages_to_dict()` and `model_dump()`. The others are written in their documented formats, at
the versions the table names.

## Not read

- BFCL's multi-turn state check: its ground truth (Python call strings per turn) is read as one
  sequence matched `contains`, with a warning naming the record.
- What a harness's metric is configured with in code, not in the suite's file: DeepEval's
  `ToolCorrectnessMetric(should_consider_ordering=..., should_exact_match=...)` and MLflow's
  `ToolCallCorrectness(should_consider_ordering=...)` (both unordered by default). Their cases read
  as `exact`; change `match` in the lines `evalrun cases` prints to grade as the metric did.
- DeepEval's `save_as(file_type="csv")` files (a case file is JSON, JSON lines or YAML): save the
  goldens as `json` or `jsonl`, which are read.
- tau-bench's tasks as Python (`tasks_test.py`): case files are data, never executed; tau-bench
  tasks exported as JSON are read.
- promptfoo assertions other than `tool-call-f1` and `is-valid-openai-tools-call`, and ADK criteria
  other than `tool_trajectory_avg_score`: each named in a warning.
"""


def render() -> str:
    parts = [INTRO, formats_table(), "\n"]
    for f in CASE_FORMATS.values():
        module = importlib.import_module(f"evalrunner.read.case_formats.{f.name}")
        parts.append(f"\n## `{f.name}`: {f.version}\n\n{inspect.getdoc(module) or ''}\n")
    parts.append(OUTRO)
    return "".join(parts)


if __name__ == "__main__":
    DOC.write_text(render())
    print(f"wrote {DOC}")
