"""MLflow evaluation dataset records: `{"inputs", "expectations": {"expected_tool_calls"}}`.

Each expected call is `{"name", "arguments"}` (MLflow's `FunctionCall`). A call without
`arguments` is judged by its name only (`"judge": {"": "any"}`), as MLflow's `ToolCallCorrectness`
documents (`{"name": "search"}`: "only check tool name"; MLflow then compares every call's name
only, evalrun that call's alone). The other expectations (`expected_response`, `expected_facts`,
`guidelines`) are judged by models, and named in a warning.
"""

from __future__ import annotations

from typing import Any

from ._steps import step, text_of
from .format import CaseFormat, Native, Source, every, records, stable_id

KEY = "expected_tool_calls"


def _expectations(record: Any) -> Any:
    return record.get("expectations") if isinstance(record, dict) else None


def _detect(source: Source) -> bool:
    return every(source, lambda r: isinstance(_expectations(r), dict) and KEY in _expectations(r))


def _read(source: Source) -> list[Native]:
    out: list[Native] = []
    for i, rec in records(source):
        at = f"[{i}].expectations"
        exp: dict[str, Any] = _expectations(rec)
        steps = []
        for j, call in enumerate(exp.get(KEY) or []):
            call = call if isinstance(call, dict) else {}
            fn: dict[str, Any] = (
                call["function"] if isinstance(call.get("function"), dict) else call
            )
            args = fn.get("arguments", fn.get("args"))
            s = step(source, f"{at}.{KEY}[{j}]", fn.get("name"), args)
            if s is not None:
                if args is None:  # MLflow checks the name only: so does the case
                    s["judge"] = {"": "any"}
                steps.append(s)
        for key in sorted(exp):
            if key != KEY:
                source.warn(f"{at}.{key}", "not a tool call: evalrun does not grade it")
        rid = rec.get("dataset_record_id", rec.get("id", rec.get("record_id")))
        case_id = (
            rid if isinstance(rid, str) and rid else stable_id(source.file.name.split(".")[0], rec)
        )
        inputs = rec.get("inputs")
        if isinstance(inputs, dict) and len(inputs) == 1:
            inputs = next(iter(inputs.values()))
        out.append(
            (
                {"id": case_id, "input": text_of(inputs), "accept": [steps], "match": "exact"},
                source.where(i),
            )
        )
    return out


FORMAT = CaseFormat(
    name="mlflow",
    summary="MLflow evaluation dataset records: `expectations.expected_tool_calls` (`name`, "
    "`arguments`), in order; a call without `arguments` judged by its name",
    looks_like='records with "expectations": {"expected_tool_calls": [...]}',
    version="mlflow 3.x (mlflow.genai)",
    suffixes=(".json", ".jsonl"),
    detect=_detect,
    read=_read,
    order=30,
)
