"""The comparison: a reviewer's labels against evalrun's verdicts on the same runs.

- `hand`: the true run failure rate estimated from the labels (stratified, `stats`), and the two
  shares the motivating post reported: correct runs among reported failures, wrong runs among
  reported passes, each with its Wilson interval;
- `measured`: evalrun's reported and true run failure rates on the whole population (and its own
  two shares, to read beside the hand's);
- `agreement`: over labelled runs, the label (`correct`, `wrong`) against evalrun's true check
  (`pass`, `fail`): the table, the rate and Cohen's kappa;
- `disagreements`: each labelled run where they differ, with the lead it gives.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._version import __version__
from ..grade.grader import RunResult
from ..jsonvalue import short_json
from ..model import PREDICATES, TraceError
from ..summary import Summary
from ..write.results import error_to_json
from .digest import Changes
from .review import explain, rules_used
from .sampling import STRATA
from .sheet import STRATUM_COUNTS, Entry, Header
from .stats import Estimate, Stratum, cohen_kappa, stratified_rate, wilson

MISSING_RULE = "missing rule, default or alternate"
"""The lead of a run the reviewer calls correct and evalrun fails."""
RULE_TO_DOUBT = "a rule to doubt or a missing effect assertion"
"""The lead of a run the reviewer calls wrong and evalrun passes."""
DIGITS = 4


@dataclass(frozen=True)
class Disagreement:
    entry: Entry
    result: RunResult

    @property
    def evalrun(self) -> str:
        return "pass" if self.result.true_pass else "fail"

    @property
    def lead(self) -> str:
        return MISSING_RULE if self.entry.label == "correct" else RULE_TO_DOUBT

    def hints(self) -> list[str]:
        """Where to look first, from evalrun's explanation of the run (`hints`)."""
        return hints(self.result, self.entry.label == "correct", self.entry.data)

    def detail_lines(self) -> list[str]:
        """The explanation without its first line (the run's ids and verdict)."""
        return explain(self.result).splitlines()[1:]

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.entry.line,
            "run_id": self.entry.run_id,
            "case_id": self.entry.case_id,
            "source": self.result.source,
            "label": self.entry.label,
            "note": self.entry.note,
            "evalrun": self.evalrun,
            "verdict": self.result.verdict,
            "lead": self.lead,
            "hints": self.hints(),
            "rules": rules_used(self.result) if self.entry.label == "wrong" else [],
            "detail": explain(self.result),
        }


@dataclass(frozen=True)
class ChangedRun:
    """A run of the sheet whose record is not what the reviewer read."""

    entry: Entry
    what: tuple[str, ...]
    """Which of its parts changed: calls, world."""


