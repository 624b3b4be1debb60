"""`evalrun lint`: hold the user's schemas, rules and cases to account before they bend the numbers.

Every equivalence rule is a hypothesis about a tool, and every case is a claim about what the tool
accepts. `lint` checks both, and reports each problem as a `Finding`: a stable code (see
`docs/lint.md`), a severity, the file and the JSON path of the offending node, a one-line message and
the fix. Problems with the user's tools, rules or cases are data, never exceptions; only unusable
input (a file that is not JSON, an invalid schema, a duplicate name) raises `InputError`.

The law checks run each rule on the values actually present — the cases' expected arguments, the
declared defaults and, when given, the traces' recorded arguments — exactly as the comparison feeds
them (after the rules inside the value): a rule must never raise anything but ValueError, and must
be idempotent, n(n(x)) == n(x).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, Literal

import jsonschema
import orjson
from jsonschema.validators import validator_for

from . import __version__
from ._files import list_files, read_json_file
from .cases import load_cases
from .compare import Node, compile_param, normalize
from .jsonvalue import canon_key, json_eq, short_json
from .model import MISSING, Case, Param, Tool, TraceError
from .norms import Normalizer, Rule, bind, load_registry
from .pointer import parse_pointer, resolve
from .tools import EMPTY_SCHEMA, NORM, load_tools, read_tool_file
from .traces import read_runs

Severity = Literal["error", "warning", "info"]
SEVERITIES: Final = ("error", "warning", "info")


@dataclass(frozen=True, slots=True)
class Code:
    """A finding's code: its fixed severity and what it means (documented in docs/lint.md)."""

    severity: Severity
    meaning: str


CODES: Final[dict[str, Code]] = {
    # errors: the numbers evalrun computes would be wrong
    "unknown-normalizer": Code("error", "x-eval-norm names a normalizer that is not registered"),
    "bad-norm-option": Code("error", "x-eval-norm gives an option the normalizer rejects"),
    "norm-type-mismatch": Code("error", "the rule cannot read any type the parameter accepts"),
    "norm-no-fields": Code("error", "known_fields on an object that declares no properties"),
    "norm-raised": Code("error", "the rule raised (not ValueError) on a value present"),
    "norm-not-idempotent": Code("error", "the rule is not idempotent on a value present"),
    "unknown-tool": Code("error", "a case step names a tool no schema defines"),
    "case-args-invalid": Code("error", "a case's expected args fail the tool's JSON Schema"),
    "default-invalid": Code("error", "a declared default fails its own parameter's schema"),
    # warnings: the schema or a rule invites false failures or false passes
    "multi-encoding-no-rule": Code("warning", "a parameter accepts several types and has no rule"),
    "aliased-keys": Code("warning", "two parameters look like one quantity in two encodings"),
    "default-unreadable": Code("warning", "the parameter's rule cannot read its declared default"),
    "case-value-unreadable": Code("warning", "the parameter's rule cannot read a case's value"),
    "money-cents-int-float": Code("warning", "money_cents reads 42 and 42.0 differently"),
    "tool-never-called": Code("warning", "a tool is never called in the traces given"),
    # info
    "norm-unexercised": Code("info", "no value in the cases or traces exercises the rule"),
}


@dataclass(frozen=True, slots=True)
class Finding:
    severity: Severity
    code: str
    file: str
    path: str
    """JSON path of the offending node in `file`: `$.tools[0].inputSchema.properties.month`."""
    message: str
    fix: str
    line: int | None = None
    """The line of a JSONL case file; None for a JSON file."""

    def to_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "code": self.code,
            "file": self.file,
            "line": self.line,
            "path": self.path,
            "message": self.message,
            "fix": self.fix,
        }


