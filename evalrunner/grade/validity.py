"""Which values a parameter's schema accepts, for the keywords a rule must respect.

SPEC "Precise readings": rules apply only to values their parameter's schema accepts. A value in a
run's call that breaks its parameter's `type`, `enum`, `const`, `pattern` or, for a string,
`format` `date-time`, `date` or `time` (RFC 3339's grammar: a date-time needs its offset) is
compared by JSON equality alone. A rule widens equality among values the tool accepts; it never
makes a value the tool should reject equal to one it accepts: `instant` would read
`"2026-03-14T09:00:00"` as UTC, but the tool was promised an offset and may read it as local time.

Only these keywords are checked, at the node itself: they are what a rule's reading depends on.
The rest of the schema (`required`, `minimum`, `additionalProperties`, ...) is `evalrun lint`'s.
Each validator remembers its answers per distinct value (bounded), and searches `pattern` with
the time limit lint uses (`lint.validate.PATTERN_TIMEOUT`): a search that runs out of time accepts
that value (no breach it may not deserve), and a pattern the engine cannot read accepts every
value. The answer for a value never depends on the values met before it: a pattern that ran out
of time on one value is still searched on the next (which is what keeps verdicts the same in any
order and under any `--jobs`), until it has run out of time `MAX_SLOW` times in one process; only
then is it taken to match from there on, so one pattern costs at most `MAX_SLOW` limits.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from ..jsonvalue import canon_key, json_eq, short_json
from ..model import Param

PATTERN_TIMEOUT: Final = 1.0
"""Seconds one `pattern` search may take (the same limit as `lint.validate.PATTERN_TIMEOUT`)."""
MEMO_SIZE: Final = 4_096
"""Answers kept per parameter; the table is cleared when full."""
MAX_SLOW: Final = 16
"""Searches of one pattern that may run out of time before the pattern is taken to match."""
FORMATS: Final = ("date-time", "date", "time")

_TYPE_WORDS: Final = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "null": "null",
    "array": "an array",
    "object": "an object",
}

_DATE = r"(\d{4})-(\d{2})-(\d{2})"
_TIME = r"(\d{2}):(\d{2}):(\d{2})(\.\d+)?"
_OFFSET = r"([Zz]|[+-](\d{2}):(\d{2}))"
_DATE_RE: Final = re.compile(_DATE, re.ASCII)
_TIME_RE: Final = re.compile(_TIME + _OFFSET, re.ASCII)
_DATE_TIME_RE: Final = re.compile(_DATE + "[Tt ]" + _TIME + _OFFSET, re.ASCII)
_NO_OFFSET_RE: Final = re.compile(_DATE + "[Tt ]" + _TIME, re.ASCII)
_DAYS: Final = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


class Breach(NamedTuple):
    """How a value breaks its parameter's schema."""

    keyword: str
    """The keyword it breaks: `type`, `enum`, `const`, `pattern` or `format`."""
    message: str
    """`"2026-03-14T09:00:00" is not a date-time (no offset)`."""


def _date_ok(y: str, m: str, d: str) -> bool:
    year, month, day = int(y), int(m), int(d)
    if not 1 <= month <= 12 or day < 1:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return day <= (_DAYS[month - 1] if month != 2 or leap else 28)


def _time_ok(h: str, mi: str, s: str, oh: str | None, om: str | None) -> bool:
    return (
        int(h) <= 23
        and int(mi) <= 59
        and int(s) <= 60  # a leap second
        and (oh is None or int(oh) <= 23)
        and (om is None or int(om) <= 59)
    )


def format_problem(fmt: str, text: str) -> str | None:
    """Why `text` is not an RFC 3339 `fmt` (`date-time`, `date`, `time`); None when it is."""
    if fmt == "date":
        found = _DATE_RE.fullmatch(text)
        return None if found and _date_ok(*found.groups()) else "not YYYY-MM-DD"
    if fmt == "time":
        found = _TIME_RE.fullmatch(text)
        if found is None:
            return "no offset" if re.fullmatch(_TIME, text, re.ASCII) else "not HH:MM:SS+hh:mm"
        h, mi, s, _, _, oh, om = found.groups()
        return None if _time_ok(h, mi, s, oh, om) else "out of range"
    found = _DATE_TIME_RE.fullmatch(text)
    if found is None:
        if _NO_OFFSET_RE.fullmatch(text):
            return "no offset"
        if _DATE_RE.fullmatch(text):
            return "a date without a time"
        return "not YYYY-MM-DDTHH:MM:SS with an offset"
    y, mo, d, h, mi, s, _, _, oh, om = found.groups()
    return None if _date_ok(y, mo, d) and _time_ok(h, mi, s, oh, om) else "out of range"


