"""Normalizers: the equivalence rules a parameter declares with `x-eval-norm`.

Each normalizer is a small pure function from a JSON value to a JSON value, idempotent, and of one
class, `ordering` or `encoding`, which decides the shape of false failure it explains. A value it
cannot read raises `NormError` (any `ValueError` counts): the engine then keeps the value as it is,
so the comparison fails honestly, and records that the rule did not apply.

The registry is a plain dict keyed by the name users write (`"month"`); third-party normalizers
join it through the `evalrunner.normalizers` entry-point group.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import math
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, tzinfo
from decimal import ROUND_HALF_EVEN, Context, Decimal, InvalidOperation
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Final

import isodate
from dateutil import tz as dateutil_tz
from dateutil.parser import isoparse

from .. import shapes
from ..jsonvalue import canon_key, json_kind
from ..model import InputError, NormSpec, ShapeClass
from ..shapes import RULE_CLASSES

ENTRY_POINT_GROUP = "evalrunner.normalizers"


class NormError(ValueError):
    """The rule cannot read this value; the value is compared as it is."""


@dataclass(frozen=True)
class Normalizer:
    """A named equivalence rule. Plugins export an instance of this class."""

    name: str
    cls: ShapeClass
    fn: Callable[..., Any]
    """fn(value, **options) -> the normalized JSON value; raises NormError when it cannot read it."""
    summary: str
    """One line: what the rule considers equal."""
    options: Mapping[str, Callable[[Any], Any]] | None = field(default_factory=dict)
    """Option name -> a function that checks (and converts) the option's value, raising ValueError.
    None accepts any options and passes them through unchecked."""
    applies_to: tuple[str, ...] = ()
    """JSON Schema types the rule can read (`"string"`, `"array"`, ...); empty means any."""
    uses_schema: bool = False
    """The rule needs the parameter's declared properties: fn gets `fields=frozenset(names)`."""
    origin: str = "built-in"
    json_stable: bool = False
    """JSON-equal values always get JSON-equal normal forms (`1` and `1.0` alike, any key order).
    Grading compares calls to a tool whose rules all say so by canonical keys alone; a rule that
    does not (`money_cents` reads `25` and `25.0` apart; plugins, unless they declare it) makes
    the tool's calls compare pairwise, JSON equality first (docs/semantics.md)."""


class RuleProblem(str):
    """Why a rule did not apply to a value: a message, and `raised` when the rule failed with
    anything but ValueError (a bug in the rule, which `evalrun lint` reports) rather than saying
    it cannot read the value."""

    raised: bool = False

    @classmethod
    def of(cls, message: str, *, raised: bool) -> RuleProblem:
        problem = cls(message)
        problem.raised = raised
        return problem


@dataclass(frozen=True, slots=True)
class Rule:
    """A normalizer bound to one parameter's options."""

    name: str
    cls: ShapeClass
    fn: Callable[[Any], Any]
    json_stable: bool = False
    """See `Normalizer.json_stable`."""

    def apply(self, value: Any) -> tuple[Any, RuleProblem | None]:
        """(normalized value, None), or (the value unchanged, why the rule did not apply).

        A ValueError means the rule cannot read the value; any other exception is a bug in the rule,
        reported as such ("raised ...") so that `evalrun lint` can point at it.
        """
        try:
            return self.fn(value), None
        except ValueError as e:
            return value, RuleProblem.of(
                f"{self.name} cannot read {_short(value)}: {e}", raised=False
            )
        except Exception as e:
            message = f"{self.name} raised {type(e).__name__} on {_short(value)}: {e}"
            return value, RuleProblem.of(message, raised=True)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ---------------------------------------------------------------------------------------- times


