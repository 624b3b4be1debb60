"""Many run results -> one summary that merges exactly.

Files, worker processes or cluster partitions can each be summarized and the summaries merged:
`a.merge(b)` equals the summary of all their runs together. Everything in it is a count, or an
example chosen by input order (the earliest), so merging is associative and commutative.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..grade.grader import RunResult
from ..grade.replies import ReplyEvidence
from ..model import VERDICTS, Tool, TraceError
from ..shapes import FALSE_FAILURE_SHAPES, FALSE_PASS_SHAPES, SHAPES
from .groups import MAX_GROUPS, NO_GROUP, OTHER_GROUP
from .trials import CaseTrials, has_repeats, trials_json
from .unknown_tools import UnknownTools

MAX_ERROR_EXAMPLES = 20
Order = tuple[int, int]
"""Where a record stands in the input: (file number, line number)."""


@dataclass(slots=True)
class ToolStats:
    """One tool's call figures. Kept per tool and per group (`--group-by`), so kept small: a
    summary of 2,000 groups calling 1,000 tools each holds two million of them."""

    calls: int = 0
    reported_failed_calls: int = 0
    true_failed_calls: int = 0
    false_failures: Counter[str] | None = None
    """Per shape, the calls whose reported failure it explains (a call may show several); None
    until one does (most tools' calls in most groups need none)."""
    falsely_failed_calls: int = 0
    """Calls that fail the reported check and not the true one (explained by some shape)."""

    def add_shape(self, shape: str) -> None:
        if self.false_failures is None:
            self.false_failures = Counter()
        self.false_failures[shape] += 1

    def shape_count(self, shape: str) -> int:
        return self.false_failures[shape] if self.false_failures is not None else 0

    def merge(self, other: ToolStats) -> None:
        self.calls += other.calls
        self.reported_failed_calls += other.reported_failed_calls
        self.true_failed_calls += other.true_failed_calls
        if other.false_failures:
            if self.false_failures is None:
                self.false_failures = Counter()
            self.false_failures.update(other.false_failures)
        self.falsely_failed_calls += other.falsely_failed_calls


@dataclass
class Summary:
    tools: int = 0
    """Tools defined (configuration, not counted per run)."""
    tools_with_norms: int = 0
    tools_norm_names: frozenset[str] = frozenset()
    runs: int = 0
    calls: int = 0
    """Calls graded: every call but `extra` ones (outside the sequence, allowed by the mode)."""
    all_calls: int = 0
    calls_with_norms: int = 0
    absorbable_calls: int = 0
    """Failing calls a built-in rule the tool does not declare would absorb (`CallResult.absorbable`)."""
    unscoreable: int = 0
    reported_failed_runs: int = 0
    reported_failed_calls: int = 0
    true_failed_runs: int = 0
    true_failed_calls: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    false_failures: Counter[str] = field(default_factory=Counter)
    false_passes: Counter[str] = field(default_factory=Counter)
    effects_checked: int = 0
    effects_failed: int = 0
    effects_unverified: int = 0
    suspects: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    by_tool: dict[str, ToolStats] = field(default_factory=dict)
    examples: dict[str, tuple[Order, dict[str, Any]]] = field(default_factory=dict)
    """Per shape, the earliest run that shows it, with the difference to read."""
    errors: list[tuple[Order, str, str]] = field(default_factory=list)
    """The earliest unscoreable lines: (order, file:line, reason); all of them are counted."""
    files: int = 0
    """Trace inputs read (set by the scoring, which knows them)."""
    warnings: list[str] = field(default_factory=list)
    """What the scoring as a whole should tell: inputs not read, configuration likely wrong."""
    trials: dict[str, CaseTrials] = field(default_factory=dict)
    """Per case id: its runs, and how many passed each check (repeated trials, pass^k)."""
    group_by: str | None = None
    """`--group-by KEY`: the runs are also summarized per value of KEY, in `groups`."""
    groups: dict[str, Summary] = field(default_factory=dict)
    """Per group (`RunResult.group`), the summary of its runs. A line that could not be read
    into a run has no group: unscoreable lines are counted in the whole summary only. At most
    `MAX_GROUPS` groups besides `NO_GROUP` and `OTHER_GROUP`: the runs of later groups are
    summed in `OTHER_GROUP`."""
    group_first: dict[str, Order] = field(default_factory=dict)
    """Per group, where its first run stands: which groups are kept when there are too many."""
    folded: set[str] = field(default_factory=set)
    """The groups summed in `OTHER_GROUP` (their names only)."""
    max_groups: int | None = MAX_GROUPS
    """The bound on `groups`; None for a part of a scoring (a batch of 2,000 records), merged in
    input order into one bounded summary, which then keeps what a single pass would."""
    internal_errors: int = 0
    """Runs the grader scored but could not explain (`RunResult.internal_error`): a bug of the
    grader, never of the input. Counted apart from unscoreable lines; none in a correct grader."""
    internal: list[tuple[Order, str, str]] = field(default_factory=list)
    """The earliest internal errors: (order, file:line, message)."""
    reported_reading: str = "per-call"
    """How the reported check read the runs (`--reported`: `per-call` or `list`)."""
    notes: list[tuple[Order, str]] = field(default_factory=list)
    """The earliest warnings about single records (a pattern that ran out of time on a reply):
    (order, text naming `file:line`); the scoring adds them to `warnings`."""
    replies: ReplyEvidence = field(default_factory=ReplyEvidence)
    """The tools' replies as evidence on the declared rules (`summary.reply_evidence`)."""
    known_tools: frozenset[str] | None = None
    """The tools the schemas define, when this summary counts the calls of others (a whole
    scoring's summary and its parts; not a group's)."""
    unknown_tools: UnknownTools = field(default_factory=UnknownTools)
    """Calls naming a tool no schema defines (`known_tools`), for the scoring's warning."""

    @classmethod
    def for_tools(
        cls,
        tools: Mapping[str, Tool],
        *,
        group_by: str | None = None,
        max_groups: int | None = MAX_GROUPS,
    ) -> Summary:
        with_norms = frozenset(name for name, t in tools.items() if t.norm_params)
        return cls(
            tools=len(tools),
            tools_with_norms=len(with_norms),
            tools_norm_names=with_norms,
            group_by=group_by,
            max_groups=max_groups,
            known_tools=frozenset(tools),
        )

    def _group(self, name: str) -> Summary:
        found = self.groups.get(name)
        if found is None:
            found = self.groups[name] = Summary(
                tools=self.tools,
                tools_with_norms=self.tools_with_norms,
                tools_norm_names=self.tools_norm_names,
            )
        return found

    # ---------------------------------------------------------------------------------- adding

    def add(self, item: RunResult | TraceError, order: Order) -> None:
        if isinstance(item, TraceError):
            self.add_error(item, order)
        else:
            self.add_run(item, order)

    def add_error(self, error: TraceError, order: Order) -> None:
        self.unscoreable += 1
        self.errors.append((order, error.source, error.error))
        if len(self.errors) > 2 * MAX_ERROR_EXAMPLES:
            self.errors = sorted(self.errors)[:MAX_ERROR_EXAMPLES]

    def add_run(self, r: RunResult, order: Order) -> None:
        self.runs += 1
        if r.internal_error is not None:
            self.internal_errors += 1
            self.internal.append((order, r.source, r.internal_error))
            if len(self.internal) > 2 * MAX_ERROR_EXAMPLES:
                self.internal = sorted(self.internal)[:MAX_ERROR_EXAMPLES]
        self.verdicts[r.verdict] += 1
        if not r.reported_pass:
            self.reported_failed_runs += 1
        if not r.true_pass:
            self.true_failed_runs += 1
        if r.verdict == "false_failure" and r.shape:
            self.false_failures[r.shape] += 1
        elif r.verdict == "false_pass" and r.shape:
            self.false_passes[r.shape] += 1
        for e in r.effects:
            if e.ok is None:
                self.effects_unverified += 1
            else:
                self.effects_checked += 1
                self.effects_failed += e.ok is False
        for s in r.suspects:
            self.suspects[s] += 1
        if r.replies:
            self.replies.add(r.case_id, r.replies, order, r.run_id, r.source)
        norm_tools = self.tools_norm_names
        defined = self.known_tools
        for c in r.calls:
            if defined is not None and c.tool not in defined:
                self.unknown_tools.add(c.tool, order, r.source)
            self.all_calls += 1
            if c.tool in norm_tools:
                self.calls_with_norms += 1
            if c.label == "extra":
                continue
            stats = self.by_tool.get(c.tool)
            if stats is None:
                stats = self.by_tool[c.tool] = ToolStats()
            self.calls += 1
            stats.calls += 1
            if c.reported_failed:
                self.reported_failed_calls += 1
                stats.reported_failed_calls += 1
            if c.true_failed:
                self.true_failed_calls += 1
                stats.true_failed_calls += 1
            if c.absorbable:
                self.absorbable_calls += 1
            if c.shapes:
                stats.falsely_failed_calls += 1
            for shape in c.shapes:
                stats.add_shape(shape)
        for shape in r.shapes:
            known = self.examples.get(shape)
            if known is None or order < known[0]:
                self.examples[shape] = (order, example(r, shape))
        trials = self.trials.get(r.case_id)
        if trials is None:
            trials = self.trials[r.case_id] = CaseTrials()
        trials.runs += 1
        trials.reported_passes += r.reported_pass
        trials.true_passes += r.true_pass
        if self.group_by is not None:
            group = r.group if r.group is not None else NO_GROUP
            for name in (group,) if type(group) is str else group:
                self._group_for(name, order).add_run(r, order)

    def _group_for(self, name: str, order: Order) -> Summary:
        """The summary a run of group `name` goes to: its own, or past the bound `OTHER_GROUP`."""
        if name in self.groups:
            return self.groups[name]
        bound = self.max_groups
        if name in self.folded or (
            bound is not None and name not in (NO_GROUP, OTHER_GROUP) and self._kept() >= bound
        ):
            self.folded.add(name)
            name = OTHER_GROUP
        if name not in self.groups:
            self.group_first[name] = order
        return self._group(name)

    def _kept(self) -> int:
        return len(self.groups) - (NO_GROUP in self.groups) - (OTHER_GROUP in self.groups)

    def _bound(self) -> None:
        """Fold the groups past `MAX_GROUPS`, latest first run first, into `OTHER_GROUP`. Summaries
        merged in input order keep the groups one summary of all their runs keeps."""
        bound = self.max_groups
        if bound is None or self._kept() <= bound:
            return
        named = [n for n in self.groups if n not in (NO_GROUP, OTHER_GROUP)]
        named.sort(key=lambda n: (self.group_first[n], n))
        for name in named[bound:]:
            other = self._group(OTHER_GROUP)
            first = self.group_first.pop(name)
            self.group_first[OTHER_GROUP] = min(self.group_first.get(OTHER_GROUP, first), first)
            other.merge(self.groups.pop(name))
            self.folded.add(name)

    # ---------------------------------------------------------------------------------- merging

    def merge(self, other: Summary) -> Summary:
        """Add `other`'s runs to this summary (in place); returns self."""
        self.tools = max(self.tools, other.tools)
        self.tools_with_norms = max(self.tools_with_norms, other.tools_with_norms)
        self.tools_norm_names = self.tools_norm_names | other.tools_norm_names
        for name in (
            "runs",
            "calls",
            "all_calls",
            "calls_with_norms",
            "absorbable_calls",
            "unscoreable",
            "reported_failed_runs",
            "reported_failed_calls",
            "true_failed_runs",
            "true_failed_calls",
            "effects_checked",
            "effects_failed",
            "effects_unverified",
            "internal_errors",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("verdicts", "false_failures", "false_passes", "suspects"):
            getattr(self, name).update(getattr(other, name))
        for tool, stats in other.by_tool.items():
            self.by_tool.setdefault(tool, ToolStats()).merge(stats)
        for shape, (order, ex) in other.examples.items():
            known = self.examples.get(shape)
            if known is None or order < known[0]:
                self.examples[shape] = (order, ex)
        self.errors = sorted(self.errors + other.errors)[:MAX_ERROR_EXAMPLES]
        for case_id, trials in other.trials.items():
            self.trials.setdefault(case_id, CaseTrials()).merge(trials)
        self.group_by = self.group_by if self.group_by is not None else other.group_by
        for name, group in other.groups.items():
            first = other.group_first.get(name, (0, 0))
            if name in self.folded and name not in self.groups:
                name = OTHER_GROUP
            self.group_first[name] = min(self.group_first.get(name, first), first)
            self._group(name).merge(group)
        self.folded |= other.folded
        self._bound()
        self.internal = sorted(self.internal + other.internal)[:MAX_ERROR_EXAMPLES]
        self.notes = sorted(self.notes + other.notes)[:MAX_ERROR_EXAMPLES]
        self.replies.merge(other.replies)
        self.known_tools = self.known_tools if self.known_tools is not None else other.known_tools
        self.unknown_tools.merge(other.unknown_tools)
        return self

    def finish(self) -> Summary:
        """Trim the kept errors to the earliest ones (add() keeps a little slack)."""
        self.errors = sorted(self.errors)[:MAX_ERROR_EXAMPLES]
        for group in self.groups.values():
            group.finish()
        self.internal = sorted(self.internal)[:MAX_ERROR_EXAMPLES]
        return self

    # ---------------------------------------------------------------------------------- output

    @property
    def lines(self) -> int:
        """Lines read: runs scored + unscoreable."""
        return self.runs + self.unscoreable

    def rate(self, failed: int, total: int) -> float:
        return round(failed / total, 4) if total else 0.0

    def to_json(self) -> dict[str, Any]:
        """The summary object of SPEC "Results JSON"; with `trials` when a case has several
        runs, and `group_by` and `groups` (group -> its summary, by name) under `--group-by`."""
        out = self._json()
        out["reported_reading"] = self.reported_reading
        if has_repeats(self.trials):
            out["trials"] = trials_json(self.trials)
        if self.group_by is not None:
            out["group_by"] = self.group_by
            out["groups"] = {name: self.groups[name].to_json() for name in sorted(self.groups)}
            if self.folded:
                out["groups_folded"] = len(self.folded)
        return out

    def _json(self) -> dict[str, Any]:
        """The summary object of SPEC "Results JSON" (with `internal_errors` when there are any)."""
        doubt, confirmed = self.replies.to_json()
        out: dict[str, Any] = {
            "runs": self.runs,
            "calls": self.calls,
            "all_calls": self.all_calls,
            "lines": self.lines,
            "unscoreable": self.unscoreable,
            "reported": {
                "failed_runs": self.reported_failed_runs,
                "run_failure_rate": self.rate(self.reported_failed_runs, self.runs),
                "failed_calls": self.reported_failed_calls,
                "call_failure_rate": self.rate(self.reported_failed_calls, self.calls),
            },
            "true": {
                "failed_runs": self.true_failed_runs,
                "run_failure_rate": self.rate(self.true_failed_runs, self.runs),
                "failed_calls": self.true_failed_calls,
                "call_failure_rate": self.rate(self.true_failed_calls, self.calls),
            },
            "verdicts": {v: self.verdicts[v] for v in VERDICTS},
            "false_failures": {s: self.false_failures[s] for s in FALSE_FAILURE_SHAPES},
            "false_passes": {s: self.false_passes[s] for s in FALSE_PASS_SHAPES},
            "effects": {
                "checked": self.effects_checked,
                "failed": self.effects_failed,
                "unverified": self.effects_unverified,
            },
            "normalizer_suspects": [
                {"tool": t, "param": p, "norm": n, "runs": k}
                for (t, p, n), k in sorted(self.suspects.items(), key=lambda kv: (-kv[1], kv[0]))
            ],
            "reply_evidence": doubt,
            "reply_confirmed": confirmed,
            "coverage": {
                "tools": self.tools,
                "tools_with_norms": self.tools_with_norms,
                "call_share_with_norms": self.rate(self.calls_with_norms, self.all_calls),
                "absorbable_calls": self.absorbable_calls,
            },
            "by_tool": [
                {
                    "tool": tool,
                    "calls": s.calls,
                    "reported_failed_calls": s.reported_failed_calls,
                    "true_failed_calls": s.true_failed_calls,
                    "falsely_failed_calls": s.falsely_failed_calls,
                    "false_failures": {k: s.shape_count(k) for k in FALSE_FAILURE_SHAPES},
                }
                for tool, s in sorted(self.by_tool.items(), key=lambda kv: (-kv[1].calls, kv[0]))
            ],
            "examples": {shape: ex for shape, (_, ex) in sorted(self.examples.items())},
        }
        if self.internal_errors:
            out["internal_errors"] = {
                "count": self.internal_errors,
                "errors": [{"source": src, "error": e} for _, src, e in self.internal],
            }
        return out


# ---------------------------------------------------------------------------------- examples


def example(r: RunResult, shape: str) -> dict[str, Any]:
    """One run that shows `shape`, with the difference a reader should look at."""
    return {
        "run_id": r.run_id,
        "case_id": r.case_id,
        "source": r.source,
        "detail": SHAPES[shape].example(r, shape),
    }
