"""Read tool definitions in every common format and collect each parameter's rule and default.

A file holds one tool, a JSON list of tools, or an MCP `tools/list` result (`{"tools": [...]}`).
The format is detected per tool. Parameter schemas are data: they are checked against the JSON
Schema meta-schema, every `$ref` in them must point inside the schema itself (nothing is ever
fetched or opened because of a schema), and their local `$ref`s are resolved so that `x-eval-norm`
and `default` are found at any depth. Each tool and parameter records where it is written in its
file, so that `evalrun lint` can point at the line to edit without reading the file again.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import unquote

import jsonschema
from jsonschema.validators import validator_for

from ..jsonvalue import MAX_DEPTH, json_kind, too_deep
from ..model import MISSING, InputError, NormSpec, Param, Tool
from ..pointer import Loc, json_path, parse_pointer, pointer, resolve
from .files import edit_distance, list_files, read_json_file

REPEATABLE = "x-eval-repeatable"
READONLY = "x-eval-readonly"
READ_ONLY_HINT = "readOnlyHint"
"""MCP's own annotation of a tool that does not modify its environment."""
NORM = "x-eval-norm"
ANNOTATIONS: Final = {
    NORM: "on a parameter schema",
    REPEATABLE: "on the tool",
    READONLY: "on the tool",
}
TOOL_ANNOTATIONS: Final = (REPEATABLE, READONLY)
"""The annotations evalrun reads, and where each goes."""
EMPTY_SCHEMA: Mapping[str, Any] = {"type": "object", "properties": {}}
MAX_PARAMS: Final = 10_000
"""The most parameters one tool's schema may expand to through its `$ref`s.

Real tools have tens; a schema whose `$defs` each refer to the next one twice would expand to
2**n parameters, and the reader would never finish."""


@dataclass(frozen=True)
class ToolFormat:
    """A tool-file format, under the name its trace format has (`openai-chat`, `anthropic`):
    how a tool in it is recognised, and where its name, schema and annotations are."""

    name: str
    looks_like: str
    """For the "not a tool in any known format" message and the docs."""
    read: Callable[[dict[str, Any], str], ToolShape | None]
    """The entry's (object holding name and description, parameter schema, the schema's keys),
    or None when the entry is not in this format."""
    inner: str | None = None
    """The key of an inner object where tool annotations may stand too (`function`)."""


ToolShape = tuple[dict[str, Any], Any, Loc]
TOOL_FORMATS: list[ToolFormat] = []
"""The tool-file formats, in detection order: each registered where it is defined
(`tool_format`), the first that reads an entry is its format."""


def tool_format(
    name: str, looks_like: str, *, inner: str | None = None
) -> Callable[[Callable[[dict[str, Any], str], ToolShape | None]], ToolFormat]:
    """Register the function below as a tool-file format's reader (in the order defined)."""

    def register(read: Callable[[dict[str, Any], str], ToolShape | None]) -> ToolFormat:
        fmt = ToolFormat(name, looks_like, read, inner)
        TOOL_FORMATS.append(fmt)
        return fmt

    return register


DECLARATIONS = ("functionDeclarations", "function_declarations")
GEMINI_SCHEMA_KEYS = ("parametersJsonSchema", "parameters_json_schema")
"""Where a Gemini `Tool` lists its functions: each is a tool of its own."""


def load_tools(path: str | Path) -> dict[str, Tool]:
    """Every tool defined under `path` (a directory of `*.json` files, or one file), by name.

    Raises InputError for a file that is not JSON, a tool in no known format, an invalid parameter
    schema, a `$ref` that is not local or does not resolve, a `$ref` cycle, a schema nested too
    deep, a malformed or misspelt `x-eval-*` annotation, or a name defined twice.
    """
    tools: dict[str, Tool] = {}
    for file in list_files(path, (".json",), what="tools", flag="--tools"):
        for tool in read_tool_file(file):
            if tool.name in tools:
                raise InputError(
                    f"tool {tool.name!r} is defined twice: in {tools[tool.name].source} and in "
                    f"{tool.source}; tool names must be unique, remove one"
                )
            tools[tool.name] = tool
    return tools


