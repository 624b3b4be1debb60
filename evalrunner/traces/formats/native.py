"""The native format (SPEC "Traces"): one run a line, its calls in a `calls` list."""

from __future__ import annotations

from typing import Any

from ..format import TraceFormat


def _detect(record: Any) -> bool:
    return type(record) is dict and type(record.get("calls")) is list


def _calls(record: dict[str, Any]) -> Any:
    return record.get("calls")


FORMAT = TraceFormat(
    name="native",
    summary='evalrun\'s own: one run a line, with a "calls" list (SPEC "Traces")',
    looks_like='a "calls" list',
    detect=_detect,
    order=0,
    calls=_calls,
    # Ids as every format reads them: `case_id`, else `metadata.case_id` (SPEC's native record
    # puts them at the top; a logger that writes native records may put them in `metadata`).
)
