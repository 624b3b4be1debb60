"""Which built-in rule absorbs the differences seen at a parameter, with which options, and
which others also would.

The candidates are the built-in rules (never `any`, which absorbs everything, nor a plugin's,
whose width suggest cannot rank), tried in order of width (`NARROWEST_FIRST`). Each is compiled
onto the parameter with the rules already chosen below it (the rules inside a value apply first,
so the parameters are decided deepest first), and scores the calls whose difference at the
parameter it absorbs. The rule that absorbs the most wins; among rules that absorb as many, the
narrowest. The rest that absorb anything are its `others`.
"""

from __future__ import annotations

import functools
import re
import zoneinfo
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from decimal import Decimal, InvalidOperation
from typing import Any

from ..grade.compare import Node, normalize
from ..grade.norms import Normalizer, Rule, bind, zone
from ..jsonvalue import MISSING, json_eq
from ..model import NormSpec, Param, Tool
from .encodings import encoding_of
from .params import Change, Steps, compile_node
from .sites import Site

NARROWEST_FIRST = (
    "unordered_list",
    "set",
    "url",
    "casefold",
    "number",
    "money_cents",
    "duration_secs",
    "instant",
    "date",
    "month",
    "known_fields",
)
"""The built-in rules suggest proposes, each equating fewer values than the next where two can
absorb the same difference: a multiset before a set; a number by value before money or a duration
(which also read units or text); a point in time before its date, before its month; a URL before
casefold, which would also equate paths that differ by case. Unrelated rules (casefold and month,
say) never absorb the same difference, so their order does not matter."""

FAMILIES = (("instant", "date", "month"), ("unordered_list", "set"))
"""Rules each wider than the one before it: every pair of values the narrower equates, the wider
does too. Along a family the narrowest that absorbs any difference is proposed (SPEC); a value
pair a narrower rule reads and finds different is the wider rule's risk, never its gain: `date`
over `instant` equates `09:00:00Z` and `09:00:00+01:00`, an hour apart."""


def narrower_than(name: str) -> tuple[str, ...]:
    """The rules of `name`'s family narrower than it, narrowest first."""
    for family in FAMILIES:
        if name in family:
            return family[: family.index(name)]
    return ()


READ_ENCODINGS = frozenset({"month", "date", "instant", "money_cents", "duration_secs", "number"})
"""Rules that read a value's encoding. Their evidence is a difference between two values written
differently (`"2026-03"` and `"2026-03-01"`; `42.0` and `4200`): two values written alike
(`"2026-03-02"` and `"2026-03-01"`) are two values, and a wider rule that equates them
(`month`) does not thereby explain more."""

PREFERRED_ZONES = (
    "Europe/London",
    "Europe/Berlin",
    "Europe/Paris",
    "Europe/Madrid",
    "Europe/Helsinki",
    "Europe/Istanbul",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "Asia/Dubai",
    "Asia/Kolkata",
    "Asia/Singapore",
    "Asia/Shanghai",
    "Asia/Tokyo",
    "Australia/Sydney",
    "Pacific/Auckland",
)
"""Where several zones fit the offsets, the first of these that fits is named (then the rest of
the IANA zones, alphabetically): a zone a reader recognizes, not the first in the alphabet."""

_ZONE_NAME = re.compile(r"\b[A-Z][A-Za-z]+(?:/[A-Za-z][A-Za-z_+-]*)+")
_ZONE_SUFFIX = re.compile(r"(?:[Zz]|[+-]\d{2}(?::?\d{2})?)$")
_OFFSET = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?[+-]\d{2}(?::?\d{2})?")
MAX_OFFSETS = 64
"""Distinct (instant, offset) pairs a zone must fit; beyond them the first are taken."""


@dataclass(frozen=True, slots=True)
class Entry:
    """A distinct site with how many calls show it."""

    site: Site
    calls: int


