"""`args_equivalent`: do two argument objects mean the same to the tool, and why (not)?

Rules (SPEC "Verdicts"): a parameter equal before normalizing is equal; otherwise both sides and
the declared defaults are normalized per parameter, and a parameter present on one side only is
dropped when its value equals the declared default. Rules nest: the rules inside a value (its
properties', its items') apply before the value's own rule.

That makes equivalence the equality of one canonical form per argument object (`ToolPlan.key`), so
grading can match calls by hashing. The explanation (`ToolPlan.compare`) walks both sides and names
every difference: which parameter, raw and normalized, and which rule absorbed it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from .jsonvalue import canon_key, json_eq
from .model import FALSE_FAILURE_SHAPES, MISSING, InputError, Param, Tool
from .norms import Normalizer, Rule, bind, load_registry

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


def compile_param(param: Param, registry: Mapping[str, Normalizer], where: str) -> Node:
    """Bind every rule below `param`; InputError for an unknown normalizer or a bad option."""
    props = {k: compile_param(p, registry, where) for k, p in param.properties.items()}
    items = compile_param(param.items, registry, where) if param.items is not None else None
    rule = None
    if param.norm is not None:
        try:
            rule = bind(param.norm, registry, fields=frozenset(param.properties))
        except ValueError as e:
            raise InputError(f"{where}: parameter {param.path or '(root)'!r}: {e}") from None
    active = (
        rule is not None
        or any(c.active or c.default is not MISSING for c in props.values())
        or (items is not None and items.active)
    )
    node = Node(
        param=param, rule=rule, props=props, items=items, default=param.default, active=active
    )
    if param.default is not MISSING:
        node = replace(node, default_norm=normalize(param.default, node))
    return node


def _inner(value: Any, node: Node) -> Any:
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
            nx = normalize(x, child) if child.active else x
            if child.default is not MISSING and json_eq(nx, child.default_norm):
                continue  # a stated default is the same as an omitted parameter
            out[k] = nx
        return out
    if node.items is not None and node.items.active and type(value) is list:
        return [normalize(x, node.items) for x in value]
    return value


def normalize(value: Any, node: Node) -> Any:
    """The canonical form of `value` under `node`: equal forms mean equivalent values."""
    value = _inner(value, node)
    if node.rule is not None:
        value = node.rule.apply(value)[0]
    return value


class ToolPlan:
    """One tool compiled once for grading: canonical keys for hashing, and explanations."""

    __slots__ = ("active", "has_norms", "name", "repeatable", "root", "tool")

    def __init__(self, tool: Tool | None, name: str, root: Node) -> None:
        self.tool = tool
        self.name = name
        self.root = root
        self.repeatable = tool.repeatable if tool is not None else False
        self.active = root.active
        self.has_norms = tool is not None and bool(tool.norm_params)

    @classmethod
    def compile(cls, tool: Tool, registry: Mapping[str, Normalizer]) -> ToolPlan:
        where = f"{tool.source} ({tool.name})" if tool.source else tool.name
        return cls(tool, tool.name, compile_param(tool.params, registry, where))

    @classmethod
    def unknown(cls, name: str) -> ToolPlan:
        """A tool no schema defines: its arguments compare by JSON equality only."""
        return cls(None, name, Node(param=Param(path="", schema={})))

    def canonical(self, args: Any) -> Any:
        return normalize(args, self.root) if self.active else args

    def key(self, args: Any) -> Any:
        """Equal keys exactly when the arguments are equivalent."""
        return canon_key(normalize(args, self.root) if self.active else args)

    def compare(self, actual: Any, expected: Any) -> Comparison:
        """Equivalent or not, with every difference explained."""
        if json_eq(actual, expected):
            return EXACT
        diffs: list[Diff] = []
        equal = _explain(actual, expected, self.root, "", diffs)
        return Comparison(equal=equal, exact=False, diffs=tuple(diffs))


def args_equivalent(
    tool: Tool,
    actual: Mapping[str, Any],
    expected: Mapping[str, Any],
    *,
    registry: Mapping[str, Normalizer] | None = None,
) -> Comparison:
    """Whether `actual` means the same as `expected` to `tool`, with every difference explained.

    Compiles the tool's rules on each call; grading code compiles a `ToolPlan` once instead.
    """
    plan = ToolPlan.compile(tool, registry if registry is not None else load_registry())
    return plan.compare(actual, expected)


# --------------------------------------------------------------------------------- explanation


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _explain(a: Any, e: Any, node: Node, path: str, out: list[Diff]) -> bool:
    """Append how `a` and `e` differ under `node`; True when they are equivalent."""
    if json_eq(a, e):
        return True
    ia, ie = _inner(a, node), _inner(e, node)
    fa, fe, note = ia, ie, None
    if node.rule is not None:
        fa, note_a = node.rule.apply(ia)
        fe, note_e = node.rule.apply(ie)
        note = "; ".join(n for n in (note_a, note_e) if n) or None
    if not json_eq(fa, fe):
        before = len(out)
        if (
            node.rule is None
            and _explain_parts(a, e, node, path, out, equal=False)
            and any(d.kind == "mismatch" for d in out[before:])
        ):
            return False
        out.append(
            Diff(
                path,
                node.param.path,
                "mismatch",
                None,
                node.rule.name if node.rule else None,
                a,
                e,
                fa,
                fe,
                note,
            )
        )
        return False
    if node.rule is not None and not json_eq(ia, ie):
        out.append(
            Diff(path, node.param.path, "absorbed", node.rule.cls, node.rule.name, a, e, fa, fe)
        )
    _explain_parts(a, e, node, path, out, equal=True, reordered=not json_eq(ia, ie))
    return True


def _explain_parts(
    a: Any, e: Any, node: Node, path: str, out: list[Diff], *, equal: bool, reordered: bool = False
) -> bool:
    """Explain the properties or items of two objects or lists; True if anything was appended.

    In an equivalent pair (`equal`), a part that differs without explanation was absorbed by the
    value's own rule (recorded by the caller), so it is left out.
    """
    before = len(out)
    if type(a) is dict and type(e) is dict:
        for k in sorted(set(a) | set(e)):
            _explain_property(a, e, k, node, path, out, equal=equal)
    elif type(a) is list and type(e) is list:
        items = node.items or Node(param=Param(path=f"{node.param.path}[]", schema={}))
        if reordered:  # the list's own rule reordered it: pair elements by their normal form
            pairs = _pairs_by_form(
                [normalize(x, items) for x in a], [normalize(x, items) for x in e]
            )
        elif len(a) == len(e):
            pairs = list(zip(range(len(a)), range(len(e))))
        else:
            return False
        for i, j in pairs:
            sub: list[Diff] = []
            if _explain(a[i], e[j], items, f"{path}[{i}]", sub) or not equal:
                out.extend(sub)
    return len(out) > before


def _explain_property(
    a: dict[str, Any],
    e: dict[str, Any],
    k: str,
    node: Node,
    path: str,
    out: list[Diff],
    *,
    equal: bool,
) -> None:
    child = node.props.get(k)
    here = _join(path, k)
    in_a, in_e = k in a, k in e
    if child is None:  # a property the schema does not declare: compared as it is
        if (in_a and in_e and json_eq(a[k], e[k])) or equal:
            return
        out.append(
            Diff(
                here,
                _join(node.param.path, k),
                "mismatch",
                actual=a.get(k, MISSING),
                expected=e.get(k, MISSING),
            )
        )
        return
    if in_a and in_e:
        sub: list[Diff] = []
        if _explain(a[k], e[k], child, here, sub) or not equal:
            out.extend(sub)
        return
    present = a[k] if in_a else e[k]
    if child.default is not MISSING and json_eq(normalize(present, child), child.default_norm):
        out.append(
            Diff(
                here,
                child.param.path,
                "default",
                "default",
                None,
                a.get(k, MISSING),
                e.get(k, MISSING),
                normalize(present, child) if in_a else MISSING,
                normalize(present, child) if in_e else MISSING,
            )
        )
        # A default restated in another encoding contributes that encoding too.
        sub = []
        if in_a:
            _explain(present, child.default, child, here, sub)
        else:
            _explain(child.default, present, child, here, sub)
        out.extend(d for d in sub if d.kind != "mismatch")
    elif not equal:
        out.append(
            Diff(
                here, child.param.path, "mismatch", None, None, a.get(k, MISSING), e.get(k, MISSING)
            )
        )


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
