"""How the shapes' examples read: one line per run, from its explanation (`RunResult`)."""

from __future__ import annotations

from typing import Any

from ..jsonvalue import MISSING, json_eq, short_json
from ..model import PREDICATES


def absorbed(r: Any, shape: str) -> str:
    """A parameter difference a rule absorbed: raw → normalized, and the rule."""
    for c in r.calls:
        if c.comparison is None:
            continue
        for d in c.comparison.diffs:
            if d.shape == shape:
                text = f"{c.tool}.{d.path}: {short_json(d.actual)} → {short_json(d.actual_norm)}"
                if not json_eq(d.expected, d.expected_norm):
                    text += f", expected {short_json(d.expected)}"
                return f"{text} ({d.norm})"
    return ""


def unjudged(r: Any, shape: str) -> str:
    """A free-text parameter worded otherwise, which the rule `any` or the step's predicate does
    not judge; else a read the case graded on writes left out."""
    for c in r.calls:
        if c.comparison is None:
            continue
        for d in c.comparison.diffs:
            if d.shape == shape and d.norm in PREDICATES:
                return (
                    f"{c.tool}.{d.path}: {short_json(d.actual)} passes the step's {d.norm} "
                    f"(the case's {short_json(d.expected)} is an example)"
                )
            if d.shape == shape:
                return (
                    f"{c.tool}.{d.path}: {short_json(d.actual)} for {short_json(d.expected)} "
                    f"({d.norm}: not judged)"
                )
    for c in r.calls:
        if c.label == "read" and c.reported_failed:
            return f"{c.tool} call {c.index} is a read the case does not judge (grade: writes)"
    for c in r.calls:
        if c.label == "repeat":
            return f"{c.tool} call {c.index} repeats call {c.repeats}: polling, not judged"
    extra = [c for c in r.calls if c.label in ("extra", "repeat")]
    if extra:  # --reported list: calls the match mode leaves out, or repeats of a repeatable tool
        return f"call {extra[0].index} ({extra[0].tool}) is {extra[0].label}: not judged"
    return ""


def default(r: Any, shape: str) -> str:
    """A parameter stated on one side only, equal to its declared default."""
    for c in r.calls:
        if c.comparison is None:
            continue
        for d in c.comparison.diffs:
            if d.shape == shape:
                side = d.actual if d.actual is not MISSING else d.expected
                return f"{c.tool}.{d.path} = {short_json(side)} is the declared default"
    return ""


def alternate(r: Any, shape: str) -> str:
    tools = ", ".join(dict.fromkeys(c.tool for c in r.calls if c.label in ("exact", "equivalent")))
    return f"accepted sequence #{r.accepted}: {tools}"


def errored(r: Any, shape: str) -> str:
    tools = ", ".join(dict.fromkeys(c.tool for c in r.calls if c.label == "errored"))
    return f"errored call to {tools}" if tools else ""


def redundant(r: Any, shape: str) -> str:
    for c in r.calls:
        if c.label == "redundant" or (c.label == "forbidden" and c.repeats is not None):
            return f"{c.tool} call {c.index} repeats call {c.repeats}"
    return ""


def forbidden(r: Any, shape: str) -> str:
    for c in r.calls:
        if c.label == "forbidden":
            return f"{c.tool} call {c.index} is forbidden by the case"
    return ""


def effect(r: Any, shape: str) -> str:
    for e in r.effects:
        if e.ok is False:
            return f"{e.op} at {e.at or '/'}: {e.detail}"
    return ""