@dataclass(frozen=True)
class Choice:
    """The rule chosen for one parameter."""

    steps: Steps
    rule: NormSpec
    absorbed: frozenset[Any]
    """The keys (`Site.key`) of the sites it absorbs."""
    calls: int
    """Calls whose difference it absorbs (of every mismatched call, before the what-if)."""
    others: tuple[tuple[NormSpec, frozenset[Any]], ...]
    """The other rules that absorb some of the differences, with the keys of the sites each
    absorbs, most first."""
    narrower_differs: tuple[tuple[str, frozenset[Any]], ...] = ()
    """Per narrower rule of the family (`FAMILIES`), the keys of the sites the chosen rule would
    absorb that it reads and finds different: the chosen rule's risk, left out of `absorbed`."""
    wider_merges: tuple[tuple[NormSpec, frozenset[Any]], ...] = ()
    """Per wider rule of the family, the keys of the sites it would absorb that the chosen rule
    reads and finds different: what choosing the wider rule would merge."""


def reads_apart(rule: Rule, site: Site) -> bool:
    """Whether `rule` reads both values of a pair site and finds them different."""
    if site.kind != "pair":
        return False
    fa, pa = rule.apply(site.actual)
    fe, pe = rule.apply(site.expected)
    return pa is None and pe is None and not json_eq(fa, fe)


def absorbs(site: Site, node: Node) -> bool:
    """Whether `node` (the site's parameter, compiled) makes the site's two sides equivalent."""
    # the call's value is a run's: a value its schema rejects is read by no rule (SPEC)
    if site.kind == "pair":
        a, e = normalize(site.actual, node, True), normalize(site.expected, node)
        return json_eq(a, e)
    present = normalize(site.present, node, site.actual is not MISSING)
    return node.default is not MISSING and json_eq(present, node.default_norm)


_SAYS_OTHERWISE: dict[str, tuple[re.Pattern[str], ...]] = {
    "casefold": (
        re.compile(r"\bcase[- ]?sensitive\b", re.I),
        re.compile(r"\bexact(ly)?\b", re.I),
        re.compile(r"\bverbatim\b", re.I),
    ),
    "date": (
        re.compile(r"\btime[- ]?stamps?\b", re.I),
        re.compile(r"\bdate[- ]?times?\b", re.I),
        re.compile(r"\binstants?\b", re.I),
    ),
    "unordered_list": (re.compile(r"\border (matters|is kept|counts)\b", re.I),),
}
_SAYS_OTHERWISE["month"] = _SAYS_OTHERWISE["date"]
_SAYS_OTHERWISE["set"] = (
    *_SAYS_OTHERWISE["unordered_list"],
    re.compile(r"\bduplicates? (matter|count)\b", re.I),
)


def description_says_otherwise(rule: str, param: Param) -> str | None:
    """The words of the parameter's description that contradict `rule` (SPEC `risk.description`):
    `casefold` where it says case-sensitive or exact; `date` or `month` where it says
    timestamp, date-time or instant; a multiset or set where it says order matters. None when
    it says nothing against it. ("Case-insensitive" is not "case-sensitive".)"""
    text = param.schema.get("description")
    if not isinstance(text, str):
        return None
    for pattern in _SAYS_OTHERWISE.get(rule, ()):
        found = pattern.search(text)
        if found is not None:
            return found.group(0)
    return None