@functools.lru_cache(maxsize=64)
def zone(name: str) -> tzinfo:
    """The time zone an option names (IANA, e.g. "Europe/Berlin"); ValueError when unknown."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"a time zone is an IANA name such as 'Europe/Berlin', not {name!r}")
    found = dateutil_tz.UTC if name.upper() == "UTC" else dateutil_tz.gettz(name)
    if found is None:
        raise ValueError(f"unknown time zone {name!r} (use an IANA name such as 'Europe/Berlin')")
    return found


UTC = dateutil_tz.UTC
_YEAR_MONTH = re.compile(r"(\d{4})-(\d{2})")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATETIME = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?"
)


def _moment(value: Any, where: tzinfo) -> date | datetime:
    """A calendar date (never shifted), or a date-time in the zone `where`.

    A date-time with an offset is converted to `where`; one without an offset is read in it.
    """
    if type(value) is not str:
        raise NormError(f"{json_kind(value)} is not a date")
    try:
        if _DATE.fullmatch(value):
            return date.fromisoformat(value)
        if _DATETIME.fullmatch(value):
            text = value[:10] + "T" + value[11:]
            if text.endswith("z"):
                text = text[:-1] + "Z"
            moment = isoparse(text)
            if moment.tzinfo is None:
                return moment.replace(tzinfo=where)
            return moment.astimezone(where)
    except (ValueError, OverflowError) as e:
        raise NormError(str(e)) from None
    raise NormError("not an ISO 8601 date or date-time")


def month(value: Any, *, tz: tzinfo = UTC) -> str:
    # "2026-03-01T00:40:00+01:00"[:7] says March; the instant is 23:40 UTC on 28 February.
    if type(value) is str and (m := _YEAR_MONTH.fullmatch(value)):
        if not 1 <= int(m.group(2)) <= 12:
            raise NormError("month out of range")
        return value
    moment = _moment(value, tz)
    return f"{moment.year:04d}-{moment.month:02d}"


def date_(value: Any, *, tz: tzinfo = UTC) -> str:
    moment = _moment(value, tz)
    return f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"


def instant(value: Any, *, tz: tzinfo = UTC) -> str:
    moment = _moment(value, tz)
    if not isinstance(moment, datetime):
        raise NormError("a date without a time is not an instant")
    try:
        moment = moment.astimezone(UTC)
    except (ValueError, OverflowError) as e:
        raise NormError(str(e)) from None
    m = moment  # not strftime: "%Y" does not zero-pad years before 1000 on every platform
    text = f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}"
    if moment.microsecond:
        text += f".{moment.microsecond:06d}".rstrip("0")
    return text + "Z"


# -------------------------------------------------------------------------------------- numbers

# Enough digits for any amount a JSON number can carry; every operation is exact within it.
_EXACT = Context(prec=80, Emax=999, Emin=-999)
_MAX_INT = 2**63  # orjson writes 64-bit integers; larger normalized values are out of range
_PLAIN_DECIMAL = re.compile(r"-?\d+(?:\.\d+)?")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_SECONDS = re.compile(r"\d+(?:\.\d+)?")


def _decimal(value: Any, grammar: re.Pattern[str], what: str) -> Decimal:
    """The exact decimal a JSON number or numeric string stands for (never via binary floats).

    A JSON float's shortest repr is the decimal text it was written as (`0.29`, not
    0.28999999999999998). Booleans are never numbers.
    """
    if type(value) is int:
        return Decimal(value)
    if type(value) is float:
        if not math.isfinite(value):
            raise NormError(f"{value} is not a finite number")
        return Decimal(repr(value))
    if type(value) is str and len(value) <= 64 and grammar.fullmatch(value):
        d = Decimal(value)
        if abs(d.adjusted()) > 400:
            raise NormError("number out of range")
        return d
    raise NormError(f"{json_kind(value)} is not {what}")


def _json_number(d: Decimal) -> int | float:
    """A JSON number for an exact decimal: an integer when it is whole, else a float."""
    if d == d.to_integral_value():
        whole = int(d)
        if -_MAX_INT < whole < _MAX_INT:
            return whole
    as_float = float(d)
    if not math.isfinite(as_float):
        raise NormError("number out of range")
    if as_float.is_integer() and abs(as_float) < _MAX_INT:
        # "56165535242220284.001" rounds to a whole float whose repr reads back as ...290, not
        # its exact value ...288: return the exact integer, so that normalizing is idempotent.
        return int(as_float)
    return as_float


def money_cents(value: Any) -> int:
    if type(value) is int:
        return value  # a JSON integer is already cents
    if type(value) is bool:
        raise NormError("a boolean is not money")
    # A JSON float or a plain decimal string is major units: 42.0 -> 4200, "19.99" -> 1999.
    major = _decimal(value, _PLAIN_DECIMAL, "money (a number, or a plain decimal string)")
    try:
        cents = _EXACT.multiply(major, Decimal(100)).quantize(
            Decimal(1), rounding=ROUND_HALF_EVEN, context=_EXACT
        )
    except InvalidOperation:
        raise NormError("amount out of range") from None
    if abs(cents) >= _MAX_INT:
        raise NormError("amount out of range")
    return int(cents)


def number(value: Any, *, digits: int | None = None) -> int | float:
    d = _decimal(value, _NUMBER, "a number")
    if digits is not None:
        try:
            d = d.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_EVEN, context=_EXACT)
        except InvalidOperation:
            raise NormError("number out of range") from None
    return _json_number(d)


# ISO 8601's decimal sign is a comma or a full stop ("PT1,5S" is "PT1.5S"); seconds as a
# numeric string keep SPEC's `DIGITS(.DIGITS)?`.
_ISO_DURATION = re.compile(
    r"P(?=\d|T\d)(?:\d+(?:[.,]\d+)?W)?(?:\d+(?:[.,]\d+)?D)?"
    r"(?:T(?=\d)(?:\d+(?:[.,]\d+)?H)?(?:\d+(?:[.,]\d+)?M)?(?:\d+(?:[.,]\d+)?S)?)?"
)
_SHORTHAND = re.compile(r"(?:(\d+)d)?\s*(?:(\d+)h)?\s*(?:(\d+)m)?\s*(?:(\d+)s)?")


def duration_secs(value: Any) -> int | float:
    if type(value) is bool:
        raise NormError("a boolean is not a duration")
    if type(value) in (int, float):
        return _json_number(_decimal(value, _SECONDS, "a duration"))
    if type(value) is not str:
        raise NormError(f"{json_kind(value)} is not a duration")
    if _SECONDS.fullmatch(value):
        return _json_number(_decimal(value, _SECONDS, "a duration"))
    if _ISO_DURATION.fullmatch(value):
        # Years and months are not fixed lengths: the grammar above has no Y and no date-part M.
        parsed = isodate.parse_duration(value)
        if not isinstance(parsed, timedelta):
            raise NormError("years and months are not fixed lengths")
        seconds = (
            Decimal(parsed.days) * 86400 + parsed.seconds + Decimal(parsed.microseconds).scaleb(-6)
        )
        return _json_number(seconds)
    m = _SHORTHAND.fullmatch(value)
    if m and any(m.groups()) and value == value.strip():
        d, h, mi, s = (int(g) if g else 0 for g in m.groups())
        return _json_number(Decimal(((d * 24 + h) * 60 + mi) * 60 + s))
    raise NormError("not a duration (ISO 8601 'PT30M', seconds, or '1h30m')")


# --------------------------------------------------------------------------- strings, lists, objects


def casefold(value: Any) -> str:
    if type(value) is not str:
        raise NormError(f"{json_kind(value)} is not a string")
    return value.strip().casefold()


def unordered_list(value: Any) -> list[Any]:
    if type(value) is not list:
        raise NormError(f"{json_kind(value)} is not a list")
    return sorted(value, key=canon_key)


def set_(value: Any) -> list[Any]:
    if type(value) is not list:
        raise NormError(f"{json_kind(value)} is not a list")
    unique = {canon_key(x): x for x in reversed(value)}  # the first of equal elements is kept
    return [unique[k] for k in sorted(unique)]


def known_fields(value: Any, *, fields: frozenset[str] = frozenset()) -> dict[str, Any]:
    if type(value) is not dict:
        raise NormError(f"{json_kind(value)} is not an object")
    return {k: v for k, v in value.items() if k in fields}


# RFC 3986 appendix B: every string splits into these five parts.
_URI = re.compile(r"(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?", re.DOTALL)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")
_SCHEMELESS = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:(?!\d)")
"""A scheme and its colon, not a host and its port (`localhost:8080/x` has no scheme)."""
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
_HOST = re.compile(r"\[[0-9A-Fa-f:.vV]*\]|(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})*")
"""RFC 3986's host: an IP literal in brackets, or a reg-name (unreserved characters, sub-delims
and percent-encodings; no space, no `<`, no `"`). `Hello World` names no host."""
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
DEFAULT_PORTS: Final = {"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21"}
WEB_SCHEMES: Final = ("http", "https")


def _percent(text: str) -> str:
    """Percent-encodings of unreserved characters decoded, the others' hex upper-cased."""

    def one(m: re.Match[str]) -> str:
        char = chr(int(m.group(1), 16))
        return char if char in _UNRESERVED else "%" + m.group(1).upper()

    return _PERCENT.sub(one, text)


