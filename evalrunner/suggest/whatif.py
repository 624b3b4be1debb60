"""What-ifs: the runs a set of suggestions would move, by regrading only the runs it can move.

A run's true verdict on its calls depends only on which of its calls are equivalent to which
steps of its case, and to which of its other calls. A rule or a default changes that only for
two argument objects of its tool that differ at its parameter; and it can make them equivalent
only if every top-level parameter at which they differ is one the changes reach (a call that
also names another customer stays a mismatch under any rule on `status`). So `WhatIf` notes, for
each kept group (runs whose calls fail, or that call a tool twice: a run that passes calling
each tool once passes under any wider rule), every pair of its calls, or of a call and a step of
its case, to the same tool that differ, with the top-level parameters they differ at; a set of
changes regrades only the groups with a pair it can reach, with a grader built on the changed
tools, once per distinct set of changes. An accepted sequence added to case C reaches the runs of
C. Runs that made the same calls are one group, graded once.

(Not reached, by design: calls whose arguments are equal as JSON but which a new rule reads
apart, `25` and `25.0` under `money_cents`; SPEC makes JSON-equal values equivalent first.)
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..grade.compare import ToolPlan
from ..grade.grader import Grader, RunResult
from ..grade.norms import Normalizer
from ..grade.trajectory import AlignmentTooLarge
from ..jsonvalue import MISSING, canon_key, json_eq
from ..model import Case, Run, Step, Tool
from .collect import Group, calls_ok
from .params import Change, with_changes
from .sites import differences


@dataclass(frozen=True, slots=True)
class Accepted:
    """An accepted sequence added to a case (at the end: the case's own still come first)."""

    case_id: str
    steps: tuple[Step, ...]

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.case_id, tuple((s.tool, canon_key(dict(s.args))) for s in self.steps))


@dataclass(frozen=True)
class Outcome:
    """What a set of suggestions does to the runs' true verdicts."""

    gains: int
    """Runs whose calls fail the true check now and would pass it."""
    effects_failed: int
    """Of the gains, runs whose recorded world fails an effect assertion."""
    unverified: int
    """Of the gains, runs of a case with effect assertions that recorded no world."""
    gained_passes: int
    """Of the gains, runs that would pass outright (their world does not fail)."""
    lost_passes: int
    """Runs that pass now and would fail (a call the wider rule makes a repeat of another)."""


NOTHING = Outcome(0, 0, 0, 0, 0)


