"""Read tool definitions in every common format and collect each parameter's rule and default.

A file holds one tool, a JSON list of tools, or an MCP `tools/list` result (`{"tools": [...]}`).
The format is detected per tool. Parameter schemas are checked against the JSON Schema meta-schema
and their local `$ref`s resolved, so that `x-eval-norm` and `default` are found at any depth.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.validators import validator_for

from ._files import list_files, read_json_file
from .jsonvalue import json_kind
from .model import MISSING, InputError, NormSpec, Param, Tool
from .pointer import parse_pointer, resolve

REPEATABLE = "x-eval-repeatable"
NORM = "x-eval-norm"
EMPTY_SCHEMA: Mapping[str, Any] = {"type": "object", "properties": {}}

FORMATS = {
    "openai_chat": "OpenAI Chat Completions {type: function, function: {name, parameters}}",
    "openai_responses": "OpenAI Responses {type: function, name, parameters}",
    "anthropic": "Anthropic {name, input_schema}",
    "mcp": "MCP {name, inputSchema}",
    "bare": "bare {name, parameters}",
}


def load_tools(path: str | Path) -> dict[str, Tool]:
    """Every tool defined under `path` (a directory of `*.json` files, or one file), by name.

    Raises InputError for a file that is not JSON, a tool in no known format, an invalid parameter
    schema, an unresolvable `$ref`, a malformed `x-eval-norm`, or a name defined twice.
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
    """The tools in one file: a tool, a list of tools, or `{"tools": [...]}`."""
    data = read_json_file(file, what="tool")
    if isinstance(data, dict) and isinstance(data.get("tools"), list) and "name" not in data:
        entries, listed = data["tools"], True
    elif isinstance(data, list):
        entries, listed = data, True
    else:
        entries, listed = [data], False
    return [
        parse_tool(e, f"{file}" + (f" tool #{i}" if listed else "")) for i, e in enumerate(entries)
    ]


def parse_tool(entry: Any, where: str) -> Tool:
    """One tool in any supported format; `where` locates it in error messages."""
    if not isinstance(entry, dict):
        raise InputError(f"{where}: a tool must be a JSON object, not {json_kind(entry)}")
    fmt, spec, schema = _detect(entry, where)
    name = spec.get("name")
    if not isinstance(name, str) or not name:
        raise InputError(f"{where}: the tool has no name (a non-empty string 'name')")
    source, where = where, f"{where} ({name})"
    repeatable = _repeatable(entry, spec, fmt, where)
    if not isinstance(schema, dict):
        raise InputError(
            f"{where}: the parameters must be a JSON Schema object, not {json_kind(schema)}"
        )
    check_schema(schema, where)
    params = _build_param(schema, schema, "", where, ())
    description = spec.get("description") if isinstance(spec.get("description"), str) else ""
    return Tool(
        name=name,
        params=params,
        repeatable=repeatable,
        description=description,
        format=fmt,
        source=source,
    )


def check_schema(schema: Mapping[str, Any], where: str) -> None:
    """Check a parameter schema against its meta-schema (draft 2020-12 unless `$schema` says)."""
    cls = validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        at = "/".join(str(p) for p in e.absolute_path) or "(root)"
        raise InputError(
            f"{where}: the parameters are not a valid JSON Schema: {e.message} (at {at})"
        ) from None


def _detect(entry: dict[str, Any], where: str) -> tuple[str, dict[str, Any], Any]:
    """(format, the object holding name and description, the parameter schema)."""
    if entry.get("type") == "function" and isinstance(entry.get("function"), dict):
        fn = entry["function"]
        return "openai_chat", fn, fn.get("parameters", EMPTY_SCHEMA)
    if entry.get("type") == "function" and "name" in entry:
        return "openai_responses", entry, entry.get("parameters", EMPTY_SCHEMA)
    if "input_schema" in entry:
        return "anthropic", entry, entry["input_schema"]
    if "inputSchema" in entry:
        return "mcp", entry, entry["inputSchema"]
    if "name" in entry and "parameters" in entry:
        return "bare", entry, entry["parameters"]
    known = "; ".join(FORMATS.values())
    raise InputError(f"{where}: not a tool in any known format (expected one of: {known})")