def choose_rules(
    tool: Tool,
    params: Mapping[Steps, tuple[Param, Sequence[Entry]]],
    registry: Mapping[str, Normalizer],
) -> dict[Steps, Choice]:
    """The rule for each parameter of `tool` whose sites some built-in rule absorbs.

    `params` maps each parameter with sites to (its Param, its sites). Parameters that declare
    a rule already are left alone: changing a declared rule is a decision for a person.
    """
    chosen: dict[Steps, Choice] = {}
    order = sorted(params, key=lambda s: (-len(s), _sort_key(s)))
    for steps in order:
        param, entries = params[steps]
        if param.norm is not None:
            continue
        below = [
            Change(tool.name, sub[len(steps) :], norm=c.rule)
            for sub, c in chosen.items()
            if sub[: len(steps)] == steps
        ]
        base = compile_node(param, registry, below)
        open_entries = [e for e in entries if not absorbs(e.site, base)]
        if not open_entries:
            continue
        scored: list[tuple[int, int, NormSpec, frozenset[Any]]] = []
        for rank, name in enumerate(NARROWEST_FIRST):
            if name not in registry or not _applies(name, param, registry[name]):
                continue
            evidence = open_entries
            if name in READ_ENCODINGS:
                evidence = [e for e in open_entries if _rewritten(e.site) or _rounding(e.site)]
            elif name == "url":
                evidence = [e for e in open_entries if _urlish(e.site)]
            found = _best_options(name, param, tool, evidence, below, registry)
            if found is not None and found[1]:
                spec, calls, absorbed = found
                scored.append((calls, rank, spec, absorbed))
        if not scored:
            continue
        # Along a family only the narrowest that absorbs anything may be chosen; the wider ones
        # are listed with it (SPEC: narrowest first).
        absorbing = {x[2].name for x in scored}
        choosable = [x for x in scored if not absorbing & set(narrower_than(x[2].name))]
        choosable.sort(key=lambda x: (-x[0], x[1]))
        calls, _, spec, absorbed = choosable[0]
        # What the rule would equate is more than its evidence: a rule that reads encodings
        # scores only pairs written differently, yet it equates pairs written alike too
        # (`date` on "…T11:00:00Z" and "…T09:00:00Z"). A narrower rule's reading apart of any of
        # them is the rule's risk (SPEC `risk.narrower_differs`), not only of its evidence.
        _, equated = _score(spec, param, tool, open_entries, below, registry)
        equated |= absorbed
        differs = []
        for name in narrower_than(spec.name):
            if name not in registry:
                continue
            narrower = bind(NormSpec(name), registry)
            keys = frozenset(
                e.site.key
                for e in entries
                if e.site.key in equated and reads_apart(narrower, e.site)
            )
            if keys:
                differs.append((name, keys))
        if differs:
            taken = frozenset().union(*(keys for _, keys in differs))
            absorbed = absorbed - taken
            calls = sum(e.calls for e in entries if e.site.key in absorbed)
        others = tuple((s, keys) for _, _, s, keys in scored if s != spec)
        own = bind(spec, registry, fields=frozenset(param.properties))
        merges = []
        for _, _, wider, keys in scored:
            if spec.name in narrower_than(wider.name):
                _, merged = _score(wider, param, tool, open_entries, below, registry)
                apart = frozenset(
                    e.site.key
                    for e in entries
                    if e.site.key in keys | merged and reads_apart(own, e.site)
                )
                if apart:
                    merges.append((wider, apart))
        chosen[steps] = Choice(steps, spec, absorbed, calls, others, tuple(differs), tuple(merges))
    return chosen


def _sort_key(steps: Steps) -> tuple[tuple[int, str], ...]:
    return tuple((0, "") if s is None else (1, s) for s in steps)


def _applies(name: str, param: Param, norm: Normalizer) -> bool:
    if param.types and norm.applies_to:
        types = set(param.types)
        if "integer" in types:
            types.add("number")
        if not types & set(norm.applies_to):
            return False
    if name == "known_fields":
        # Only where the schema lets an object carry what it does not declare.
        return bool(param.properties) and param.schema.get("additionalProperties") is not False
    return True


def _score(
    spec: NormSpec,
    param: Param,
    tool: Tool,
    entries: Sequence[Entry],
    below: list[Change],
    registry: Mapping[str, Normalizer],
) -> tuple[int, frozenset[Any]]:
    node = compile_node(param, registry, [*below, Change(tool.name, (), norm=spec)])
    absorbed = [e for e in entries if absorbs(e.site, node)]
    return sum(e.calls for e in absorbed), frozenset(e.site.key for e in absorbed)


def _best_options(
    name: str,
    param: Param,
    tool: Tool,
    entries: Sequence[Entry],
    below: list[Change],
    registry: Mapping[str, Normalizer],
) -> tuple[NormSpec, int, frozenset[Any]] | None:
    """The rule `name` with the options the evidence supports, and what it absorbs."""
    plain = NormSpec(name)
    calls, absorbed = _score(plain, param, tool, entries, below, registry)
    best = (plain, calls, absorbed)
    if name in ("month", "date"):
        best = _with_zone(best, param, tool, entries, below, registry)
    elif name == "number":
        best = _with_digits(best, tool, param, entries, below, registry)
    elif name == "url":
        best = _with_scheme(best, param, tool, entries, below, registry)
    return best


