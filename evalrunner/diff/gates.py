"""CI gates on a diff (and on one scoring): what makes `evalrun` exit 1, and by how much.

The paired test (`--fail-on-regression`) can only fire with enough discordant pairs: a two-sided
exact binomial test reaches p < 0.05 only when at least 6 runs (or cases) moved, all one way
(2 · 2^-6 = 0.031; with 5, 2 · 2^-5 = 0.0625). A 14-case suite re-recorded (case pairing) where 3
cases broke cannot reach it, however large the drop. The other gates are plain thresholds a
small suite can trip:

- `--fail-above-delta D`: the true run failure rate rose by more than D (a fraction: 0.05 is 5
  points);
- `--fail-on-case-regression`: a case whose true pass share fell (each listed), whatever the
  pairing: a case's runs on each side, as shares;
- `--fail-on-suspect`: a rule creating false passes — a normalizer suspect (SPEC "Normalizer
  suspects": calls matched through a rule while the recorded world says the run failed), or a
  rule whose replies differ (`summary.reply_evidence`).

Each gate that fires is one `Fired`, with the message that says which and by how much.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..words import counted
from .pairing import natural_key
from .result import DiffResult, describe_test
from .sources import Side

MAX_LISTED = 10
"""How many cases or rules a gate's message names; all are counted."""


@dataclass(frozen=True)
class Fired:
    """A gate that fired: its flag (or setting), and what crossed it, in words."""

    gate: str
    message: str


def smallest_suite(alpha: float) -> int:
    """The fewest discordant pairs (runs or cases moving, all one way) for which the exact
    two-sided binomial test can reach p < alpha: 2 · 2^-n < alpha."""
    return max(1, math.floor(1 - math.log2(alpha)) + 1)


def _pct(rate: float) -> str:
    return f"{100 * rate:.1f}%"


def _points(delta: float) -> str:
    return f"{100 * delta:+.1f} pts"


# ---------------------------------------------------------------------------------- the gates


def regression(
    result: DiffResult, alpha: float, flag: str = "--fail-on-regression"
) -> Fired | None:
    """The paired test's gate: the true verdicts got worse with p below alpha."""
    if result.regressed(alpha):
        return Fired(flag, f"{flag}: the true verdicts got worse: {describe_test(result, alpha)}")
    return None


def cannot_fire(result: DiffResult, alpha: float) -> str | None:
    """Why the paired test could not fire on this diff, when it could not even in the worst case:
    fewer paired runs (or cases) than the test needs. None when it could."""
    need = smallest_suite(alpha)
    t = result.test
    paired = t.improved + t.regressed
    if paired >= need:
        return None
    unit = result.unit
    return (
        f"the paired test cannot reach p < {alpha:g} with {counted(paired, unit)} moving "
        f"(it needs at least {need}, all one way); --fail-above-delta and "
        "--fail-on-case-regression can"
    )


def delta_above(result: DiffResult, limit: float, flag: str = "--fail-above-delta") -> Fired | None:
    """The true run failure rate rose by more than `limit` (a fraction)."""
    old, new = result.old, result.new
    before = old.failed("true") / old.n_runs if old.n_runs else 0.0
    after = new.failed("true") / new.n_runs if new.n_runs else 0.0
    rise = after - before
    if rise <= limit:
        return None
    return Fired(
        flag,
        f"{flag}: the true run failure rate rose {_pct(before)} → {_pct(after)} "
        f"({_points(rise)}), more than {100 * limit:.1f} pts",
    )


@dataclass(frozen=True)
class CaseDrop:
    case_id: str
    old: Fraction
    new: Fraction
    trials: tuple[int, int]


def case_drops(old: Side, new: Side) -> list[CaseDrop]:
    """Cases on both sides whose true pass share fell, in natural order of their ids."""
    a, b = _shares(old), _shares(new)
    out = []
    for case_id in sorted(a.keys() & b.keys(), key=natural_key):
        (pa, na), (pb, nb) = a[case_id], b[case_id]
        before, after = Fraction(pa, na), Fraction(pb, nb)
        if after < before:
            out.append(CaseDrop(case_id, before, after, (na, nb)))
    return out