def read_tool_file(file: Path) -> list[Tool]:
    """The tools in one file: a tool, a list of tools, `{"tools": [...]}`, or Bedrock's
    `{"toolConfig": {"tools": [...]}}`."""
    data = read_json_file(file, what="tool")
    prefix: Loc | None
    config = data.get("toolConfig") if isinstance(data, dict) else None
    if isinstance(config, dict) and isinstance(config.get("tools"), list) and "name" not in data:
        entries, prefix = config["tools"], ("toolConfig", "tools")
    elif isinstance(data, dict) and isinstance(data.get("tools"), list) and "name" not in data:
        entries, prefix = data["tools"], ("tools",)
    elif isinstance(data, list):
        entries, prefix = data, ()
    else:
        entries, prefix = [data], None
    found: list[tuple[Any, str, Loc]] = []
    for i, e in enumerate(entries):
        where = f"{file}" + (f" tool #{i}" if prefix is not None else "")
        loc: Loc = () if prefix is None else (*prefix, i)
        key = next((k for k in DECLARATIONS if isinstance(e, dict) and k in e), None)
        if key is not None and isinstance(e[key], list) and "name" not in e:
            # a Gemini Tool: its function declarations, each a tool
            found.extend(
                (_declaration(d), f"{where} {key}[{j}]", (*loc, key, j))
                for j, d in enumerate(e[key])
            )
        elif isinstance(e, dict) and set(e) == {"cachePoint"}:
            continue  # a Bedrock cache checkpoint among the tools, not a tool
        else:
            found.append((e, where, loc))
    return [parse_tool(e, where, file=str(file), loc=loc) for e, where, loc in found]


OPENAPI_TYPES = frozenset({"OBJECT", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "NULL"})
"""Gemini's `Schema` types (an OpenAPI subset, written in capitals); JSON Schema's are lowercase."""


TYPE_HINTS = {
    **{t: t.lower() for t in OPENAPI_TYPES},
    "dict": "object",
    "float": "number",
    "int": "integer",
    "str": "string",
    "bool": "boolean",
    "list": "array",
    "tuple": "array",
}
"""Type names other schema dialects use (Gemini's OpenAPI capitals; Python's, as BFCL writes
them), with JSON Schema's name for each: said in the error, never silently rewritten."""


def _type_hint(name: str) -> str:
    """What to write instead of another dialect's type name, for the error message."""
    if name not in TYPE_HINTS:
        return ""
    gemini = " (Gemini's capital types are read inside functionDeclarations)"
    return f"; JSON Schema writes it {TYPE_HINTS[name]!r}" + (
        gemini if name in OPENAPI_TYPES else ""
    )


def _declaration(entry: Any) -> Any:
    """A Gemini function declaration as the tool reader reads it: its `parameters` (Gemini's
    OpenAPI-style `Schema`) with the capital type names in JSON Schema's lowercase, and a null
    `parameters` (the Python SDK's `model_dump()` of a function without any) as none."""
    if not isinstance(entry, dict):
        return entry
    if any(entry.get(k) is not None for k in GEMINI_SCHEMA_KEYS):
        return entry  # its schema is JSON Schema already
    params = entry.get("parameters")
    if params is None:
        return {**entry, "parameters": {"type": "object", "properties": {}}}
    return {**entry, "parameters": _lowercase_types(params)}


