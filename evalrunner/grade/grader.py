"""One run -> its reported and true verdicts, with every difference explained.

The semantics are SPEC.md "Verdicts"; the readings chosen where it leaves room are in
docs/semantics.md. Grading works on keys: each call gets an exact key (its tool and arguments
under JSON equality) and a canonical key (under the tool's equivalence rules), so matching and
repeat counting are hashing, and explanations are computed only for calls that need one.

Equal canonical keys always mean equivalent calls, and for most tools the converse holds too.
A run with a call to a tool whose rules may read JSON-equal values apart (`ToolPlan.pairwise`:
`money_cents`, say, or a plugin's rule) is graded pairwise instead: calls and steps are related by
`Grader._same` (keys first, then `ToolPlan.equivalent`, cached per pair of spellings), matching is
by earliest fit or bipartite matching, and repeats are counted by matchings (docs/semantics.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any, NamedTuple, cast

import orjson

from ..jsonvalue import canon_key, kept
from ..jsonvalue import dumps as json_dumps
from ..model import (
    FALSE_FAILURE_SHAPES,
    FALSE_PASS_SHAPES,
    MISSING,
    Call,
    Case,
    Run,
    Step,
    Tool,
    TraceError,
)
from ..traces import call_args, call_tool, is_errored, parse_args, parse_record, run_id_of
from .absorb import Absorber
from .compare import EXACT, Comparison, ToolPlan
from .effects import EffectResult, check_all
from .norms import Normalizer, load_registry
from .replies import Observation, ReplyPlan
from .trajectory import (
    FIT_EQUIVALENT,
    FIT_EXACT,
    FIT_NONE,
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


def _newer_half(table: dict[Any, Any]) -> dict[Any, Any]:
    return dict(islice(table.items(), len(table) // 2, None))


_FLAG_KEYS = frozenset({"error", "is_error", "isError", "status", "result"})
"""The keys of a recorded call that can make it an errored attempt (SPEC "Traces")."""
TRUE_FAILED_LABELS = frozenset({"mismatch", "unexpected", "redundant", "malformed"})
ORDERED_MODES = frozenset({"exact", "prefix", "contains"})


class CallResult(NamedTuple):
    """One call's label against the best-matching sequence, with its explanation."""

    index: int  # type: ignore[assignment]  # a field, not tuple.index: the JSON's "index"
    tool: str
    label: str
    """exact, equivalent, mismatch, unexpected, redundant, malformed, errored, repeat, extra."""
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
    verdict: str
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
    group: str | None = None
    """`--group-by`: the run's value of the grouping field (`groups.group_of`); None ungrouped."""
    internal_error: str | None = None
    """A verdict the grader cannot explain, which is a bug of the grader (a false failure without
    a shape): the summary reports it as an internal error. None for every run graded right."""
    replies: tuple[Observation, ...] = ()
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


# --------------------------------------------------------------------------------------- plans


@dataclass(frozen=True, slots=True)
class _Seq:
    steps: tuple[Step, ...]
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


