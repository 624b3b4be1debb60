"""How a value is written, named as a careful user reads it: `YYYY-MM`, `ISO 8601 duration`,
`integer`, `decimal string`, ...; the census of them per parameter; and `tighten`, the schema fix
that makes one of them the only one.

The names describe the text or the JSON type, never what a rule makes of it: `4200` is an
`integer` whether the tool reads cents or seconds. A string no name fits is `other string`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..model import Param
from .params import ITEMS, Steps

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("YYYY-MM", re.compile(r"\d{4}-\d{2}")),
    ("YYYY-MM-DD", re.compile(r"\d{4}-\d{2}-\d{2}")),
    ("YYYY-MM-DDThh:mm:ssZ", re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?[Zz]")),
    (
        "YYYY-MM-DDThh:mm:ss±hh:mm",
        re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?[+-]\d{2}(:?\d{2})?"),
    ),
    ("YYYY-MM-DDThh:mm:ss", re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?")),
    (
        "ISO 8601 duration",
        re.compile(
            r"P(?=\d|T\d)(\d+(\.\d+)?W)?(\d+(\.\d+)?D)?"
            r"(T(?=\d)(\d+(\.\d+)?H)?(\d+(\.\d+)?M)?(\d+(\.\d+)?S)?)?"
        ),
    ),
    ("decimal string", re.compile(r"-?\d+(\.\d+)?")),
    ("numeric string", re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")),
    ("duration shorthand (1h30m)", re.compile(r"(\d+d)?\s*(\d+h)?\s*(\d+m)?\s*(\d+s)?")),
)

_MAY_ENCODE = frozenset("0123456789+-.P")
"""The first characters of every encoding with a name (a date, a number, a duration)."""

TIGHTEN_RULES = frozenset({"month", "date", "instant", "money_cents", "duration_secs", "number"})
"""The rules whose encodings a schema can pin with `type`, `format` or `pattern`. (`casefold`
is left out: letter case in free text is not an encoding to pin; ordering rules have none.)"""

PIN: Mapping[str, str] = {
    "YYYY-MM": '"pattern": "^\\\\d{4}-\\\\d{2}$"',
    "YYYY-MM-DD": '"format": "date"',
    "YYYY-MM-DDThh:mm:ssZ": '"format": "date-time"',
    "YYYY-MM-DDThh:mm:ss±hh:mm": '"format": "date-time"',
    "ISO 8601 duration": '"format": "duration"',
    "integer": '"type": "integer"',
    "decimal string": '"type": "string", "pattern": "^-?\\\\d+(\\\\.\\\\d+)?$"',
}
"""The schema keywords that accept only the encoding named (the table's hint)."""


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


def census_of(root: Param, args: Any) -> tuple[tuple[Steps, str], ...]:
    """(parameter, encoding) for each scalar value the arguments give a declared parameter;
    a parameter's encoding is counted once per call."""
    found: dict[tuple[Steps, str], None] = {}
    if type(args) is dict:
        _walk(root, args, (), found)
    return tuple(found)


def _walk(param: Param, value: Any, steps: Steps, found: dict[tuple[Steps, str], None]) -> None:
    t = type(value)
    if t is dict:
        for key, sub in value.items():
            child = param.properties.get(key)
            if child is not None:
                _walk(child, sub, (*steps, key), found)
    elif t is list:
        if param.items is not None:
            for sub in value:
                _walk(param.items, sub, (*steps, ITEMS), found)
    elif steps:
        name = encoding_of(value)
        if name is not None:
            found[(steps, name)] = None
