"""evalrun's own case files: one case or a list (`.json`), one case a line (`.jsonl`)."""

from __future__ import annotations

from .format import CaseFormat, Source


def _detect(source: Source) -> bool:
    return True  # the fallback for .json and .jsonl: a broken case gets evalrun's own message


FORMAT = CaseFormat(
    name="native",
    summary="evalrun's own cases: `accept`, `match`, `effect`, `judge`, `forbid`, … (and the legacy "
    "`expected_tool`/`expected_args`)",
    looks_like="any other .json or .jsonl file",
    version='evalrun (SPEC "Cases")',
    suffixes=(".json", ".jsonl"),
    detect=_detect,
    read=None,
    order=1000,
)