class Grader:
    """Grades runs against cases, with the tools' rules compiled once."""

    def __init__(
        self,
        tools: Mapping[str, Tool],
        cases: Mapping[str, Case],
        *,
        registry: Mapping[str, Normalizer] | None = None,
    ) -> None:
        registry = registry if registry is not None else load_registry()
        self.tools = dict(tools)
        self.cases = dict(cases)
        self.plans: dict[str, ToolPlan] = {
            n: ToolPlan.compile(t, registry) for n, t in tools.items()
        }
        self._case_plans: dict[str, _CasePlan] = {}
        self._memo: dict[Any, _CallsGrade] = {}
        self._calls: dict[tuple[str, Any], _Interned] = {}
        self._ids: dict[Any, int] = {}
        self._next_id = 0
        self.replies = ReplyPlan(self.tools, registry)
        """Reply evidence on the declared rules (`replies.py`); no rule, no evidence."""
        self.absorber: Absorber | None = Absorber(registry)
        """Counts the failing calls a built-in rule would absorb; None where nobody reads the
        count (suggest's what-ifs)."""
        self._comparisons: dict[tuple[int, int, bool], Comparison] = {}
        self._equivalences: dict[tuple[int, int], bool] = {}

    # ------------------------------------------------------------------------------ keys

    def plan(self, tool: str) -> ToolPlan:
        found = self.plans.get(tool)
        if found is None:
            found = self.plans[tool] = ToolPlan.unknown(tool)
        return found

    def _case_plan(self, case: Case) -> _CasePlan:
        found = self._case_plans.get(case.id)
        if found is None:
            seqs = []
            unchecked = False
            for steps in case.accept:
                ids = tuple(self._spelling(s.tool, s.args) for s in steps)
                eq = tuple((s.tool, self.plan(s.tool).key(s.args, checked=False)) for s in steps)
                exact = tuple((s.tool, canon_key(s.args)) for s in steps)
                counts = dict(Counter(eq)), dict(Counter(exact))
                items = []
                for j, s in enumerate(steps):
                    item = _C(j, Call(s.tool, s.args), self.plan(s.tool), exact[j], ids[j])
                    item.eq = eq[j]
                    item.step = True
                    item.rejects = self.plan(s.tool).rejects(s.args)
                    unchecked = unchecked or item.rejects
                    items.append(item)
                seqs.append(_Seq(steps, ids, eq, exact, *counts, tuple(items)))
            labels = tuple(
                CallResult(i, s.tool, "exact", i, EXACT) for i, s in enumerate(case.accept[0])
            )
            canonical = _CallsGrade(True, 0, False, 0, labels, (), (), ())
            found = _CasePlan(
                case, tuple(seqs), frozenset(seqs[0].exact), canonical, unchecked=unchecked
            )
            self._case_plans[case.id] = found
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

    def _spelling(self, tool: str, args: Any) -> int | None:
        """The spelling id of `tool(args)`; None for arguments orjson cannot write."""
        try:
            return self._intern(tool, args).id
        except TypeError:
            return None

    def _compare(self, c: _C, ident: int | None, expected: Any, checked: bool) -> Comparison:
        """`c`'s arguments explained against `expected` (spelled `ident`), once per spelling pair.

        `checked`: `expected` is a run's call (a repeat's original), not a case's step."""
        if c.ident is None or ident is None:
            return c.plan.compare(c.call.args, expected, checked=checked)
        key = (c.ident, ident, checked)
        found = self._comparisons.get(key)
        if found is None:
            if len(self._comparisons) >= COMPARISONS_SIZE:
                self._comparisons = _newer_half(self._comparisons)
            found = c.plan.compare(c.call.args, expected, checked=checked)
            self._comparisons[key] = found
        return found

    def _same(self, x: _C, y: _C) -> bool:
        """Whether calls (or steps) `x` and `y` are equivalent: SPEC rule 1, pairwise.

        Equal canonical keys say yes at once; for a `pairwise` tool, different keys do not say no
        (`{"amount": 25}` and `{"amount": 25.0}` under `money_cents`), so the arguments are
        compared, once per pair of spellings.
        """
        if x.eq == y.eq:
            return True
        plan = x.plan
        if (
            not (plan.pairwise or x.step or y.step)
            or x.call.tool != y.call.tool
            or x.call.malformed is not None
            or y.call.malformed is not None
        ):
            return False
        if x.exact == y.exact:
            return True  # JSON-equal
        if y.step or x.step:  # a run's call against a case's step, whose values are unchecked
            call, step = (x, y) if y.step else (y, x)
            if not (plan.pairwise or step.rejects):
                return False  # the step's values are all accepted: its key decides
            if call.ident is None or step.ident is None:
                return plan.equivalent(call.call.args, step.call.args, checked=False)
            pair = (call.ident, -1 - step.ident)
        else:
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

    def _prepare(self, calls: Sequence[Call], interned: Sequence[_Interned] | None) -> list[_C]:
        plans = self.plans
        out = []
        for i, call in enumerate(calls):
            plan = plans.get(call.tool) or self.plan(call.tool)
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
        if type(record) is dict:
            case_id, raw_calls = record.get("case_id"), record.get("calls")
            case = self.cases.get(case_id) if type(case_id) is str else None
            if case is not None and type(raw_calls) is list:
                read = self._read_calls(raw_calls)
                if read is not None:
                    return self._grade_read(record, source, case, raw_calls, *read)
        run = parse_record(record, source)
        return run if isinstance(run, TraceError) else self.grade(run)

    def _read_calls(self, raw_calls: list[Any]) -> tuple[list[_Interned], list[bool]] | None:
        """Each call interned, and whether it errored; None when a call cannot be read (then
        `parse_record` says why)."""
        interned, errored = [], []
        intern = self._intern
        for raw in raw_calls:
            if type(raw) is not dict:
                return None
            tool = call_tool(raw)
            if tool is None:
                return None
            try:
                interned.append(intern(tool, call_args(raw)))
            except TypeError:  # arguments orjson cannot write (not from a JSON line): read slowly
                return None
            # Most calls carry none of the keys that can flag an error: one set test says so.
            errored.append(
                not _FLAG_KEYS.isdisjoint(raw) and is_errored(raw, raw.get("result", MISSING))
            )
        return interned, errored

    def _grade_read(
        self,
        record: dict[str, Any],
        source: str,
        case: Case,
        raw_calls: list[Any],
        interned: list[_Interned],
        errored: list[bool],
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
        replies: tuple[Observation, ...] = ()
        rules = self.replies.rules
        if rules:
            # most calls carry no result: only those that do are looked at again
            replied = [
                (tool, c.args, raw["result"], c.id)
                for raw, c, e in zip(raw_calls, interned, errored)
                if "result" in raw
                and not e
                and c.malformed is None
                and (tool := call_tool(raw)) is not None
                and tool in rules
            ]
            if replied:
                replies = self.replies.observe(replied)
        return _finish(
            run_id_of(record, source),
            source,
            case,
            graded,
            MISSING if world is None else world,
            replies,
        )

    def grade(self, run: Run) -> RunResult | TraceError:
        """The run's verdicts; a TraceError when its case is unknown."""
        case = self.cases.get(run.case_id) if run.case_id is not None else None
        if case is None:
            if run.case_id is None:
                return TraceError(run.source, 'the record has no "case_id"')
            return TraceError(
                run.source, f"unknown case {run.case_id!r} (not in the cases directory)"
            )
        replies: tuple[Observation, ...] = ()
        if self.replies.rules:
            replies = self.replies.observe(
                (c.tool, c.args, c.result, None)
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
        calls = self._prepare(run_calls, interned)
        canonical = cp.seqs[0].exact
        if len(calls) == len(canonical) and all(
            c.exact == k and not c.call.errored for c, k in zip(calls, canonical)
        ):
            return cp.exactly_canonical
        self._canonical_keys(calls)
        return self._grade_prepared(calls, cp)

    def _grade_prepared(self, calls: list[_C], cp: _CasePlan, *, keys: bool = True) -> _CallsGrade:
        """The general path: `calls` keyed, by hashing where keys decide (`keys`), else pairwise.

        `keys=False` grades pairwise even where keys alone would do; tests compare both paths.
        """
        pairwise = not keys or cp.unchecked or any(c.plan.pairwise for c in calls)
        same = self._same if pairwise else None
        mode = cp.case.match
        live = [c for c in calls if not c.call.errored]

        reported_pass = _reported(calls, cp.seqs[0], mode)
        matched = None
        for k, seq in enumerate(cp.seqs):
            kept, _ = _drop_repeats(live, seq, same)
            if _matches(kept, seq, mode, same):
                matched = k
                break
        redundant = _redundant(live, cp.seqs[matched if matched is not None else 0], same)
        aligned_to = (
            matched if matched is not None else _best_partial(live, cp, mode, redundant, same)
        )
        labels, missing = _label(calls, live, cp, aligned_to, mode, redundant, same, self._compare)
        absorber, steps = self.absorber, cp.seqs[aligned_to].steps
        for i, r in enumerate(labels):
            if (
                absorber is not None
                and r.label == "mismatch"
                and r.step is not None
                and r.reason is None  # not out of order, breaks no schema
                and absorber.absorbs(calls[i].plan, calls[i].call.args, steps[r.step].args)
            ):
                labels[i] = r._replace(absorbable=True)
        shapes: tuple[str, ...] = ()
        if matched is not None and not reported_pass and not redundant:
            shapes = _false_failure_shapes(calls, live, cp, matched, mode, labels, same)
        return _CallsGrade(
            reported_pass=reported_pass,
            accepted=matched,
            redundant=bool(redundant),
            aligned_to=aligned_to,
            calls=tuple(labels),
            missing=tuple(missing),
            false_failure_shapes=shapes,
            suspects=_suspects(labels) if matched is not None else (),
        )


def _finish(
    run_id: str,
    source: str,
    case: Case,
    graded: _CallsGrade,
    world: Any,
    replies: tuple[Observation, ...] = (),
) -> RunResult:
    """The run's verdicts: its calls' grade with its effects checked on its world."""
    effects = check_all(case.effects, world) if case.effects else ()
    effects_ok = all(r.ok is not False for r in effects)
    matched = graded.accepted
    true_pass = matched is not None and not graded.redundant and effects_ok
    verdict = _verdict(graded.reported_pass, true_pass)
    shapes: tuple[str, ...] = ()
    if verdict == "false_failure":
        shapes = graded.false_failure_shapes
    elif verdict == "false_pass":
        # The primary shape by precedence; a failed effect is an independent fact and is listed
        # too. `rejected_call` only names a step an errored attempt alone made.
        primary = (
            "redundant_call"
            if graded.redundant
            else "rejected_call"
            if matched is None
            else "effect_failed"
        )
        found = {primary} | ({"effect_failed"} if not effects_ok else set())
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


def _verdict(reported_pass: bool, true_pass: bool) -> str:
    if reported_pass:
        return "pass" if true_pass else "false_pass"
    return "false_failure" if true_pass else "fail"


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
    return matches(kept, canonical.exact, mode)


Same = Callable[[_C, _C], bool] | None
"""How a run's calls and steps are related: `Grader._same` pairwise, or None where equal canonical
keys decide (then the relation is an equivalence, and counting is hashing)."""


def _matches(calls: list[_C], seq: _Seq, mode: str, same: Same) -> bool:
    """Rule 1 for one sequence: the calls (repeats already dropped) match it under `mode`."""
    if same is None:
        return matches([c.eq for c in calls], seq.eq, mode)
    items = seq.items
    return matches_by(len(calls), len(items), lambda i, j: same(calls[i], items[j]), mode)


def _beyond(calls: list[_C], seq: _Seq, same: Same, *, repeatable: bool) -> dict[int, int]:
    """The calls to tools that are (or are not) `repeatable` that are equivalent to an earlier
    call beyond the number of times `seq` contains them, each with the earliest earlier
    equivalent call (the call it repeats).

    By keys, a call is beyond when its key occurs more often so far than among the steps. Pairwise,
    the same count in a relation that need not be transitive: a call is beyond when it and the
    earlier calls equivalent to it cannot each have a step of their own equivalent to them. So a
    run exactly equal to a sequence has nothing beyond it, as by keys (docs/semantics.md).
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
        group.append(c)
        fits = lambda i, j, group=group: same(group[i], steps[j])  # noqa: E731
        if matching_size(len(group), len(steps), fits) < len(group):
            found[c.index] = group[0].index
    return found


def _drop_repeats(calls: list[_C], seq: _Seq, same: Same) -> tuple[list[_C], dict[int, int]]:
    """The calls without repeats to repeatable tools beyond what `seq` contains.

    Returns the kept calls and, for each dropped one, the index of the call it repeats (the
    earliest earlier equivalent call).
    """
    if not any(c.plan.repeatable for c in calls):
        return calls, {}  # the common case: nothing to drop (callers never mutate the list)
    dropped = _beyond(calls, seq, same, repeatable=True)
    return [c for c in calls if c.index not in dropped], dropped


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


def _alignment(
    live: list[_C], seq: _Seq, mode: str, redundant: Mapping[int, int], same: Same
) -> tuple[list[_C], dict[int, int], list[tuple[int, int]]]:
    """(kept calls, dropped repeats, the pairs (call index, step index))."""
    kept, dropped = _drop_repeats(live, seq, same)
    limit = len(seq.steps) if mode == "prefix" else len(kept)
    candidates = [c for c in kept[:limit] if c.call.malformed is None and c.index not in redundant]
    ordered = mode in ORDERED_MODES
    if (
        ordered
        and len(candidates) == len(seq.eq)
        and all(c.eq == s for c, s in zip(candidates, seq.eq))
    ):
        return kept, dropped, [(c.index, j) for j, c in enumerate(candidates)]  # all in order
    pairs = align(_kinds(candidates, seq, same), len(seq.items), ordered=ordered)
    return kept, dropped, [(candidates[i].index, j) for i, j in pairs]


def _best_partial(
    live: list[_C], cp: _CasePlan, mode: str, redundant: Mapping[int, int], same: Same
) -> int:
    """The accepted sequence with the largest partial alignment, then most exact steps."""
    best, best_score = 0, (-1, -1)
    by_index = {c.index: c for c in live}
    for k, seq in enumerate(cp.seqs):
        _, _, pairs = _alignment(live, seq, mode, redundant, same)
        exact = sum(1 for i, j in pairs if by_index[i].exact == seq.exact[j])
        if (len(pairs), exact) > best_score:
            best, best_score = k, (len(pairs), exact)
    return best


def _label(
    calls: list[_C],
    live: list[_C],
    cp: _CasePlan,
    k: int,
    mode: str,
    redundant: Mapping[int, int],
    same: Same,
    compare: Callable[[_C, int | None, Any, bool], Comparison],
) -> tuple[list[CallResult], list[tuple[int, Step]]]:
    seq = cp.seqs[k]
    kept, dropped, pairs = _alignment(live, seq, mode, redundant, same)
    by_index = {c.index: c for c in calls}
    step_of = dict(pairs)
    missing_steps = [j for j in range(len(seq.steps)) if j not in set(step_of.values())]
    position = {c.index: p for p, c in enumerate(kept)}
    outside_allowed = mode in ("contains", "contains_unordered")

    # A missing step is paired with one unaligned call to its tool: that call is its mismatch.
    mismatch_of: dict[int, int] = {}
    for j in missing_steps:
        tool = seq.steps[j].tool
        for c in kept:
            if (
                c.index not in step_of
                and c.index not in mismatch_of
                and c.index not in redundant
                and c.call.malformed is None
                and c.call.tool == tool
                and not (mode == "prefix" and position[c.index] >= len(seq.steps))
            ):
                mismatch_of[c.index] = j
                break

    labels: list[CallResult] = []
    for c in calls:
        call, i = c.call, c.index
        step = comparison = repeats = reason = None
        if call.errored:
            label = "errored"
        elif call.malformed is not None:
            label, reason = "malformed", call.malformed
        elif i in dropped:
            label, repeats = "repeat", dropped[i]
            earlier = by_index[repeats]
            comparison = compare(c, earlier.ident, earlier.call.args, True)
        elif i in redundant:
            label, repeats = "redundant", redundant[i]
        elif i in step_of:
            step = step_of[i]
            comparison = compare(c, seq.ids[step], seq.steps[step].args, False)
            label = "exact" if comparison.exact else "equivalent"
        elif i in mismatch_of:
            step = mismatch_of[i]
            comparison = compare(c, seq.ids[step], seq.steps[step].args, False)
            label = "mismatch"
            if comparison.equal:
                reason = f"matches step {step}, out of order"
            else:
                reason = _breach_reason(comparison)
        elif outside_allowed or (mode == "prefix" and position[i] >= len(seq.steps)):
            label = "extra"
        else:
            label = "unexpected"
        reported_failed = c.exact not in cp.canonical_exact
        shapes: tuple[str, ...] = ()
        if reported_failed and label not in TRUE_FAILED_LABELS and label != "extra":
            shapes = _call_shapes(label, comparison, k, labels, repeats)
        labels.append(
            CallResult(
                i, call.tool, label, step, comparison, repeats, reason, reported_failed, shapes
            )
        )
    return labels, [(j, seq.steps[j]) for j in missing_steps]


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
        return ("errored_attempt",)
    found = set(comparison.shapes) if comparison is not None else set()
    if label == "exact" and k != 0:
        found.add("alternate_path")
    if label == "equivalent" and k != 0:
        found.add("alternate_path")
    if label == "repeat" and repeats is not None:
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
        found.add("alternate_path")
    if len(live) < len(calls):
        seq = cp.seqs[matched]
        kept, _ = _drop_repeats(calls, seq, same)  # errored attempts kept as ordinary calls
        if not _matches(kept, seq, mode, same) or _reported(live, cp.seqs[0], mode):
            # Needed for the match, or they cost the reported check its pass: exact-match took
            # the rejected call for the step and dropped the successful retry as a repeat.
            found.add("errored_attempt")
    for r in labels:
        if r.label in ("equivalent", "repeat") and r.comparison is not None:
            found.update(r.comparison.shapes)
    return tuple(s for s in FALSE_FAILURE_SHAPES if s in found)


def _suspects(labels: list[CallResult]) -> tuple[tuple[str, str, str], ...]:
    found = set()
    for r in labels:
        if r.label == "equivalent" and r.comparison is not None:
            for d in r.comparison.diffs:
                if d.kind == "absorbed" and d.norm is not None:
                    found.add((r.tool, d.param, d.norm))
    return tuple(sorted(found))