@dataclass(frozen=True, slots=True)
class Coverage:
    """Tools declaring rules vs all tools, and, with traces, the call volume those tools carry."""

    tools: int
    tools_with_norms: int
    runs: int | None = None
    """Runs read from the traces; None when no traces were given."""
    calls: int | None = None
    calls_with_norms: int | None = None
    unreadable_lines: int | None = None
    """Trace lines that are not runs (`evalrun score` lists them with file:line)."""

    @property
    def call_share_with_norms(self) -> float | None:
        if self.calls is None or self.calls_with_norms is None:
            return None
        return self.calls_with_norms / self.calls if self.calls else 0.0

    def to_json(self) -> dict[str, Any]:
        share = self.call_share_with_norms
        return {
            "tools": self.tools,
            "tools_with_norms": self.tools_with_norms,
            "runs": self.runs,
            "calls": self.calls,
            "calls_with_norms": self.calls_with_norms,
            "call_share_with_norms": None if share is None else round(share, 4),
            "unreadable_lines": self.unreadable_lines,
        }


@dataclass(frozen=True, slots=True)
class LintReport:
    findings: tuple[Finding, ...]
    coverage: Coverage
    ignored: int = 0
    """Findings left out by `ignoring`."""

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def ignoring(self, codes: Iterable[str]) -> LintReport:
        """The report without the findings of these codes (ValueError for a code that is unknown)."""
        codes = set(codes)
        unknown = sorted(codes - set(CODES))
        if unknown:
            raise ValueError(
                f"unknown lint code {', '.join(map(repr, unknown))} "
                f"(codes: {', '.join(sorted(CODES))})"
            )
        kept = tuple(f for f in self.findings if f.code not in codes)
        return replace(self, findings=kept, ignored=self.ignored + len(self.findings) - len(kept))

    def failed(self, *, strict: bool = False) -> bool:
        """Errors fail the lint; warnings too when `strict`."""
        return bool(self.count("error") or (strict and self.count("warning")))

    def to_json(self) -> dict[str, Any]:
        return {
            "evalrun": __version__,
            "findings": [f.to_json() for f in self.findings],
            "counts": {
                "error": self.count("error"),
                "warning": self.count("warning"),
                "info": self.count("info"),
                "ignored": self.ignored,
            },
            "coverage": self.coverage.to_json(),
        }


# ------------------------------------------------------------------------------------ the job


def lint(
    tools_dir: str | Path,
    cases_dir: str | Path,
    traces: Iterable[str | Path] | None = None,
    registry: Mapping[str, Normalizer] | None = None,
) -> LintReport:
    """Check the tools, rules and cases (and, with traces, the rules on recorded arguments).

    Raises InputError only for unusable input: what `evalrun score` would also refuse to read,
    except unknown normalizers and bad rule options, which are findings here.
    """
    registry = dict(registry) if registry is not None else load_registry()
    out: list[Finding] = []
    sites = _tool_sites(tools_dir, registry, out)
    cases = _case_sites(cases_dir)
    for site in sites.values():
        _check_schema(site, registry, out)
    for case in cases:
        _check_case(case, sites, out)
    coverage = Coverage(
        tools=len(sites), tools_with_norms=sum(1 for s in sites.values() if s.tool.norm_params)
    )
    if traces is not None:
        coverage = _read_traces(traces, sites, coverage, out)
    for site in sites.values():
        _law_findings(site, traces is not None, out)
    unique = dict.fromkeys(out)  # the same finding twice (one node reached twice) is one
    return LintReport(findings=tuple(sorted(unique, key=_order)), coverage=coverage)