def _lowercase_types(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: v.lower()
            if k == "type" and isinstance(v, str) and v in OPENAPI_TYPES
            else _lowercase_types(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_lowercase_types(v) for v in node]
    return node


def parse_tool(entry: Any, where: str, *, file: str = "", loc: Loc = ()) -> Tool:
    """One tool in any supported format; `where` locates it in error messages.

    `file` and `loc` say where the entry is written (`loc` within the file: `("tools", 2)`); the
    tool and its parameters record their locations from them.
    """
    if not isinstance(entry, dict):
        raise InputError(f"{where}: a tool must be a JSON object, not {json_kind(entry)}")
    fmt, spec, schema, keys = _detect(entry, where)
    name = spec.get("name")
    if not isinstance(name, str) or not name:
        raise InputError(f"{where}: the tool has no name (a non-empty string 'name')")
    source, where = where, f"{where} ({name})"
    places = [(entry, loc)]
    if fmt.inner is not None:
        places.append((spec, (*loc, fmt.inner)))  # on the outer object or inside `function`
    if fmt.name == "mcp" and isinstance(entry.get("annotations"), dict):
        places.append((entry["annotations"], (*loc, "annotations")))
    for place, at in places:
        _check_annotations(place, TOOL_ANNOTATIONS, at, where)
    repeatable = _flag([place for place, _ in places], REPEATABLE, where)
    readonly = _flag([place for place, _ in places], READONLY, where)
    if fmt.name == "mcp" and isinstance(entry.get("annotations"), dict):
        # MCP says a hint is untrusted for safety; for grading, a tool that says it only reads is
        # taken at its word, as `x-eval-readonly` is. `false` leaves the tool a writer.
        readonly = readonly or entry["annotations"].get(READ_ONLY_HINT) is True
    if not isinstance(schema, dict):
        raise InputError(
            f"{where}: the parameters must be a JSON Schema object, not {json_kind(schema)}"
        )
    check_schema(schema, where)
    schema_loc = (*loc, *keys)
    document = _Document(schema, schema_loc, where)
    params = _Reader(document).param(schema, schema_loc, "", (), 0)
    written = spec.get("description")
    description = written if isinstance(written, str) else ""
    return Tool(
        name=name,
        params=params,
        repeatable=repeatable,
        readonly=readonly,
        description=description,
        format=fmt.name,
        source=source,
        file=file,
        loc=loc,
        schema_loc=schema_loc,
        schema=schema,
    )


def check_schema(schema: dict[str, Any], where: str) -> None:
    """Check a parameter schema against its meta-schema (draft 2020-12 unless `$schema` says)."""
    if too_deep(schema):
        raise InputError(
            f"{where}: the parameters are nested more than {MAX_DEPTH} levels deep; evalrun "
            f"reads schemas up to {MAX_DEPTH} levels: flatten them"
        )
    cls = validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        at = "/".join(str(p) for p in e.absolute_path) or "(root)"
        bad, hint = e.instance, ""
        if e.absolute_path and e.absolute_path[-1] == "type" and isinstance(bad, str):
            hint = _type_hint(bad)
        raise InputError(
            f"{where}: the parameters are not a valid JSON Schema: {e.message} (at {at}){hint}"
        ) from None
    except RecursionError:
        # `"pattern": "((((...))))"` with a few hundred groups: Python's regex parser recurses.
        raise InputError(
            f"{where}: the parameters cannot be checked: a pattern in them nests too deep"
        ) from None


def _detect(entry: dict[str, Any], where: str) -> tuple[ToolFormat, dict[str, Any], Any, Loc]:
    """(format, the object holding name and description, the parameter schema, its keys)."""
    for fmt in TOOL_FORMATS:
        found = fmt.read(entry, where)
        if found is not None:
            return (fmt, *found)
    known = "; ".join(f.looks_like for f in TOOL_FORMATS)
    raise InputError(f"{where}: not a tool in any known format (expected one of: {known})")


@tool_format(
    "openai-chat",
    "OpenAI Chat Completions {type: function, function: {name, parameters}}",
    inner="function",
)
def _openai_chat(entry: dict[str, Any], where: str) -> ToolShape | None:
    if entry.get("type") == "function" and isinstance(entry.get("function"), dict):
        fn = entry["function"]
        return fn, fn.get("parameters", EMPTY_SCHEMA), ("function", "parameters")
    return None


@tool_format("openai-responses", "OpenAI Responses {type: function, name, parameters}")
def _openai_responses(entry: dict[str, Any], where: str) -> ToolShape | None:
    if entry.get("type") == "function" and "name" in entry:
        return entry, entry.get("parameters", EMPTY_SCHEMA), ("parameters",)
    return None


@tool_format("anthropic", "Anthropic {name, input_schema}")
def _anthropic(entry: dict[str, Any], where: str) -> ToolShape | None:
    if "input_schema" in entry:
        return entry, entry["input_schema"], ("input_schema",)
    return None


@tool_format("mcp", "MCP {name, inputSchema}")
def _mcp(entry: dict[str, Any], where: str) -> ToolShape | None:
    if "inputSchema" in entry:
        return entry, entry["inputSchema"], ("inputSchema",)
    return None


@tool_format(
    "bedrock", "Bedrock Converse {toolSpec: {name, inputSchema: {json}}}", inner="toolSpec"
)
def _bedrock(entry: dict[str, Any], where: str) -> ToolShape | None:
    spec = entry.get("toolSpec")
    if not isinstance(spec, dict):
        return None
    holder = spec.get("inputSchema")
    if not isinstance(holder, dict) or "json" not in holder:
        raise InputError(f"{where}: a Bedrock toolSpec keeps its schema in inputSchema.json")
    return spec, holder["json"], ("toolSpec", "inputSchema", "json")


@tool_format("gemini", "Gemini {name, parametersJsonSchema} (in functionDeclarations)")
def _gemini(entry: dict[str, Any], where: str) -> ToolShape | None:
    for key in GEMINI_SCHEMA_KEYS:
        if "name" in entry and entry.get(key) is not None:
            return entry, entry[key], (key,)
    return None


@tool_format("bare", "bare {name, parameters}")
def _bare(entry: dict[str, Any], where: str) -> ToolShape | None:
    if "name" in entry and "parameters" in entry:
        return entry, entry["parameters"], ("parameters",)
    return None


def _flag(places: list[dict[str, Any]], name: str, where: str) -> bool:
    """A tool's boolean annotation (`x-eval-repeatable`), true when any of its places says so."""
    value = False
    for place in places:
        if name in place:
            if not isinstance(place[name], bool):
                raise InputError(f"{where}: {name} must be true or false")
            value = value or place[name]
    return value


# A key that means to be an annotation: `x-eval-norms`, `x_eval_norm`, `X-Eval-Repeat`, `xeval-…`.
_ANNOTATION_LIKE = re.compile(r"x[-_]?evals?(?:[-_]|$)", re.IGNORECASE)


def _check_annotations(
    node: Mapping[str, Any], valid: str | tuple[str, ...], at: Loc, where: str
) -> None:
    """InputError for an `x-eval-*` key (or a near miss of one) that evalrun does not read here.

    A misspelt annotation would be ignored silently, and with it the rule or the repeat it meant:
    `x-eval-norms: "month"` leaves every month compared exactly.
    """
    allowed = (valid,) if isinstance(valid, str) else valid
    for key in node:
        if not isinstance(key, str) or key in allowed:
            continue
        looks = _ANNOTATION_LIKE.match(key) or any(
            _close(key.lower(), name) for name in ANNOTATIONS
        )
        if not looks:
            continue
        places: dict[str, list[str]] = {}
        for name, place in ANNOTATIONS.items():
            places.setdefault(place, []).append(name)
        known = " and ".join(f"{' and '.join(names)} {place}" for place, names in places.items())
        if key in ANNOTATIONS:
            problem = f"{key} goes {ANNOTATIONS[key]}, not here"
        else:
            rest = _ANNOTATION_LIKE.sub("", key.lower(), count=1)
            # `x-eval-default` means JSON Schema's own `default`, which evalrun reads.
            meant = {name.removeprefix("x-eval-"): name for name in ANNOTATIONS} | {
                "default": "default"
            }
            close = difflib.get_close_matches(rest, list(meant), n=1, cutoff=0.5)
            hint = f"; did you mean {meant[close[0]]!r}?" if close else ""
            problem = f"unknown annotation {key!r}{hint}"
        raise InputError(f"{where}: {problem} (at {json_path((*at, key))}; evalrun reads {known})")


def _close(key: str, name: str) -> bool:
    # most keys are far shorter or longer than an annotation's name: no distance to compute
    return abs(len(key) - len(name)) <= 2 and edit_distance(key, name) <= 2


# ------------------------------------------------------------------------- the schema as data

# The keywords whose value is a schema, a list of schemas, or an object of schemas, in the drafts
# jsonschema knows (4 to 2020-12). True: it applies to the value itself (a `$ref` cycle through
# it never ends); False: to a part of the value (a property, an item), so a cycle through it
# describes recursive data (a tree); None: it holds schemas without applying them (`$defs`).
_ONE: Final[dict[str, bool]] = {
    "not": True,
    "if": True,
    "then": True,
    "else": True,
    "items": False,
    "additionalItems": False,
    "unevaluatedItems": False,
    "contains": False,
    "additionalProperties": False,
    "unevaluatedProperties": False,
    "propertyNames": False,
    "contentSchema": False,
}
_LIST: Final[dict[str, bool]] = {
    "allOf": True,
    "anyOf": True,
    "oneOf": True,
    "items": False,
    "prefixItems": False,
}
_MAP: Final[dict[str, bool | None]] = {
    "dependentSchemas": True,
    "dependencies": True,
    "properties": False,
    "patternProperties": False,
    "$defs": None,
    "definitions": None,
}
REF_KEYS: Final = ("$ref", "$dynamicRef", "$recursiveRef")


def _subschemas(
    node: Mapping[str, Any], at: Loc
) -> Iterator[tuple[dict[str, Any], Loc, bool | None]]:
    """The schema objects directly inside `node`, where they are, and whether they apply in place."""
    for key, value in node.items():
        if key in _ONE and isinstance(value, dict):
            yield value, (*at, key), _ONE[key]
        elif key in _LIST and isinstance(value, list):
            for i, sub in enumerate(value):
                if isinstance(sub, dict):
                    yield sub, (*at, key, i), _LIST[key]
        elif key in _MAP and isinstance(value, dict):
            for name, sub in value.items():
                if isinstance(sub, dict):
                    yield sub, (*at, key, name), _MAP[key]


class _Document:
    """One tool's parameter schema: every schema object in it, its anchors, its local `$ref`s.

    Built once per tool, it checks the schema as data before anything reads it: every `$ref`
    (`$dynamicRef`, `$recursiveRef`) anywhere a validator could follow one is local and resolves,
    no `$ref` cycle applies to the same value forever, and no schema object carries an `x-eval-*`
    annotation evalrun does not read.
    """

    def __init__(self, root: dict[str, Any], base: Loc, where: str) -> None:
        self.root = root
        self.base = base
        """Where the schema is in its file: locations below are absolute (`base` + the keys)."""
        self.where = where
        self.anchors: dict[str, tuple[dict[str, Any], Loc]] = {}
        self._index: dict[int, int] = {}
        self._nodes: list[tuple[dict[str, Any], Loc]] = []
        self._visit(root, base)
        for node, at in self._nodes:
            for key in ("$anchor", "$dynamicAnchor", "$id"):
                name = node.get(key)
                if isinstance(name, str) and (key != "$id" or name.startswith("#")):
                    self.anchors.setdefault(name.removeprefix("#"), (node, at))
        # Follow every reference; what a reference reaches is walked like the rest.
        in_place: dict[int, list[int]] = {}
        i = 0
        while i < len(self._nodes):
            node, at = self._nodes[i]
            edges = in_place.setdefault(id(node), [])
            for sub, _, applies in _subschemas(node, at):
                if applies:
                    edges.append(id(sub))
            for key in REF_KEYS:
                if key in node:
                    target, target_at = self.resolve(node[key], key, (*at, key))
                    self._visit(target, target_at)
                    edges.append(id(target))
            _check_annotations(node, NORM, at, where)
            i += 1
        self._check_cycles(in_place)

    def _visit(self, node: dict[str, Any], at: Loc) -> None:
        """Add `node` and every schema object below it (iteratively: a schema may nest deep)."""
        stack = [(node, at)]
        while stack:
            node, at = stack.pop()
            if id(node) in self._index:
                continue
            self._index[id(node)] = len(self._nodes)
            self._nodes.append((node, at))
            stack.extend((sub, sub_at) for sub, sub_at, _ in reversed(list(_subschemas(node, at))))

    def resolve(self, ref: Any, key: str, at: Loc) -> tuple[dict[str, Any], Loc]:
        """The schema object a local reference points at, and where it is written."""
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise InputError(
                f"{self.where}: only local $ref ('#/$defs/...') are supported, not {ref!r} "
                f"({key} at {json_path(at)}); inline it: a schema is data, and evalrun never "
                "opens a file or the network for one"
            )
        fragment = unquote(ref[1:])
        target: Any
        if fragment == "" or fragment.startswith("/"):
            try:
                tokens = parse_pointer(fragment)
            except ValueError as e:
                raise InputError(
                    f"{self.where}: {key} {ref!r} is not a valid JSON Pointer: {e}"
                ) from None
            target, steps = self.root, list(self.base)
            for token in tokens:
                # A list index is a number in a location: `allOf[0]`, not `allOf['0']`.
                steps.append(int(token) if isinstance(target, list) and token.isdigit() else token)
                target = resolve(target, (token,))
            loc: Loc = tuple(steps)
        else:
            target, loc = self.anchors.get(fragment, (MISSING, ()))
        if not isinstance(target, dict):
            raise InputError(
                f"{self.where}: {key} {ref!r} does not resolve to a schema in this tool "
                f"(at {json_path(at)})"
            )
        return target, loc

    def _check_cycles(self, in_place: dict[int, list[int]]) -> None:
        """InputError for a cycle of references that applies to the same value forever.

        `{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}` describes nothing:
        checking a value against `a` checks it against `b`, then `a` again. A cycle through a
        property or an item (`children.items` -> the node) describes recursive data and is fine.
        """
        done: set[int] = set()
        for start, _ in self._nodes:
            if id(start) in done:
                continue
            path = [id(start)]
            on_path = {id(start)}
            stack = [iter(in_place.get(id(start), ()))]
            while stack:
                nxt = next(stack[-1], None)
                if nxt is None:
                    stack.pop()
                    finished = path.pop()
                    on_path.discard(finished)
                    done.add(finished)
                    continue
                if nxt in on_path:
                    cycle = [*path[path.index(nxt) :], nxt]
                    chain = " -> ".join(self._pointer(n) for n in cycle)
                    raise InputError(
                        f"{self.where}: $ref cycle {chain}: it refers back to itself without "
                        "ever describing a value, so checking any value against it would never "
                        "end; break the cycle"
                    )
                if nxt not in done:
                    path.append(nxt)
                    on_path.add(nxt)
                    stack.append(iter(in_place.get(nxt, ())))

    def _pointer(self, node_id: int) -> str:
        return pointer(self._nodes[self._index[node_id]][1][len(self.base) :])


# ----------------------------------------------------------------------------- parameter trees

_Flat = tuple[dict[str, Any], dict[str, Loc], dict[str, Loc], tuple[str, ...], int]
"""A flattened schema node: its keys, where each key is written, where each property is written
(the object whose `properties` holds it), the `$ref`s expanded to reach it, and its depth."""


class _Reader:
    """Builds a tool's parameter tree, recording where each parameter, rule and default is written.

    `depth` counts what a validator (and the comparison) recurses through to reach a parameter:
    each level of parameters, each `$ref` followed, each `allOf`/`anyOf` branch merged.
    """

    def __init__(self, document: _Document) -> None:
        self.doc = document
        self.where = document.where
        self.count = 0

    def param(self, node: Any, loc: Loc, path: str, refs: tuple[str, ...], depth: int) -> Param:
        """The Param for a schema node, children included; `refs` are the `$ref`s being expanded."""
        self._deeper(depth, path)
        self.count += 1
        if self.count > MAX_PARAMS:
            raise InputError(
                f"{self.where}: the parameters expand to more than {MAX_PARAMS:,} through their "
                "$refs (a definition that refers to the next one several times doubles at each "
                "level); simplify the schema"
            )
        if not isinstance(node, dict):  # a boolean schema: accepts anything (true) or nothing
            return Param(path=path, schema={}, loc=loc, raw=bool(node))
        resolved = self._deref(node, loc, refs, depth)
        types = self._types(resolved[0], depth, path) if resolved is not None else ()
        flat = self._flatten(node, loc, refs, depth, path)
        if flat is None:  # a recursive $ref already being expanded: an opaque value here
            return Param(path=path, schema={}, loc=loc, raw=node)
        merged, origin, held, refs, depth = flat
        properties = {}
        if isinstance(merged.get("properties"), dict):
            for name, sub in merged["properties"].items():
                child_path = f"{path}.{name}" if path else name
                child_loc = (*held[name], "properties", name)
                properties[name] = self.param(sub, child_loc, child_path, refs, depth + 1)
        items = None
        if isinstance(merged.get("items"), dict):
            items_loc = (*origin["items"], "items")
            items = self.param(merged["items"], items_loc, f"{path}[]", refs, depth + 1)
        return Param(
            path=path,
            schema=merged,
            norm=_norm_spec(merged, path, self.where),
            default=merged.get("default", MISSING),
            properties=properties,
            items=items,
            types=types,
            loc=loc,
            raw=node,
            norm_loc=(*origin[NORM], NORM) if NORM in merged else None,
            default_loc=(*origin["default"], "default") if "default" in merged else None,
        )

    def _flatten(
        self, node: dict[str, Any], loc: Loc, refs: tuple[str, ...], depth: int, path: str
    ) -> _Flat | None:
        """Resolve `$ref`, merge `allOf` members and a lone non-null `anyOf`/`oneOf` branch.

        Pydantic writes `Optional[Model]` as `{"anyOf": [{"$ref": ...}, {"type": "null"}]}` and
        older versions wrap refs in `allOf`; the annotations evalrun reads live inside the branch.
        The outer node's own keys win over the merged ones. None when the node is a `$ref` cycle.
        """
        self._deeper(depth, path)
        resolved = self._deref(node, loc, refs, depth)
        if resolved is None:
            return None
        node, origin, refs, depth = resolved
        merged = dict(node)
        held: dict[str, Loc] = {}
        if isinstance(node.get("properties"), dict):
            held = dict.fromkeys(node["properties"], origin["properties"])
        branches: list[tuple[dict[str, Any], Loc]] = []
        if isinstance(node.get("allOf"), list):
            for i, member in enumerate(node["allOf"]):
                if isinstance(member, dict):
                    branches.append((member, (*origin["allOf"], "allOf", i)))
        for key in ("anyOf", "oneOf"):
            options = node.get(key)
            if isinstance(options, list):
                non_null = [
                    (i, b)
                    for i, b in enumerate(options)
                    if isinstance(b, dict) and b.get("type") != "null"
                ]
                if len(non_null) == 1:
                    i, branch = non_null[0]
                    branches.append((branch, (*origin[key], key, i)))
        for branch, branch_loc in branches:
            flat = self._flatten(branch, branch_loc, refs, depth + 1, path)
            if flat is None:
                continue
            values, where, branch_held = flat[:3]
            for key, value in values.items():
                if key == "properties" and isinstance(value, dict):
                    merged["properties"] = {**value, **merged.get("properties", {})}
                    for name in value:
                        held.setdefault(name, branch_held[name])
                elif key not in merged:
                    merged[key] = value
                    origin[key] = where[key]
        return merged, origin, held, refs, depth

    def _deref(
        self, node: dict[str, Any], loc: Loc, refs: tuple[str, ...], depth: int
    ) -> tuple[dict[str, Any], dict[str, Loc], tuple[str, ...], int] | None:
        """`node` with its `$ref` chain merged in (its own keys win), where each key is written."""
        origin = dict.fromkeys(node, loc)
        while "$ref" in node:
            ref = node["$ref"]
            target, target_loc = self.doc.resolve(ref, "$ref", (*origin["$ref"], "$ref"))
            if ref in refs:
                return None
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            origin = {**dict.fromkeys(target, target_loc), **{k: origin[k] for k in siblings}}
            node, refs, depth = {**target, **siblings}, (*refs, ref), depth + 1
        return node, origin, refs, depth

    def _types(self, node: Mapping[str, Any], depth: int, path: str) -> tuple[str, ...]:
        """The JSON types a schema node accepts, from `type` or from its `anyOf`/`oneOf` branches."""
        self._deeper(depth, path)
        found: list[str] = []
        declared = node.get("type")
        if isinstance(declared, str):
            found.append(declared)
        elif isinstance(declared, list):
            found.extend(t for t in declared if isinstance(t, str))
        if not found:
            for key in ("anyOf", "oneOf"):
                for branch in node.get(key, []) if isinstance(node.get(key), list) else []:
                    if isinstance(branch, dict):
                        resolved = self._deref(branch, (), (), depth + 1)
                        inner, hops = (resolved[0], resolved[3]) if resolved else ({}, depth + 1)
                        found.extend(self._types(inner, hops, path))
        return tuple(dict.fromkeys(found))

    def _deeper(self, depth: int, path: str) -> None:
        if depth > MAX_DEPTH:
            raise InputError(
                f"{self.where}: parameter {path or '(root)'!r} is nested more than {MAX_DEPTH} "
                "levels deep (counting each $ref, allOf and anyOf it goes through); evalrun "
                f"reads schemas up to {MAX_DEPTH} levels: flatten it"
            )


def _norm_spec(node: Mapping[str, Any], path: str, where: str) -> NormSpec | None:
    if NORM not in node:
        return None
    raw = node[NORM]
    if isinstance(raw, str) and raw:
        return NormSpec(raw)
    if isinstance(raw, dict) and isinstance(raw.get("name"), str) and raw["name"]:
        return NormSpec(raw["name"], {k: v for k, v in raw.items() if k != "name"})
    raise InputError(
        f"{where}: {NORM} on parameter {path or '(root)'!r} must be a normalizer name or an object "
        f'with a "name" (e.g. "month" or {{"name": "month", "tz": "Europe/Berlin"}}), not {raw!r}'
    )
