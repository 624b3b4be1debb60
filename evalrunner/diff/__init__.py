"""Compare two scorings: what moved, why, and whether the move is more than noise.

Each side of a diff is a results file (`evalrun score --format json` or `jsonl`), a trace file or
directory scored with the current tools and cases, standard input, or a git revision whose own
tools, cases and traces are read raw from git's objects (the user's working tree is never touched). A
path that exists wins over a revision of the same name.

Pairing: by `run_id` when both sides hold the same runs (same ids, each of the same case, calling
the same tools in the same order with the same arguments as far as both record them: the rules or
the cases changed); otherwise by `case_id` (new traces, from a changed agent), where a case's
trials compare as pass fractions. The paired test is on the true verdicts: exact McNemar over
runs, an exact sign test over cases. Both are the two-sided binomial test of "improved" against
"regressed" with p = 1/2 (see stats.py).

The modules, in the order data flows through them: `sources` reads each side (`git` for a
revision) into `views`, one small view per run built from the results-JSON layout, so a results
file and a freshly scored trace set are compared by the same code; `pairing` pairs them and finds
the flips, explained by `causes`, with `suspects` and the test of `stats`; `result` holds what was
found.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import BinaryIO

from ..grade.grader import PER_CALL
from ..model import InputError
from ..summary.groups import parse_key
from ..traces import STDIN, Reading
from .causes import case_cause, failure_reason, run_cause
from .git import checkout
from .pairing import PAIRINGS, by_case, by_run, choose_pairing
from .result import SHAPES, DiffResult, Flip, Pairing, describe_test, split_groups
from .sources import Loader, Side, same_reading
from .stats import TestResult, binomial_two_sided, mcnemar_exact, sign_test
from .suspects import SuspectRule
from .views import CallView, EffectView, ParamView, RunView

__all__ = [
    "PAIRINGS",
    "SHAPES",
    "CallView",
    "DiffResult",
    "EffectView",
    "Flip",
    "Pairing",
    "ParamView",
    "Reading",
    "RunView",
    "Side",
    "SuspectRule",
    "TestResult",
    "binomial_two_sided",
    "case_cause",
    "checkout",
    "choose_pairing",
    "describe_test",
    "diff",
    "failure_reason",
    "mcnemar_exact",
    "run_cause",
    "sign_test",
]


def diff(
    old: str,
    new: str,
    *,
    tools: str | Path = "tools",
    cases: str | Path = "cases",
    traces: str | Path = "traces",
    pairing: str = "auto",
    cwd: str | Path | None = None,
    stdin: BinaryIO | None = None,
    reading: Reading | None = None,
    group_by: str | None = None,
    reported: str = PER_CALL,
    case_format: str = "auto",
) -> DiffResult:
    """Read both sides, pair them, and explain every flip.

    `tools`, `cases` and `traces` (relative to `cwd`, default the current directory) are where the
    trace sides' rules live and where a revision's own tools, cases and traces are read from. A
    side `-` is read from `stdin` (default: standard input). `reading` says how trace sides are
    read, as for `scoring.score`. `group_by` (`score --group-by`'s KEY) also compares each group:
    its rates, flips and test (`DiffResult.groups`), under the pairing the whole diff chose.
    `reported` is how the sides it scores read the reported check (`score --reported`); a
    results file keeps its own reading, and sides that read it differently are an InputError.
    `case_format` is how the case files are written (`score --case-format`), on every side.
    """
    if pairing not in PAIRINGS:
        raise InputError(f"pairing must be one of {', '.join(PAIRINGS)}, not {pairing!r}")
    if old == new == STDIN:
        raise InputError(
            "OLD and NEW are both - : standard input can be read only once; save one side to a file"
        )
    base = Path(cwd) if cwd is not None else None
    reading = reading or Reading()
    if group_by is not None:
        parse_key(group_by)
    loader = Loader(
        Path(tools),
        Path(cases),
        Path(traces),
        base,
        reading=reading,
        stdin=stdin,
        group_by=group_by,
        reported=reported,
        case_format=case_format,
    )
    a = loader.load(old, "OLD")
    b = loader.load(new, "NEW")
    same_reading((old, a), (new, b), reported)
    chosen, reason = choose_pairing(a, b, pairing)
    pair = by_run if chosen == "run_id" else by_case
    result = pair(a, b, reason)
    if group_by is None:
        return result
    groups = tuple((name, pair(*sides, reason)) for name, sides in split_groups(a, b))
    return replace(result, group_by=group_by, groups=groups)
