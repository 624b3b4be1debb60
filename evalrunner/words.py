"""Counts in words, as every report and message writes them: "1 run", "4,000 runs"."""

from __future__ import annotations

from typing import Any


def counted(n: int, noun: str) -> str:
    """`n` (with thousands separators) and `noun`, plural unless `n` is one."""
    return f"{n:,} {plural(n, noun)}"


def plural(n: Any, noun: str) -> str:
    """`noun` as it follows the count `n`: singular for one, else with an "s"."""
    return noun if n == 1 else noun + "s"


def graded_calls(graded: int, made: int | None) -> str:
    """The calls a summary counts: `165 calls`, or `165 graded calls of 183` when some calls
    were left out of the figures (`extra` calls, which the match mode lets stand outside the
    sequence: SPEC "Per-call figures"), so that another command's count of 183 is explained."""
    if made is None or made == graded:
        return counted(graded, "call")
    return f"{graded:,} graded {plural(graded, 'call')} of {made:,}"
