"""`args_equivalent`: do two argument objects mean the same to the tool, and why (not)?

Rules (SPEC "Verdicts"): a parameter equal before normalizing is equal; otherwise both sides and
the declared defaults are normalized per parameter, and a parameter present on one side only is
dropped when its value equals the declared default. Rules nest: the rules inside a value (its
properties', its items') apply before the value's own rule.

The relation is pairwise (`equivalent`), node by node, JSON equality first. Where every rule reads
JSON-equal values alike it is the equality of one canonical form per argument object
(`ToolPlan.key`), so grading can match calls by hashing; where one does not (`money_cents` reads
`25` as cents and `25.0` as units) it is not transitive, and grading asks `ToolPlan.equivalent`
(docs/semantics.md, "Equivalence"). The explanation (`ToolPlan.compare`) walks both sides the same
way and names every difference: which parameter, raw and normalized, and which rule absorbed it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from .. import core
from ..jsonvalue import canon_key, json_eq, short_json
from ..model import MISSING, InputError, NormSpec, Param, Tool
from ..shapes import DEFAULT, FALSE_FAILURE_SHAPES, UNJUDGED
from . import norms, validity
from .norms import Normalizer, Rule, bind, load_registry
from .validity import Breach, Validity

DiffKind = Literal["absorbed", "default", "mismatch"]


@dataclass(frozen=True, slots=True)
class Diff:
    """One difference between actual and expected arguments, at one path."""

    path: str
    """Where in the arguments: `month`, `filters.status`, `flights[1].date`."""
    param: str
    """The schema parameter it belongs to: `flights[].date`."""
    kind: DiffKind
    """`absorbed` by a rule, a restated `default`, or a `mismatch` no rule explains."""
    shape: str | None = None
    """`encoding` or `ordering` (the absorbing rule's class), `default`, or None for a mismatch."""
    norm: str | None = None
    """The rule that absorbed the difference (or was tried on a mismatch)."""
    actual: Any = MISSING
    expected: Any = MISSING
    actual_norm: Any = MISSING
    expected_norm: Any = MISSING
    note: str | None = None
    """Why a rule did not apply to one of the values, when it did not."""
    breaks: str | None = None
    """The schema keyword a run's value breaks (`format`, `type`, ...): compared as JSON only."""


@dataclass(frozen=True, slots=True)
class Comparison:
    """The result of `args_equivalent`: equal or not, and every difference explained."""

    equal: bool
    exact: bool
    diffs: tuple[Diff, ...] = ()

    def __bool__(self) -> bool:
        return self.equal

    @property
    def shapes(self) -> tuple[str, ...]:
        """The false-failure shapes the absorbed differences contribute, in precedence order."""
        found = {d.shape for d in self.diffs if d.kind != "mismatch"}
        return tuple(s for s in FALSE_FAILURE_SHAPES if s in found)

    @property
    def mismatches(self) -> tuple[Diff, ...]:
        return tuple(d for d in self.diffs if d.kind == "mismatch")


EXACT = Comparison(equal=True, exact=True)


class Predicate(Protocol):
    """A step's test of the run's value (`judge`: `matches`, `one_of`), in place of equality."""

    name: str
    """As the case writes it: `matches`, `one_of`."""

    def test(self, value: Any) -> tuple[bool, str | None]:
        """(whether the run's value passes, why not when it does not)."""
        ...


@dataclass(frozen=True, slots=True, eq=False)
class Node:
    """A parameter compiled for comparison: its bound rule and its normalized default."""

    param: Param
    rule: Rule | None = None
    props: Mapping[str, Node] = field(default_factory=dict)
    items: Node | None = None
    default: Any = MISSING
    default_norm: Any = MISSING
    active: bool = False
    """A rule or a default at or below this node; when False, normalizing is the identity."""
    stable: bool = True
    """Every rule at or below this node reads JSON-equal values alike (`Rule.json_stable`), so
    that equivalence below it is the equality of normal forms."""
    predicate: Predicate | None = None
    """A step's `judge` predicate on the run's value here (then `rule` is the parameter's own,
    which `one_of` compares under). Comparisons with it are not symmetric: the run's call is
    `a`, the step `e`."""
    validity: Validity | None = None
    """What the node's schema accepts, on an active node (where a rule could read the value)."""


REJECTED = "\x00evalrun: a value its schema rejects"
"""The key of a checked value's normal form when its schema rejects it: `{REJECTED: value}` equals
only the forms of JSON-equal values, so no rule makes it equal to a different one."""


def breach(value: Any, node: Node) -> Breach | None:
    """How a run's `value` breaks the schema of `node`; None when accepted (or nothing to check)."""
    return node.validity.breach(value) if node.validity is not None else None


Override = NormSpec | Predicate | None
"""What a step's `judge` puts at a parameter path: a rule in place of the tool's, or a predicate."""


def compile_param(
    param: Param,
    registry: Mapping[str, Normalizer],
    where: str,
    judge: Mapping[str, Override] | None = None,
) -> Node:
    """Bind every rule below `param`; InputError for an unknown normalizer or a bad option.

    `judge` (a step's, by parameter path) replaces the tool's rule where it names one, and puts
    its predicates in place."""
    props = {k: compile_param(p, registry, where, judge) for k, p in param.properties.items()}
    items = compile_param(param.items, registry, where, judge) if param.items is not None else None
    norm, predicate = param.norm, None
    if judge and param.path in judge:
        found = judge[param.path]
        if isinstance(found, NormSpec):
            norm = found
        else:
            predicate = found
    rule = None
    if norm is not None:
        try:
            rule = bind(norm, registry, fields=frozenset(param.properties))
        except ValueError as e:
            raise InputError(f"{where}: parameter {param.path or '(root)'!r}: {e}") from None
    active = (
        rule is not None
        or predicate is not None
        or any(c.active or c.default is not MISSING for c in props.values())
        or (items is not None and items.active)
    )
    stable = (
        (rule is None or rule.json_stable)
        and predicate is None
        and all(c.stable for c in props.values())
        and (items is None or items.stable)
    )
    node = Node(
        param=param,
        rule=rule,
        props=props,
        items=items,
        default=param.default,
        active=active,
        stable=stable,
        predicate=predicate,
        validity=Validity.of(param) if active else None,
    )
    if param.default is not MISSING:  # the tool's own value: not checked (lint checks it)
        node = replace(node, default_norm=py_normalize(param.default, node, checked=False))
    return node


def _inner(value: Any, node: Node, checked: bool) -> Any:
    """`value` with the rules below `node` applied and default-valued properties dropped."""
    if not node.active:
        return value
    if node.props and type(value) is dict:
        out = {}
        for k, x in value.items():
            child = node.props.get(k)
            if child is None:
                out[k] = x
                continue
            nx = py_normalize(x, child, checked) if child.active else x
            if child.default is not MISSING and json_eq(nx, child.default_norm):
                continue  # a stated default is the same as an omitted parameter
            out[k] = nx
        return out
    if node.items is not None and node.items.active and type(value) is list:
        return [py_normalize(x, node.items, checked) for x in value]
    return value


def py_normalize(value: Any, node: Node, checked: bool = False) -> Any:
    """The canonical form of `value` under `node`: equal forms mean equivalent values.

    `checked`: the value is a run's, so a value its schema rejects is kept out of every rule
    (its form is `{REJECTED: value}`). A case's or a tool's own value is not checked (SPEC), and
    neither is a value whose schema a caller has checked itself (lint's law checks).

    The reference; `normalize` is the active core's (`evalrunner.core`).
    """
    if checked and node.validity is not None and node.validity.breach(value) is not None:
        return {REJECTED: value}
    value = _inner(value, node, checked)
    if node.rule is not None:
        value = node.rule.apply(value)[0]
    return value


NATIVE_NODES_SIZE = 65_536
"""The most nodes kept compiled for the native core (`native_node`); the table is cleared when full."""
_native_nodes: dict[Node, Any] = {}
"""Each node's `evalrun_native.Node`, made when it is first normalized. Keyed by the node itself
(nodes compare by identity), outside the node, so that a pickled plan carries none (a worker
compiles its own)."""


def native_node(node: Node) -> Any:
    """`node` for the native core: its rules, defaults and schema checks as `normalize` reads
    them. Only with the native core active."""
    found = _native_nodes.get(node)
    if found is None:
        native = core.NATIVE
        assert native is not None
        if len(_native_nodes) >= NATIVE_NODES_SIZE:
            _native_nodes.clear()
        props = {k: native_node(c) for k, c in node.props.items()}
        items = node.items
        kind, arg = _native_rule(node.rule)
        v = node.validity
        found = _native_nodes[node] = native.Node(
            node.active,
            props or None,
            native_node(items) if items is not None and items.active else None,
            node.default_norm,
            node.default is not MISSING,
            kind,
            arg,
            v,
            list(v.types) if v is not None else [],
            v.const if v is not None else None,
            v is not None and v.const is not validity._ABSENT,
            v.enum if v is not None else None,
            v is not None and (v.pattern is not None or v.fmt is not None),
        )
    return found


def _native_rule(rule: Rule | None) -> tuple[str, Any]:
    """How the native core applies `rule`: the built-ins it ports by name, any other rule as its
    Python function (`Rule.fn`)."""
    if rule is None:
        return "", None
    fn = rule.fn
    if fn is norms.casefold:
        return "casefold", None
    if fn is norms.unordered_list:
        return "unordered_list", None
    if fn is norms.set_:
        return "set", None
    if fn is norms.any_:
        return "constant", norms.UNJUDGED
    if (
        isinstance(fn, functools.partial)
        and fn.func is norms.known_fields
        and not fn.args
        and set(fn.keywords) == {"fields"}
        and type(fn.keywords["fields"]) is frozenset
    ):
        return "known_fields", fn.keywords["fields"]
    return "python", fn


def _native_normalize(value: Any, node: Node, checked: bool = False) -> Any:
    """`py_normalize`, by the native core."""
    return native_node(node).normalize(value, checked)


normalize = py_normalize if core.NATIVE is None else _native_normalize


def equivalent(a: Any, e: Any, node: Node, ca: bool = True, ce: bool = True) -> bool:
    """Whether `a` and `e` mean the same under `node` (docs/semantics.md, "Equivalence").

    JSON-equal values are equivalent; else a checked side (`ca`, `ce`: a run's value) its schema
    rejects is equivalent to nothing else; else a value with its own rule compares the rule's
    forms of its inner-normalized sides; an object without one, property by property (a property
    on one side only must be equivalent to its declared default); a list without one, item by
    item. Equal normal forms always mean equivalent values; the converse holds where `node.stable`.
    """
    if json_eq(a, e):
        return True
    if not node.active:
        return False
    validity = node.validity
    if validity is not None and (
        (ca and validity.breach(a) is not None) or (ce and validity.breach(e) is not None)
    ):
        return False
    if node.predicate is not None:
        return node.predicate.test(a)[0]
    rule = node.rule
    if rule is not None:
        return json_eq(rule.apply(_inner(a, node, ca))[0], rule.apply(_inner(e, node, ce))[0])
    if type(a) is dict and type(e) is dict:
        props = node.props
        for k in a.keys() | e.keys():
            child = props.get(k)
            if child is not None and child.predicate is not None and not (k in a and k in e):
                if not _absent_passes(a, k, child, ca):
                    return False
            elif k in a and k in e:
                if not (
                    json_eq(a[k], e[k]) if child is None else equivalent(a[k], e[k], child, ca, ce)
                ):
                    return False
            elif (
                child is None
                or child.default is MISSING
                or not (
                    equivalent(a[k], child.default, child, ca, False)
                    if k in a
                    else equivalent(e[k], child.default, child, ce, False)
                )
            ):
                return False
        return True
    if type(a) is list and type(e) is list and node.items is not None and len(a) == len(e):
        items = node.items
        return all(equivalent(x, y, items, ca, ce) for x, y in zip(a, e))
    return False


def _absent_passes(a: Mapping[str, Any], k: str, node: Node, checked: bool = True) -> bool:
    """A predicate on a parameter one side leaves out: the run's value is tested, and a run that
    omits it is tested on the declared default (no default: it fails). A run's value its schema
    rejects passes no predicate (`checked`)."""
    assert node.predicate is not None
    if k in a:
        if checked and breach(a[k], node) is not None:
            return False
        return node.predicate.test(a[k])[0]
    return node.default is not MISSING and node.predicate.test(node.default)[0]


class ToolPlan:
    """One tool compiled once for grading: canonical keys for hashing, and explanations."""

    __slots__ = ("active", "judged", "name", "pairwise", "repeatable", "root", "tool")

    def __init__(self, tool: Tool | None, name: str, root: Node) -> None:
        self.tool = tool
        self.name = name
        self.root = root
        self.repeatable = tool.repeatable if tool is not None else False
        self.active = root.active
        self.pairwise = not root.stable
        """Some rule of the tool may read JSON-equal values apart: equal keys still mean
        equivalent calls, but calls with different keys may be equivalent too (`equivalent`)."""
        self.judged = False
        """A step's own plan (`judge.step_plan`): it compares a run's call (first) with that
        step (second), and its forms are not comparable with the tool's keys."""

    def with_repeatable(self) -> ToolPlan:
        """This plan for a case that lists the tool in `repeatable`."""
        plan = ToolPlan(self.tool, self.name, self.root)
        plan.repeatable = True
        return plan

    @classmethod
    def compile(cls, tool: Tool, registry: Mapping[str, Normalizer]) -> ToolPlan:
        where = f"{tool.source} ({tool.name})" if tool.source else tool.name
        return cls(tool, tool.name, compile_param(tool.params, registry, where))

    @classmethod
    def unknown(cls, name: str) -> ToolPlan:
        """A tool no schema defines: its arguments compare by JSON equality only."""
        return cls(None, name, Node(param=Param(path="", schema={})))

    def key(self, args: Any, *, checked: bool = True) -> Any:
        """Equal keys mean equivalent arguments; unless `pairwise`, the converse holds too.

        `checked`: the arguments are a run's (values their schema rejects are kept out of the
        rules); a case's steps are keyed unchecked (`rejects` says when that makes a difference).
        """
        if core.NATIVE is not None:
            return native_node(self.root).key(args, checked)
        return canon_key(py_normalize(args, self.root, checked) if self.active else args)

    def rejects(self, args: Any) -> bool:
        """Whether some value of `args` that a rule could read breaks its schema."""
        return self.active and self.key(args) != self.key(args, checked=False)

    def equivalent(self, actual: Any, expected: Any, *, checked: bool = True) -> bool:
        """`compare(actual, expected).equal`, without the explanation. `actual` is a run's;
        `checked` says whether `expected` is one too (a step's values are not checked)."""
        return equivalent(actual, expected, self.root, True, checked)

    def compare(self, actual: Any, expected: Any, *, checked: bool = True) -> Comparison:
        """Equivalent or not, with every difference explained. `actual` is a run's call's
        arguments; `checked` says whether `expected` is a run's too (False for a case's step)."""
        if json_eq(actual, expected):
            return EXACT
        diffs: list[Diff] = []
        equal = _explain(actual, expected, self.root, "", diffs, True, checked)
        return Comparison(equal=equal, exact=False, diffs=tuple(diffs))


def args_equivalent(
    tool: Tool,
    actual: Mapping[str, Any],
    expected: Mapping[str, Any],
    *,
    registry: Mapping[str, Normalizer] | None = None,
) -> Comparison:
    """Whether `actual` means the same as `expected` to `tool`, with every difference explained.

    `actual` is a run's: a value of it that its schema rejects is compared as JSON only;
    `expected` is a case's, whose values are not checked (SPEC "Precise readings").

    Compiles the tool's rules on each call; grading code compiles a `ToolPlan` once instead.
    """
    plan = ToolPlan.compile(tool, registry if registry is not None else load_registry())
    return plan.compare(actual, expected, checked=False)


# --------------------------------------------------------------------------------- explanation
#
# `_explain` is `equivalent` that also says why: it takes the same branches in the same order, so
# `compare(a, e).equal == equivalent(a, e)` (tests/test_compare.py checks it on generated values).


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _blank(node: Node) -> Node:
    """The node of a list's items when the schema declares none: compared as they are."""
    return Node(param=Param(path=f"{node.param.path}[]", schema={}))


def _explain(
    a: Any, e: Any, node: Node, path: str, out: list[Diff], ca: bool = True, ce: bool = True
) -> bool:
    """Append how `a` and `e` differ under `node`; True when they are equivalent.

    `ca`, `ce`: whether each side is a run's value, checked against the schema (`equivalent`)."""
    if json_eq(a, e):
        return True
    if node.validity is not None:
        found = (node.validity.breach(a) if ca else None) or (
            node.validity.breach(e) if ce else None
        )
        if found is not None:
            rule_name = node.rule.name if node.rule is not None else None
            out.append(_rejected(path, node, rule_name, a, e, found))
            return False
    if node.predicate is not None:
        return _explain_predicate(a, e, node, path, out)
    rule = node.rule
    if rule is None:
        # No rule of its own: the value is equal part by part (a property equal before
        # normalizing is equal, whatever its siblings' rules read). `{"amount": 25, "note": "A"}`
        # and `{"amount": 25.0, "note": "a"}` are equal, though their normal forms differ.
        if type(a) is dict and type(e) is dict:
            equal = True
            for k in sorted(a.keys() | e.keys()):
                equal = _explain_property(a, e, k, node, path, out, ca, ce, equal=False) and equal
            return equal
        if type(a) is list and type(e) is list and len(a) == len(e):
            items = node.items or _blank(node)
            equal = True
            for i, (x, y) in enumerate(zip(a, e)):
                equal = _explain(x, y, items, f"{path}[{i}]", out, ca, ce) and equal
            return equal
        fa, fe = _inner(a, node, ca), _inner(e, node, ce)
        out.append(Diff(path, node.param.path, "mismatch", None, None, a, e, fa, fe))
        return False
    ia, ie = _inner(a, node, ca), _inner(e, node, ce)
    fa, note_a = rule.apply(ia)
    fe, note_e = rule.apply(ie)
    if not json_eq(fa, fe):
        notes: list[str] = [n for n in (note_a, note_e) if n]
        inside = (_breach_inside(a, node, path) if ca else None) or (
            _breach_inside(e, node, path) if ce else None
        )
        if inside is not None:  # `tags: ["db", "NET"]` under `set`, its items an enum
            notes.append(f"{inside[0]}: {inside[1].message} (the schema's {inside[1].keyword})")
        out.append(
            Diff(
                path,
                node.param.path,
                "mismatch",
                None,
                rule.name,
                a,
                e,
                fa,
                fe,
                "; ".join(notes) or None,
                inside[1].keyword if inside is not None else None,
            )
        )
        return False
    reordered = not json_eq(ia, ie)
    if reordered:
        out.append(Diff(path, node.param.path, "absorbed", rule.cls, rule.name, a, e, fa, fe))
    _explain_parts(a, e, node, path, out, ca, ce, reordered=reordered)
    return True


def _explain_predicate(a: Any, e: Any, node: Node, path: str, out: list[Diff]) -> bool:
    """A step's predicate on the run's value `a` (`e`, the step's value, is an example only)."""
    assert node.predicate is not None
    ok, note = node.predicate.test(a)
    name = node.predicate.name
    if ok:
        out.append(Diff(path, node.param.path, "absorbed", UNJUDGED, name, a, e))
    else:  # no normal forms: the predicate tested the run's value as it is
        out.append(Diff(path, node.param.path, "mismatch", None, name, a, e, note=note))
    return ok


def _rejected(path: str, node: Node, norm: str | None, a: Any, e: Any, found: Breach) -> Diff:
    """The difference where a run's value breaks its schema: compared as JSON, no rule applied."""
    note = f"{found.message}: the schema's {found.keyword} rejects it, so no rule applies"
    return Diff(
        path, node.param.path, "mismatch", None, norm, a, e, note=note, breaks=found.keyword
    )


def _breach_inside(value: Any, node: Node, path: str) -> tuple[str, Breach] | None:
    """The first part of `value` below `node` (an item, a property) its schema rejects."""
    if type(value) is dict:
        for k in sorted(value):
            child = node.props.get(k)
            if child is not None:
                found = breach(value[k], child)
                if found is not None:
                    return _join(path, k), found
                deeper = _breach_inside(value[k], child, _join(path, k))
                if deeper is not None:
                    return deeper
    elif type(value) is list and node.items is not None:
        for i, x in enumerate(value):
            found = breach(x, node.items)
            if found is not None:
                return f"{path}[{i}]", found
            deeper = _breach_inside(x, node.items, f"{path}[{i}]")
            if deeper is not None:
                return deeper
    return None


def _explain_parts(
    a: Any, e: Any, node: Node, path: str, out: list[Diff], ca: bool, ce: bool, *, reordered: bool
) -> None:
    """The differences inside two values the node's own rule made equal.

    A part that differs without explanation was absorbed by that rule (recorded by the caller), so
    only the parts that are themselves equivalent are explained, for the shapes they contribute.
    """
    if type(a) is dict and type(e) is dict:
        for k in sorted(a.keys() | e.keys()):
            _explain_property(a, e, k, node, path, out, ca, ce, equal=True)
    elif type(a) is list and type(e) is list:
        items = node.items or _blank(node)
        if reordered:  # the list's own rule reordered it: pair elements by their normal form
            pairs = _pairs_by_form(
                [normalize(x, items, ca) for x in a], [normalize(x, items, ce) for x in e]
            )
        elif len(a) == len(e):
            pairs = list(zip(range(len(a)), range(len(e))))
        else:
            return
        for i, j in pairs:
            sub: list[Diff] = []
            if _explain(a[i], e[j], items, f"{path}[{i}]", sub, ca, ce):
                out.extend(sub)


def _explain_property(
    a: dict[str, Any],
    e: dict[str, Any],
    k: str,
    node: Node,
    path: str,
    out: list[Diff],
    ca: bool,
    ce: bool,
    *,
    equal: bool,
) -> bool:
    """Explain property `k`; True when it is equivalent on both sides.

    `equal`: the object's own rule already made the objects equal, so a difference here that is
    not itself equivalent is left out (the rule absorbed it).
    """
    child = node.props.get(k)
    here = _join(path, k)
    in_a, in_e = k in a, k in e
    if child is not None and child.predicate is not None and not (in_a and in_e):
        found = breach(a[k], child) if in_a and ca else None
        if found is not None:  # a value the tool would reject passes no predicate
            out.append(_rejected(here, child, child.predicate.name, a[k], e.get(k, MISSING), found))
            return False
        ok = _absent_passes(a, k, child, ca)
        if ok or not equal:
            value = a[k] if in_a else child.default
            note = (
                None
                if ok
                else child.predicate.test(value)[1]
                if value is not MISSING
                else ("absent, and no default is declared")
            )
            out.append(
                Diff(
                    here,
                    child.param.path,
                    "absorbed" if ok else "mismatch",
                    UNJUDGED if ok else None,
                    child.predicate.name,
                    a.get(k, MISSING),
                    e.get(k, MISSING),
                    note=note,
                )
            )
        return ok
    if child is None:  # a property the schema does not declare: compared as it is
        if in_a and in_e and json_eq(a[k], e[k]):
            return True
        if not equal:
            out.append(
                Diff(
                    here,
                    _join(node.param.path, k),
                    "mismatch",
                    actual=a.get(k, MISSING),
                    expected=e.get(k, MISSING),
                )
            )
        return False
    if in_a and in_e:
        sub: list[Diff] = []
        same = _explain(a[k], e[k], child, here, sub, ca, ce)
        if same or not equal:
            out.extend(sub)
        return same
    present = a[k] if in_a else e[k]
    checked = ca if in_a else ce
    if child.default is not MISSING and equivalent(present, child.default, child, checked, False):
        form = normalize(present, child, checked)
        out.append(
            Diff(
                here,
                child.param.path,
                "default",  # the difference's kind
                DEFAULT,  # its shape
                None,
                a.get(k, MISSING),
                e.get(k, MISSING),
                form if in_a else MISSING,
                form if in_e else MISSING,
            )
        )
        # A default restated in another encoding contributes that encoding too.
        sub = []
        if in_a:
            _explain(present, child.default, child, here, sub, ca, False)
        else:
            _explain(child.default, present, child, here, sub, False, ce)
        out.extend(d for d in sub if d.kind != "mismatch")
        return True
    if not equal:
        note = None
        if child.default is not MISSING:  # what the absent side was compared as
            note = f"absent is the declared default {short_json(child.default)}"
        found = breach(present, child) if checked else None
        if found is not None:  # `limit: "50"` where the default is 50: the rule never read it
            rule_name = child.rule.name if child.rule is not None else None
            rejected = _rejected(
                here, child, rule_name, a.get(k, MISSING), e.get(k, MISSING), found
            )
            if note is not None:
                rejected = replace(rejected, note=f"{rejected.note}; {note}")
            out.append(rejected)
            return False
        out.append(
            Diff(
                here,
                child.param.path,
                "mismatch",
                None,
                None,
                a.get(k, MISSING),
                e.get(k, MISSING),
                note=note,
            )
        )
    return False


def _pairs_by_form(fa: list[Any], fe: list[Any]) -> list[tuple[int, int]]:
    """Pair each actual element with an unpaired expected one of the same normal form."""
    waiting: dict[Any, list[int]] = {}
    for j, x in enumerate(fe):
        waiting.setdefault(canon_key(x), []).append(j)
    pairs = []
    for i, x in enumerate(fa):
        slots = waiting.get(canon_key(x))
        if slots:
            pairs.append((i, slots.pop(0)))
    return pairs