@dataclass(frozen=True)
class Audit:
    """A scored audit sheet: everything `audit score` prints."""

    sheet: str
    header: Header
    counts: Mapping[str, Mapping[str, int]]
    """Stratum -> label (correct, wrong, or unlabelled) -> lines of the sheet."""
    rate: Estimate
    correct_among_failures: Estimate
    wrong_among_passes: Estimate
    summary: Summary
    """evalrun's scoring of the traces as they are now."""
    matrix: Mapping[str, Mapping[str, int]]
    """Label -> evalrun's true check (pass, fail) -> labelled runs."""
    kappa: float | None
    disagreements: Sequence[Disagreement]
    changes: Mapping[str, Changes] = field(default_factory=dict)
    changed_runs: Sequence[ChangedRun] = ()
    errors: Sequence[TraceError] = ()

    @property
    def labelled(self) -> int:
        return sum(c["correct"] + c["wrong"] for c in self.counts.values())

    @property
    def unlabelled(self) -> int:
        return sum(c["unlabelled"] for c in self.counts.values())

    @property
    def compared(self) -> int:
        """Labelled runs in the agreement: the labelled ones whose record did not change."""
        return sum(sum(row.values()) for row in self.matrix.values())

    @property
    def changed_labelled(self) -> int:
        """Labelled runs left out of the agreement: their record changed since sampling."""
        return self.labelled - self.compared

    @property
    def agree(self) -> int:
        return self.matrix["correct"]["pass"] + self.matrix["wrong"]["fail"]

    def measured(self) -> dict[str, float]:
        s = self.summary
        passes = s.runs - s.reported_failed_runs
        return {
            "reported_run_failure_rate": s.rate(s.reported_failed_runs, s.runs),
            "true_run_failure_rate": s.rate(s.true_failed_runs, s.runs),
            "correct_among_reported_failures": s.rate(
                s.verdicts["false_failure"], s.reported_failed_runs
            ),
            "wrong_among_reported_passes": s.rate(s.verdicts["false_pass"], passes),
        }

    def warnings(self) -> list[str]:
        """What changed since the sheet was sampled, in words."""
        out = []
        for name, change in self.changes.items():
            consequence = {
                "tools": "evalrun's verdicts are those of the tools as they are now",
                "cases": "evalrun's verdicts are those of the cases as they are now",
                "traces": "the runs are scored as they are now",
            }[name]
            out.append(
                f"the {name} changed since the sheet was sampled ({change.describe()}); "
                f"{consequence}"
            )
        for stratum in STRATA:
            present, drawn = sum(self.counts[stratum].values()), self.header.drawn[stratum]
            if present < drawn:
                out.append(
                    f"the sheet holds {present} of the {drawn} {STRATUM_COUNTS[stratum].replace('_', ' ')} "
                    "drawn: lines were removed; the estimate uses the labelled runs left"
                )
        for changed in self.changed_runs:
            e = changed.entry
            out.append(
                f"run {e.run_id} (sheet line {e.line}) is not the run that was read: its "
                f"{' and '.join(changed.what)} changed; read it again (left out of the agreement "
                "and kappa until then)"
            )
        return out

    def to_json(self) -> dict[str, Any]:
        """The document of `audit score --format json` (SPEC "`evalrun audit`")."""
        pop = self.header.population
        return {
            "evalrun": __version__,
            "sheet": self.sheet,
            "population": {
                "runs": self.header.runs,
                **{STRATUM_COUNTS[s]: pop[s] for s in STRATA},
            },
            "sample": {
                **{STRATUM_COUNTS[s]: sum(self.counts[s].values()) for s in STRATA},
                "labelled": self.labelled,
                "unlabelled": self.unlabelled,
                "counts": {s: dict(self.counts[s]) for s in STRATA},
            },
            "hand": {
                "true_run_failure_rate": _round(self.rate.value),
                "ci95": _interval(self.rate),
                "correct_among_reported_failures": _round(self.correct_among_failures.value),
                "correct_among_reported_failures_ci95": _interval(self.correct_among_failures),
                "wrong_among_reported_passes": _round(self.wrong_among_passes.value),
                "wrong_among_reported_passes_ci95": _interval(self.wrong_among_passes),
            },
            "measured": {"runs": self.summary.runs, **self.measured()},
            "agreement": {
                "runs": self.compared,
                "agree": self.agree,
                "rate": _round(self.agree / self.compared if self.compared else None),
                "left_out_changed": self.changed_labelled,
                "kappa": _round(self.kappa),
                "matrix": {label: dict(row) for label, row in self.matrix.items()},
            },
            "disagreements": [d.to_json() for d in self.disagreements],
            "changed": {
                "inputs": {name: c.to_json() for name, c in self.changes.items()},
                "runs": [
                    {"line": c.entry.line, "run_id": c.entry.run_id, "changed": list(c.what)}
                    for c in self.changed_runs
                ],
            },
            "warnings": self.warnings(),
            "errors": [error_to_json(e) for e in self.errors],
        }