def _without_dot_segments(path: str) -> str:
    """RFC 3986 section 5.2.4: `/a/./b/../c` is `/a/c`."""
    out: list[str] = []
    while path:
        if path.startswith("../"):
            path = path[3:]
        elif path.startswith(("./", "/./")):
            path = path[2:]
        elif path == "/.":
            path = "/"
        elif path.startswith("/../"):
            path = path[3:]
            if out:
                out.pop()
        elif path == "/..":
            path = "/"
            if out:
                out.pop()
        elif path in (".", ".."):
            path = ""
        else:
            cut = path.find("/", 1)
            cut = len(path) if cut < 0 else cut
            out.append(path[:cut])
            path = path[cut:]
    return "".join(out)


def url(value: Any, *, scheme: str | None = None) -> str:
    """The URL after RFC 3986 normalization; `scheme="any"` equates http, https and no scheme.

    `http://WWW.Example.com:80/a/./b/../c` is `http://www.example.com/a/c`; with `scheme: any`,
    `www.example.com` is `https://www.example.com/`.
    """
    if type(value) is not str:
        raise NormError(f"{json_kind(value)} is not a URL")
    text = value.strip()
    if scheme == "any" and text.startswith("/") and not text.startswith("//"):
        raise NormError("not a URL: a path alone names no host")
    if scheme == "any" and "://" not in text and not text.startswith("//"):
        # `www.example.com/a`: a host and a path, written without a scheme (not `mailto:x`)
        text = text if _SCHEMELESS.match(text) else "//" + text
    m = _URI.fullmatch(text)
    if m is None:  # pragma: no cover - the pattern matches every string
        raise NormError("not a URL")
    found, authority, path, query, fragment = m.groups()
    if found is None:
        if scheme != "any":
            raise NormError("not a URL: it has no scheme (`scheme: any` reads one without)")
        found = "https"
    if not _SCHEME.fullmatch(found):
        raise NormError(f"not a URL: {found!r} is no scheme")
    name = found.lower()
    out = name + ":"
    if authority is not None:
        userinfo, at, hostport = authority.rpartition("@")
        host, port = hostport, ""
        if not hostport.endswith("]") and ":" in hostport:
            host, _, port = hostport.rpartition(":")
            if port and not port.isdigit():
                raise NormError(f"not a URL: port {port!r} is not a number")
        if not _HOST.fullmatch(host):
            raise NormError(f"not a URL: {host!r} is no host")
        if port == DEFAULT_PORTS.get(name):
            port = ""
        if scheme == "any" and name in WEB_SCHEMES:
            out = "https:"
        # decoded first (`%41` is `A`), then lower-cased, then the remaining escapes' hex upper
        out += "//" + (_percent(userinfo) + "@" if at else "") + _percent(_percent(host).lower())
        out += ":" + port.lstrip("0").rjust(1, "0") if port else ""
        path = path or "/"
    path = _percent(path)  # before the dot segments: `%2E` is a `.` (RFC 3986, 6.2.2)
    out += _without_dot_segments(path) if path.startswith("/") else path
    if query is not None:
        out += "?" + _percent(query)
    if fragment is not None:
        out += "#" + _percent(fragment)
    return out


