"""The tools as lint sees them, and the checks on their schemas.

A `ToolSite` is a tool with each parameter's rule bound on its own (so that one bad rule is a
finding and the others still get checked), where each parameter is written (the reader recorded
it), the evidence the values present give about its rule, and a validator for its schema.
The checks here need nothing but the tools: rules that cannot bind or apply, parameters with
several encodings and no rule, aliased keys, defaults that fail their schema or their rule.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

from ..grade.compare import Node, compile_param, normalize
from ..grade.norms import Normalizer, bind
from ..jsonvalue import short_json
from ..model import MISSING, Param, Tool
from ..read.annotations import NORM
from ..shapes import ENCODING, UNJUDGED
from .findings import Finding, Loc, cut, finding
from .laws import Evidence, raised
from .validate import SchemaValidator

PATTERN_FIX: Final = (
    "rewrite the pattern so that it cannot backtrack without end (no nested or overlapping "
    "repetition such as (a+)+ or (a|aa)+): the tool's own validator may hang on it too"
)


@dataclass(frozen=True, slots=True, eq=False)
class ParamSite:
    """A parameter with its compiled rule and the evidence about its rule."""

    tool: str
    param: Param
    node: Node
    bare: Node
    """The node without its own rule: what the comparison hands the rule (inner rules applied)."""
    evidence: Evidence = field(default_factory=Evidence)

    @property
    def loc(self) -> Loc:
        """Where the parameter's schema is written in its tool file."""
        return self.param.loc

    def key_loc(self, key: str) -> Loc:
        """Where the winning `key` (`x-eval-norm`, `default`) of this parameter is written."""
        written = self.param.norm_loc if key == NORM else self.param.default_loc
        return written if written is not None else self.param.loc

    @property
    def name(self) -> str:
        return f"{self.tool}.{self.param.path}" if self.param.path else f"{self.tool} (root)"


@dataclass(frozen=True, slots=True, eq=False)
class ToolSite:
    tool: Tool
    validator: SchemaValidator
    params: dict[int, ParamSite]
    """By `id(param)`: the tool's parameters, root first, depth first."""

    @property
    def file(self) -> str:
        return self.tool.file

    @property
    def loc(self) -> Loc:
        """Where the tool's entry is in its file."""
        return self.tool.loc


def tool_sites(
    tools: Mapping[str, Tool], registry: Mapping[str, Normalizer], out: list[Finding]
) -> dict[str, ToolSite]:
    """Each tool as lint sees it, by name; a finding for each rule that cannot be bound."""
    return {name: _tool_site(tool, registry, out) for name, tool in tools.items()}


def _tool_site(tool: Tool, registry: Mapping[str, Normalizer], out: list[Finding]) -> ToolSite:
    validator = SchemaValidator(tool.schema, f"{tool.source} ({tool.name})")
    params = list(tool.params.walk())
    # Bind each rule on its own, so that a bad one is a finding and the others still get checked;
    # a rule that cannot be bound, or can never apply, is left out of the law checks.
    bad: set[int] = set()
    for param in params:
        if param.norm is not None and not _bind_ok(tool, param, registry, out):
            bad.add(id(param))
    root = compile_param(_without(tool.params, bad), registry, tool.source or tool.name)
    nodes: list[Node] = []

    def flatten(node: Node) -> None:  # the same order as Param.walk
        nodes.append(node)
        for name in sorted(node.props):
            flatten(node.props[name])
        if node.items is not None:
            flatten(node.items)

    flatten(root)
    sites = {
        id(param): ParamSite(tool.name, param, node, replace(node, rule=None))
        for param, node in zip(params, nodes)
    }
    return ToolSite(tool, validator, sites)


def _without(param: Param, bad: set[int]) -> Param:
    """The parameter tree with the rules that cannot be bound taken out."""
    return replace(
        param,
        norm=None if id(param) in bad else param.norm,
        properties={k: _without(p, bad) for k, p in param.properties.items()},
        items=_without(param.items, bad) if param.items is not None else None,
    )