def hints(result: RunResult, read_correct: bool, line: Mapping[str, Any]) -> list[str]:
    """A disagreement's lead made specific: what in evalrun's explanation to look at first.

    Read correct, failed by evalrun: a call the case forbids (an entry too wide?), each
    difference no rule absorbs (a rule or a default to declare; a step's judge to widen), a repeat
    it calls a loop (a tool to mark repeatable), calls that follow no accepted sequence (an
    alternate), an effect assertion that failed (one to check). Read wrong, passed by evalrun: the
    rules and judges that made its calls equal (to doubt first), the reads a case graded on writes
    left unjudged, and the effects that did not look (none asserted, or no world recorded)."""
    out = []
    if read_correct:
        for c in result.calls:
            if c.label == "forbidden":
                out.append(
                    f"call {c.index} to {c.tool} is forbidden ({c.reason}): does the case forbid "
                    "too much?"
                )
            elif c.label == "redundant":
                out.append(
                    f"call {c.index} to {c.tool} repeats call {c.repeats}: if repeating it is "
                    "harmless (polling), mark the tool x-eval-repeatable (or list it in the "
                    "case's repeatable)"
                )
            elif c.label == "mismatch" and c.comparison is not None:
                for d in c.comparison.diffs:
                    if d.kind == "mismatch" and d.norm in PREDICATES:
                        out.append(
                            f"{c.tool}.{d.path or '(args)'}: {short_json(d.actual)} fails the "
                            f"step's judge ({d.norm}): widen it?"
                        )
                    elif d.kind == "mismatch":
                        out.append(
                            f"{c.tool}.{d.path or '(args)'}: {short_json(d.actual)} against "
                            f"{short_json(d.expected)}: a rule or a default that makes them equal?"
                        )
            elif c.label == "unexpected":
                out.append(f"call {c.index} to {c.tool} is in no accepted sequence: an alternate?")
        if result.accepted is None and result.missing and not out:
            steps = ", ".join(step.tool for _, step in result.missing)
            out.append(f"steps missing ({steps}): another accepted sequence?")
        for e in result.effects:
            if e.ok is False:
                out.append(f"the effect {e.op} at {e.at or '/'} failed ({e.detail}): is it right?")
        return out
    out = [
        f"{r['tool']}.{r['param']} matched through the step's judge ({r['norm']}): doubt it first"
        if r["norm"] in PREDICATES
        else f"{r['tool']}.{r['param']} matched through the rule {r['norm']}: doubt it first"
        for r in rules_used(result)
    ]
    if any(c.label == "read" for c in result.calls):
        out.append(
            "the case is graded on writes: its calls to read-only tools were not judged; did "
            "a read matter?"
        )
    if not line.get("effects"):
        out.append("the case asserts no effect: one that tells this run from a good one?")
    elif any(e.ok is None for e in result.effects):
        out.append("no world recorded: the effect assertions went unchecked")
    else:
        out.append(
            "every effect assertion held: is one missing, or does an accepted sequence "
            "accept too much?"
        )
    return out


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, DIGITS)


def _interval(e: Estimate) -> list[float]:
    return [round(e.low, DIGITS), round(e.high, DIGITS)]


def compare(
    sheet: str,
    header: Header,
    entries: Sequence[Entry],
    results: Mapping[int, RunResult],
    summary: Summary,
    *,
    changes: Mapping[str, Changes] | None = None,
    changed_runs: Sequence[ChangedRun] = (),
    errors: Sequence[TraceError] = (),
) -> Audit:
    """The audit of `entries` (a sheet's runs), `results` their results by sheet line."""
    counts = {s: {"correct": 0, "wrong": 0, "unlabelled": 0} for s in STRATA}
    matrix = {label: {"pass": 0, "fail": 0} for label in ("correct", "wrong")}
    disagreements = []
    # A run whose record changed since sampling is not the run the reviewer read: its label says
    # nothing about evalrun's verdict on it now. It is left out of the agreement, as a run no
    # longer in the traces would be, and counted and listed (`changed.runs`).
    changed = {c.entry.line for c in changed_runs}
    for e in entries:
        counts[e.stratum][e.label or "unlabelled"] += 1
        if e.label is None or e.line in changed:
            continue
        result = results[e.line]
        matrix[e.label]["pass" if result.true_pass else "fail"] += 1
        if (e.label == "correct") != result.true_pass:
            disagreements.append(Disagreement(e, result))
    fails, passes = counts["reported_fail"], counts["reported_pass"]
    strata = [
        Stratum(
            header.population[s],
            counts[s]["correct"] + counts[s]["wrong"],
            counts[s]["wrong"],
        )
        for s in STRATA
    ]
    table = [
        [matrix["correct"]["pass"], matrix["correct"]["fail"]],
        [matrix["wrong"]["pass"], matrix["wrong"]["fail"]],
    ]
    return Audit(
        sheet=sheet,
        header=header,
        counts=counts,
        rate=stratified_rate(strata),
        correct_among_failures=wilson(fails["correct"], fails["correct"] + fails["wrong"]),
        wrong_among_passes=wilson(passes["wrong"], passes["correct"] + passes["wrong"]),
        summary=summary,
        matrix=matrix,
        kappa=cohen_kappa(table),
        disagreements=disagreements,
        changes=dict(changes or {}),
        changed_runs=changed_runs,
        errors=errors,
    )