class WhatIf:
    """Regrade the groups a set of changes can move; one grader per distinct set, cached."""

    def __init__(
        self,
        tools: Mapping[str, Tool],
        cases: Mapping[str, Case],
        registry: Mapping[str, Normalizer],
        groups: Sequence[Group],
    ) -> None:
        self.tools, self.cases, self.registry = tools, cases, registry
        self._held = {g.case_id: cases[g.case_id] for g in groups if g.case_id in cases}
        """The groups' cases as objects, held as long as this: `_differing` keys their steps by
        identity, and a `CaseStore` gives a new object for a case it read long ago."""
        self.groups = groups
        self.base = Grader(tools, cases, registry=registry)
        self.pairs: list[frozenset[tuple[str, frozenset[str]]]] = []
        """Per group: (tool, the top-level parameters they differ at) for each differing pair."""
        self.by_top: dict[tuple[str, str], set[int]] = {}
        self.by_case: dict[str, list[int]] = {}
        seen: dict[Any, frozenset[str]] = {}
        self.tools_called: dict[int, Counter[str]] = {}
        for i, g in enumerate(groups):
            if not g.calls_ok:  # a sequence added last cannot change what a passing run matched
                self.by_case.setdefault(g.case_id, []).append(i)
                live = [c.tool for c in g.calls if not c.errored and c.malformed is None]
                self.tools_called[i] = Counter(live)
            pairs = self._differing(g, seen)
            self.pairs.append(pairs)
            for tool, tops in pairs:
                for top in tops:
                    self.by_top.setdefault((tool, top), set()).add(i)
        self._cache: dict[Any, tuple[Outcome, dict[int, bool]]] = {}

    def _differing(
        self, g: Group, seen: dict[Any, frozenset[str]]
    ) -> frozenset[tuple[str, frozenset[str]]]:
        """(tool, top-level parameters) for each call of the group that differs from a step of
        its case to the same tool, or from another call of the group to the same tool."""
        # each argument object named by something cheap to hash: a call by its recorded text,
        # a step by its identity (the cases live as long as this)
        live = [
            (call, text)
            for call, (_, text, _) in zip(g.calls, g.recorded)
            if not call.errored and call.malformed is None
        ]
        others: dict[str, list[tuple[Any, Any]]] = {}
        for seq in self._held[g.case_id].accept:
            for step in seq:
                others.setdefault(step.tool, []).append((id(step.args), step.args))
        found: set[tuple[str, frozenset[str]]] = set()
        for n, (call, text) in enumerate(live):
            plan = self.base.plan(call.tool)
            earlier = [(t, c.args) for c, t in live[:n] if c.tool == call.tool]
            for name, expected in [*others.get(call.tool, ()), *earlier]:
                key = (call.tool, text, name)
                tops = seen.get(key)
                if tops is None:
                    tops = seen[key] = _tops(plan, call.args, expected)
                if tops:
                    found.add((call.tool, tops))
        return frozenset(found)

    def affected(self, changes: Iterable[Change], sequences: Iterable[Accepted]) -> set[int]:
        """The groups the changes and the added sequences can move."""
        reach: dict[str, set[str]] = {}
        for c in changes:
            if c.steps and c.steps[0] is not None:
                reach.setdefault(c.tool, set()).add(c.steps[0])
        out: set[int] = set()
        for tool, tops in reach.items():
            for top in tops:
                for i in self.by_top.get((tool, top), ()):
                    if i not in out and any(t in reach and d <= reach[t] for t, d in self.pairs[i]):
                        out.add(i)
        for s in sequences:
            # a run matches a sequence only if it calls each of its tools as often, at least
            needs = Counter(step.tool for step in s.steps).items()
            for i in self.by_case.get(s.case_id, ()):
                called = self.tools_called[i]
                if all(called.get(tool, 0) >= n for tool, n in needs):
                    out.add(i)
        return out

    def outcome(
        self, changes: Collection[Change] = (), sequences: Collection[Accepted] = ()
    ) -> Outcome:
        return self.regrade(changes, sequences)[0]

    def regrade(
        self, changes: Collection[Change] = (), sequences: Collection[Accepted] = ()
    ) -> tuple[Outcome, dict[int, bool]]:
        """The outcome, and for each group regraded whether its calls would pass."""
        key = _key(changes, sequences)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._regrade(changes, sequences)
        return found

    def grader(self, changes: Collection[Change], sequences: Collection[Accepted]) -> Grader:
        """A grader with the changes and the added sequences."""
        changed: dict[str, Case] = {}
        for s in sequences:
            case = changed.get(s.case_id) or self.cases[s.case_id]
            changed[s.case_id] = dataclasses.replace(case, accept=(*case.accept, s.steps))
        # The tools no change names keep the plans already compiled (`Grader.derive`).
        return self.base.derive(with_changes(self.tools, changes), changed=changed)

    def _regrade(
        self, changes: Collection[Change], sequences: Collection[Accepted]
    ) -> tuple[Outcome, dict[int, bool]]:
        affected = self.affected(changes, sequences)
        if not affected:
            return NOTHING, {}
        # A run of a case no added sequence is for moves as under the changes alone: when those
        # were regraded already (the rules and defaults, before the alternates), reuse them.
        known: dict[int, bool] = {}
        alone = self._cache.get(_key(changes, ())) if sequences else None
        if alone is not None:
            cases = {s.case_id for s in sequences}
            known = {i: ok for i, ok in alone[1].items() if self.groups[i].case_id not in cases}
        grader = self.grader(changes, sequences)
        gains = effects_failed = unverified = gained = lost = 0
        now: dict[int, bool] = {}
        for i in sorted(affected):
            g = self.groups[i]
            ok = known.get(i)
            if ok is None:
                try:
                    result = grader.grade(Run("", g.case_id, g.calls, MISSING))
                except AlignmentTooLarge:  # past the bound under the change: no gain claimed
                    ok = False
                else:
                    assert isinstance(result, RunResult), "every kept group's case is known"
                    ok = calls_ok(result)
            now[i] = ok
            if ok and not g.calls_ok:
                gains += g.runs
                effects_failed += g.effects_failed
                unverified += g.unverified
                gained += g.runs - g.effects_failed
            elif g.calls_ok and not ok:
                lost += g.true_passes
        return Outcome(gains, effects_failed, unverified, gained, lost), now


def _key(changes: Collection[Change], sequences: Collection[Accepted]) -> Any:
    return frozenset(c.key for c in changes), frozenset(s.key for s in sequences)


def _tops(plan: ToolPlan, actual: Any, expected: Any) -> frozenset[str]:
    """The top-level parameters at which two argument objects of the tool differ (undeclared
    ones too: no rule reaches those, so a pair that differs there is never reached)."""
    if type(actual) is not dict or not isinstance(expected, Mapping):
        return frozenset()
    e = dict(expected)
    tops = {s.steps[0] for s in differences(actual, e, plan.root)}
    for k in set(actual) | set(e):
        if k not in plan.root.props and not json_eq(actual.get(k, MISSING), e.get(k, MISSING)):
            tops.add(k)
    return frozenset(t for t in tops if t is not None)
