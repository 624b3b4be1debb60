"""Which default a parameter's one-sided differences point to.

A call that states `limit: 50` where its step leaves `limit` out (or the reverse) differs only
by a default the schema does not declare. The value found is the default to declare; where the
one-sided values disagree, the most frequent wins (values a rule chosen for the parameter makes
equal count as one: `1800` and `"PT30M"` under `duration_secs`; among as many, the first in JSON
order), and the others are named with the suggestion (`others`) and left as the differences
they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..grade.compare import normalize
from ..grade.norms import Normalizer
from ..jsonvalue import MISSING, canon_key, json_eq
from ..model import NormSpec, Param, Tool
from .params import Change, Steps, compile_node, parent_requires
from .rules import Entry

_JSON_TYPES = {
    bool: ("boolean",),
    int: ("integer", "number"),
    float: ("number",),
    str: ("string",),
    list: ("array",),
    dict: ("object",),
    type(None): ("null",),
}


@dataclass(frozen=True)
class DefaultChoice:
    steps: Steps
    value: Any
    absorbed: frozenset[Any]
    """The keys of the one-sided sites the default (with the parameter's rule, if any) absorbs."""
    others: tuple[tuple[Any, int], ...] = ()
    """The other values found where a step or a call leaves the parameter out, with their
    calls, most first: evidence against the value chosen (a tie, when as many)."""


def choose_default(
    tool: Tool,
    steps: Steps,
    param: Param,
    entries: Sequence[Entry],
    rules: Mapping[Steps, NormSpec],
    registry: Mapping[str, Normalizer],
) -> DefaultChoice | None:
    """The default for the parameter at `steps`, or None.

    None when the schema declares one already, when the parameter is required (a required
    parameter has no default to omit), or when the value found is not of a type the schema takes.
    `rules` are the rules chosen (or declared) at and below the parameter, by steps from the root.
    """
    singles = [e for e in entries if e.site.kind == "single"]
    if not singles or not steps or param.default is not MISSING:
        return None
    if parent_requires(tool.params, steps):
        return None
    changes = [
        Change(tool.name, sub[len(steps) :], norm=spec)
        for sub, spec in rules.items()
        if sub[: len(steps)] == steps
    ]
    node = compile_node(param, registry, changes)
    classes: dict[Any, list[Entry]] = {}
    for e in singles:
        classes.setdefault(canon_key(normalize(e.site.present, node)), []).append(e)
    top = min(
        classes.values(), key=lambda es: (-sum(e.calls for e in es), canon_key(es[0].site.present))
    )
    counts: dict[Any, int] = {}
    values: dict[Any, Any] = {}
    for e in top:
        k = canon_key(e.site.present)
        counts[k] = counts.get(k, 0) + e.calls
        values.setdefault(k, e.site.present)
    value = values[min(counts, key=lambda k: (-counts[k], k))]
    if param.types and not set(_JSON_TYPES[type(value)]) & set(param.types):
        return None
    with_default = compile_node(param, registry, [*changes, Change(tool.name, (), default=value)])
    absorbed = frozenset(
        e.site.key
        for e in singles
        if json_eq(normalize(e.site.present, with_default), with_default.default_norm)
    )
    others = tuple(
        (es[0].site.present, sum(e.calls for e in es))
        for es in sorted(
            (es for es in classes.values() if es is not top),
            key=lambda es: (-sum(e.calls for e in es), canon_key(es[0].site.present)),
        )
    )
    return DefaultChoice(steps, value, absorbed, others)