def _order(f: Finding) -> tuple[Any, ...]:
    # Indexes compare as numbers: `$.tools[2]` comes before `$.tools[10]`.
    path = tuple((0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", f.path))
    return (f.file, f.line or 0, path, SEVERITIES.index(f.severity), f.code, f.message)


def _finding(
    code: str, file: str, loc: Loc, message: str, fix: str, line: int | None = None
) -> Finding:
    return Finding(CODES[code].severity, code, file, json_path(loc), message, fix, line)


# --------------------------------------------------------------------------------- locations

Loc = tuple[str | int, ...]
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def json_path(loc: Loc) -> str:
    """A location as a JSON path: `$.tools[0].inputSchema.properties.month['x-eval-norm']`."""
    parts = ["$"]
    for part in loc:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        elif _IDENT.fullmatch(part):
            parts.append(f".{part}")
        else:
            parts.append("['" + part.replace("\\", "\\\\").replace("'", "\\'") + "']")
    return "".join(parts)


@dataclass(frozen=True, slots=True)
class _Layer:
    """One raw schema object that contributes to a parameter, and where it sits in its file."""

    node: Mapping[str, Any]
    loc: Loc


def _layers(
    node: Any, loc: Loc, schema: Mapping[str, Any], base: Loc, refs: tuple[str, ...]
) -> tuple[list[_Layer], tuple[str, ...]]:
    """The raw objects a parameter's schema is merged from, the winning one first.

    Mirrors `tools._flatten`: the node, then the `$ref` chain it points through (the referring
    node's own keys win), then the `allOf` members and a lone non-null `anyOf`/`oneOf` branch.
    Knowing which object holds a key lets a finding point at the line to edit, even in `$defs`.
    """
    if not isinstance(node, dict):
        return [], refs
    chain: list[_Layer] = []
    while True:
        chain.append(_Layer(node, loc))
        ref = node.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#"):
            break
        if ref in refs:
            return [], refs  # a recursive $ref: the reader makes this parameter opaque
        tokens = parse_pointer(ref[1:])
        target = resolve(schema, tokens)
        if not isinstance(target, dict):
            break
        node, loc, refs = target, base + tokens, (*refs, ref)
    layers = list(chain)
    found = _first(chain, "allOf")
    if found is not None and isinstance(found.node["allOf"], list):
        for i, member in enumerate(found.node["allOf"]):
            if isinstance(member, dict):
                layers += _layers(member, (*found.loc, "allOf", i), schema, base, refs)[0]
    for key in ("anyOf", "oneOf"):
        found = _first(chain, key)
        if found is None or not isinstance(found.node[key], list):
            continue
        non_null = [
            (i, b)
            for i, b in enumerate(found.node[key])
            if isinstance(b, dict) and b.get("type") != "null"
        ]
        if len(non_null) == 1:
            i, branch = non_null[0]
            layers += _layers(branch, (*found.loc, key, i), schema, base, refs)[0]
    return layers, refs


def _first(layers: Iterable[_Layer], key: str) -> _Layer | None:
    return next((layer for layer in layers if key in layer.node), None)


# ---------------------------------------------------------------------------------- the tools


@dataclass(frozen=True, slots=True, eq=False)
class _ParamSite:
    """A parameter with its compiled rule, where it is written, and the evidence about its rule."""

    tool: str
    param: Param
    node: Node
    raw: Any
    """The raw schema node the parameter was built from (to validate its default against)."""
    loc: Loc
    layers: tuple[_Layer, ...]
    bare: Node
    """The node without its own rule: what the comparison hands the rule (inner rules applied)."""
    evidence: _Evidence = field(default_factory=lambda: _Evidence())

    def key_loc(self, key: str) -> Loc:
        """Where the winning `key` (`x-eval-norm`, `default`) of this parameter is written."""
        layer = _first(self.layers, key)
        return (*layer.loc, key) if layer is not None else self.loc

    @property
    def name(self) -> str:
        return f"{self.tool}.{self.param.path}" if self.param.path else f"{self.tool} (root)"


@dataclass(frozen=True, slots=True, eq=False)
class _ToolSite:
    tool: Tool
    file: str
    loc: Loc
    """Where the tool's entry is in its file."""
    validator: Any
    params: dict[int, _ParamSite]
    """By `id(param)`: the tool's parameters, root first, depth first."""


_SCHEMA_KEYS: Final = {
    "openai_chat": ("function", "parameters"),
    "openai_responses": ("parameters",),
    "bare": ("parameters",),
    "anthropic": ("input_schema",),
    "mcp": ("inputSchema",),
}


def _tool_sites(
    tools_dir: str | Path, registry: Mapping[str, Normalizer], out: list[Finding]
) -> dict[str, _ToolSite]:
    load_tools(tools_dir)  # every check that makes the tools unusable (exit 2), duplicates included
    sites: dict[str, _ToolSite] = {}
    for file in list_files(tools_dir, (".json",), what="tools", flag="--tools"):
        data = read_json_file(file, what="tool")
        # The same container rule as tools.read_tool_file.
        if isinstance(data, dict) and isinstance(data.get("tools"), list) and "name" not in data:
            entries, prefix = data["tools"], ("tools",)
        elif isinstance(data, list):
            entries, prefix = data, ()
        else:
            entries, prefix = [data], None
        for i, (entry, tool) in enumerate(zip(entries, read_tool_file(file))):
            loc: Loc = () if prefix is None else (*prefix, i)
            keys = _SCHEMA_KEYS[tool.format]
            schema = entry
            for key in keys:
                schema = schema.get(key, EMPTY_SCHEMA) if isinstance(schema, dict) else EMPTY_SCHEMA
            sites[tool.name] = _tool_site(
                tool, str(file), loc, (*loc, *keys), schema, registry, out
            )
    return sites


def _tool_site(
    tool: Tool,
    file: str,
    loc: Loc,
    schema_loc: Loc,
    schema: Mapping[str, Any],
    registry: Mapping[str, Normalizer],
    out: list[Finding],
) -> _ToolSite:
    cls = validator_for(schema, default=jsonschema.Draft202012Validator)
    validator = cls(schema)
    where: list[tuple[Param, Any, Loc, list[_Layer]]] = []

    def visit(param: Param, raw: Any, at: Loc, refs: tuple[str, ...]) -> None:
        layers, refs = _layers(raw, at, schema, schema_loc, refs)
        where.append((param, raw, at, layers))
        for name in sorted(param.properties):
            holder = next(
                (
                    layer
                    for layer in layers
                    if isinstance(layer.node.get("properties"), dict)
                    and name in layer.node["properties"]
                ),
                None,
            )
            if holder is None:
                child, child_at = {}, (*at, "properties", name)
            else:
                child, child_at = holder.node["properties"][name], (*holder.loc, "properties", name)
            visit(param.properties[name], child, child_at, refs)
        if param.items is not None:
            holder = _first(layers, "items")
            child_at = (*holder.loc, "items") if holder is not None else (*at, "items")
            visit(param.items, holder.node["items"] if holder else {}, child_at, refs)

    visit(tool.params, schema, schema_loc, ())
    # Bind each rule on its own, so that a bad one is a finding and the others still get checked;
    # a rule that cannot be bound, or can never apply, is left out of the law checks.
    bad: set[int] = set()
    for param, _raw, _at, layers in where:
        if param.norm is not None and not _bind_ok(tool, param, layers, file, registry, out):
            bad.add(id(param))
    root = compile_param(_without(tool.params, bad), registry, tool.source or tool.name)
    nodes: list[Node] = []

    def flatten(node: Node) -> None:  # the same order as `visit`
        nodes.append(node)
        for name in sorted(node.props):
            flatten(node.props[name])
        if node.items is not None:
            flatten(node.items)

    flatten(root)
    params = {
        id(param): _ParamSite(
            tool.name, param, node, raw, at, tuple(layers), replace(node, rule=None)
        )
        for (param, raw, at, layers), node in zip(where, nodes)
    }
    return _ToolSite(tool, file, loc, validator, params)


def _without(param: Param, bad: set[int]) -> Param:
    """The parameter tree with the rules that cannot be bound taken out."""
    return replace(
        param,
        norm=None if id(param) in bad else param.norm,
        properties={k: _without(p, bad) for k, p in param.properties.items()},
        items=_without(param.items, bad) if param.items is not None else None,
    )


def _bind_ok(
    tool: Tool,
    param: Param,
    layers: list[_Layer],
    file: str,
    registry: Mapping[str, Normalizer],
    out: list[Finding],
) -> bool:
    spec = param.norm
    assert spec is not None
    layer = _first(layers, NORM)
    loc = (*layer.loc, NORM) if layer is not None else ()
    name = f"{tool.name}.{param.path}" if param.path else f"{tool.name} (root)"
    if spec.name not in registry:
        close = difflib.get_close_matches(spec.name, list(registry), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        out.append(
            _finding(
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
            _finding(
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
            _finding(
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


def _check_schema(site: _ToolSite, registry: Mapping[str, Normalizer], out: list[Finding]) -> None:
    file = site.file
    for p in site.params.values():
        param = p.param
        norm = registry.get(param.norm.name) if param.norm is not None else None
        norm_loc = p.key_loc(NORM)
        if norm is not None and norm.uses_schema and not param.properties:
            out.append(
                _finding(
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
                _finding(
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
                _finding(
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
        if n.cls == "encoding" and n.applies_to and set(kinds) <= set(n.applies_to) | {"integer"}
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


def _check_default(site: _ToolSite, p: _ParamSite, out: list[Finding]) -> None:
    default = p.param.default
    loc = p.key_loc("default")
    if isinstance(p.raw, dict):
        errors = sorted(
            site.validator.evolve(schema=p.raw).iter_errors(default),
            key=lambda e: list(map(str, e.absolute_path)),
        )
        for e in errors:
            out.append(
                _finding(
                    "default-invalid",
                    site.file,
                    loc,
                    f"{p.name}: the default {short_json(default)} fails the parameter's own "
                    f"schema: {_cut(e.message)}",
                    "correct the default (an omitted parameter is compared as this value), "
                    "or remove it",
                )
            )
    if p.node.rule is not None:
        inner = normalize(default, p.bare)
        problem = p.node.rule.apply(inner)[1]
        # null has one encoding: pydantic's `Optional[Address] = None` needs no rule that reads it.
        if problem is not None and not _raised(p.node.rule, problem) and default is not None:
            out.append(
                _finding(
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


def _check_aliases(site: _ToolSite, p: _ParamSite, out: list[Finding]) -> None:
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
        at = next(s.loc for s in site.params.values() if s.param is child)
        out.append(
            _finding(
                "aliased-keys",
                site.file,
                at,
                f"{where}: {listed} look like one quantity ({stem}) in two encodings; no rule "
                "can alias one key to another",
                "expose one key with one encoding (declare x-eval-norm on it if the tool reads "
                "several); if they mean different things, rename them or ignore aliased-keys",
            )
        )


# -------------------------------------------------------------------------------- case checks


@dataclass(frozen=True, slots=True)
class _CaseSite:
    case: Case
    raw: Mapping[str, Any]
    file: str
    line: int | None
    loc: Loc
    """Where the case is in its file: `()`, or `(i,)` in a list."""


def _case_sites(cases_dir: str | Path) -> list[_CaseSite]:
    cases = load_cases(cases_dir)  # every check that makes the cases unusable (exit 2)
    sites = []
    for file in list_files(cases_dir, (".json", ".jsonl"), what="cases", flag="--cases"):
        for raw, line, loc in _raw_cases(file):
            case = cases.get(raw.get("id")) if isinstance(raw, dict) else None
            if case is not None:
                sites.append(_CaseSite(case, raw, str(file), line, loc))
    return sites


def _raw_cases(file: Path) -> Iterator[tuple[Any, int | None, Loc]]:
    """Each case in a file as written, with its line (JSONL) or index (a JSON list)."""
    if file.name.endswith(".jsonl"):
        for number, text in enumerate(file.read_bytes().splitlines(), start=1):
            if text.strip():
                yield orjson.loads(text), number, ()
        return
    data = read_json_file(file, what="case")
    if isinstance(data, list):
        for i, item in enumerate(data):
            yield item, None, (i,)
    else:
        yield data, None, ()


def _steps(site: _CaseSite) -> Iterator[tuple[str, Any, Loc, Loc]]:
    """(label, step, where its tool name is written, where its args are written)."""
    raw, loc = site.raw, site.loc
    if "accept" not in raw:  # the legacy form
        step = site.case.accept[0][0]
        yield "expected_tool", step, (*loc, "expected_tool"), (*loc, "expected_args")
        return
    for i, seq in enumerate(site.case.accept):
        for j, step in enumerate(seq):
            written = raw["accept"][i][j]
            at = (*loc, "accept", i, j)
            tool_key = "tool" if "tool" in written else "name"
            args_key = "arguments" if "args" not in written and "arguments" in written else "args"
            yield f"accept[{i}][{j}]", step, (*at, tool_key), (*at, args_key)


def _check_case(site: _CaseSite, tools: Mapping[str, _ToolSite], out: list[Finding]) -> None:
    case = site.case
    for label, step, tool_at, args_at in _steps(site):
        tool = tools.get(step.tool)
        if tool is None:
            close = difflib.get_close_matches(step.tool, list(tools), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            out.append(
                _finding(
                    "unknown-tool",
                    site.file,
                    tool_at,
                    f"case {case.id!r}: {label} calls {step.tool!r}, which no tool schema defines",
                    f"{hint}correct the tool name, or add the tool's schema to --tools",
                    site.line,
                )
            )
            continue
        errors = sorted(
            tool.validator.iter_errors(step.args), key=lambda e: list(map(str, e.absolute_path))
        )
        for e in errors:
            out.append(
                _finding(
                    "case-args-invalid",
                    site.file,
                    (*args_at, *e.absolute_path),
                    f"case {case.id!r}: {label} {step.tool}: {_cut(e.message)}",
                    "the case is wrong, not the agent: correct the expected args so the tool "
                    "would accept them (or the schema, if the tool really accepts this)",
                    site.line,
                )
            )
        for p, value, path in _values(step.args, tool):
            rule = p.node.rule
            assert rule is not None
            inner = normalize(value, p.bare)
            problem = rule.apply(inner)[1]
            if problem is not None and not _raised(rule, problem) and value is not None:
                out.append(
                    _finding(
                        "case-value-unreadable",
                        site.file,
                        (*args_at, *path),
                        f"case {case.id!r}: {label} {p.name}: {problem}; only an exactly equal "
                        "value can match it",
                        f"write the expected value in an encoding rule {rule.name!r} reads",
                        site.line,
                    )
                )
            p.evidence.check(rule, inner, value, f"case {case.id!r} ({site.file})")


def _values(args: Any, tool: _ToolSite) -> Iterator[tuple[_ParamSite, Any, Loc]]:
    """Every value in `args` that sits at a parameter with a rule, with its path in `args`."""

    def walk(value: Any, param: Param, path: Loc) -> Iterator[tuple[_ParamSite, Any, Loc]]:
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


# ---------------------------------------------------------------------------------- the laws


def _raised(rule: Rule, problem: str) -> bool:
    """The rule failed with something other than ValueError: a bug in the rule."""
    return getattr(problem, "raised", False)


@dataclass(eq=False, slots=True)
class _Evidence:
    """What the values present say about one parameter's rule."""

    values: int = 0
    """Values from cases and traces (the declared default is checked, not counted)."""
    seen: set[Any] = field(default_factory=set)
    broken: dict[str, list[Any]] = field(default_factory=dict)
    """Law -> [how many values break it, the first (value, origin, detail)]."""

    SEEN_LIMIT = 100_000  # distinct trace values remembered per parameter, to skip repeats

    def check(
        self, rule: Rule, inner: Any, value: Any, origin: str, *, counted: bool = True
    ) -> None:
        if counted:
            self.values += 1
        broken = _law(rule, inner)
        if broken is not None:
            law, detail = broken
            entry = self.broken.setdefault(law, [0, (value, origin, detail)])
            entry[0] += 1

    def check_once(self, rule: Rule, bare: Node, value: Any, origin: str) -> None:
        """`check` for a trace value, skipping values already checked."""
        key = canon_key(value)
        if key in self.seen:
            self.values += 1
            return
        if len(self.seen) < self.SEEN_LIMIT:
            self.seen.add(key)
        self.check(rule, normalize(value, bare), value, origin)


def _law(rule: Rule, x: Any) -> tuple[str, str] | None:
    """("norm-raised" or "norm-not-idempotent", what happened), or None when the laws hold on x.

    A value the rule cannot read (ValueError) breaks no law: the rule does not apply to it.
    """
    once, problem = rule.apply(x)
    if problem is not None:
        return ("norm-raised", problem) if _raised(rule, problem) else None
    twice, problem = rule.apply(once)
    if problem is not None and _raised(rule, problem):
        return "norm-raised", f"on its own output {short_json(once)}: {problem}"
    if problem is not None:
        return "norm-not-idempotent", f"it cannot read its own output: {problem}"
    if not json_eq(twice, once):
        return "norm-not-idempotent", (
            f"n(x) = {short_json(once)} but n(n(x)) = {short_json(twice)}"
        )
    return None


def _law_findings(site: _ToolSite, traced: bool, out: list[Finding]) -> None:
    for p in site.params.values():
        rule = p.node.rule
        if rule is None:
            continue
        loc = p.key_loc(NORM)
        ev = p.evidence
        for law, (count, (value, origin, detail)) in sorted(ev.broken.items()):
            what = "raised on" if law == "norm-raised" else "is not idempotent on"
            fix = (
                "fix the normalizer: a value it cannot read must raise ValueError (NormError), "
                "never another exception"
                if law == "norm-raised"
                else "fix the normalizer so that n(n(x)) == n(x): its output must be a value it "
                "maps to itself"
            )
            out.append(
                _finding(
                    law,
                    site.file,
                    loc,
                    f"{p.name}: rule {rule.name!r} {what} {count} value(s), e.g. "
                    f"{short_json(value)} from {origin}: {_cut(detail)}",
                    fix,
                )
            )
        if ev.values == 0:
            where = "the cases or traces" if traced else "the cases"
            out.append(
                _finding(
                    "norm-unexercised",
                    site.file,
                    loc,
                    f"{p.name}: no value in {where} reaches rule {rule.name!r}, so its laws were "
                    "checked on nothing",
                    f"add a case whose expected args set {p.param.path or 'the arguments'}"
                    + ("" if traced else ", or pass --traces"),
                )
            )


# ------------------------------------------------------------------------------------ traces


def _read_traces(
    paths: Iterable[str | Path],
    tools: Mapping[str, _ToolSite],
    coverage: Coverage,
    out: list[Finding],
) -> Coverage:
    runs = calls = with_norms = unreadable = 0
    called = dict.fromkeys(tools, 0)
    for item in read_runs(paths):
        if isinstance(item, TraceError):
            unreadable += 1
            continue
        runs += 1
        for call in item.calls:
            calls += 1
            tool = tools.get(call.tool)
            if tool is None:
                continue
            called[call.tool] += 1
            if tool.tool.norm_params:
                with_norms += 1
            if call.malformed is not None:
                continue
            for p, value, _path in _values(call.args, tool):
                assert p.node.rule is not None
                p.evidence.check_once(p.node.rule, p.bare, value, item.source)
    for name, site in tools.items():
        if called[name] == 0:
            out.append(
                _finding(
                    "tool-never-called",
                    site.file,
                    site.loc,
                    f"{site.tool.name} is never called in the {runs} run(s) of the traces given",
                    "if the tool is retired, remove its schema; if not, the traces do not "
                    "exercise it (add cases that need it)",
                )
            )
    return replace(
        coverage, runs=runs, calls=calls, calls_with_norms=with_norms, unreadable_lines=unreadable
    )


def _cut(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