def _shares(side: Side) -> dict[str, tuple[int, int]]:
    """Per case id: (true passes, runs)."""
    out: dict[str, tuple[int, int]] = {}
    for r in side.runs:
        passed, runs = out.get(r.case_id, (0, 0))
        out[r.case_id] = (passed + r.true_pass, runs + 1)
    return out


def case_regression(result: DiffResult, flag: str = "--fail-on-case-regression") -> Fired | None:
    """A case whose true pass share fell, each named (the first few) with its shares."""
    drops = case_drops(result.old, result.new)
    if not drops:
        return None
    shown = ", ".join(
        f"{d.case_id} {_share(d.old, d.trials[0])} → {_share(d.new, d.trials[1])}"
        for d in drops[:MAX_LISTED]
    )
    more = f", and {len(drops) - MAX_LISTED} more" if len(drops) > MAX_LISTED else ""
    whose = "1 case's" if len(drops) == 1 else f"{len(drops):,} cases'"
    return Fired(flag, f"{flag}: {whose} true pass share fell: {shown}{more}")


def _share(share: Fraction, runs: int) -> str:
    passed = share * runs
    return f"{int(passed)}/{runs}" if passed.denominator == 1 else f"{float(share):.0%}"


# ----------------------------------------------------------------------------------- suspects


def replies_differ(summary: Mapping[str, Any]) -> list[str]:
    """The rules whose replies differ, from a summary's `reply_evidence` (SPEC "Normalizer
    suspects": the rules with pairs of calls they equate whose replies differ), each as
    `norm on tool.param`. A results file written before reply evidence has no such key:
    nothing fires."""
    evidence = summary.get("reply_evidence")
    if not isinstance(evidence, list):
        return []
    out = []
    for entry in evidence:
        if not isinstance(entry, dict):
            continue
        differ = entry.get("pairs_differ")
        if type(differ) is int and differ > 0:
            out.append(_rule_name(entry))
    return out


def _rule_name(entry: Mapping[str, Any]) -> str:
    norm = entry.get("norm", entry.get("rule"))
    if isinstance(norm, dict):
        norm = norm.get("name")
    where = ".".join(str(entry[k]) for k in ("tool", "param") if isinstance(entry.get(k), str))
    if isinstance(norm, str) and where:
        return f"{norm} on {where}"
    return where or (norm if isinstance(norm, str) else "a rule")


def suspects_in(summary: Mapping[str, Any]) -> list[str]:
    """A summary's normalizer suspects, each as `norm on tool.param (N runs)`."""
    found = summary.get("normalizer_suspects")
    if not isinstance(found, list):
        return []
    return [
        f"{s.get('norm')} on {s.get('tool')}.{s.get('param')} ({counted(s.get('runs', 0), 'run')})"
        for s in found
        if isinstance(s, dict)
    ]


def suspect_gate(
    suspects: Sequence[str], differing: Sequence[str], flag: str = "--fail-on-suspect"
) -> Fired | None:
    """Rules creating false passes: normalizer suspects, and rules whose replies differ."""
    parts = []
    if suspects:
        parts.append(f"normalizer suspects: {_listed(suspects)}")
    if differing:
        parts.append(f"rules whose replies differ: {_listed(differing)}")
    if not parts:
        return None
    return Fired(flag, f"{flag}: a rule may be creating false passes; " + "; ".join(parts))


def _listed(names: Iterable[str]) -> str:
    names = list(names)
    more = f", and {len(names) - MAX_LISTED} more" if len(names) > MAX_LISTED else ""
    return ", ".join(names[:MAX_LISTED]) + more


def diff_suspects(result: DiffResult, flag: str = "--fail-on-suspect") -> Fired | None:
    """A diff's suspect gate: rules through which calls newly match while the world says the run
    failed (`suspect_rules`), and rules whose replies differ on NEW and did not on OLD."""
    new_rules = [
        f"{s.norm} on {s.tool}.{s.param} ({counted(s.runs, 'run')})" for s in result.suspect_rules
    ]
    before = set(replies_differ(result.old.summary))
    differing = [r for r in replies_differ(result.new.summary) if r not in before]
    return suspect_gate(new_rules, differing, flag)