def _bind_ok(
    tool: Tool, param: Param, registry: Mapping[str, Normalizer], out: list[Finding]
) -> bool:
    """Whether the parameter's rule binds; a finding (and False) when it cannot, or never applies."""
    spec = param.norm
    assert spec is not None
    loc = param.norm_loc or ()
    file = tool.file
    name = f"{tool.name}.{param.path}" if param.path else f"{tool.name} (root)"
    if spec.name not in registry:
        close = difflib.get_close_matches(spec.name, list(registry), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        out.append(
            finding(
                "unknown-normalizer",
                file,
                loc,
                f"{name}: x-eval-norm names an unknown normalizer {spec.name!r}",
                f"{hint}name one that `evalrun norms` lists, or install the plugin that "
                "registers it",
            )
        )
        return False
    norm = registry[spec.name]
    if not _readable(norm.applies_to, param.types):
        out.append(
            finding(
                "norm-type-mismatch",
                file,
                loc,
                f"{name}: rule {norm.name!r} reads {' or '.join(norm.applies_to)}, but the "
                f"parameter is {' or '.join(param.types)}: it can never apply",
                "name a rule for the parameter's type (`evalrun norms`), or correct the type",
            )
        )
        return False  # what the law checks would say about it is noise next to this
    try:
        bind(spec, registry, fields=frozenset(param.properties))
    except ValueError as e:
        out.append(
            finding(
                "bad-norm-option",
                file,
                loc,
                f"{name}: {e}",
                "correct or remove the option (`evalrun norms` lists each rule's options)",
            )
        )
        return False
    return True


# ------------------------------------------------------------------------------ schema checks

# Which JSON Schema types a rule that reads `applies` can meet in a parameter of type `declared`.
_NUMERIC: Final = frozenset({"number", "integer"})


def _readable(applies: tuple[str, ...], declared: tuple[str, ...]) -> bool:
    types = set(declared) - {"null"}
    if not applies or not types:
        return True
    wanted = set(applies)
    if wanted & _NUMERIC:
        wanted |= _NUMERIC  # an integer is a number, and a number may be whole
    return bool(wanted & types)


def _kinds(types: tuple[str, ...]) -> list[str]:
    """The distinct encodings a type list allows: integer and number are one, null is absence."""
    kinds = ["number" if t == "integer" else t for t in types if t != "null"]
    return list(dict.fromkeys(kinds))


def identifier_like(param: Param) -> str | None:
    """Why a parameter looks like an identifier (where "any value" is almost certainly wrong):
    it is an enum, has a format or a pattern, is an integer, or its name ends in id."""
    schema = param.schema
    name = param.path.rsplit(".", 1)[-1].removesuffix("[]")
    if "enum" in schema or "const" in schema:
        return "its values are enumerated"
    if "format" in schema:
        return f"it has a format ({schema['format']})"
    if "pattern" in schema:
        return "it has a pattern"
    if "integer" in param.types:
        return "it is an integer"
    if _words(name)[-1:] in (["id"], ["ids"]) or name.lower().endswith(("id", "ids")):
        return "its name ends in id"
    return None


def _check_unjudged(file: str, p: ParamSite, loc: Loc, out: list[Finding]) -> None:
    out.append(
        finding(
            "any-rule",
            file,
            loc,
            f"{p.name}: under the rule 'any', every value is equivalent: its wording is not "
            "judged (the widest rule there is)",
            "keep it for free text no eval should judge (a message, a note); judge the rest",
        )
    )
    why = identifier_like(p.param)
    if why is not None:
        out.append(
            finding(
                "any-on-identifier",
                file,
                loc,
                f"{p.name}: the rule 'any' stands on a parameter that looks like an identifier "
                f"({why}): a wrong value would pass as a right one",
                "remove x-eval-norm: any (or name a rule that reads its encodings), or ignore "
                "any-on-identifier if the tool truly ignores it",
            )
        )


def check_schema(site: ToolSite, registry: Mapping[str, Normalizer], out: list[Finding]) -> None:
    """The findings about the tool's schema itself: its rules, types, defaults and key names."""
    file = site.file
    for p in site.params.values():
        param = p.param
        norm = registry.get(param.norm.name) if param.norm is not None else None
        norm_loc = p.key_loc(NORM)
        if norm is not None and norm.cls == UNJUDGED:
            _check_unjudged(file, p, norm_loc, out)
        if norm is not None and norm.uses_schema and not param.properties:
            out.append(
                finding(
                    "norm-no-fields",
                    file,
                    norm_loc,
                    f"{p.name}: rule {norm.name!r} compares only the declared properties, and "
                    "this object declares none: every object would be equal",
                    "declare the properties the tool reads under 'properties', or remove the rule",
                )
            )
        if (
            norm is not None
            and norm.name == "money_cents"
            and (not param.types or set(param.types) & _NUMERIC)
        ):
            out.append(
                finding(
                    "money-cents-int-float",
                    file,
                    norm_loc,
                    f"{p.name}: money_cents reads a JSON integer as cents and a float as major "
                    "units (42 is 42 cents, 42.0 is 4200), and many JSON producers write 4200.0 "
                    "as 4200 or the reverse",
                    "declare one encoding: type integer for cents, or type string for a decimal "
                    'amount in major units ("42.00")',
                )
            )
        kinds = _kinds(param.types)
        if param.norm is None and len(kinds) > 1 and param.path:
            out.append(
                finding(
                    "multi-encoding-no-rule",
                    file,
                    p.loc,
                    f"{p.name}: accepts {' or '.join(kinds)} and declares no rule, so one value "
                    "written in two encodings compares unequal",
                    "tighten the schema to one type first; if the tool really accepts several, "
                    f"declare x-eval-norm ({_suggest(kinds, param.path, registry)})",
                )
            )
        if param.default is not MISSING:
            _check_default(site, p, out)
        if len(param.properties) > 1:
            _check_aliases(site, p, out)


def _suggest(kinds: list[str], path: str, registry: Mapping[str, Normalizer]) -> str:
    """The registered encoding rules that read every kind, the likeliest for the name first."""
    fits = [
        n.name
        for n in registry.values()
        if n.cls == ENCODING and n.applies_to and set(kinds) <= set(n.applies_to) | {"integer"}
    ]
    words = set(_words(path.rsplit(".", 1)[-1]))
    prefer = [
        rule
        for rule, hints in (
            ("money_cents", {"amount", "price", "cost", "total", "cents", "fee", "balance"}),
            ("duration_secs", {"duration", "timeout", "ttl", "interval", "delay", "secs"}),
        )
        if rule in fits and words & hints
    ]
    ordered = prefer + sorted(n for n in fits if n not in prefer)
    return ", ".join(ordered) if ordered else "a plugin normalizer that reads each encoding"


def _check_default(site: ToolSite, p: ParamSite, out: list[Finding]) -> None:
    default = p.param.default
    loc = p.key_loc("default")
    if isinstance(p.param.raw, dict):
        check = site.validator.check(default, at=p.param.loc[len(site.tool.schema_loc) :])
        for e in check.errors:
            out.append(
                finding(
                    "default-invalid",
                    site.file,
                    loc,
                    f"{p.name}: the default {short_json(default)} fails the parameter's own "
                    f"schema: {cut(e.message)}",
                    "correct the default (an omitted parameter is compared as this value), "
                    "or remove it",
                )
            )
        for what in check.unchecked:
            out.append(
                finding(
                    "pattern-unchecked",
                    site.file,
                    loc,
                    f"{p.name}: the default {short_json(default)} could not be checked against "
                    f"{what}",
                    PATTERN_FIX,
                )
            )
    if p.node.rule is not None:
        inner = normalize(default, p.bare)
        problem = p.node.rule.apply(inner)[1]
        # null has one encoding: pydantic's `Optional[Address] = None` needs no rule that reads it.
        if problem is not None and not raised(problem) and default is not None:
            out.append(
                finding(
                    "default-unreadable",
                    site.file,
                    loc,
                    f"{p.name}: {problem}; a stated default in another encoding will not be "
                    "recognised as the default",
                    f"write the default in an encoding rule {p.node.rule.name!r} reads",
                )
            )
        p.evidence.check(p.node.rule, inner, default, "the declared default", counted=False)


# Unit words: a name that ends (or starts) with one names the encoding of a quantity, not the
# quantity. `min`, `s`, `h`, `m` and `us` are left out: `price_min`, `status`, `is_us` are no units.
_UNIT_WORDS: Final = frozenset(
    {
        *("cents", "cent", "pennies", "minor", "major", "usd", "eur", "gbp"),
        *("ms", "millis", "msec", "msecs", "milliseconds", "micros", "nanos"),
        *("sec", "secs", "seconds", "mins", "minutes", "hrs", "hours", "days", "weeks"),
        *("iso", "iso8601", "rfc3339", "utc", "epoch", "unix", "ts", "timestamp", "date"),
        *("bytes", "kb", "mb", "gb", "pct", "percent"),
    }
)
_UNIT_PREFIXES: Final = frozenset({"iso", "unix", "epoch", "utc", "raw"})


def _words(name: str) -> list[str]:
    """`amountCents` and `amount-cents` -> ["amount", "cents"]."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [w for w in re.split(r"[_\-\s.]+", name.lower()) if w]


def quantity(name: str) -> str:
    """The quantity a parameter name stands for, its unit words taken off.

    `amount_cents`, `amount_in_cents`, `amountUsd` -> `amount`; `timeout_ms` -> `timeout`;
    `iso_date`, `date_iso` -> `date`. A name is never stripped to nothing (`ms` stays `ms`).
    """
    words = _words(name)
    while len(words) > 1 and words[0] in _UNIT_PREFIXES:
        words.pop(0)
    while len(words) > 1 and words[-1] in _UNIT_WORDS:
        words.pop()
        if len(words) > 1 and words[-1] == "in":
            words.pop()
    return "_".join(words)


def _check_aliases(site: ToolSite, p: ParamSite, out: list[Finding]) -> None:
    groups: dict[str, list[str]] = {}
    for name in sorted(p.param.properties):
        groups.setdefault(quantity(name), []).append(name)
    for stem, names in groups.items():
        if len(names) < 2:
            continue
        where = f"{site.tool.name}" + (f".{p.param.path}" if p.param.path else "")
        listed = " and ".join(repr(n) for n in names)
        # Point at the name with the unit word: that is usually the one to drop or rename.
        odd = next((n for n in names if n != stem), names[-1])
        child = p.param.properties[odd]
        at = child.loc
        out.append(
            finding(
                "aliased-keys",
                site.file,
                at,
                f"{where}: {listed} look like one quantity ({stem}) in two encodings; no rule "
                "can alias one key to another",
                "expose one key with one encoding (declare x-eval-norm on it if the tool reads "
                "several); if they mean different things, rename them or ignore aliased-keys",
            )
        )


def values(args: Any, tool: ToolSite) -> Iterator[tuple[ParamSite, Any, Loc]]:
    """Every value in `args` that sits at a parameter with a rule, with its path in `args`."""

    def walk(value: Any, param: Param, path: Loc) -> Iterator[tuple[ParamSite, Any, Loc]]:
        site = tool.params[id(param)]
        if site.node.rule is not None:
            yield site, value, path
        if param.properties and type(value) is dict:
            for k, x in value.items():
                if k in param.properties:
                    yield from walk(x, param.properties[k], (*path, k))
        elif param.items is not None and type(value) is list:
            for i, x in enumerate(value):
                yield from walk(x, param.items, (*path, i))

    yield from walk(args, tool.tool.params, ())
