"""Counts in words, as every report and message writes them: "1 run", "4,000 runs"."""

from __future__ import annotations

from typing import Any


def counted(n: int, noun: str) -> str:
    """`n` (with thousands separators) and `noun`, plural unless `n` is one."""
    return f"{n:,} {plural(n, noun)}"


def plural(n: Any, noun: str) -> str:
    """`noun` as it follows the count `n`: singular for one, else with an "s"."""
    return noun if n == 1 else noun + "s"
