"""Pair the two sides, by run or by case, and find the flips and the paired test's counts.

By `run_id` when both sides hold the same runs (the rules or the cases changed); otherwise by
`case_id` (new traces, from a changed agent), where a case's trials compare as pass fractions.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Literal

from ..jsonvalue import short_json
from ..model import InputError
from .causes import case_cause, run_cause
from .result import DiffResult, Flip, Pairing, count_of
from .sources import Side
from .stats import TestResult, mcnemar_exact, sign_test
from .suspects import suspect_rules
from .views import RunView, same_value

PAIRINGS: tuple[str, ...] = ("auto", "run_id", "case_id")

_DIGITS = re.compile(r"([0-9]+)")


def natural_key(key: str) -> tuple[tuple[tuple[int, str] | str, ...], str]:
    """Order ids as a person does: runs of digits as numbers (`r2` before `r10`).

    Digit runs compare by value without int() (a 5,000-digit id is fine): by length once their
    leading zeros are gone, then digit by digit. Ties (`r02`, `r2`) fall back to the text itself,
    so the order is total and the same on every run.
    """
    parts = _DIGITS.split(key)  # text, digits, text, …: the same kind at the same place
    return tuple(_number(p) if i % 2 else p for i, p in enumerate(parts)), key


def _number(digits: str) -> tuple[int, str]:
    value = digits.lstrip("0")
    return len(value), value


def _ids(side: Side) -> tuple[dict[str, RunView], str | None]:
    """Runs by id, and the first duplicated id (None when ids are unique)."""
    found: dict[str, RunView] = {}
    for r in side.runs:
        if r.run_id in found:
            return found, r.run_id
        found[r.run_id] = r
    return found, None


def choose_pairing(old: Side, new: Side, requested: str = "auto") -> tuple[Pairing, str]:
    """`run_id` when both sides hold the same runs; else `case_id`. With the reason, in words."""
    if requested == "case_id":
        return "case_id", "pairing by case_id was asked for"
    a, dup_a = _ids(old)
    b, dup_b = _ids(new)
    dup = ("OLD", dup_a) if dup_a is not None else ("NEW", dup_b) if dup_b is not None else None
    if requested == "run_id":
        if dup is not None:
            raise InputError(
                f"cannot pair by run_id: run id {dup[1]!r} occurs twice on the {dup[0]} side"
            )
        return "run_id", "pairing by run_id was asked for"
    if dup is not None:
        return "case_id", f"run id {dup[1]!r} occurs twice on the {dup[0]} side"
    if a.keys() != b.keys():
        only_a, only_b = len(a.keys() - b.keys()), len(b.keys() - a.keys())
        return "case_id", (
            f"the sides hold different runs ({only_a} run ids only in OLD, {only_b} only in NEW)"
        )
    # In the files' order, not the keys': a run's explanation is read back from its side's
    # store, block by block, and the first run named is the first in natural order.
    other = [key for key, r in a.items() if r.fingerprint != b[key].fingerprint]
    if other:
        key = min(other, key=natural_key)
        what = "another case" if a[key].case_id != b[key].case_id else "other tool calls"
        return "case_id", (
            f"run {key!r} has {what} on each side: the same ids name different recordings"
        )
    changed: dict[str, str] = {}
    for key, r in a.items():
        change = argument_change(r, b[key])
        if change is not None:
            changed[key] = change
    if changed:
        first = min(changed, key=natural_key)
        change = changed[first]
        whose = "1 run's" if len(changed) == 1 else f"{len(changed)} runs'"
        return "case_id", (
            f"{whose} arguments changed (run {first!r}: {change}): the same ids name different "
            "recordings"
        )
    return "run_id", (
        f"both sides hold the same {count_of(len(a), 'run')} (same ids, cases and tools called, "
        "and the same arguments wherever both sides record them)"
    )


def argument_change(o: RunView, n: RunView) -> str | None:
    """An argument the two recordings of one run gave differently, in words; None if none shows.

    A rule or a case can change how a call is explained, never what it sent: wherever both
    explanations record a call's value at a parameter (the results JSON records it where the call
    differs from the case), the values must be equal if the recording is the same one.
    """
    if o.calls_key == n.calls_key:
        return None
    for before, after in zip(o.detail().calls, n.detail().calls):
        for p in after.params:
            q = before.param(p.path)
            if q is not None and not same_value(q.actual, p.actual):
                return f"{after.tool}.{p.path} {short_json(q.actual)} → {short_json(p.actual)}"
    return None


def by_run(old: Side, new: Side, reason: str) -> DiffResult:
    a, _ = _ids(old)
    b, _ = _ids(new)
    flips, improved, regressed = [], 0, 0
    # only a new run with suspects, or an unchecked pass, can count for a suspect rule
    candidates: list[tuple[str, tuple[RunView], tuple[RunView]]] = []
    for key, o in a.items():  # in OLD's order (see choose_pairing); sorted below
        n = b.get(key)
        if n is None:
            continue
        improved += not o.true_pass and n.true_pass
        regressed += o.true_pass and not n.true_pass
        if o.verdict != n.verdict:
            cause = run_cause(o.detail(), n.detail())
            flips.append(Flip(key, o.verdict, n.verdict, cause, shapes=(o.shape, n.shape)))
        if n.suspects or (n.unverified and n.true_pass):
            candidates.append((key, (o,), (n,)))
    flips.sort(key=lambda f: natural_key(f.key))
    candidates.sort(key=lambda c: natural_key(c[0]))
    test = TestResult("exact_mcnemar", improved, regressed, mcnemar_exact(improved, regressed))
    suspects = suspect_rules(candidates)
    unpaired = (len(a.keys() - b.keys()), len(b.keys() - a.keys()))
    return DiffResult("run_id", reason, old, new, tuple(flips), test, unpaired, suspects)


def by_case(old: Side, new: Side, reason: str) -> DiffResult:
    a, b = _group(old.runs), _group(new.runs)
    common = sorted(a.keys() & b.keys(), key=natural_key)
    flips, improved, regressed, reported_only = [], 0, 0, 0
    for key in common:
        o, n = a[key], b[key]
        fo, fn = _fraction(o, "true"), _fraction(n, "true")
        improved += fn > fo
        regressed += fn < fo
        if fo == fn:
            # "75% → 75%" is no flip: only exact-match moved, counted beside the flips
            reported_only += _fraction(o, "reported") != _fraction(n, "reported")
        else:
            flips.append(
                Flip(
                    key,
                    round(float(fo), 4),
                    round(float(fn), 4),
                    case_cause(o, n),
                    (len(o), len(n)),
                )
            )
    test = TestResult("exact_sign", improved, regressed, sign_test(improved, regressed))
    suspects = suspect_rules([(key, a[key], b[key]) for key in common])
    unpaired = (len(a.keys() - b.keys()), len(b.keys() - a.keys()))
    return DiffResult(
        "case_id", reason, old, new, tuple(flips), test, unpaired, suspects, reported_only
    )


def _group(runs: tuple[RunView, ...]) -> dict[str, list[RunView]]:
    out: dict[str, list[RunView]] = {}
    for r in runs:
        out.setdefault(r.case_id, []).append(r)
    return out


def _fraction(runs: list[RunView], check: Literal["reported", "true"]) -> Fraction:
    passed = sum(r.true_pass if check == "true" else r.reported_pass for r in runs)
    return Fraction(passed, len(runs))
