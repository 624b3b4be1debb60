"""Parameters addressed by structure, and tools with a rule or a default added to one of them.

`Param.path` (`flights[].date`) is how explanations name a parameter, but a property may itself
be called `a.b` or `x[]`; suggest works on the path as steps: a property name, or `ITEMS` for an
array's items. `with_changes` rebuilds a tool with rules and defaults added, which is how every
what-if and every candidate rule is tried: through the same `Param` tree and `compile_param` the
grader uses, never a second reading of the schema.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..grade.compare import Node, compile_param
from ..grade.norms import Normalizer
from ..model import MISSING, NormSpec, Param, Tool

ITEMS = None
"""The step from an array parameter to its items."""
Step = str | None
Steps = tuple[Step, ...]


def param_path(steps: Steps) -> str:
    """The path explanations print for these steps: `filters.status`, `flights[].date`."""
    out = ""
    for step in steps:
        if step is ITEMS:
            out += "[]"
        else:
            out = f"{out}.{step}" if out else step
    return out


def walk(root: Param, steps: Steps = ()) -> Iterator[tuple[Steps, Param]]:
    """Every parameter below `root` with its steps, depth first, properties in name order."""
    yield steps, root
    for name in sorted(root.properties):
        yield from walk(root.properties[name], (*steps, name))
    if root.items is not None:
        yield from walk(root.items, (*steps, ITEMS))


def param_at(root: Param, steps: Steps) -> Param | None:
    """The parameter at `steps` below `root`, or None when the schema declares none there."""
    here: Param | None = root
    for step in steps:
        if here is None:
            return None
        here = here.items if step is ITEMS else here.properties.get(step)
    return here


def parent_requires(root: Param, steps: Steps) -> bool:
    """Whether the object holding the parameter at `steps` lists it in `required`."""
    if not steps or steps[-1] is ITEMS:
        return True  # an array's items are never optional
    parent = param_at(root, steps[:-1])
    required = parent.schema.get("required") if parent is not None else None
    return isinstance(required, list) and steps[-1] in required


@dataclass(frozen=True, slots=True)
class Change:
    """A rule or a default added to one parameter of one tool."""

    tool: str
    steps: Steps
    norm: NormSpec | None = None
    default: Any = MISSING

    @property
    def key(self) -> tuple[Any, ...]:
        """A hashable identity (a default may be a list or an object)."""
        options = (
            tuple(sorted((k, repr(v)) for k, v in self.norm.options.items())) if self.norm else ()
        )
        return (
            self.tool,
            self.steps,
            self.norm.name if self.norm else None,
            options,
            "-" if self.default is MISSING else repr(self.default),
        )


def _replace(param: Param, steps: Steps, change: Change) -> Param:
    if not steps:
        updates: dict[str, Any] = {}
        if change.norm is not None:
            updates["norm"] = change.norm
        if change.default is not MISSING:
            updates["default"] = change.default
        return dataclasses.replace(param, **updates)
    step, rest = steps[0], steps[1:]
    if step is ITEMS:
        if param.items is None:
            raise KeyError(steps)
        return dataclasses.replace(param, items=_replace(param.items, rest, change))
    child = param.properties.get(step)
    if child is None:
        raise KeyError(steps)
    props = dict(param.properties)
    props[step] = _replace(child, rest, change)
    return dataclasses.replace(param, properties=props)


def with_param_changes(root: Param, changes: Iterable[Change]) -> Param:
    """`root` with each change's rule and default set on its parameter."""
    for change in changes:
        root = _replace(root, change.steps, change)
    return root


def with_changes(tools: Mapping[str, Tool], changes: Iterable[Change]) -> dict[str, Tool]:
    """The tools with the changes applied (the tools no change names are the same objects)."""
    by_tool: dict[str, list[Change]] = {}
    for change in changes:
        by_tool.setdefault(change.tool, []).append(change)
    out = dict(tools)
    for name, mine in by_tool.items():
        tool = tools[name]
        out[name] = dataclasses.replace(tool, params=with_param_changes(tool.params, mine))
    return out


def compile_node(
    param: Param, registry: Mapping[str, Normalizer], changes: Iterable[Change] = ()
) -> Node:
    """`param` compiled as the grader compiles it, with `changes` (steps relative to `param`)."""
    return compile_param(with_param_changes(param, changes), registry, "suggest")
