"""A step's `judge`: how one step judges its parameters, in place of the tool's rules.

A gold sequence is a worked example: an argument a task does not check holds a placeholder
(`"<summary>"`, a fixed date), while another task judges the same parameter. `judge` says so per
step and per parameter path (as explanations name them: `body`, `filters.status`, `items[].note`):
a rule as `x-eval-norm` writes it (`"any"`, `{"name": "instant"}`), or a predicate on the run's
value, `{"matches": REGEX}` (searched with a time limit) or `{"one_of": [V, ...]}` (equivalent,
under the parameter's own rule, to one of these). JSON equality with the step's value comes first,
as for every rule: a call that passes exact-match is never failed by a judge.

`step_plan` compiles one judged step into a `ToolPlan` of its own; grading compares a run's call
to that step with it (pairwise: the step's forms and the calls' keys are not comparable).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from .. import patterns
from ..jsonvalue import short_json
from ..model import Case, InputError, Matches, NormSpec, OneOf, Param, Step, Tool
from .compare import Node, Override, ToolPlan, compile_param, equivalent
from .norms import Normalizer

MATCH_TIMEOUT: Final = patterns.TIMEOUT
"""Seconds one `matches` search may take on one value. An honest pattern answers in microseconds;
one that takes this long backtracks without end, and the value is not taken to match."""


@dataclass(eq=False)
class MatchesPredicate:
    """`{"matches": REGEX}`: a string the expression finds a match in (`regex.search`)."""

    pattern: str
    name: str = "matches"
    compiled: Any = None
    slow: bool = False
    """The search ran out of time once: it would only take the time again."""

    def __post_init__(self) -> None:
        self.compiled = patterns.compiled(self.pattern)

    def test(self, value: Any) -> tuple[bool, str | None]:
        if type(value) is not str:
            return False, f"matches {self.pattern!r} reads strings, not {short_json(value)}"
        if self.slow:
            return False, f"the pattern {self.pattern!r} takes too long (it backtracks)"
        found = patterns.search(self.compiled, value, timeout=MATCH_TIMEOUT)
        if found is None:
            self.slow = True
            return False, f"the pattern {self.pattern!r} took over {MATCH_TIMEOUT:g} s"
        return found, None if found else f"no match for {self.pattern!r}"


@dataclass(eq=False)
class OneOfPredicate:
    """`{"one_of": [V, ...]}`: a value equivalent, under the parameter's rule, to one of these."""

    values: tuple[Any, ...]
    base: Node
    """The parameter as the tool judges it: its own rule and default."""
    name: str = "one_of"

    def test(self, value: Any) -> tuple[bool, str | None]:
        if any(equivalent(value, v, self.base) for v in self.values):
            return True, None
        return False, f"not one of {short_json(list(self.values))}"


@dataclass(frozen=True)
class JudgePathError:
    """A `judge` path that names no parameter of the step's tool."""

    case: Case
    step: Step
    path: str
    close: str | None

    @property
    def message(self) -> str:
        text = (
            f"case {self.case.id!r}: a step of {self.step.tool!r} judges {self.path!r}, which "
            f"names no parameter of {self.step.tool!r}"
        )
        return text + (f"; did you mean {self.close!r}?" if self.close else "")


def param_paths(tool: Tool | None) -> dict[str, Param]:
    """Every parameter of `tool` by its path (`body`, `items[].note`), and the root as `""`: a
    step may judge the whole arguments (`{"": "any"}`: the tool is called, its arguments not
    judged, as a harness that checks tool names does)."""
    if tool is None:
        return {}
    return {p.path: p for p in tool.params.walk()}


def judge_path_errors(
    cases: Mapping[str, Case], tools: Mapping[str, Tool]
) -> Iterator[JudgePathError]:
    """Each judged path that names no parameter of its step's tool, in case order."""
    for case in cases.values():
        for seq in case.accept:
            for step in seq:
                paths = param_paths(tools.get(step.tool))
                for path in step.judge:
                    if path not in paths:
                        close = difflib.get_close_matches(path, list(paths), n=1)
                        yield JudgePathError(case, step, path, close[0] if close else None)


def _find(node: Node, path: str) -> Node | None:
    if node.param.path == path:
        return node
    for child in (*node.props.values(), *((node.items,) if node.items is not None else ())):
        found = _find(child, path)
        if found is not None:
            return found
    return None


def step_plan(
    step: Step, tool: Tool | None, base: ToolPlan, registry: Mapping[str, Normalizer], where: str
) -> ToolPlan:
    """The plan that compares a run's call with this judged step; InputError for a path that
    names no parameter, an unknown rule, or a predicate inside a value compared whole."""
    paths = param_paths(tool)
    overrides: dict[str, Override] = {}
    for path, spec in step.judge.items():
        if path not in paths or tool is None:
            close = difflib.get_close_matches(path, list(paths), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise InputError(f"{where}: judge {path!r} names no parameter of {step.tool!r}{hint}")
        if isinstance(spec, NormSpec):
            overrides[path] = spec
            continue
        _check_not_inside_rule(base.root, path, where, step.judge)
        if isinstance(spec, Matches):
            try:
                overrides[path] = MatchesPredicate(spec.pattern)
            except patterns.PatternError as e:
                raise InputError(
                    f"{where}: judge {path!r}: the pattern {spec.pattern!r} does not compile: {e}"
                ) from None
        elif isinstance(spec, OneOf):
            node = _find(base.root, path)
            assert node is not None  # the path names a parameter of the tool
            overrides[path] = OneOfPredicate(spec.values, node)
    assert tool is not None or not overrides
    if tool is None:
        return base
    root = compile_param(tool.params, registry, where, overrides)
    plan = ToolPlan(tool, tool.name, root)
    plan.pairwise = plan.judged = True
    return plan


def _check_not_inside_rule(
    root: Node, path: str, where: str, judge: Mapping[str, object] | None = None
) -> None:
    """A predicate below a value whose own rule compares it whole (`unordered_list` over items)
    would never be consulted: the rule's normal forms compare the part exactly. Say so, for the
    tool's rules and for the rules the same judge gives (`{"items": "unordered_list",
    "items[].note": {"matches": ...}}`; `{"": "any", ...}` over the whole arguments)."""
    rules = [(n.param.path, n.rule.name) for n in _holders(root) if n.rule is not None]
    rules += [(p, spec.name) for p, spec in (judge or {}).items() if isinstance(spec, NormSpec)]
    for held, name in rules:
        if held == path:
            continue
        inside = held == "" or path.startswith(held + ".") or path.startswith(held + "[]")
        if inside:
            whole = repr(held) if held else "the whole arguments ('')"
            raise InputError(
                f"{where}: judge {path!r} is a predicate inside {whole}, whose rule "
                f"{name!r} compares it whole; judge {held!r} itself, or give "
                f"{path!r} a rule instead of a predicate"
            )


def _holders(n: Node) -> Iterator[Node]:
    """`n` and every node below it. A module function: a nested one that calls itself is a
    reference cycle, left to the cyclic collector once per case compiled."""
    yield n
    for child in (*n.props.values(), *((n.items,) if n.items is not None else ())):
        yield from _holders(child)
