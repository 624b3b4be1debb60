"""Repeated trials: per case, its runs and how many passed; and pass^k over the cases.

pass^k (tau-bench's measure) is the chance that k trials of a case, drawn at random without
replacement, all pass: C(c, k) / C(n, k) for a case with c passes in n runs, averaged over the
cases. It is computed for k = 1 ... the smallest number of runs of any case, so that every case
counts at every k. pass^1 is the mean per-case pass rate (not the run pass rate: a case with
many runs weighs no more than one with few); as k grows, a case that passes only sometimes
drops out fast, which is the point: an agent that is right 80% of the time is rarely right
four times in a row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import accumulate
from operator import add, mul
from typing import Any


@dataclass
class CaseTrials:
    """One case's runs and passes; counts, so they merge by adding."""

    runs: int = 0
    reported_passes: int = 0
    true_passes: int = 0

    def merge(self, other: CaseTrials) -> None:
        self.runs += other.runs
        self.reported_passes += other.reported_passes
        self.true_passes += other.true_passes


def all_pass(passes: int, runs: int, k: int) -> float:
    """C(passes, k) / C(runs, k): the chance that k of the runs, drawn without replacement, all
    passed. As a product of k ratios (passes - i) / (runs - i), so large counts stay cheap."""
    if not 0 < k <= runs:
        raise ValueError(f"k must be between 1 and the number of runs ({runs}), not {k}")
    chance = 1.0
    for i in range(k):
        if passes - i <= 0:
            return 0.0
        chance *= (passes - i) / (runs - i)
    return chance


def pass_hat_k(cases: Mapping[str, CaseTrials], check: str) -> list[float]:
    """pass^k for k = 1 ... the fewest runs of any case, of the `reported` or `true` check.

    Each case's chance is carried from k to k + 1 by one more ratio (a running product), so
    this costs cases × k, not cases × k²: at 600,000 runs of 300 cases, k goes to about 2,000.
    """
    if not cases:
        return []
    ordered = [cases[name] for name in sorted(cases)]  # a fixed order: the same sums every time
    fewest = min(t.runs for t in ordered)
    sums = [0.0] * fewest
    for t in ordered:
        passes = t.reported_passes if check == "reported" else t.true_passes
        last = min(passes, fewest)  # beyond `passes` draws, some draw fails: the chance is 0
        chances = accumulate(((passes - i) / (t.runs - i) for i in range(last)), mul)
        sums[:last] = map(add, sums[:last], chances)
    return [total / len(ordered) for total in sums]


def shown_ks(count: int) -> list[int]:
    """Which k a report lists when there are `count`: 1 to 8, then powers of two, and the
    last (JSON has them all)."""
    ks = [k for k in range(1, min(count, 8) + 1)]
    k = 16
    while k < count:
        ks.append(k)
        k *= 2
    if count > 8:
        ks.append(count)
    return ks


def has_repeats(cases: Mapping[str, CaseTrials]) -> bool:
    """Some case has more than one run: trials are worth reporting."""
    return any(t.runs > 1 for t in cases.values())


def trials_json(cases: Mapping[str, CaseTrials]) -> dict[str, Any]:
    """`summary.trials`: the fewest and most runs of a case, pass^k both ways, and per case the
    runs and passes."""
    reported, true = pass_hat_k(cases, "reported"), pass_hat_k(cases, "true")
    runs = [t.runs for t in cases.values()]
    return {
        "min_trials": min(runs),
        "max_trials": max(runs),
        "pass_hat_k": [
            {"k": k, "reported": round(r, 4), "true": round(t, 4)}
            for k, (r, t) in enumerate(zip(reported, true), 1)
        ],
        "cases": {
            name: {
                "runs": t.runs,
                "reported_passes": t.reported_passes,
                "true_passes": t.true_passes,
            }
            for name, t in sorted(cases.items())
        },
    }
