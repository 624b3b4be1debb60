"""Where the failing calls differ from their steps: the evidence every rule and default is read
from.

A call the grader labelled `mismatch` is held against the step it was paired with, walking both
argument objects down the tool's parameters as the grader compiled them: each parameter whose
values differ (and are not already equivalent under the declared rules) is a *site* — a `pair`
when both sides give a value, a `single` when one side leaves the parameter out. A list whose
elements are the same but in another order is a site of the list only: pairing its elements by
position would compare unrelated elements.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..grade.compare import Node, ToolPlan, normalize
from ..grade.norms import Normalizer
from ..jsonvalue import MISSING, canon_key, json_eq
from ..model import Case, Tool
from .collect import Group
from .params import ITEMS, Steps

SiteKind = Literal["pair", "single"]


@dataclass(frozen=True, slots=True, eq=False)
class Site:
    """One parameter at which a call and its step differ."""

    steps: Steps
    kind: SiteKind
    actual: Any
    """The call's value (MISSING when the call leaves the parameter out)."""
    expected: Any
    """The step's value (MISSING when the step leaves it out)."""

    @property
    def present(self) -> Any:
        """For a `single`: the value the side that gives one gives."""
        return self.expected if self.actual is MISSING else self.actual

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.steps, self.kind, _key(self.actual), _key(self.expected))


def _key(value: Any) -> Any:
    return None if value is MISSING else canon_key(value)


@dataclass(eq=False)
class Mismatch:
    """A distinct (call arguments, step arguments) pair of one tool that did not match."""

    tool: str
    actual: Any
    expected: Any
    sites: tuple[Site, ...]
    occurrences: Counter[int] = field(default_factory=Counter)
    """Group index -> how many of the group's calls are this mismatch (each run of the group
    makes them all)."""


def mismatches(
    groups: Sequence[Group],
    cases: Mapping[str, Case],
    tools: Mapping[str, Tool],
    registry: Mapping[str, Normalizer],
) -> list[Mismatch]:
    """Every distinct mismatch in the groups whose calls fail, in order of first appearance."""
    found: dict[tuple[Any, ...], Mismatch] = {}
    plans: dict[str, ToolPlan] = {}
    for index, group in enumerate(groups):
        if group.calls_ok:
            continue
        steps = cases[group.case_id].accept[group.aligned_to]
        for call_index, step in group.mismatched:
            call = group.calls[call_index]
            tool = tools.get(call.tool)
            if tool is None:
                continue
            actual, expected = call.args, steps[step].args
            key = (call.tool, canon_key(actual), canon_key(expected))
            m = found.get(key)
            if m is None:
                plan = plans.get(call.tool)
                if plan is None:
                    plan = plans[call.tool] = ToolPlan.compile(tool, registry)
                sites = tuple(differences(actual, dict(expected), plan.root))
                m = found[key] = Mismatch(call.tool, actual, expected, sites)
            m.occurrences[index] += 1
    return list(found.values())


def differences(actual: Any, expected: Any, node: Node, steps: Steps = ()) -> Iterator[Site]:
    """The sites at which `actual` and `expected` differ under `node` (the tool's root)."""
    if _same(actual, expected, node):
        return
    if steps:
        yield Site(steps, "pair", actual, expected)
    if type(actual) is dict and type(expected) is dict:
        for name in sorted(set(actual) | set(expected)):
            child = node.props.get(name)
            if child is None:
                continue  # not declared: no rule below can absorb it (the object's own rule may)
            here = (*steps, name)
            a, e = actual.get(name, MISSING), expected.get(name, MISSING)
            if a is not MISSING and e is not MISSING:
                yield from differences(a, e, child, here)
            elif not _default(a if e is MISSING else e, child):
                yield Site(here, "single", a, e)
    elif (
        type(actual) is list
        and type(expected) is list
        and node.items is not None
        and len(actual) == len(expected)
        and not _permutation(actual, expected, node.items)
    ):
        for a, e in zip(actual, expected):
            yield from differences(a, e, node.items, (*steps, ITEMS))


def _same(a: Any, e: Any, node: Node) -> bool:
    return json_eq(a, e) or (
        (node.active or node.rule is not None) and json_eq(normalize(a, node), normalize(e, node))
    )


def _default(value: Any, node: Node) -> bool:
    """Whether `value`, on one side only, is the declared default (so it is no difference)."""
    return node.default is not MISSING and json_eq(normalize(value, node), node.default_norm)


def _permutation(a: list[Any], e: list[Any], items: Node) -> bool:
    ka = sorted(canon_key(normalize(x, items)) for x in a)
    ke = sorted(canon_key(normalize(x, items)) for x in e)
    return ka == ke