def _repeatable(entry: dict[str, Any], spec: dict[str, Any], fmt: str, where: str) -> bool:
    places = [entry]
    if fmt == "openai_chat":
        places.append(spec)  # on the outer object or inside `function`
    if fmt == "mcp" and isinstance(entry.get("annotations"), dict):
        places.append(entry["annotations"])
    value = False
    for place in places:
        if REPEATABLE in place:
            if not isinstance(place[REPEATABLE], bool):
                raise InputError(f"{where}: {REPEATABLE} must be true or false")
            value = value or place[REPEATABLE]
    return value


# ----------------------------------------------------------------------------- parameter trees


def _build_param(
    node: Any, root: Mapping[str, Any], path: str, where: str, refs: tuple[str, ...]
) -> Param:
    """The Param for a schema node, children included; `refs` are the `$ref`s being expanded."""
    if not isinstance(node, dict):  # a boolean schema: accepts anything (true) or nothing
        return Param(path=path, schema={})
    resolved, _ = _deref(node, root, where, refs)
    types = _types(resolved, root, where) if resolved is not None else ()
    node, refs = _flatten(node, root, where, refs)
    if node is None:  # a recursive $ref already being expanded: an opaque value here
        return Param(path=path, schema={})
    properties = {}
    if isinstance(node.get("properties"), dict):
        for name, sub in node["properties"].items():
            child_path = f"{path}.{name}" if path else name
            properties[name] = _build_param(sub, root, child_path, where, refs)
    items = None
    if isinstance(node.get("items"), dict):
        items = _build_param(node["items"], root, f"{path}[]", where, refs)
    return Param(
        path=path,
        schema=node,
        norm=_norm_spec(node, path, where),
        default=node.get("default", MISSING),
        properties=properties,
        items=items,
        types=types,
    )


def _flatten(
    node: dict[str, Any], root: Mapping[str, Any], where: str, refs: tuple[str, ...]
) -> tuple[dict[str, Any] | None, tuple[str, ...]]:
    """Resolve `$ref`, merge `allOf` members and a lone non-null `anyOf`/`oneOf` branch.

    Pydantic writes `Optional[Model]` as `{"anyOf": [{"$ref": ...}, {"type": "null"}]}` and
    older versions wrap refs in `allOf`; the annotations evalrun reads live inside the branch.
    The outer node's own keys win over the merged ones. None when the node is a `$ref` cycle.
    """
    node, refs = _deref(node, root, where, refs)
    if node is None:
        return None, refs
    merged = dict(node)
    branches: list[dict[str, Any]] = []
    for member in node.get("allOf", []) if isinstance(node.get("allOf"), list) else []:
        if isinstance(member, dict):
            branches.append(member)
    for key in ("anyOf", "oneOf"):
        options = node.get(key)
        if isinstance(options, list):
            non_null = [b for b in options if isinstance(b, dict) and b.get("type") != "null"]
            if len(non_null) == 1:
                branches.append(non_null[0])
    for branch in branches:
        flat, _ = _flatten(branch, root, where, refs)
        if flat is None:
            continue
        for key, value in flat.items():
            if key == "properties" and isinstance(value, dict):
                merged["properties"] = {**value, **merged.get("properties", {})}
            else:
                merged.setdefault(key, value)
    return merged, refs


def _deref(
    node: dict[str, Any], root: Mapping[str, Any], where: str, refs: tuple[str, ...]
) -> tuple[dict[str, Any] | None, tuple[str, ...]]:
    while "$ref" in node:
        ref = node["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise InputError(
                f"{where}: only local $ref ('#/$defs/...') are supported, not {ref!r}; inline it"
            )
        if ref in refs:
            return None, refs
        try:
            target = resolve(root, parse_pointer(ref[1:]))
        except ValueError as e:
            raise InputError(f"{where}: $ref {ref!r} is not a valid JSON Pointer: {e}") from None
        if not isinstance(target, dict):
            raise InputError(f"{where}: $ref {ref!r} does not resolve to a schema in this tool")
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        node, refs = {**target, **siblings}, (*refs, ref)
    return node, refs


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


def _types(node: Mapping[str, Any], root: Mapping[str, Any], where: str) -> tuple[str, ...]:
    """The JSON types a schema node accepts, from `type` or from its `anyOf`/`oneOf` branches."""
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
                    resolved, _ = _deref(branch, root, where, ())
                    found.extend(_types(resolved or {}, root, where))
    return tuple(dict.fromkeys(found))
