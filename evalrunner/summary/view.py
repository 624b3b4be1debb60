"""The one typed view of a scoring's summary that every score renderer reads: the table, the
Markdown, the HTML page and the JUnit XML.

It is built from the summary object of the results JSON (docs/semantics.md, "Results JSON";
`Summary.to_json()`), the layout a saved results file holds, so a live scoring
(`SummaryView.of(summary)`) and `evalrun report results.json` (`SummaryView.from_json`) hand the
renderers the same view, equal field for field (tests/test_render_view.py). No second layout:
the fields are the JSON's keys, typed. A key the schema lets a file leave out (one written by
an older evalrun) is None, or empty, here; a renderer shows it as `–` or leaves its part out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import Summary


@dataclass(frozen=True)
class Check:
    """One check's failures: `reported` (exact-match) or `true`."""

    failed_runs: int
    run_failure_rate: float
    """Rounded to four places, as the JSON has it; a renderer that can shows the share of the
    counts instead (`failed_runs` of `SummaryView.runs`)."""
    failed_calls: int
    call_failure_rate: float


@dataclass(frozen=True)
class Effects:
    checked: int
    failed: int
    unverified: int


@dataclass(frozen=True)
class Suspect:
    """A rule calls matched through while the recorded world says the run failed."""

    tool: str
    param: str
    norm: str
    runs: int


@dataclass(frozen=True)
class ReplyCall:
    value: Any
    source: str


@dataclass(frozen=True)
class ReplyRule:
    """A rule the tools' replies put in doubt (or confirm): pairs of calls it equates."""

    tool: str
    param: str
    norm: str
    pairs_differ: int
    pairs_agree: int
    sampled: bool
    example: tuple[ReplyCall, ...]
    """The earliest pair whose replies differ (two calls), or () when none is given."""


@dataclass(frozen=True)
class Coverage:
    tools: int
    tools_with_norms: int
    call_share_with_norms: float
    absorbable_calls: int | None


@dataclass(frozen=True)
class ToolFigures:
    """One tool's calls (`by_tool`, most calls first)."""

    tool: str
    calls: int
    reported_failed_calls: int
    true_failed_calls: int
    falsely_failed_calls: int
    """Calls that fail exact-match and not the true check. A file written before the key
    existed gives the most calls one shape explains (a call may show several shapes, so their
    sum would count some twice)."""
    false_failures: Mapping[str, int]


@dataclass(frozen=True)
class Example:
    """The earliest run that shows a shape, with the difference to read."""

    run_id: str
    case_id: str
    source: str
    detail: str


@dataclass(frozen=True)
class PassHatK:
    k: int
    reported: float
    true: float


@dataclass(frozen=True)
class Trials:
    """When a case has several runs: pass^k, reported and true."""

    cases: int
    """Cases with runs."""
    min_trials: int
    max_trials: int
    pass_hat_k: tuple[PassHatK, ...]


@dataclass(frozen=True)
class SummaryView:
    runs: int
    calls: int
    all_calls: int | None
    lines: int | None
    unscoreable: int
    reported_reading: str | None
    reported: Check
    true: Check
    verdicts: Mapping[str, int]
    false_failures: Mapping[str, int]
    false_passes: Mapping[str, int]
    effects: Effects
    suspects: tuple[Suspect, ...]
    """`normalizer_suspects`, the most runs first."""
    reply_evidence: tuple[ReplyRule, ...]
    reply_confirmed: tuple[ReplyRule, ...]
    coverage: Coverage
    by_tool: tuple[ToolFigures, ...]
    examples: Mapping[str, Example]
    trials: Trials | None
    group_by: str | None
    groups: Mapping[str, SummaryView] | None
    """Under `--group-by`: per group, by name, its summary."""
    warnings: tuple[str, ...] = ()
    """What the scoring as a whole should tell (the results JSON's `warnings`, beside its
    summary); on the whole scoring's view only."""

    @classmethod
    def of(cls, summary: Summary) -> SummaryView:
        """The view of a live scoring's summary: of its JSON, as a saved file holds it."""
        return cls.from_json(summary.to_json(), warnings=summary.warnings)

    @classmethod
    def from_json(cls, s: Mapping[str, Any], *, warnings: Sequence[str] = ()) -> SummaryView:
        """The view of a summary object of the results JSON (checked against the results
        schema when read from a file, `write.report`)."""
        groups = s.get("groups")
        return cls(
            runs=s["runs"],
            calls=s["calls"],
            all_calls=s.get("all_calls"),
            lines=s.get("lines"),
            unscoreable=s["unscoreable"],
            reported_reading=s.get("reported_reading"),
            reported=_check(s["reported"]),
            true=_check(s["true"]),
            verdicts=dict(s["verdicts"]),
            false_failures=dict(s["false_failures"]),
            false_passes=dict(s["false_passes"]),
            effects=Effects(**s["effects"]),
            suspects=tuple(Suspect(**x) for x in s["normalizer_suspects"]),
            reply_evidence=tuple(_reply(x) for x in s.get("reply_evidence") or ()),
            reply_confirmed=tuple(_reply(x) for x in s.get("reply_confirmed") or ()),
            coverage=Coverage(
                tools=s["coverage"]["tools"],
                tools_with_norms=s["coverage"]["tools_with_norms"],
                call_share_with_norms=s["coverage"]["call_share_with_norms"],
                absorbable_calls=s["coverage"].get("absorbable_calls"),
            ),
            by_tool=tuple(_tool(t) for t in s["by_tool"]),
            examples={
                shape: Example(x["run_id"], x["case_id"], x["source"], x["detail"])
                for shape, x in (s.get("examples") or {}).items()
            },
            trials=_trials(s.get("trials")),
            group_by=s.get("group_by"),
            groups=(
                {name: cls.from_json(g) for name, g in groups.items()}
                if isinstance(groups, dict)
                else None
            ),
            warnings=tuple(warnings),
        )


def _check(c: Mapping[str, Any]) -> Check:
    return Check(c["failed_runs"], c["run_failure_rate"], c["failed_calls"], c["call_failure_rate"])


def _reply(x: Mapping[str, Any]) -> ReplyRule:
    calls = (x.get("example") or {}).get("calls") or []
    return ReplyRule(
        tool=x["tool"],
        param=x["param"],
        norm=x["norm"],
        pairs_differ=x["pairs_differ"],
        pairs_agree=x["pairs_agree"],
        sampled=bool(x.get("sampled")),
        example=tuple(ReplyCall(c.get("value"), c["source"]) for c in calls),
    )


def _tool(t: Mapping[str, Any]) -> ToolFigures:
    ff = dict(t["false_failures"])
    found = t.get("falsely_failed_calls")
    return ToolFigures(
        tool=t["tool"],
        calls=t["calls"],
        reported_failed_calls=t["reported_failed_calls"],
        true_failed_calls=t["true_failed_calls"],
        falsely_failed_calls=found if isinstance(found, int) else max(ff.values(), default=0),
        false_failures=ff,
    )


def _trials(t: Any) -> Trials | None:
    if not isinstance(t, dict):
        return None
    return Trials(
        cases=len(t["cases"]),
        min_trials=t["min_trials"],
        max_trials=t["max_trials"],
        pass_hat_k=tuple(PassHatK(r["k"], r["reported"], r["true"]) for r in t["pass_hat_k"]),
    )