def _type_ok(value: Any, name: str) -> bool:
    t = type(value)
    if name == "string":
        return t is str
    if name == "integer":
        return t is int or (t is float and value.is_integer())
    if name == "number":
        return t is int or t is float
    if name == "boolean":
        return t is bool
    if name == "null":
        return value is None
    if name == "array":
        return t is list
    if name == "object":
        return t is dict
    return True  # a type name JSON Schema does not define: not ours to judge


class Validity:
    """The checks of one parameter's schema node (see the module docstring)."""

    __slots__ = ("_memo", "compiled", "const", "enum", "fmt", "pattern", "slow", "types")

    def __init__(self, param: Param) -> None:
        schema: Mapping[str, Any] = param.schema
        self.types = tuple(t for t in param.types if t in _TYPE_WORDS)
        self.enum = schema.get("enum") if isinstance(schema.get("enum"), list) else None
        self.const = schema.get("const", _ABSENT)
        self.pattern = schema.get("pattern") if isinstance(schema.get("pattern"), str) else None
        self.compiled: Any = None
        self.slow = 0
        """Searches of the pattern that ran out of time."""
        if self.pattern is not None:
            import regex  # only for a schema with a pattern (about 7 ms without a .pyc cache)

            try:
                self.compiled = regex.compile(self.pattern)
            except (regex.error, RecursionError, OverflowError):
                self.pattern = None  # lint says the pattern cannot be read; nothing to check
        fmt = schema.get("format")
        self.fmt = fmt if fmt in FORMATS else None
        if schema.get("nullable") is True:
            # OpenAPI 3.0's `nullable` (Gemini's `Schema`, tools converted from OpenAPI specs):
            # null is accepted besides the declared type and choices
            if self.types and "null" not in self.types:
                self.types = (*self.types, "null")
            if self.enum is not None and not any(x is None for x in self.enum):
                self.enum = [*self.enum, None]
        self._memo: dict[Any, Breach | None] = {}

    @classmethod
    def of(cls, param: Param) -> Validity | None:
        """The checks of `param`, or None when its schema has none of the keywords."""
        found = cls(param)
        empty = (
            not found.types
            and found.enum is None
            and found.const is _ABSENT
            and found.pattern is None
            and found.fmt is None
        )
        return None if empty else found

    def breach(self, value: Any) -> Breach | None:
        """How `value` breaks the schema, or None when the schema accepts it."""
        if value is None and "null" in self.types:
            return None  # `Optional[...]` (or `nullable`): a null is accepted whatever else
        key = canon_key(value) if type(value) in (str, int, float, bool) or value is None else None
        if key is not None:
            if key in self._memo:
                return self._memo[key]
            if len(self._memo) >= MEMO_SIZE:
                self._memo.clear()
            found = self._memo[key] = self._breach(value)
            return found
        return self._breach(value)

    def _breach(self, value: Any) -> Breach | None:
        # The value is written into a message only when it breaks the schema: most values do not.
        if self.types and not any(_type_ok(value, t) for t in self.types):
            words = " or ".join(_TYPE_WORDS[t] for t in self.types)
            return Breach("type", f"{short_json(value)} is not {words}")
        if self.const is not _ABSENT and not json_eq(value, self.const):
            return Breach(
                "const", f"{short_json(value)} is not the constant {short_json(self.const)}"
            )
        if self.enum is not None and not any(json_eq(value, x) for x in self.enum):
            return Breach("enum", f"{short_json(value)} is not one of {short_json(self.enum)}")
        if type(value) is str:
            if self.compiled is not None:
                try:
                    if self.compiled.search(value, timeout=PATTERN_TIMEOUT) is None:
                        return Breach(
                            "pattern", f"{short_json(value)} does not match {self.pattern!r}"
                        )
                except TimeoutError:  # catastrophic backtracking: this value is taken to match
                    self.slow += 1
                    if self.slow >= MAX_SLOW:
                        self.compiled = None  # and every value from now on: enough time spent
            if self.fmt is not None:
                problem = format_problem(self.fmt, value)
                if problem is not None:
                    return Breach("format", f"{short_json(value)} is not a {self.fmt} ({problem})")
        return None


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


_ABSENT: Final = _Absent()
