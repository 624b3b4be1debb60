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
    sequence: SPEC "Precise readings", per-call figures), so that another command's count of
    183 is explained."""
    if made is None or made == graded:
        return counted(graded, "call")
    return f"{graded:,} graded {plural(graded, 'call')} of {made:,}"


def reported_legend(reading: str | None) -> str:
    """What the "reported (exact-match)" number is, said where it is shown: its value moves with
    each case's `match` mode, and the default reading forgives exact repeats."""
    if reading == "list":
        return (
            "reported: the whole call list equal, as JSON, to the case's first accepted sequence, "
            "repeats and errored attempts and all (--reported list)"
        )
    return (
        "reported: the case's first accepted sequence held against the calls under the case's "
        "match mode, each call checked exactly on its own, so an exact repeat passes "
        "(--reported list compares the whole call list)"
    )
