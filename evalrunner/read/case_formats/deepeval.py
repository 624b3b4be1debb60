"""DeepEval goldens and test cases as `EvaluationDataset.save_as(file_type="json")` writes them.

Each golden's `expected_tools` (`ToolCall`: `name`, `input_parameters`) are the canonical
sequence. DeepEval's `ToolCorrectnessMetric` compares names only unless asked for the input
parameters: a `ToolCall` without `input_parameters` is a step whose arguments are not judged
(`"judge": {"": "any"}`). The other fields (`expected_output`, `context`, `expectations`, …) are
not tool calls: each one a golden holds is named in a warning. A golden without
`expected_tools` (`save_as` writes `[]` and `None` alike as `null`) is read as expecting no tool
call, and a warning names it.
"""

from __future__ import annotations

from typing import Any

from ._steps import step, text_of
from .format import CaseFormat, Native, Source, every, records, stable_id

IGNORED = (
    "expected_output",
    "context",
    "retrieval_context",
    "actual_output",
    "tools_called",
    "expectations",
)
"""What a golden may hold that is not an expected tool call (`expectations`, DeepEval 4's `must` and
`must_not` conditions, is judged by a model)."""


def _detect(source: Source) -> bool:
    return every(source, lambda r: isinstance(r, dict) and "expected_tools" in r and "input" in r)


def _holds(key: str, value: Any) -> bool:
    """Whether a golden's field says something (an `Expectations` without conditions does not)."""
    if key == "expectations" and isinstance(value, dict):
        return any(value.get(k) for k in ("must", "must_not", "mustNot"))
    return bool(value)


def _read(source: Source) -> list[Native]:
    out: list[Native] = []
    for i, rec in records(source):
        at = f"[{i}]"
        steps = []
        if not rec.get("expected_tools"):
            source.warn(
                f"{at}.expected_tools",
                "none (save_as writes an empty list and none alike as null): read as expecting "
                "no tool call",
            )
        for j, tool in enumerate(rec.get("expected_tools") or []):
            tool = tool if isinstance(tool, dict) else {}
            params = tool.get("input_parameters", tool.get("inputParameters"))
            s = step(source, f"{at}.expected_tools[{j}]", tool.get("name"), params)
            if s is not None:
                if params is None:  # DeepEval compares the name only: so does the case
                    s["judge"] = {"": "any"}
                steps.append(s)
        for key in IGNORED:
            if _holds(key, rec.get(key)):
                source.warn(f"{at}.{key}", "not a tool call: evalrun does not grade it")
        meta = (
            rec.get("additional_metadata")
            if isinstance(rec.get("additional_metadata"), dict)
            else {}
        )
        rid = rec.get("id", rec.get("name", meta.get("id")))
        case_id = (
            rid if isinstance(rid, str) and rid else stable_id(source.file.name.split(".")[0], rec)
        )
        case = {
            "id": case_id,
            "input": text_of(rec.get("input")),
            "accept": [steps],
            "match": "exact",
        }
        out.append((case, source.where(i)))
    return out


FORMAT = CaseFormat(
    name="deepeval",
    summary="DeepEval goldens / test cases saved by `EvaluationDataset.save_as` (JSON): "
    "`expected_tools` (`ToolCall` `name`, `input_parameters`), in order",
    looks_like='records with "input" and "expected_tools"',
    version="deepeval 3.x and 4.x (the fixture saved by 4.3.1)",
    suffixes=(".json", ".jsonl"),
    detect=_detect,
    read=_read,
    order=20,
)