def _with_scheme(
    plain: tuple[NormSpec, int, frozenset[Any]],
    param: Param,
    tool: Tool,
    entries: Sequence[Entry],
    below: list[Change],
    registry: Mapping[str, Normalizer],
) -> tuple[NormSpec, int, frozenset[Any]]:
    """`url` with `scheme: "any"` when the values need it: it absorbs everything plain `url`
    absorbs and more (`www.example.com` for `http://www.example.com`). It also equates `http`
    and `https`, so it is never chosen when plain `url` absorbs as much."""
    _, calls, absorbed = plain
    spec = NormSpec("url", {"scheme": "any"})
    s_calls, s_absorbed = _score(spec, param, tool, entries, below, registry)
    if s_absorbed >= absorbed and s_calls > calls:
        return spec, s_calls, s_absorbed
    return plain


# ------------------------------------------------------------------------------------- tz


def _with_zone(
    plain: tuple[NormSpec, int, frozenset[Any]],
    param: Param,
    tool: Tool,
    entries: Sequence[Entry],
    below: list[Change],
    registry: Mapping[str, Normalizer],
) -> tuple[NormSpec, int, frozenset[Any]]:
    """`month` or `date` in the zone the values support, when one does better than UTC.

    A zone the description names (`"... (America/New_York)"`) wins when it absorbs at least what
    UTC absorbs. Otherwise a zone must fit every offset written in the values (`+01:00` in
    winter and `+02:00` in summer is Berlin; `+01:00` and `+02:00` on the same day is no zone)
    and absorb strictly more than UTC, and everything UTC absorbs.
    """
    spec, calls, absorbed = plain
    named = _named_zones(param, tool)
    for name in named:
        z_spec = NormSpec(spec.name, {"tz": name})
        z_calls, z_absorbed = _score(z_spec, param, tool, entries, below, registry)
        if z_absorbed >= absorbed and z_calls >= calls:
            return z_spec, z_calls, z_absorbed
    if all(e.site.key in absorbed for e in entries):
        return plain
    for name in fitting_zones(_offsets(entries)):
        if name in named:
            continue
        z_spec = NormSpec(spec.name, {"tz": name})
        z_calls, z_absorbed = _score(z_spec, param, tool, entries, below, registry)
        if z_absorbed >= absorbed and z_calls > calls:
            return z_spec, z_calls, z_absorbed
        break  # the first zone that fits speaks for all of them: they agree on every value
    return plain


def _named_zones(param: Param, tool: Tool) -> list[str]:
    text = " ".join(
        d for d in (param.schema.get("description"), tool.description) if isinstance(d, str)
    )
    known = all_zones()
    return list(dict.fromkeys(m for m in _ZONE_NAME.findall(text) if m in known))


def _offsets(entries: Iterable[Entry]) -> list[datetime]:
    """The date-times written with a numeric offset among the sites' values."""
    found: dict[str, datetime] = {}
    for e in entries:
        for value in (e.site.actual, e.site.expected):
            if type(value) is str and value not in found and _OFFSET.fullmatch(value):
                try:
                    moment = datetime.fromisoformat(value[:10] + "T" + value[11:])
                except ValueError:  # a shape Python 3.10 does not read: one hint fewer
                    continue
                if moment.utcoffset():
                    found[value] = moment
    return [found[k] for k in sorted(found)][:MAX_OFFSETS]


def fitting_zones(moments: Sequence[datetime]) -> list[str]:
    """The IANA zones whose offset at each moment is the offset it was written with."""
    offsets = {m.utcoffset() for m in moments}
    if not moments or len(offsets) > 2:
        return []  # a zone keeps at most two offsets a year (standard and summer time)
    return [n for n in _zone_order() if all(_fits(n, m) for m in moments)]


@functools.lru_cache(maxsize=4096)
def _fits(name: str, moment: datetime) -> bool:
    tz = _tz(name)
    return tz is not None and moment.astimezone(tz).utcoffset() == moment.utcoffset()


@functools.cache
def _tz(name: str) -> tzinfo | None:
    try:
        return zone(name)
    except ValueError:
        return None


