"""evalrun's own results, told from runs by their structure, never by the words they contain.

A trace whose agent wrote `"verdict"`, `"reported"` and `"true"` in its arguments, or whose `meta`
holds them, is a run: only a record with the results' keys, each of the results' type, is a
results record (SPEC "Results JSON"): a run result (`score --format jsonl`, one a line), the last
line of that output (`{"errors", "summary", "warnings"}`), or the whole document of
`score --format json`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..model import VERDICTS

RUN_KEYS: Final = {
    "run_id": str,
    "case_id": str,
    "source": str,
    "verdict": str,
    "shapes": list,
    "reported": dict,
    "true": dict,
    "calls": list,
    "missing": list,
    "effects": list,
    "suspects": list,
}
"""A run result's keys with their types (it has more, which are not needed to tell it)."""
SUMMARY_KEYS: Final = {
    "runs": int,
    "unscoreable": int,
    "verdicts": dict,
    "reported": dict,
    "true": dict,
}
DOCUMENT_KEYS: Final = frozenset({"evalrun", "summary", "runs", "errors", "warnings"})


def is_results_record(value: Any) -> bool:
    """Whether a decoded record is one of evalrun's results records (a run result, the summary
    line, or a whole results document), by its keys and their types."""
    return is_results_run(value) or _is_summary_record(value)


def is_results_run(value: Any) -> bool:
    """Whether a decoded record is a run result as `score` writes it: every key of the layout,
    each of its type, the verdict one of evalrun's, both checks' `pass` a boolean, and every
    call an object with its `index` and `label`."""
    if type(value) is not dict or not _typed(value, RUN_KEYS):
        return False
    if value["verdict"] not in VERDICTS:
        return False
    if any(type(value[check].get("pass")) is not bool for check in ("reported", "true")):
        return False
    return all(
        type(c) is dict and type(c.get("index")) is int and type(c.get("label")) is str
        for c in value["calls"]
    )


def _is_summary_record(value: Any) -> bool:
    if type(value) is not dict or type(value.get("summary")) is not dict:
        return False
    if not set(value) <= DOCUMENT_KEYS or not _typed(value["summary"], SUMMARY_KEYS):
        return False
    return all(type(value[k]) is list for k in ("runs", "errors", "warnings") if k in value)


def _typed(record: dict[str, Any], keys: Mapping[str, type]) -> bool:
    return all(type(record.get(k)) is t for k, t in keys.items())