UNJUDGED: Final = "(not judged)"
"""The one normal form of `any`: every value is equivalent to every other."""


def any_(value: Any) -> str:
    """A free-text parameter the eval does not judge (an email body, a message to support): every
    value is equivalent to every other. Absence is equivalent only through a declared default,
    which the comparison handles as for every rule (a default normalizes to this same form)."""
    return UNJUDGED


# ------------------------------------------------------------------------------------- options


def _tz_option(value: Any) -> tzinfo:
    return zone(value)


def _scheme_option(value: Any) -> str:
    if value != "any":
        raise ValueError(
            f'scheme takes one value, "any" (http, https and none alike), not {value!r}'
        )
    return "any"


def _digits_option(value: Any) -> int:
    if type(value) is not int or not 0 <= value <= 20:
        raise ValueError(f"digits must be a whole number from 0 to 20, not {value!r}")
    return value


_TZ = {"tz": _tz_option}

BUILTINS: dict[str, Normalizer] = {
    n.name: n
    for n in (
        Normalizer(
            "unordered_list",
            shapes.ORDERING,
            unordered_list,
            "a list compared as a multiset (order ignored, duplicates counted)",
            applies_to=("array",),
            json_stable=True,
        ),
        Normalizer(
            "set",
            shapes.ORDERING,
            set_,
            "a list compared as a set (order and duplicates ignored)",
            applies_to=("array",),
            json_stable=True,
        ),
        Normalizer(
            "month",
            shapes.ENCODING,
            month,
            "a calendar month YYYY-MM in the tz zone (default UTC); offsets converted first",
            options=_TZ,
            applies_to=("string",),
            json_stable=True,
        ),
        Normalizer(
            "date",
            shapes.ENCODING,
            date_,
            "a calendar date YYYY-MM-DD in the tz zone (default UTC); offsets converted first",
            options=_TZ,
            applies_to=("string",),
            json_stable=True,
        ),
        Normalizer(
            "instant",
            shapes.ENCODING,
            instant,
            "a point in time compared in UTC; needs a time (a date alone is no instant)",
            options=_TZ,
            applies_to=("string",),
            json_stable=True,
        ),
        # Not json_stable: `25` is 25 cents, `25.0` is 2,500, yet they are the same JSON number.
        Normalizer(
            "money_cents",
            shapes.ENCODING,
            money_cents,
            "integer cents: a JSON float or decimal string is major units, an integer is cents",
            applies_to=("number", "integer", "string"),
        ),
        # Not json_stable, nor `number`: a whole float past 2**53 is read from its shortest text,
        # the equal integer by value (`4.611686018427388e18` -> ...388000, `2**62` -> ...387904).
        Normalizer(
            "duration_secs",
            shapes.ENCODING,
            duration_secs,
            "seconds: ISO 8601 'PT30M', a number of seconds, or shorthand '1h30m'",
            applies_to=("number", "integer", "string"),
        ),
        Normalizer(
            "casefold",
            shapes.ENCODING,
            casefold,
            "a string compared case-insensitively, surrounding white space trimmed",
            applies_to=("string",),
            json_stable=True,
        ),
        Normalizer(
            "known_fields",
            shapes.ENCODING,
            known_fields,
            "an object compared only on the properties its schema declares",
            applies_to=("object",),
            uses_schema=True,
            json_stable=True,
        ),
        Normalizer(
            "number",
            shapes.ENCODING,
            number,
            "a number or numeric string by value; option digits rounds half-even first",
            options={"digits": _digits_option},
            applies_to=("number", "integer", "string"),
        ),
        Normalizer(
            "url",
            shapes.ENCODING,
            url,
            "the same URL after RFC 3986 normalization; option scheme: any equates http, https "
            "and no scheme",
            options={"scheme": _scheme_option},
            applies_to=("string",),
            json_stable=True,
        ),
        Normalizer(
            "any",
            shapes.UNJUDGED,
            any_,
            "every value alike: free text the eval does not judge (the widest rule; lint lists "
            "where it stands)",
            json_stable=True,
        ),
    )
}


