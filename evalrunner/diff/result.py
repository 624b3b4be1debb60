"""What a diff found: the flips, the test, the suspect rules, and the test in words."""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Literal

from ..shapes import FALSE_FAILURE_SHAPES, FALSE_PASS_SHAPES
from ..summary.groups import NO_GROUP
from .sources import Side
from .stats import TestResult
from .suspects import SuspectRule
from .views import RunView

Pairing = Literal["run_id", "case_id"]


@dataclass(frozen=True)
class Flip:
    key: str
    old: str | float
    """The verdict (run pairing) or the true pass fraction (case pairing)."""
    new: str | float
    cause: str
    trials: tuple[int, int] | None = None
    """Case pairing: the number of runs of the case on each side."""
    shapes: tuple[str | None, str | None] | None = None
    """Run pairing: the run's shape on each side (None for `pass` and `fail`)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "key": self.key,
            "old": self.old,
            "new": self.new,
            "cause": self.cause,
        }
        if self.trials is not None:
            out["trials"] = {"old": self.trials[0], "new": self.trials[1]}
        if self.shapes is not None:
            out["shape"] = {"old": self.shapes[0], "new": self.shapes[1]}
        return out


@dataclass(frozen=True)
class DiffResult:
    pairing: Pairing
    pairing_reason: str
    old: Side
    new: Side
    flips: tuple[Flip, ...]
    test: TestResult
    unpaired: tuple[int, int]
    """Keys (runs or cases) found on the old side only, and on the new side only."""
    suspect_rules: tuple[SuspectRule, ...]
    reported_only: int = 0
    """Case pairing: cases whose exact-match pass fraction moved while their true one did not
    (not flips: the true verdicts, which flips and the test are about, did not move)."""
    group_by: str | None = None
    """`diff --group-by KEY`: the runs were also compared group by group, in `groups`."""
    groups: tuple[tuple[str, DiffResult], ...] = ()
    """Per group (by name), the diff of its runs alone, under the whole diff's pairing."""

    @property
    def unit(self) -> str:
        return "run" if self.pairing == "run_id" else "case"

    def delta(self) -> dict[str, float]:
        return {
            f"{check}_run_failure_rate": round(
                _rate(self.new.failed(check), self.new.n_runs)
                - _rate(self.old.failed(check), self.old.n_runs),
                4,
            )
            for check in ("reported", "true")
        }

    def regressed(self, alpha: float) -> bool:
        """The true verdicts got worse, and the paired test says it is unlikely to be noise."""
        t = self.test
        return t.regressed > t.improved and t.p_value < Fraction(alpha)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pairing": self.pairing,
            "pairing_reason": self.pairing_reason,
            "old": self.old.to_json(),
            "new": self.new.to_json(),
            "delta": self.delta(),
            "flips": [f.to_json() for f in self.flips],
            "test": self.test.to_json(),
            "unpaired": {"old": self.unpaired[0], "new": self.unpaired[1]},
            "suspect_rules": [s.to_json() for s in self.suspect_rules],
        }
        if self.pairing == "case_id":
            out["reported_only"] = self.reported_only
        if self.group_by is not None:
            out["group_by"] = self.group_by
            out["groups"] = {name: g.group_json() for name, g in self.groups}
        return out

    def group_json(self) -> dict[str, Any]:
        """One group's part of a diff: its runs and true failures on each side, the change, its
        flips and its test (the sides' sources and summaries are the whole diff's)."""
        return {
            "old": {"runs": self.old.n_runs, "true_failed_runs": self.old.failed("true")},
            "new": {"runs": self.new.n_runs, "true_failed_runs": self.new.failed("true")},
            "delta": self.delta(),
            "flips": [f.to_json() for f in self.flips],
            "test": self.test.to_json(),
            "unpaired": {"old": self.unpaired[0], "new": self.unpaired[1]},
        }


def split_groups(old: Side, new: Side) -> list[tuple[str, tuple[Side, Side]]]:
    """Both sides cut by group (a run under `case.tags` in each of its tags'), by group name."""
    names: set[str] = set()
    cut: list[dict[str, list[RunView]]] = []
    for side in (old, new):
        by: dict[str, list[RunView]] = {}
        for r in side.runs:
            group = r.group if r.group is not None else NO_GROUP
            for name in (group,) if type(group) is str else group:
                by.setdefault(name, []).append(r)
        names |= by.keys()
        cut.append(by)
    out = []
    for name in sorted(names):
        sides = tuple(
            replace(side, summary={}, runs=tuple(part.get(name, ())))
            for side, part in zip((old, new), cut)
        )
        out.append((name, (sides[0], sides[1])))
    return out


def _rate(failed: int, total: int) -> float:
    return failed / total if total else 0.0


def describe_test(result: DiffResult, alpha: float) -> str:
    """The test in words a reader can act on."""
    t, unit = result.test, result.unit
    if t.improved + t.regressed == 0:
        return f"No {unit} changed its true verdict: nothing moved, nothing to test."
    counts = f"{count_of(t.improved, unit)} improved, {t.regressed} regressed"
    p = float(t.p_value)
    shown = _p_text(p, alpha)
    if p < alpha:
        way = "an improvement" if t.improved > t.regressed else "a regression"
        return f"{counts}; {shown}: unlikely to be noise at alpha {alpha:g} ({way})."
    return f"{counts}; {shown}: could well be noise at alpha {alpha:g}."


def count_of(n: int, unit: str) -> str:
    return f"{n} {unit}" + ("" if n == 1 else "s")


def _p_text(p: float, alpha: float) -> str:
    if p < 0.001:
        return "p < 0.001"
    for digits in (2, 3, 4, 6):
        text = f"{p:.{digits}g}"
        if (float(text) < alpha) == (p < alpha):
            return f"p = {text}"
    return f"p = {p!r}"


SHAPES = (("false_failures", FALSE_FAILURE_SHAPES), ("false_passes", FALSE_PASS_SHAPES))
"""The shape counts a diff shows side by side, by summary key."""
