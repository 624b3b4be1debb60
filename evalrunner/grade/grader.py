"""One run -> its reported and true verdicts, with every difference explained.

The semantics are docs/spec.md "Verdicts"; the readings chosen where it leaves room are in
docs/semantics.md. Grading works on keys: each call gets an exact key (its tool and arguments
under JSON equality) and a canonical key (under the tool's equivalence rules), so matching and
repeat counting are hashing, and explanations are computed only for calls that need one.

Equal canonical keys always mean equivalent calls, and for most tools the converse holds too.
A run with a call to a tool whose rules may read JSON-equal values apart (`ToolPlan.pairwise`:
`money_cents`, say, or a plugin's rule) is graded pairwise instead: calls and steps are related by
`Grader._same` (keys first, then `ToolPlan.equivalent`, cached per pair of spellings), matching is
by earliest fit or bipartite matching, and repeats are counted by matchings (docs/semantics.md).
So is every run of a case with a judged step (`judge.step_plan`): its steps compare by their own
rules, which the calls' keys know nothing of.

A case's own keys apply here too: `repeatable` gives the case plans of its own for those tools,
`grade: "writes"` holds the calls against the sequences without their read-only steps
(`_CasePlan.rule_seqs`), and `forbid` labels the calls outside the match it names (rule 4). The
repeat drop keeps the copies a match needs (`_rule_one`), and the copies labelled `repeat` or
`redundant` are the ones the alignment left (`_move_marks`), so labels agree with the match.
"""

from __future__ import annotations

from collections import ChainMap, Counter
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, combinations, islice, product
from typing import Any, Literal, NamedTuple, cast

import orjson

from ..jsonvalue import canon_key, kept, short_json
from ..jsonvalue import dumps as json_dumps
from ..model import (
    MISSING,
    PREDICATES,
    Call,
    Case,
    Forbid,
    Run,
    Step,
    Tool,
    TraceError,
)
from ..read.case_store import CaseStore, judged_after, judged_ids, with_cases
from ..read.cases import step_label
from ..shapes import (
    ALTERNATE_PATH,
    EFFECT_FAILED,
    ERRORED_ATTEMPT,
    FALSE_FAILURE_SHAPES,
    FALSE_PASS_SHAPES,
    FORBIDDEN_CALL,
    REDUNDANT_CALL,
    REJECTED_CALL,
    UNJUDGED,
)
from ..traces import call_args, call_tool, is_errored, parse_args, parse_record, run_id_of
from .absorb import Absorber
from .compare import EXACT, Comparison, ToolPlan
from .effects import EffectResult, check_all
from .judge import step_plan
from .norms import Normalizer, load_registry
from .replies import Replied, ReplyPlan
from .trajectory import (
    FIT_EQUIVALENT,
    FIT_EXACT,
    FIT_NONE,
    AlignmentTooLarge,
    align,
    matches,
    matches_by,
    matching_size,
)

# The grader's tables. Each keeps at most this many entries, and drops its older half when full,
# so memory is bounded whatever the size of the traces (BENCHMARKS.md, "Memory"), while a steady
# stream keeps its working set. Ids are never reused, so a dropped entry only costs a recount.
MEMO_SIZE = 32_768
"""Runs' call grades kept for reuse."""
CALLS_SIZE = 16_384
"""Distinct calls kept parsed and keyed (and their spellings' ids)."""
COMPARISONS_SIZE = 16_384
"""Explanations kept, per (call spelling, step spelling); as many equivalences (`Grader._same`)."""
CASE_PLANS_SIZE = 16_384
"""Cases kept compiled (`_CasePlan`, about 2 kB each): a suite of 140,000 cases must not hold
them all. At 4,096, traces over 27,300 cases in no order compiled a case for nearly every run
(116,594 compiles for 116,378 runs), 31% of `score` (BENCHMARKS.md)."""


PER_CALL, LIST = "per-call", "list"
REPORTED_READINGS = (PER_CALL, LIST)
"""How the reported check reads a run (`--reported`): `per-call`, SPEC's exact-match assertion
graded call by call (the case's match mode, exact repeats forgiven); `list`, the plain
`calls == expected` a test suite writes: the whole call list, errored attempts and repeats and
all, equal as JSON to the canonical sequence."""