_PLUGIN_FILES: tuple[Path, ...] = ()
"""Local plugin modules the command line was configured with (`plugins` in the settings)."""


def configure_plugins(files: Sequence[str | Path]) -> None:
    """Name the local plugin modules (`[tool.evalrun] plugins = ["evals/rules.py"]`) that
    `load_registry` imports. Nothing is imported here: a command that needs no rules (`report`)
    never imports them, so a broken plugin stops only the commands that grade."""
    global _PLUGIN_FILES
    _PLUGIN_FILES = tuple(Path(f) for f in files)


def load_registry(plugin_files: Sequence[str | Path] | None = None) -> dict[str, Normalizer]:
    """The built-ins plus every normalizer plugins register in the `evalrunner.normalizers` group,
    and those the local plugin modules `plugin_files` define (by default the ones
    `configure_plugins` named): each module-level `Normalizer` of a module imported by its path.

    A plugin whose name clashes with a built-in (or with another plugin) is an InputError naming
    both, as is an entry point that does not load a `Normalizer`, and a plugin module that cannot
    be imported or defines none.
    """
    registry = dict(BUILTINS)
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: (e.name, e.value)):
        try:
            norm = ep.load()
            if not isinstance(norm, Normalizer) and callable(norm):
                norm = norm()  # a factory
        except Exception as e:
            raise InputError(
                f"normalizer plugin {ep.name!r} ({ep.value}) failed to load: {type(e).__name__}: {e}"
            ) from None
        if not isinstance(norm, Normalizer) or norm.cls not in RULE_CLASSES:
            classes = " or ".join(repr(c) for c in RULE_CLASSES)
            raise InputError(
                f"normalizer plugin {ep.name!r} ({ep.value}) must be an evalrunner.Normalizer "
                f"with class {classes}"
            )
        _register(registry, norm, ep.value)
    files = _PLUGIN_FILES if plugin_files is None else tuple(Path(f) for f in plugin_files)
    read: set[Path] = set()
    seen: set[int] = set()
    for file in files:
        if file.resolve() in read:  # named twice (evals/rules.py, ./evals/rules.py): read once
            continue
        read.add(file.resolve())
        for attr, norm in _module_normalizers(file):
            # One normalizer under two names (`phone = PHONE`, or imported from another plugin
            # file) is one rule, not a clash with itself.
            if id(norm) not in seen:
                seen.add(id(norm))
                _register(registry, norm, f"{file}:{attr}")
    return registry