@functools.lru_cache(maxsize=1)
def _zone_order() -> tuple[str, ...]:
    return (*PREFERRED_ZONES, *sorted(all_zones() - set(PREFERRED_ZONES)))


@functools.lru_cache(maxsize=1)
def all_zones() -> frozenset[str]:
    """Canonical `Area/City` IANA zones (no `Etc/GMT-1`, whose sign reads backwards)."""
    try:
        names = zoneinfo.available_timezones()
    except Exception:  # no zone database to list: the preferred zones still resolve
        names = set()
    names |= set(PREFERRED_ZONES)
    return frozenset(
        n for n in names if "/" in n and not n.startswith(("Etc/", "SystemV/", "posix/", "right/"))
    )


# --------------------------------------------------------------------------------- digits


def _with_digits(
    plain: tuple[NormSpec, int, frozenset[Any]],
    tool: Tool,
    param: Param,
    entries: Sequence[Entry],
    below: list[Change],
    registry: Mapping[str, Normalizer],
) -> tuple[NormSpec, int, frozenset[Any]]:
    """`number` with the most `digits` that absorb the differences that look like rounding.

    A difference looks like rounding when it is smaller than a tenth of the last digit the step
    wrote (`129.9501` for `129.95`, `0.100001` for `0.1`); `42.5` for `42.0` does not, and no
    `digits` is chosen that would absorb it: that is another amount.
    """
    _, _, absorbed = plain
    noise = {e.site.key for e in entries if e.site.key not in absorbed and _rounding(e.site)}
    if not noise:
        return plain
    best = plain
    for digits in range(20, -1, -1):
        d_spec = NormSpec("number", {"digits": digits})
        d_calls, d_absorbed = _score(d_spec, param, tool, entries, below, registry)
        if not d_absorbed >= absorbed or d_absorbed - absorbed - noise:
            continue  # it loses something plain number absorbs, or absorbs another amount
        if d_calls > best[1]:
            best = (d_spec, d_calls, d_absorbed)
    return best


def _rewritten(site: Site) -> bool:
    """Whether the site's two values are written differently: in other encodings, or as
    date-times of another shape or offset (`+01:00` and `+02:00` are two ways to write)."""
    if site.kind == "pair":
        a, e = site.actual, site.expected
    else:
        return True  # a restated default: the default's own encoding is not on the other side
    return _written(a) != _written(e)


def _urlish(site: Site) -> bool:
    """Whether a pair site's values look like URLs: strings without white space, one of them
    with a scheme and `//`. With `scheme: "any"` the rule reads any word as a host (`acct_OCaD`
    as `https://acct_ocad/`), so an account reference that differs by case is no URL's evidence."""
    if site.kind != "pair":
        return False
    values = (site.actual, site.expected)
    if not all(type(v) is str and v and not any(c.isspace() for c in v) for v in values):
        return False
    return any(_SCHEME_SLASHES.match(v) for v in values)


_SCHEME_SLASHES = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def _written(value: Any) -> tuple[str | None, str]:
    """How a value is written: its encoding, and for a date-time its shape (digits aside:
    `.000` milliseconds or none) and the offset it names."""
    name = encoding_of(value)
    if name is not None and name.startswith("YYYY-MM-DDT") and type(value) is str:
        m = _ZONE_SUFFIX.search(value)
        offset = m.group(0) if m else ""
        return re.sub(r"\d", "9", value[: len(value) - len(offset)]), offset
    return name, ""


def _decimal(value: Any) -> Decimal | None:
    if type(value) is int or type(value) is float:
        text = repr(value)
    elif type(value) is str:
        text = value
    else:
        return None
    try:
        d = Decimal(text)
    except InvalidOperation:
        return None
    return d if d.is_finite() else None


def _rounding(site: Site) -> bool:
    if site.kind != "pair":
        return False
    a, e = _decimal(site.actual), _decimal(site.expected)
    if a is None or e is None or a == e:
        return False
    exponent = e.normalize().as_tuple().exponent
    written = max(0, -exponent) if isinstance(exponent, int) else 0
    return abs(a - e) < Decimal(1).scaleb(-(written + 1))