def _newer_half(table: dict[Any, Any]) -> dict[Any, Any]:
    return dict(islice(table.items(), len(table) // 2, None))


_FLAG_KEYS = frozenset({"error", "is_error", "isError", "status", "result"})
"""The keys of a recorded call that can make it an errored attempt (SPEC "Traces")."""
TRUE_FAILED_LABELS = frozenset({"mismatch", "unexpected", "redundant", "malformed", "forbidden"})
ORDERED_MODES = frozenset({"exact", "prefix", "contains"})
CONTAINS_MODES = frozenset({"contains", "contains_unordered"})
"""The modes that allow calls outside the sequence: a repeat beyond its count is just one more."""
OTHER_DROPS = 256
"""The most other choices of repeated copies to drop that rule 1 tries, when dropping the latest
copies does not let a run match (`_other_drops`)."""
PAIRWISE_WORK = 1_000_000
"""The most pairwise comparisons (`Grader._same`) grading one run may make (a few seconds): a
run graded pairwise (a judged step, a rule that compares pairs) relates every call to every step
and to every earlier call, so 300 calls against 100 judged steps took 22 s and 1,200 against 400
would take many minutes. A run past it is unscoreable, "too large to align", not a stall."""


Label = Literal[
    "exact",
    "equivalent",
    "mismatch",
    "unexpected",
    "redundant",
    "malformed",
    "errored",
    "read",
    "forbidden",
    "repeat",
    "extra",
]
"""A call's label (docs/spec.md "Results JSON"; the results schema's enum)."""
Verdict = Literal["pass", "fail", "false_failure", "false_pass"]
"""A run's verdict: the reported check's and the true one's, together."""


class CallResult(NamedTuple):
    """One call's label against the best-matching sequence, with its explanation."""

    index: int  # type: ignore[assignment]  # a field, not tuple.index: the JSON's "index"
    tool: str
    label: Label
    step: int | None = None
    """The step of the labelled sequence the call was aligned (or, for a mismatch, paired) with."""
    comparison: Comparison | None = None
    """Against that step (or, for a repeat, against the call it repeats)."""
    repeats: int | None = None
    """For `repeat` and `redundant`: the index of the earlier call it repeats."""
    reason: str | None = None
    """For `malformed`: why the arguments are unusable."""
    reported_failed: bool = False
    """Not exactly equal to any step of the canonical sequence (graded in isolation)."""
    shapes: tuple[str, ...] = ()
    """The false-failure shapes that explain this call's reported failure, if it failed only there."""
    absorbable: bool = False
    """A `mismatch` that differs from its step only where a built-in rule the tool does not
    declare would absorb the difference (`absorb.py`): what `evalrun suggest` could find."""

    @property
    def true_failed(self) -> bool:
        return self.label in TRUE_FAILED_LABELS


class RunResult(NamedTuple):
    """A run's verdicts and their explanation. (A NamedTuple, like `Run`: built once per run.)"""

    run_id: str
    case_id: str
    source: str
    verdict: Verdict
    shape: str | None
    shapes: tuple[str, ...]
    reported_pass: bool
    true_pass: bool
    accepted: int | None
    """The index of the matched accepted sequence; None when none matched."""
    aligned_to: int
    """The sequence the calls are labelled against (the matched one, else the best partial)."""
    calls: tuple[CallResult, ...]
    missing: tuple[tuple[int, Step], ...]
    effects: tuple[EffectResult, ...]
    suspects: tuple[tuple[str, str, str], ...]
    """(tool, parameter, normalizer) for runs that matched only through a rule and failed an effect."""
    group: str | tuple[str, ...] | None = None
    """`--group-by`: the run's group (`summary.groups`): a name, or the names of each group it
    counts in (`case.tags`); None ungrouped."""
    internal_error: str | None = None
    """A verdict the grader cannot explain, which is a bug of the grader (a false failure without
    a shape): the summary reports it as an internal error. None for every run graded right."""
    replies: tuple[Replied, ...] = ()
    """What the run's calls' replies say about the declared rules (`replies.py`): evidence for
    the summary, read by no verdict."""


class _CallsGrade(NamedTuple):
    """Everything about a run that its calls decide; its world decides the rest (`_finish`)."""

    reported_pass: bool
    accepted: int | None
    redundant: bool
    aligned_to: int
    calls: tuple[CallResult, ...]
    missing: tuple[tuple[int, Step], ...]
    false_failure_shapes: tuple[str, ...]
    """The run's shapes should it be a false failure."""
    suspects: tuple[tuple[str, str, str], ...]
    """The rules to name should an effect fail."""
    forbidden: bool = False
    """Rule 4 fails: a call the case's `forbid` names."""
    rejected: bool = False
    """Rule 1 fails, and keeping the errored attempts as ordinary calls would have matched: only a
    rejected call made a step (`rejected_call`)."""


# --------------------------------------------------------------------------------------- plans

_NO_PLANS: Mapping[str, ToolPlan] = {}


@dataclass(frozen=True, slots=True)
class _Seq:
    steps: tuple[Step, ...]
    orig: tuple[int, ...]
    """Each step's index in the case's sequence (under `grade: writes`, the read steps are left
    out of the sequence rule 1 uses)."""
    ids: tuple[int | None, ...]
    """Each step's spelling id in the call table (see `_Interned.id`), for cached comparisons."""
    eq: tuple[Any, ...]
    exact: tuple[Any, ...]
    eq_count: dict[Any, int]
    exact_count: dict[Any, int]
    items: tuple[_C, ...]
    """The steps as calls, for comparing them pairwise with a run's calls (`Grader._same`)."""


@dataclass(frozen=True, slots=True)
class _CasePlan:
    case: Case
    seqs: tuple[_Seq, ...]
    canonical_exact: frozenset[Any]
    exactly_canonical: _CallsGrade
    """The grade of calls that are exactly the canonical sequence (the common case): both checks
    match them, with no repeat, loop or missing step."""
    rule_seqs: tuple[_Seq, ...] = ()
    """The sequences rule 1 holds the calls against: `seqs`, without the read steps under
    `grade: writes`."""
    plans: Mapping[str, ToolPlan] = field(default_factory=dict)
    """The tools this case's `repeatable` makes repeatable, with plans that say so."""
    reads: frozenset[str] = frozenset()
    """Under `grade: writes`, the read-only tools: left out of rule 1."""
    judged: bool = False
    """Some step has a `judge`: calls and steps are related pairwise."""
    forbid: tuple[tuple[Forbid, ToolPlan], ...] = ()
    unchecked: bool = False
    """A step holds a value its schema rejects. A case's values are not checked (SPEC "Precise
    readings"), so a call can be equivalent to such a step without sharing its key (a run's
    JSON-equal value is rejected): the case is graded pairwise."""


class _Interned(NamedTuple):
    """A distinct recorded call (tool and arguments as recorded), parsed and keyed once."""

    id: int
    """The same for calls whose arguments are the same JSON, written the same way (`1` is not
    `1.0` here: a memoized grade must print the run's own values)."""
    args: Any
    malformed: str | None
    exact: Any
    eq: Any


class _C:
    """A call prepared for grading: its exact key now, its canonical key when it is needed."""

    __slots__ = ("call", "eq", "exact", "ident", "index", "plan", "rejects", "step")

    def __init__(
        self, index: int, call: Call, plan: ToolPlan, exact: Any, ident: int | None = None
    ) -> None:
        self.index = index
        self.call = call
        self.plan = plan
        self.exact = exact
        self.eq: Any = exact
        self.ident = ident
        """The call's spelling id in the call table; None when it is not in it."""
        self.step = False
        """A case's step, whose values are not checked against the schema: it is keyed unchecked."""
        self.rejects = False
        """A step with a value its schema rejects (`ToolPlan.rejects`): its key does not decide."""


def _step_tools(case: Case) -> frozenset[str]:
    return frozenset(step.tool for seq in case.accept for step in seq)


def _rebuild_grader(
    tools: Mapping[str, Tool],
    cases: Mapping[str, Case],
    registry: Mapping[str, Normalizer],
    reported: str,
    absorbs: bool,
    replies: bool = True,
) -> Grader:
    return Grader(
        tools, cases, registry=registry, reported=reported, replies=replies, absorbs=absorbs
    )


class Grader:
    """Grades runs against cases, with the tools' rules compiled once."""

    def __init__(
        self,
        tools: Mapping[str, Tool],
        cases: Mapping[str, Case],
        *,
        registry: Mapping[str, Normalizer] | None = None,
        reported: str = PER_CALL,
        replies: bool = True,
        absorbs: bool = True,
        compiled: Mapping[str, ToolPlan] | None = None,
        parent: Grader | None = None,
        judged: tuple[str, ...] | None = None,
        changed: Mapping[str, Case] | None = None,
    ) -> None:
        """`replies`: observe reply evidence (`replies.py`); `absorbs`: count the failing calls
        a built-in rule would absorb (`absorber`); `compiled`: tool plans already
        compiled for these very tools, and `parent` the grader they come from (`derive`);
        `judged`: the ids of the cases with a judged step, when the caller knows them
        (`case_store.judged_ids`); `changed`: the cases that differ from `parent`'s (`derive`),
        when the others are `parent`'s own."""
        registry = registry if registry is not None else load_registry()
        if reported not in REPORTED_READINGS:
            raise ValueError(f"reported must be one of {', '.join(REPORTED_READINGS)}")
        self.reported = reported
        """How the reported check reads (`REPORTED_READINGS`)."""
        self.tools = dict(tools)
        self.cases: dict[str, Case] | CaseStore | ChainMap[str, Case] = (
            cases if isinstance(cases, (CaseStore, ChainMap)) else dict(cases)
        )
        """The cases: a `CaseStore` kept as it is (its copy shares the pickles), and a what-if's
        overlay (`case_store.with_cases`), else a dict."""
        compiled = compiled or {}
        self.plans: dict[str, ToolPlan] = {
            n: compiled.get(n) or ToolPlan.compile(t, registry) for n, t in tools.items()
        }
        self._case_plans: dict[str, _CasePlan] = {}
        self._memo: dict[Any, _CallsGrade] = {}
        self._calls: dict[tuple[str, Any], _Interned] = {}
        self._ids: dict[Any, int] = {}
        self._next_id = 0
        self._observes_replies = replies
        self.replies = ReplyPlan(self.tools if replies else {}, registry)
        """Reply evidence on the declared rules (`replies.py`); no rule, no evidence."""
        self.absorber: Absorber | None = Absorber(registry) if absorbs else None
        """Counts the failing calls a built-in rule would absorb; None where nobody reads the
        count (suggest's what-ifs)."""
        self._comparisons: dict[tuple[Any, ...], Comparison] = {}
        self._unchecked: dict[int, Any] = {}
        """Steps' unchecked keys by spelling id (`_unchecked_key`)."""
        self._absorbed: dict[tuple[int, int], bool] = {}
        """`_absorbs`'s answers by spelling pair (call, step)."""
        self._equivalences: dict[tuple[Any, ...], bool] = {}
        self._registry = registry
        self._judged = judged_ids(self.cases) if judged is None else judged
        """The ids of the cases with a judged step (`derive` passes them on)."""
        self._step_tools: MutableMapping[str, frozenset[str]]
        """The tools each judged case's steps name, by case id: which of them a derived grader
        whose plans differ from this one's must check again."""
        own: dict[str, frozenset[str]] | None = None
        walk: Sequence[str]
        if parent is not None and changed is not None:
            self._step_tools = ChainMap(
                {i: _step_tools(case) for i, case in changed.items()}, parent._step_tools
            )
            walk = self._to_check(parent, changed)
        else:
            self._step_tools = own = {}
            walk = self._judged
        for case_id in walk:  # the others stay unread (a store's, a what-if's)
            case = self.cases[case_id]
            if own is not None:
                own[case_id] = _step_tools(case)
            if any(step.judge and step.tool in self.tools for seq in case.accept for step in seq):
                if parent is not None and parent._checked(case, self.plans):
                    continue
                self._case_plan(case)  # a judge that names no parameter is an input error now

    def _to_check(self, parent: Grader, changed: Mapping[str, Case]) -> list[str]:
        """The judged cases a grader derived from `parent` with the cases in `changed` must
        compile to raise their input errors early: the changed ones, and those whose steps name
        a tool this grader plans otherwise. Every other one is `parent`'s own case under the
        very plans it was checked with (walking 504 judged cases for each of 1,300 what-ifs was
        a tenth of suggest on 27,300 cases)."""
        names = self.plans.keys() | parent.plans.keys()
        differ = {n for n in names if self.plans.get(n) is not parent.plans.get(n)}
        if not differ:
            return [i for i in self._judged if i in changed]
        tools = self._step_tools
        return [i for i in self._judged if i in changed or not differ.isdisjoint(tools[i])]

    def _checked(self, case: Case, plans: Mapping[str, ToolPlan]) -> bool:
        """Whether this grader was made with `case` itself, every tool its steps name planned by
        the very plans in `plans`: then compiling it again (to raise its input errors early)
        would raise nothing new. A what-if grader compiles it when it grades it, as any grader."""
        return self.cases.get(case.id) is case and all(
            plans.get(step.tool) is self.plans.get(step.tool) for seq in case.accept for step in seq
        )

    def __reduce__(self) -> tuple[Any, ...]:
        """A grader pickles as what it was made from, never with its caches: a fresh grader is
        made where it is unpickled (each Dask worker, each spawned process). Only what is never
        mutated after construction is read here, so pickling is safe while another thread of
        the same process grades with it (a Dask worker sending the config to another one)."""
        return (
            _rebuild_grader,
            (
                self.tools.copy(),
                self.cases.copy(),
                self._registry,
                self.reported,
                self.absorber is not None,
                self._observes_replies,
            ),
        )

    def derive(
        self,
        tools: Mapping[str, Tool] | None = None,
        cases: Mapping[str, Case] | None = None,
        changed: Mapping[str, Case] | None = None,
    ) -> Grader:
        """A grader for a what-if (suggest): other tools, other cases, or this grader's cases
        with those in `changed` in place of (or beside) its own. It keeps this grader's compiled
        plan of every tool that is the same object in both (a plan is read-only, and compiling
        forty tools for every what-if costs more than the regrade), and compiles again no case
        this grader has checked with those same plans (`_checked`); with `changed`, it reads
        only the changed cases for judges (walking a suite of 9,100 cases for each of 1,300
        what-ifs was half of suggest's proposing). It reads verdicts only: no reply evidence, no
        absorbable count. Its tables are its own (spelling ids are per grader)."""
        tools = self.tools if tools is None else tools
        kept = {n: p for n, t in tools.items() if (p := self.plans.get(n)) and p.tool is t}
        judged = None
        overlay = cases is None
        if cases is None:
            cases = self.cases if not changed else with_cases(self.cases, changed)
            judged = self._judged if not changed else judged_after(self._judged, changed)
        elif changed:
            raise ValueError("derive takes cases or changed, not both")
        return Grader(
            tools,
            cases,
            registry=self._registry,
            reported=self.reported,
            replies=False,
            absorbs=False,
            compiled=kept,
            parent=self,
            judged=judged,
            changed=(changed or {}) if overlay else None,
        )

    # ------------------------------------------------------------------------------ keys

    def plan(self, tool: str) -> ToolPlan:
        found = self.plans.get(tool)
        if found is None:
            found = self.plans[tool] = ToolPlan.unknown(tool)
        return found

    def _case(self, case_id: str) -> Case | None:
        """The case by id: its compiled plan's while there is one (a `CaseStore` would read it
        back from its pickle, a new object each time it has left the store's live table)."""
        compiled = self._case_plans.get(case_id)
        return compiled.case if compiled is not None else self.cases.get(case_id)

    def _case_plan(self, case: Case) -> _CasePlan:
        found = self._case_plans.get(case.id)
        if found is None:
            if len(self._case_plans) >= CASE_PLANS_SIZE:
                self._case_plans = _newer_half(self._case_plans)
            found = self._case_plans[case.id] = self._compile_case(case)
        return found

    def _compile_case(self, case: Case) -> _CasePlan:
        plans = {
            name: self.plan(name).with_repeatable()
            for name in sorted(case.repeatable)
            if not self.plan(name).repeatable
        }
        reads = frozenset(
            (name for name, tool in self.tools.items() if tool.readonly)
            if case.grade == "writes"
            else ()
        )
        seqs = tuple(self._seq(case, steps, range(len(steps))) for steps in case.accept)
        rule_seqs = seqs
        if reads:
            rule_seqs = tuple(
                self._seq(case, steps, [j for j, s in enumerate(steps) if s.tool not in reads])
                for steps in case.accept
            )
        labels = tuple(
            CallResult(i, s.tool, "read")
            if s.tool in reads
            else CallResult(i, s.tool, "exact", i, EXACT)
            for i, s in enumerate(case.accept[0])
        )
        canonical = _CallsGrade(True, 0, False, 0, labels, (), (), ())
        return _CasePlan(
            case,
            seqs,
            frozenset(seqs[0].exact),
            canonical,
            rule_seqs=rule_seqs,
            plans=plans,
            reads=reads,
            judged=any(s.judge and s.tool in self.tools for seq in case.accept for s in seq),
            forbid=tuple((f, self.plan(f.tool)) for f in case.forbid),
            unchecked=any(item.rejects for seq in seqs for item in seq.items),
        )

    def _seq(self, case: Case, all_steps: tuple[Step, ...], indices: Sequence[int]) -> _Seq:
        """The steps at `indices`, keyed: each step's exact and checked keys are its interned
        call's (keyed once, as a run's call), its unchecked key is computed here."""
        steps = tuple(all_steps[j] for j in indices)
        ids: list[int | None] = []
        exact: list[Any] = []
        eq: list[Any] = []
        items = []
        for j, s in enumerate(steps):
            entry = self._step_entry(s)
            ids.append(entry.id if entry is not None else None)
            exact.append(entry.exact if entry is not None else (s.tool, canon_key(s.args)))
            plan = self.plan(s.tool)
            key: Any
            rejects = False
            if s.judge and s.tool in self.tools:  # a tool no schema defines: compared as JSON
                where = f"{case.source} (case {case.id!r}): {step_label(case, s)}"
                plan = step_plan(s, self.tools.get(s.tool), plan, self._registry, where)
                key = (s.tool, object())  # a key of its own: only `_same` relates it to calls
                rejects = plan.rejects(s.args)
            elif plan.active:
                key = self._unchecked_key(s, plan, entry)  # a case's values: unchecked
                checked = entry.eq if entry is not None else (s.tool, plan.key(s.args))
                rejects = checked != key  # `ToolPlan.rejects`, from the keys at hand
            else:
                key = exact[j]  # no rule, no default: the key is the JSON
            eq.append(key)
            item = _C(j, Call(s.tool, s.args), plan, exact[j], ids[j])
            item.eq = key
            item.step = True
            item.rejects = rejects
            items.append(item)
        return _Seq(
            steps,
            tuple(indices),
            tuple(ids),
            tuple(eq),
            tuple(exact),
            dict(Counter(eq)),
            dict(Counter(exact)),
            tuple(items),
        )

    def _unchecked_key(self, step: Step, plan: ToolPlan, entry: _Interned | None) -> Any:
        """The step's key with its values unchecked, once per spelling: a case compiled again
        (its plan dropped from the table) or a step another case shares is not keyed again."""
        if entry is None:
            return (step.tool, plan.key(step.args, checked=False))
        found = self._unchecked.get(entry.id)
        if found is None:
            if len(self._unchecked) >= CALLS_SIZE:
                self._unchecked = _newer_half(self._unchecked)
            found = self._unchecked[entry.id] = (step.tool, plan.key(step.args, checked=False))
        return found

    def _intern(self, tool: str, args: Any) -> _Interned:
        """The call `tool(args)`, with `args` as recorded (an object, or its JSON text), parsed and
        keyed once however many runs make it."""
        text = args if type(args) is str else json_dumps(args)
        found = self._calls.get((tool, text))
        if found is None:
            if len(self._calls) >= CALLS_SIZE:
                self._calls = _newer_half(self._calls)
                self._ids = _newer_half(self._ids)
            parsed, malformed = parse_args(args)
            plan = self.plan(tool)
            exact: Any
            eq: Any
            spelling: tuple[Any, ...]
            if malformed is None:
                exact = (tool, canon_key(parsed))
                eq = (tool, plan.key(parsed)) if plan.active else exact
                spelling = (tool, kept(json_dumps(parsed, option=orjson.OPT_SORT_KEYS)))
            else:
                exact = eq = None  # grading gives each malformed call a key of its own
                spelling = (tool, "malformed", text)
            ident = self._ids.get(spelling)
            if ident is None:
                ident = self._ids[spelling] = self._next_id
                self._next_id += 1
            key = (tool, text if isinstance(text, str) else kept(text))
            found = self._calls[key] = _Interned(ident, parsed, malformed, exact, eq)
        return found

    def _step_entry(self, step: Step) -> _Interned | None:
        """A step's arguments as an interned call (its spelling id and keys); None for arguments
        orjson cannot write or that are not an object (then the step is keyed directly: a
        string is not read as JSON text, as a run's arguments are)."""
        if type(step.args) is not dict:
            return None
        try:
            entry = self._intern(step.tool, step.args)
        except TypeError:
            return None
        return entry if entry.malformed is None else None

    def _compare(self, c: _C, other: _C) -> Comparison:
        """`c`'s arguments explained against `other`'s (a step, or the call `c` repeats), once per
        spelling pair; a judged step explains by its own plan. A step's values are not checked
        against the schema (SPEC "Precise readings"); a repeated call's are."""
        plan = other.plan if other.plan.judged else c.plan
        checked = not other.step
        ident = other.ident
        if c.ident is None or ident is None:
            return plan.compare(c.call.args, other.call.args, checked=checked)
        key: tuple[Any, ...] = (c.ident, ident, checked)
        if plan.judged:
            # the plan itself, not its id(): a judged plan is its case plan's, freed when that
            # is dropped, and a later plan at the same address must not find these entries
            key = (*key, plan)
        found = self._comparisons.get(key)
        if found is None:
            if len(self._comparisons) >= COMPARISONS_SIZE:
                self._comparisons = _newer_half(self._comparisons)
            found = plan.compare(c.call.args, other.call.args, checked=checked)
            self._comparisons[key] = found
        return found

    def _absorbs(self, c: _C, step: _C) -> bool:
        """`Absorber.absorbs` for call `c` against `step`, once per spelling pair: the answer
        reads the call's tool's rules (every plan of a tool shares its root) and the two values,
        so the pair of spelling ids decides it."""
        absorber = cast(Absorber, self.absorber)
        if c.ident is None or step.ident is None:
            return absorber.absorbs(c.plan, c.call.args, step.call.args)
        key = (c.ident, step.ident)
        found = self._absorbed.get(key)
        if found is None:
            if len(self._absorbed) >= COMPARISONS_SIZE:
                self._absorbed = _newer_half(self._absorbed)
            found = self._absorbed[key] = absorber.absorbs(c.plan, c.call.args, step.call.args)
        return found

    def _same(self, x: _C, y: _C) -> bool:
        """Whether calls (or steps) `x` and `y` are equivalent: SPEC rule 1, pairwise.

        Equal canonical keys say yes at once; for a `pairwise` tool, different keys do not say no
        (`{"amount": 25}` and `{"amount": 25.0}` under `money_cents`), so the arguments are
        compared, once per pair of spellings. A run's call against a case's step compares by the
        step's plan (a judged step's own), with the step's values unchecked; a step whose values
        its schema all accepts is decided by its key unless the tool is `pairwise`.
        """
        if x.eq == y.eq:
            return True
        if (
            x.call.tool != y.call.tool
            or x.call.malformed is not None
            or y.call.malformed is not None
        ):
            return False
        pair: tuple[Any, ...]
        if y.step or x.step:  # a run's call against a case's step
            call, step = (x, y) if y.step else (y, x)
            plan = step.plan
            if not (plan.pairwise or plan.judged or step.rejects):
                return False  # the step's values are all accepted: its key decides
            if call.exact == step.exact:
                return True  # JSON-equal
            if call.ident is None or step.ident is None:
                return plan.equivalent(call.call.args, step.call.args, checked=False)
            pair = (call.ident, -1 - step.ident)
            if plan.judged:  # not symmetric, and the judged plan is the step's own (the plan,
                pair = (*pair, plan)  # not its id(), which a later plan may reuse: `_compare`)
        else:
            plan = x.plan
            if not plan.pairwise:
                return False
            if x.exact == y.exact:
                return True  # JSON-equal
            if x.ident is None or y.ident is None:
                return plan.equivalent(x.call.args, y.call.args)
            call, step = x, y
            pair = (x.ident, y.ident) if x.ident < y.ident else (y.ident, x.ident)
        found = self._equivalences.get(pair)
        if found is None:
            if len(self._equivalences) >= COMPARISONS_SIZE:
                self._equivalences = _newer_half(self._equivalences)
            found = plan.equivalent(call.call.args, step.call.args, checked=not step.step)
            self._equivalences[pair] = found
        return found

    def _prepare(
        self,
        calls: Sequence[Call],
        interned: Sequence[_Interned] | None,
        overrides: Mapping[str, ToolPlan] = _NO_PLANS,
    ) -> list[_C]:
        plans = self.plans
        out = []
        for i, call in enumerate(calls):
            plan = (overrides and overrides.get(call.tool)) or plans.get(call.tool)
            plan = plan or self.plan(call.tool)
            if call.malformed is not None:
                out.append(_C(i, call, plan, (call.tool, object())))  # equal to nothing at all
                continue
            entry = interned[i] if interned is not None else None
            if entry is None:
                try:
                    entry = self._intern(call.tool, call.args)
                except TypeError:  # not JSON orjson can write: keyed directly, not cached
                    out.append(_C(i, call, plan, (call.tool, canon_key(call.args))))
                    continue
            c = _C(i, call, plan, entry.exact, entry.id)
            c.eq = entry.eq
            out.append(c)
        return out

    @staticmethod
    def _canonical_keys(calls: list[_C]) -> None:
        for c in calls:
            if c.eq is c.exact and c.plan.active and c.call.malformed is None:
                c.eq = (c.call.tool, c.plan.key(c.call.args))

    # ------------------------------------------------------------------------------ grading

    def grade_record(self, record: Any, source: str) -> RunResult | TraceError:
        """Grade a native run record (SPEC "Traces") read from `source` (`file:line`).

        A run's verdicts depend only on its case, its calls (tool, arguments, errored or not)
        and, when the case asserts effects, its world; not on call ids, tool results or whether
        arguments were sent as an object or as JSON text. Each distinct call is parsed and keyed
        once (`_intern`), and records that agree on all of that are graded once: agents repeat
        themselves, so real traces hold many of both. Both tables are bounded.
        """
        try:
            if type(record) is dict:
                case_id, raw_calls = record.get("case_id"), record.get("calls")
                case = self._case(case_id) if type(case_id) is str else None
                if case is not None and type(raw_calls) is list:
                    read = self._read_calls(raw_calls)
                    if read is not None:
                        return self._grade_read(record, source, case, raw_calls, *read)
            run = parse_record(record, source)
            return run if isinstance(run, TraceError) else self.grade(run)
        except AlignmentTooLarge as e:  # one run past the bound of work: said, not a stall
            return TraceError(source, str(e))

    def _read_calls(
        self, raw_calls: list[Any]
    ) -> tuple[list[_Interned], list[bool], list[Replied] | None] | None:
        """Each call interned, whether it errored, and its calls' reply evidence (None without
        any); None when a call cannot be read (then `parse_record` says why).

        The evidence is taken here, in the one pass over the calls: only a call holding one of
        the keys that can flag an error can hold a `result` (it is one), so the calls without a
        reply are passed over at the set test that says whether they errored."""
        interned, errored = [], []
        answered: list[Replied] | None = None
        intern = self._intern
        plan = self.replies
        rules = plan.rules
        for raw in raw_calls:
            if type(raw) is not dict:
                return None
            tool = call_tool(raw)
            if tool is None:
                return None
            try:
                entry = intern(tool, call_args(raw))
            except TypeError:  # arguments orjson cannot write (not from a JSON line): read slowly
                return None
            interned.append(entry)
            # Most calls carry none of the keys that can flag an error: one set test says so.
            if _FLAG_KEYS.isdisjoint(raw):
                errored.append(False)
                continue
            result = raw.get("result", MISSING)
            e = is_errored(raw, result)
            errored.append(e)
            if result is not MISSING and not e and tool in rules:
                replied = plan.answered(tool, entry, result)
                if replied is not None:
                    if answered is None:
                        answered = [replied]
                    else:
                        answered.append(replied)
        return interned, errored, answered

    def _grade_read(
        self,
        record: dict[str, Any],
        source: str,
        case: Case,
        raw_calls: list[Any],
        interned: list[_Interned],
        errored: list[bool],
        answered: list[Replied] | None,
    ) -> RunResult:
        key = (case.id, tuple(-1 - c.id if e else c.id for c, e in zip(interned, errored)))
        graded = self._memo.get(key)
        if graded is None:
            calls = tuple(
                # `_read_calls` made sure every call names its tool
                Call(cast(str, call_tool(raw)), c.args, e, c.malformed, raw.get("result", MISSING))
                for raw, c, e in zip(raw_calls, interned, errored)
            )
            graded = self._grade_calls(calls, case, interned)
            if len(self._memo) >= MEMO_SIZE:
                self._memo = _newer_half(self._memo)
            self._memo[key] = graded
        world = record.get("world", MISSING)
        return _finish(
            run_id_of(record, source),
            source,
            case,
            graded,
            MISSING if world is None else world,
            tuple(answered) if answered else (),
        )

    def grade(self, run: Run) -> RunResult | TraceError:
        """The run's verdicts; a TraceError when its case is unknown."""
        case = self._case(run.case_id) if run.case_id is not None else None
        if case is None:
            if run.case_id is None:
                return TraceError(run.source, 'the record has no "case_id"')
            return TraceError(
                run.source, f"unknown case {run.case_id!r} (not in the cases directory)"
            )
        replies: tuple[Replied, ...] = ()
        if self.replies.rules:
            replies = self.replies.observe(
                (c.tool, c.args, c.result)
                for c in run.calls
                if not c.errored and c.malformed is None
            )
        return _finish(
            run.run_id,
            run.source,
            case,
            self._grade_calls(run.calls, case, None),
            run.world,
            replies,
        )

    def _grade_calls(
        self, run_calls: Sequence[Call], case: Case, interned: Sequence[_Interned] | None
    ) -> _CallsGrade:
        cp = self._case_plan(case)
        calls = self._prepare(run_calls, interned, cp.plans)
        canonical = cp.seqs[0].exact
        # Under `grade: "writes"` a read aligns to no step, so a `forbid` entry may name it: the
        # canonical calls' labels are then not the precomputed ones.
        if (
            not (cp.forbid and cp.reads)
            and len(calls) == len(canonical)
            and all(c.exact == k and not c.call.errored for c, k in zip(calls, canonical))
        ):
            return cp.exactly_canonical
        self._canonical_keys(calls)
        return self._grade_prepared(calls, cp)

    def _pairwise(self, calls: list[_C], cp: _CasePlan) -> bool:
        """Whether these calls are compared pairwise (`_same`), not by hashing their canonical
        keys: a case that judges or leaves values unchecked, or a tool whose rules need pairs.

        The seam where tests force the pairwise path, to compare it with the keyed one."""
        return bool(cp.judged or cp.unchecked or any(c.plan.pairwise for c in calls))

    def _grade_prepared(self, calls: list[_C], cp: _CasePlan) -> _CallsGrade:
        """The general path: `calls` keyed, compared by hashing where keys decide, else
        pairwise (`_pairwise`)."""
        same = _bounded(self._same, calls, cp) if self._pairwise(calls, cp) else None
        mode = cp.case.match
        live = [c for c in calls if not c.call.errored]
        writes = _writes(live, cp)

        per_call = _reported(calls, cp.seqs[0], mode)
        reported_pass = per_call if self.reported == PER_CALL else _whole_list(calls, cp.seqs[0])
        matched = None
        alignments = _Alignments(writes, cp, mode, same)
        for k in range(len(cp.rule_seqs)):
            if alignments.rule_one(k) is not None:
                matched = k
                break
        redundant = _redundant(live, cp.seqs[matched if matched is not None else 0], same)
        aligned_to = matched if matched is not None else _best_partial(writes, alignments)
        labels, missing = _label(calls, live, aligned_to, redundant, self._compare, alignments)
        forbidden = any(r.label == "forbidden" for r in labels)
        if self.absorber is not None:
            items = cp.seqs[aligned_to].items
            for i, r in enumerate(labels):
                if (
                    r.label == "mismatch"
                    and r.step is not None
                    and r.reason is None  # not out of order, breaks no schema
                    and self._absorbs(calls[i], items[r.step])
                ):
                    labels[i] = r._replace(absorbable=True)
        shapes: tuple[str, ...] = ()
        if matched is not None and not reported_pass and not redundant and not forbidden:
            shapes = _false_failure_shapes(calls, live, cp, matched, mode, labels, same)
            if not shapes and per_call:
                # --reported list failed what the per-call reading passes: calls the case's match
                # mode leaves out (around a `contains`, after a `prefix`) or exact repeats of a
                # repeatable tool; the case chose not to judge them.
                shapes = (UNJUDGED,)
        rejected = (
            matched is None
            and reported_pass
            and len(live) < len(calls)
            and any(_rule_one(_writes(calls, cp), q, mode, same) for q in cp.rule_seqs)
        )
        return _CallsGrade(
            reported_pass=reported_pass,
            accepted=matched,
            redundant=bool(redundant),
            aligned_to=aligned_to,
            calls=tuple(labels),
            missing=tuple(missing),
            false_failure_shapes=shapes,
            suspects=_suspects(labels) if matched is not None else (),
            forbidden=forbidden,
            rejected=rejected,
        )


def _finish(
    run_id: str,
    source: str,
    case: Case,
    graded: _CallsGrade,
    world: Any,
    replies: tuple[Replied, ...] = (),
) -> RunResult:
    """The run's verdicts: its calls' grade with its effects checked on its world."""
    effects = check_all(case.effects, world) if case.effects else ()
    effects_ok = all(r.ok is not False for r in effects)
    matched = graded.accepted
    true_pass = matched is not None and not graded.redundant and effects_ok and not graded.forbidden
    verdict = _verdict(graded.reported_pass, true_pass)
    shapes: tuple[str, ...] = ()
    if verdict == "false_failure":
        shapes = graded.false_failure_shapes
    elif verdict == "false_pass":
        # Each shape whose condition holds, and no other; the first by precedence is primary.
        # `rejected_call` only names a step an errored attempt alone made.
        found = {
            name
            for name, holds in (
                (FORBIDDEN_CALL, graded.forbidden),
                (REDUNDANT_CALL, graded.redundant),
                (REJECTED_CALL, graded.rejected),
                (EFFECT_FAILED, not effects_ok),
            )
            if holds
        }
        if not found:  # rule 1 failed with no rejected call to blame: the closest reading
            found = {REJECTED_CALL}
        shapes = tuple(s for s in FALSE_PASS_SHAPES if s in found)
    internal_error = None
    if verdict == "false_failure" and not shapes:
        # SPEC: every false failure carries a shape. Should one ever lack it, say so loudly.
        labels = " ".join(f"{c.tool}:{c.label}" for c in graded.calls)
        internal_error = (
            "internal error: a false failure without a shape (please report it): "
            f"case {case.id!r}, matched sequence #{matched}, calls {labels}"
        )
    return RunResult(
        run_id,
        case.id,
        source,
        verdict,
        shapes[0] if shapes else None,
        shapes,
        graded.reported_pass,
        true_pass,
        matched,
        graded.aligned_to,
        graded.calls,
        graded.missing,
        effects,
        graded.suspects if matched is not None and not effects_ok else (),
        internal_error=internal_error,
        replies=replies,
    )


def _verdict(reported_pass: bool, true_pass: bool) -> Verdict:
    if reported_pass:
        return "pass" if true_pass else "false_pass"
    return "false_failure" if true_pass else "fail"


def _whole_list(calls: list[_C], canonical: _Seq) -> bool:
    """`--reported list`: the run's calls, every one, are the canonical sequence, in order."""
    return len(calls) == len(canonical.exact) and all(
        c.exact == k for c, k in zip(calls, canonical.exact)
    )


def _reported(calls: list[_C], canonical: _Seq, mode: str) -> bool:
    """The exact-match assertion, graded call by call: it cannot see an exact repeat."""
    seen: dict[Any, int] = {}
    limit = canonical.exact_count
    kept = []
    for c in calls:
        n = seen[c.exact] = seen.get(c.exact, 0) + 1
        if n > 1 and n > limit.get(c.exact, 0):
            continue
        kept.append(c.exact)
    return matches(kept, canonical.exact, mode, limit)


Same = Callable[[_C, _C], bool] | None
"""How a run's calls and steps are related: `Grader._same` pairwise, or None where equal canonical
keys decide (then the relation is an equivalence, and counting is hashing)."""


def _bounded(same: Callable[[_C, _C], bool], calls: list[_C], cp: _CasePlan) -> Same:
    """`same`, counted: past `PAIRWISE_WORK` comparisons for one run, AlignmentTooLarge (the
    run is unscoreable, and said), wherever the grading compares (rule 1, rule 2's matchings,
    the labelling alignment)."""
    left = PAIRWISE_WORK

    def bounded(x: _C, y: _C) -> bool:
        nonlocal left
        left -= 1
        if left < 0:
            steps = max(len(s.items) for s in cp.seqs)
            raise AlignmentTooLarge(
                f"too large to align: {len(calls)} calls against {steps} steps compared pair by "
                f"pair (a judged step, or a rule that compares pairs) is more work than one run "
                f"is given ({PAIRWISE_WORK:,} comparisons)"
            )
        return same(x, y)

    return bounded


def _matches(calls: list[_C], seq: _Seq, mode: str, same: Same) -> bool:
    """Rule 1 for one sequence: the calls (repeats already dropped) match it under `mode`."""
    if same is None:
        return matches([c.eq for c in calls], seq.eq, mode, seq.eq_count)
    items = seq.items
    return matches_by(len(calls), len(items), lambda i, j: same(calls[i], items[j]), mode)


def _beyond(calls: list[_C], seq: _Seq, same: Same, *, repeatable: bool) -> dict[int, int]:
    """The calls to tools that are (or are not) `repeatable` that are equivalent to an earlier
    call beyond the number of times `seq` contains them, each with the earliest earlier
    equivalent call (the call it repeats).

    By keys, a call is beyond when its key occurs more often so far than among the steps. Pairwise,
    the same count in a relation that need not be transitive: a call is beyond when, beside the
    earlier calls equivalent to it, it adds nothing to the largest matching of those calls to
    steps equivalent to them. So a run exactly equal to a sequence has nothing beyond it, as by
    keys, and the calls beyond are as many as the group's calls no step can take
    (docs/semantics.md).
    """
    found: dict[int, int] = {}
    if same is None:
        first: dict[Any, int] = {}
        seen: dict[Any, int] = {}
        limit = seq.eq_count
        for c in calls:
            first.setdefault(c.eq, c.index)
            n = seen[c.eq] = seen.get(c.eq, 0) + 1
            if n > 1 and c.plan.repeatable is repeatable and n > limit.get(c.eq, 0):
                found[c.index] = first[c.eq]
        return found
    steps = seq.items
    for p, c in enumerate(calls):
        if c.plan.repeatable is not repeatable:
            continue
        group = [d for d in calls[:p] if same(d, c)]
        if not group:
            continue
        fits = lambda i, j, group=group: same(group[i], steps[j])  # noqa: E731
        before = matching_size(len(group), len(steps), fits)
        group.append(c)
        # Beyond when `c` gives the matching nothing: in `[x(p=0), x(p=0), x(), x()]` against
        # `[x(p=0), x() judged, x() judged]` (p's default 0), only the second copy is; counting
        # every call whose group cannot all be matched would mark the third too, a copy the
        # match serves a step with.
        if matching_size(len(group), len(steps), fits) == before:
            found[c.index] = group[0].index
    return found


def _drop_repeats(calls: list[_C], seq: _Seq, same: Same) -> tuple[list[_C], dict[int, int]]:
    """The calls without repeats to repeatable tools beyond what `seq` contains, the latest
    copies dropped.

    Returns the kept calls and, for each dropped one, the index of the call it repeats (the
    earliest earlier equivalent call).
    """
    if not any(c.plan.repeatable for c in calls):
        return calls, {}  # the common case: nothing to drop (callers never mutate the list)
    dropped = _beyond(calls, seq, same, repeatable=True)
    return [c for c in calls if c.index not in dropped], dropped


def _writes(calls: list[_C], cp: _CasePlan) -> list[_C]:
    """The calls rule 1 holds against a sequence: under `grade: writes`, the reads left out."""
    if not cp.reads:
        return calls
    return [c for c in calls if c.call.tool not in cp.reads]


def _rule_one(
    calls: list[_C], seq: _Seq, mode: str, same: Same
) -> tuple[list[_C], dict[int, int]] | None:
    """Rule 1 for one sequence: (the kept calls, the dropped repeats) when the calls match it.

    The repeat drop keeps the copies a match needs (SPEC "Precise readings"): under `contains`
    and `contains_unordered` a repeat beyond the sequence's count is one more call the mode
    allows, so nothing is dropped; under the other modes the latest copies are dropped, unless
    dropping other copies lets the run match (`[poll(J), b, poll(J)]` is `[b, poll(J)]` exactly).
    """
    if mode in CONTAINS_MODES:
        return (calls, {}) if _matches(calls, seq, mode, same) else None
    kept, dropped = _drop_repeats(calls, seq, same)
    if _matches(kept, seq, mode, same):
        return kept, dropped
    for other in _other_drops(calls, dropped, same):
        if _matches(other[0], seq, mode, same):
            return other
    return None


def _kept(calls: list[_C], seq: _Seq, mode: str, same: Same) -> tuple[list[_C], dict[int, int]]:
    """The kept calls and dropped repeats rule 1 reads the run by, matched or not."""
    found = _rule_one(calls, seq, mode, same)
    if found is not None:
        return found
    return (calls, {}) if mode in CONTAINS_MODES else _drop_repeats(calls, seq, same)


def _equal(c: _C, d: _C, same: Same) -> bool:
    """Calls `c` and `d` are equivalent (to one tool's rules)."""
    return c.eq == d.eq if same is None else same(c, d)


def _groups(calls: list[_C], marks: Mapping[int, int], same: Same) -> list[tuple[list[_C], int]]:
    """The marked repeats' groups: for each call repeated (in order), it, its marked repeats and
    the unmarked calls equivalent to it, with the number of marks among them."""
    by_index = {c.index: c for c in calls}
    counts = Counter(marks.values())
    out = []
    for first in sorted(counts):
        rep = by_index[first]
        members = [
            c
            for c in calls
            if c.index == first
            or marks.get(c.index) == first
            or (c.index not in marks and c.plan is rep.plan and _equal(c, rep, same))
        ]
        out.append((members, counts[first]))
    return out


def _repeats_of(chosen: set[int], groups: list[tuple[list[_C], int]], same: Same) -> dict[int, int]:
    """For each chosen copy, the copy it repeats: the earliest kept copy equivalent to it."""
    out: dict[int, int] = {}
    for members, _ in groups:
        kept = [c for c in members if c.index not in chosen]
        for c in members:
            if c.index in chosen and c.index not in out:
                twin = next((d for d in kept if _equal(d, c, same)), kept[0] if kept else None)
                out[c.index] = twin.index if twin is not None else c.index
    return out


def _other_drops(
    calls: list[_C], dropped: Mapping[int, int], same: Same
) -> Iterator[tuple[list[_C], dict[int, int]]]:
    """Other choices of the copies to drop, as many of each repeated call, latest copies first;
    at most `OTHER_DROPS` of them."""
    if not dropped:
        return
    groups = _groups(calls, dropped, same)
    choices = [list(combinations([c.index for c in members], n))[::-1] for members, n in groups]
    wanted = len(dropped)
    for tried, combo in enumerate(product(*choices)):
        if tried >= OTHER_DROPS:
            return
        drop = set(chain.from_iterable(combo))
        if len(drop) != wanted or drop == set(dropped):
            continue
        kept = [c for c in calls if c.index not in drop]
        yield kept, _repeats_of(drop, groups, same)


def _move_marks(
    marks: dict[int, int], aligned: set[int], calls: list[_C], same: Same
) -> dict[int, int]:
    """The same number of repeats of each call, marked on the copies the alignment did not use.

    Labels agree with the match (SPEC "Precise readings"): in `[x(A), y, x(A)]` against
    `[y, x(A)]`, the later copy serves the step, so the earlier one is the repeat.
    """
    if not marks or aligned.isdisjoint(marks):
        return marks  # the common case: the marked copies are already the unused ones
    groups = _groups(calls, marks, same)
    chosen: set[int] = set()
    for members, n in groups:
        free = [c.index for c in members if c.index not in aligned and c.index not in chosen]
        if len(free) < n:  # not enough unused copies (no match): keep the latest marked too
            free += [c.index for c in members if c.index in aligned and c.index in marks]
        chosen.update(sorted(free)[-n:])
    return _repeats_of(chosen, groups, same)


def _redundant(live: list[_C], seq: _Seq, same: Same) -> dict[int, int]:
    """Calls equivalent to an earlier call, to a non-repeatable tool, beyond what `seq` holds."""
    return _beyond(live, seq, same, repeatable=False)


def _kinds(calls: list[_C], seq: _Seq, same: Same) -> list[list[int]]:
    """How each call fits each step of `seq`: FIT_EXACT, FIT_EQUIVALENT or FIT_NONE."""
    if same is None:
        return [
            [
                FIT_EXACT if c.exact == se else FIT_EQUIVALENT if c.eq == s else FIT_NONE
                for s, se in zip(seq.eq, seq.exact)
            ]
            for c in calls
        ]
    return [
        [
            FIT_EXACT if c.exact == s.exact else FIT_EQUIVALENT if same(c, s) else FIT_NONE
            for s in seq.items
        ]
        for c in calls
    ]


Alignment = tuple[list[_C], dict[int, int], list[tuple[int, int]]]
"""(kept calls, dropped repeats, the pairs (call index, step index)): `_alignment`."""


class _Alignments:
    """One run's rule 1 and alignment against each of its case's rule sequences, each computed
    once: the match, the best partial alignment and the labels all read them."""

    __slots__ = ("_aligned", "_ruled", "calls", "cp", "mode", "same")

    def __init__(self, calls: list[_C], cp: _CasePlan, mode: str, same: Same) -> None:
        self.calls, self.cp, self.mode, self.same = calls, cp, mode, same
        self._ruled: dict[int, tuple[list[_C], dict[int, int]] | None] = {}
        self._aligned: dict[int, Alignment] = {}

    def rule_one(self, k: int) -> tuple[list[_C], dict[int, int]] | None:
        """`_rule_one` against sequence `k`."""
        if k not in self._ruled:
            self._ruled[k] = _rule_one(self.calls, self.cp.rule_seqs[k], self.mode, self.same)
        return self._ruled[k]

    def alignment(self, k: int) -> Alignment:
        """`_alignment` against sequence `k`."""
        found = self._aligned.get(k)
        if found is None:
            seq = self.cp.rule_seqs[k]
            ruled = self.rule_one(k)
            if ruled is None:  # `_kept`'s reading of a run that does not match
                ruled = (
                    (self.calls, {})
                    if self.mode in CONTAINS_MODES
                    else _drop_repeats(self.calls, seq, self.same)
                )
            found = self._aligned[k] = _alignment(seq, self.mode, self.same, ruled)
        return found


def _alignment(
    seq: _Seq,
    mode: str,
    same: Same,
    ruled: tuple[list[_C], dict[int, int]],
) -> Alignment:
    """(kept calls, dropped repeats, the pairs (call index, step index)), from `ruled`, `_kept`'s
    (kept calls, dropped repeats).

    Every copy of a repeated call may serve a step; the repeats are then the copies it left.
    """
    kept, dropped = ruled
    limit = len(seq.steps) if mode == "prefix" else len(kept)
    candidates = [c for c in kept[:limit] if c.call.malformed is None]
    ordered = mode in ORDERED_MODES
    if (
        ordered
        and len(candidates) == len(seq.eq)
        and all(c.eq == s for c, s in zip(candidates, seq.eq))
    ):
        pairs = [(c.index, j) for j, c in enumerate(candidates)]  # all in order
    else:
        found = align(_kinds(candidates, seq, same), len(seq.items), ordered=ordered)
        pairs = [(candidates[i].index, j) for i, j in found]
        if not ordered:
            pairs = _earliest_identical(pairs, seq)
    if mode in CONTAINS_MODES and any(c.plan.repeatable for c in kept):
        aligned = {i for i, _ in pairs}
        dropped = _move_marks(_beyond(kept, seq, same, repeatable=True), aligned, kept, same)
    return kept, dropped, pairs


def _earliest_identical(pairs: list[tuple[int, int]], seq: _Seq) -> list[tuple[int, int]]:
    """The pairs with each call on the earliest of identical steps (SPEC "Precise readings"):
    identical steps fit the same calls alike, so the calls on them may move among them.

    Identical is spelled alike, not JSON-equal: `money_cents` reads `25` as 25 cents and `25.0`
    as 2500, so `"25"` fits the step `25.0` and not the step `25`, though the steps are equal as
    JSON; moving it onto `25` would label a matched call against a step it does not fit."""
    classes: dict[Any, list[int]] = {}
    for j, s in enumerate(seq.items):
        judge = seq.steps[j].judge
        spelling = s.ident if s.ident is not None else ("step", j)  # unwritable: a class alone
        classes.setdefault((spelling, repr(sorted(judge.items())) if judge else ""), []).append(j)
    if all(len(js) == 1 for js in classes.values()):
        return pairs
    class_of = {j: key for key, js in classes.items() for j in js}
    on: dict[Any, list[int]] = {}
    for i, j in pairs:
        on.setdefault(class_of[j], []).append(i)
    out: list[tuple[int, int]] = []
    for key, calls_on in on.items():
        out.extend(zip(sorted(calls_on), classes[key]))
    return sorted(out)


def _best_partial(live: list[_C], alignments: _Alignments) -> int:
    """The accepted sequence with the largest partial alignment, then most exact steps."""
    best, best_score = 0, (-1, -1)
    by_index = {c.index: c for c in live}
    for k, seq in enumerate(alignments.cp.rule_seqs):
        _, _, pairs = alignments.alignment(k)
        exact = sum(1 for i, j in pairs if by_index[i].exact == seq.exact[j])
        if (len(pairs), exact) > best_score:
            best, best_score = k, (len(pairs), exact)
    return best


def _forbidden_by(c: _C, cp: _CasePlan) -> str | None:
    """The first `forbid` entry that names call `c` (its tool, and its listed arguments
    equivalent), as the reason its label gives: `forbid[0]: send_money {"recipient":"eve"}`;
    None when no entry names it."""
    for k, (entry, plan) in enumerate(cp.forbid):
        if entry.tool != c.call.tool:
            continue
        if entry.args:
            args = c.call.args
            listed = {k: args[k] for k in entry.args if k in args}
            if not plan.equivalent(listed, entry.args):
                continue
            return f"forbid[{k}]: {entry.tool} {short_json(dict(entry.args), FORBID_CHARS)}"
        return f"forbid[{k}]: any call to {entry.tool}"
    return None


FORBID_CHARS = 80
"""How much of a `forbid` entry's arguments a forbidden call's reason quotes."""


class _Labelling:
    """What labelling one run's calls against accepted sequence `k` reads: the alignment (which
    call took which step, which exact repeats it dropped), the loops, and the one unaligned call
    to each missing step's tool that is that step's mismatch."""

    def __init__(
        self,
        calls: list[_C],
        live: list[_C],
        k: int,
        redundant: dict[int, int],
        compare: Callable[[_C, _C], Comparison],
        alignments: _Alignments,
    ) -> None:
        self.cp, self.mode, self.k, self.compare = alignments.cp, alignments.mode, k, compare
        self.seq = seq = self.cp.rule_seqs[k]
        kept, self.dropped, pairs = alignments.alignment(k)
        self.by_index = {c.index: c for c in calls}
        self.step_of = dict(pairs)
        self.redundant = _move_marks(redundant, set(self.step_of), live, alignments.same)
        taken = set(self.step_of.values())
        self.missing_steps = [j for j in range(len(seq.steps)) if j not in taken]
        self.position = {c.index: p for p, c in enumerate(kept)}
        self.mismatch_of = self._mismatches(kept)

    def beyond_prefix(self, i: int) -> bool:
        """Under `prefix`, whether call `i` comes after the first len(S) calls."""
        return self.mode == "prefix" and self.position[i] >= len(self.seq.steps)

    def _mismatches(self, kept: list[_C]) -> dict[int, int]:
        """A missing step is paired with one unaligned call to its tool: that call is its
        mismatch."""
        mismatch_of: dict[int, int] = {}
        for j in self.missing_steps:
            tool = self.seq.steps[j].tool
            for c in kept:
                if (
                    c.index not in self.step_of
                    and c.index not in mismatch_of
                    and c.index not in self.redundant
                    and c.index not in self.dropped
                    and c.call.malformed is None
                    and c.call.tool == tool
                    and not self.beyond_prefix(c.index)
                ):
                    mismatch_of[c.index] = j
                    break
        return mismatch_of

    def label(self, c: _C) -> CallResult:
        """One call's label: the first of these that holds (docs/semantics.md gives the order),
        with the step, comparison, repeat or reason that goes with it; shapes come later."""
        call, i = c.call, c.index
        step = comparison = repeats = reason = None
        label: Label
        if call.errored:
            label = "errored"
        elif call.malformed is not None:
            label, reason = "malformed", call.malformed
        elif self.cp.forbid and i not in self.step_of and (by := _forbidden_by(c, self.cp)):
            label, repeats = "forbidden", self.redundant.get(i)  # a second refund is a loop too
            reason = by
        elif i in self.dropped:
            label, repeats = "repeat", self.dropped[i]
            comparison = self.compare(c, self.by_index[repeats])
        elif i in self.redundant:
            label, repeats = "redundant", self.redundant[i]
        elif i in self.step_of:
            j = self.step_of[i]
            step = self.seq.orig[j]
            comparison = self.compare(c, self.seq.items[j])
            label = "exact" if comparison.exact else "equivalent"
        elif call.tool in self.cp.reads:
            label = "read"
        elif i in self.mismatch_of:
            j = self.mismatch_of[i]
            step = self.seq.orig[j]
            comparison = self.compare(c, self.seq.items[j])
            label = "mismatch"
            if comparison.equal:
                reason = f"matches step {step}, out of order"
            else:
                reason = _breach_reason(comparison)
        elif self.mode in CONTAINS_MODES or self.beyond_prefix(i):
            label = "extra"
        else:
            label = "unexpected"
        reported_failed = c.exact not in self.cp.canonical_exact
        return CallResult(i, call.tool, label, step, comparison, repeats, reason, reported_failed)


def _label(
    calls: list[_C],
    live: list[_C],
    k: int,
    redundant: dict[int, int],
    compare: Callable[[_C, _C], Comparison],
    alignments: _Alignments,
) -> tuple[list[CallResult], list[tuple[int, Step]]]:
    """Each call's label against accepted sequence `k`, with the shapes of those the reported
    check failed and the true one did not, and the steps no call took."""
    at = _Labelling(calls, live, k, redundant, compare, alignments)
    labels: list[CallResult] = []
    for c in calls:
        r = at.label(c)
        if r.reported_failed and r.label not in TRUE_FAILED_LABELS and r.label != "extra":
            r = r._replace(shapes=_call_shapes(r.label, r.comparison, k, labels, r.repeats))
        labels.append(r)
    for p, r in enumerate(labels):
        if (
            r.label == "repeat"
            and r.repeats is not None
            and r.repeats > r.index
            and r.reported_failed
        ):
            # A copy before the one the match used: it fails for that copy's reasons too.
            shapes = _call_shapes(r.label, r.comparison, k, labels, r.repeats)
            labels[p] = r._replace(shapes=shapes)
    return labels, [(at.seq.orig[j], at.seq.steps[j]) for j in at.missing_steps]


def _breach_reason(comparison: Comparison) -> str | None:
    """For a mismatch: the values of the call its schema rejects, which no rule could read."""
    found = [d for d in comparison.diffs if d.breaks is not None]
    if not found:
        return None
    return "; ".join(f"{d.path} breaks its schema's {d.breaks}" for d in found)


def _call_shapes(
    label: str,
    comparison: Comparison | None,
    k: int,
    earlier: list[CallResult],
    repeats: int | None,
) -> tuple[str, ...]:
    """The shapes that explain why one call failed the reported check but not the true one."""
    if label == "errored":
        return (ERRORED_ATTEMPT,)
    if label == "read":
        return (UNJUDGED,)  # a read the case graded on writes chose not to judge
    found = set(comparison.shapes) if comparison is not None else set()
    if label == "exact" and k != 0:
        found.add(ALTERNATE_PATH)
    if label == "equivalent" and k != 0:
        found.add(ALTERNATE_PATH)
    if label == "repeat" and repeats is not None and repeats < len(earlier):
        found.update(earlier[repeats].shapes)  # an exact repeat fails for its original's reasons
    return tuple(s for s in FALSE_FAILURE_SHAPES if s in found)


def _false_failure_shapes(
    calls: list[_C],
    live: list[_C],
    cp: _CasePlan,
    matched: int,
    mode: str,
    labels: list[CallResult],
    same: Same,
) -> tuple[str, ...]:
    found: set[str] = set()
    if matched != 0:
        found.add(ALTERNATE_PATH)
    if len(live) < len(calls):
        seq = cp.rule_seqs[matched]
        # errored attempts kept as ordinary calls
        if _rule_one(_writes(calls, cp), seq, mode, same) is None or _reported(
            live, cp.seqs[0], mode
        ):
            # Needed for the match, or they cost the reported check its pass: exact-match took
            # the rejected call for the step and dropped the successful retry as a repeat.
            found.add(ERRORED_ATTEMPT)
    if cp.reads and _reported(_writes(calls, cp), cp.rule_seqs[0], mode):
        found.add(UNJUDGED)  # the reads differed, and the case chose not to judge them
    exact_repeat = any(
        r.label == "repeat" and r.comparison is not None and r.comparison.exact for r in labels
    )
    if exact_repeat and not _reported(live, cp.seqs[0], mode):
        # The repeats of a repeatable tool are what the case chose not to judge; exact-match
        # dropped the copy the match needs (`[poll(J), b, poll(J)]` against `[b, poll(J)]`) and
        # held the calls exactly equal to the sequence once the true check's copies are dropped.
        kept, _ = _kept(_writes(live, cp), cp.rule_seqs[0], mode, same)
        if matches([c.exact for c in kept], cp.rule_seqs[0].exact, mode):
            found.add(UNJUDGED)
    for r in labels:
        if r.label in ("equivalent", "repeat") and r.comparison is not None:
            found.update(r.comparison.shapes)
    return tuple(s for s in FALSE_FAILURE_SHAPES if s in found)


def _suspects(labels: list[CallResult]) -> tuple[tuple[str, str, str], ...]:
    found = set()
    for r in labels:
        if r.label == "equivalent" and r.comparison is not None:
            for d in r.comparison.diffs:
                if d.kind == "absorbed" and d.norm is not None and d.norm not in PREDICATES:
                    found.add((r.tool, d.param, d.norm))  # a step's predicate is no normalizer
    return tuple(sorted(found))