def _register(registry: dict[str, Normalizer], norm: Normalizer, origin: str) -> None:
    """Add a plugin's normalizer, refusing a name a built-in or another plugin has."""
    if norm.name in BUILTINS:
        raise InputError(
            f"normalizer plugin {norm.name!r} ({origin}) clashes with the built-in "
            f"normalizer {norm.name!r}; give the plugin's normalizer another name"
        )
    if norm.name in registry:
        raise InputError(
            f"normalizer plugin {norm.name!r} ({origin}) clashes with the plugin "
            f"normalizer {norm.name!r} ({registry[norm.name].origin}); rename one of them"
        )
    if norm.origin == "built-in":
        norm = dataclasses.replace(norm, origin=origin)
    registry[norm.name] = norm


def _module_normalizers(file: Path) -> list[tuple[str, Normalizer]]:
    """The `Normalizer`s a local plugin module defines at its top level, by attribute name:
    the module imported from its path (once per process), never from an installed package."""
    where = f"plugin module {str(file)!r} (the settings' plugins)"
    if not file.is_file():
        raise InputError(
            f"{where}: no such file; give the path of a .py file, relative to the settings file"
        )
    stat = file.stat()  # an edited file is imported again (a long-lived process, tests)
    name = "evalrun_plugin_" + re.sub(
        r"\W", "_", f"{file.resolve()}_{stat.st_mtime_ns}_{stat.st_size}"
    )
    module = sys.modules.get(name)
    if module is None:
        try:
            spec = importlib.util.spec_from_file_location(name, file)
            if spec is None or spec.loader is None:
                raise ImportError("not a Python module")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module  # pickled rules name their module: workers find it here
            spec.loader.exec_module(module)
        except Exception as e:
            sys.modules.pop(name, None)
            raise InputError(f"{where} cannot be imported: {type(e).__name__}: {e}") from None
    found = sorted(
        (attr, value) for attr, value in vars(module).items() if isinstance(value, Normalizer)
    )
    bad = [attr for attr, norm in found if norm.cls not in RULE_CLASSES]
    if bad:
        classes = " or ".join(repr(c) for c in RULE_CLASSES)
        raise InputError(f"{where}: {bad[0]} must have the class {classes}")
    if not found:
        raise InputError(
            f"{where} defines no evalrunner.Normalizer at its top level (phone = Normalizer(...))"
        )
    return found


def bind(
    spec: NormSpec, registry: Mapping[str, Normalizer], *, fields: frozenset[str] = frozenset()
) -> Rule:
    """The rule `spec` names, with its options checked; ValueError says what is wrong."""
    norm = registry.get(spec.name)
    if norm is None:
        raise ValueError(
            f"unknown normalizer {spec.name!r} (known: {', '.join(sorted(registry))}; "
            "`evalrun norms` lists them)"
        )
    options: dict[str, Any] = {}
    for key, raw in spec.options.items():
        if norm.options is None:
            options[key] = raw
            continue
        check = norm.options.get(key)
        if check is None:
            allowed = ", ".join(sorted(norm.options)) or "none"
            raise ValueError(
                f"normalizer {spec.name!r} has no option {key!r} (its options: {allowed})"
            )
        try:
            options[key] = check(raw)
        except ValueError as e:
            raise ValueError(f"option {key!r} of normalizer {spec.name!r}: {e}") from None
    if norm.uses_schema:
        options["fields"] = fields
    fn = functools.partial(norm.fn, **options) if options else norm.fn
    return Rule(norm.name, norm.cls, fn, norm.json_stable)
