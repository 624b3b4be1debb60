"""Would a built-in rule absorb a mismatch? The count behind the first-contact headline.

With few rules declared, the true false-failure count is a lower bound: what the declared rules
find. The headline then names `evalrun suggest` with the number of failing calls that differ from
their step only where some built-in rule (never `any`, which absorbs everything) would make the
values equal, each value accepted by its parameter's schema, as grading would require
(SPEC "Precise readings").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..jsonvalue import json_eq
from ..model import NormSpec, Param
from .compare import Node, ToolPlan, equivalent
from .norms import Normalizer, Rule, bind
from .validity import Validity

CANDIDATES: Final = (
    "unordered_list",
    "set",
    "instant",
    "date",
    "month",
    "number",
    "duration_secs",
    "money_cents",
    "casefold",
    "url",
)
"""The built-in rules tried, in no particular order (`suggest` picks the narrowest)."""

_UNDECLARED_ITEMS: Final = Node(param=Param(path="[]", schema={}))
"""The items of a list whose schema declares none: one node for all (the absorber answers yes or
no, so no path is ever shown), never a temporary whose id a later parameter could reuse."""


class Absorber:
    """Tries the built-in rules on a mismatch's differing values."""

    def __init__(self, registry: Mapping[str, Normalizer]) -> None:
        self.rules: list[Rule] = []
        for name in CANDIDATES:
            if name in registry:
                try:
                    self.rules.append(bind(NormSpec(name), registry))
                except ValueError:
                    continue
        self._validity: dict[int, Validity | None] = {}
        """By the id of a parameter (held by the plans, which live as long as this)."""

    def absorbs(self, plan: ToolPlan, actual: Any, expected: Any) -> bool:
        """Whether a run's `actual` arguments differ from a step's `expected` only where some
        built-in rule would make them equal, on values their schema accepts. Where the tool
        declares a rule, that rule's answer stands: widening it is not for this count."""
        return not json_eq(actual, expected) and self._absorbs(actual, expected, plan.root)

    def _absorbs(self, a: Any, e: Any, node: Node) -> bool:
        if equivalent(a, e, node, True, False):
            return True
        if node.rule is not None:
            return False
        validity = self._validity_of(node)
        accepted = validity is None or validity.breach(a) is None
        if accepted and any(self._equal(rule, a, e) for rule in self.rules):
            return True
        if type(a) is dict and type(e) is dict:
            for k in a.keys() | e.keys():
                if k not in a or k not in e:
                    return False  # present on one side only: a default's business, not a rule's
                child = node.props.get(k)
                if child is None:
                    if not json_eq(a[k], e[k]) and not any(
                        self._equal(rule, a[k], e[k]) for rule in self.rules
                    ):
                        return False
                elif not self._absorbs(a[k], e[k], child):
                    return False
            return True
        if type(a) is list and type(e) is list and len(a) == len(e):
            items = node.items or _UNDECLARED_ITEMS
            return all(self._absorbs(x, y, items) for x, y in zip(a, e))
        return False

    @staticmethod
    def _equal(rule: Rule, a: object, e: object) -> bool:
        fa, pa = rule.apply(a)
        if pa is not None:
            return False
        fe, pe = rule.apply(e)
        return pe is None and json_eq(fa, fe)

    def _validity_of(self, node: Node) -> Validity | None:
        key = id(node.param)
        if key not in self._validity:
            self._validity[key] = Validity.of(node.param)
        return self._validity[key]
