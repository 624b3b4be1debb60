"""How a value is written, named as a careful user reads it: `YYYY-MM`, `ISO 8601 duration`,
`integer`, `decimal string`, ...; the census of them per parameter; and `tighten`, the schema fix
that makes one of them the only one.

The names describe the text or the JSON type, never what a rule makes of it: `4200` is an
`integer` whether the tool reads cents or seconds. A string no name fits is `other string`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..model import Param
from .params import ITEMS, Steps

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("YYYY-MM", re.compile(r"\d{4}-\d{2}")),
    ("YYYY-MM-DD", re.compile(r"\d{4}-\d{2}-\d{2}")),
    ("YYYY-MM-DDThh:mm:ssZ", re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?[Zz]")),
    (
        "YYYY-MM-DDThh:mm:ss±hh:mm",
        re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}(:?\d{2})?"),
    ),
    ("YYYY-MM-DDThh:mm:ss", re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?")),
    # without seconds: not RFC 3339 (what "format": "date-time" accepts), so an encoding apart
    ("YYYY-MM-DDThh:mmZ", re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}[Zz]")),
    ("YYYY-MM-DDThh:mm±hh:mm", re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}[+-]\d{2}(:?\d{2})?")),
    ("YYYY-MM-DDThh:mm", re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}")),
    (
        "ISO 8601 duration",
        re.compile(
            r"P(?=\d|T\d)(\d+(\.\d+)?W)?(\d+(\.\d+)?D)?"
            r"(T(?=\d)(\d+(\.\d+)?H)?(\d+(\.\d+)?M)?(\d+(\.\d+)?S)?)?"
        ),
    ),
    ("decimal string", re.compile(r"-?\d+(\.\d+)?")),
    ("numeric string", re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")),
    # Each space run belongs to one group: `(\d+d)?\s*(\d+h)?\s*(\d+m)?\s*(\d+s)?` split a run
    # between its three `\s*` every way (36 s for "1d", 1,000 spaces and "x"); the same strings.
    (
        "duration shorthand (1h30m)",
        re.compile(r"(?:\d+d)?(?:\s*\d+h)?(?:\s*\d+m)?(?:\s*\d+s|\s*)"),
    ),
)

_MAY_ENCODE = frozenset("0123456789+-.P")
"""The first characters of every encoding with a name (a date, a number, a duration)."""

TIGHTEN_RULES = frozenset({"month", "date", "instant", "money_cents", "duration_secs", "number"})
"""The rules whose encodings a schema can pin with `type`, `format` or `pattern`. (`casefold`
is left out: letter case in free text is not an encoding to pin; ordering rules have none.)"""

PIN: Mapping[str, tuple[str, str]] = {
    "month": ("YYYY-MM", '"pattern": "^\\\\d{4}-\\\\d{2}$"'),
    "date": ("YYYY-MM-DD", '"format": "date"'),
    "instant": ("a date-time with its offset", '"format": "date-time"'),
    "money_cents": ("integer cents", '"type": "integer"'),
    "duration_secs": ("integer seconds", '"type": "integer"'),
    "number": ("a JSON number", '"type": "number"'),
}
"""Per rule, the encoding it reads every other one as (its normal form), and the schema
keywords that accept that one only: the hint under each tighten proposal in the table."""


def encoding_of(value: Any) -> str | None:
    """The encoding's name for a string or a number; None for anything else."""
    t = type(value)
    if t is int:
        return "integer"
    if t is float:
        return "float"
    if t is not str:
        return None
    if value[:1] not in _MAY_ENCODE:
        return "other string"  # the common case (ids, names, text), told at the first character
    for name, pattern in _PATTERNS:
        if pattern.fullmatch(value) and value.strip():
            return name
    return "other string"


@dataclass(frozen=True)
class CensusPlan:
    """Where in a tool's arguments the census looks: the parameters whose encoding a schema
    could still pin (a number or a string with no `enum`, `const`, `pattern` or `format`
    already)."""

    leaves: tuple[tuple[str, Steps], ...] = ()
    """Properties holding such a value: (name, steps)."""
    objects: tuple[tuple[str, CensusPlan], ...] = ()
    """Properties holding an object with such values below."""
    lists: tuple[tuple[str, Steps, CensusPlan | None], ...] = ()
    """Properties holding a list: (name, its items' steps when they are such values, else the
    plan for its items' objects)."""

    def __bool__(self) -> bool:
        return bool(self.leaves or self.objects or self.lists)


_PINNED = ("enum", "const", "pattern", "format")
"""Keywords that pin a string's encoding already: a tighten proposal would repeat the schema."""
_SCALAR_TYPES = frozenset({"string", "number", "integer"})


def _countable(param: Param) -> bool:
    if param.properties or param.items is not None or any(k in param.schema for k in _PINNED):
        return False
    return not param.types or bool(_SCALAR_TYPES & set(param.types))


def census_plan(root: Param | None, steps: Steps = ()) -> CensusPlan:
    """The census plan of an object parameter (the tool's root); empty for an unknown tool."""
    if root is None:
        return CensusPlan()
    leaves: list[tuple[str, Steps]] = []
    objects: list[tuple[str, CensusPlan]] = []
    lists: list[tuple[str, Steps, CensusPlan | None]] = []
    for name in sorted(root.properties):
        child, here = root.properties[name], (*steps, name)
        if _countable(child):
            leaves.append((name, here))
        elif child.properties:
            sub = census_plan(child, here)
            if sub:
                objects.append((name, sub))
        elif child.items is not None:
            items, at = child.items, (*here, ITEMS)
            if _countable(items):
                lists.append((name, at, None))
            elif items.properties and (sub := census_plan(items, at)):
                lists.append((name, at, sub))
    return CensusPlan(tuple(leaves), tuple(objects), tuple(lists))


def census_of(plan: CensusPlan, args: Any) -> tuple[tuple[Steps, str], ...]:
    """(parameter, encoding) for each value the plan counts in one call's arguments; a
    parameter's encoding is counted once per call."""
    found: dict[tuple[Steps, str], None] = {}
    if type(args) is dict:
        _walk(plan, args, found)
    return tuple(found)


def _walk(plan: CensusPlan, value: dict[str, Any], found: dict[tuple[Steps, str], None]) -> None:
    for name, steps in plan.leaves:
        if name in value:
            encoding = encoding_of(value[name])
            if encoding is not None:
                found[(steps, encoding)] = None
    for name, sub in plan.objects:
        inner = value.get(name)
        if type(inner) is dict:
            _walk(sub, inner, found)
    for name, steps, items in plan.lists:
        elements = value.get(name)
        if type(elements) is not list:
            continue
        for element in elements:
            if items is None:
                encoding = encoding_of(element)
                if encoding is not None:
                    found[(steps, encoding)] = None
            elif type(element) is dict:
                _walk(items, element, found)
