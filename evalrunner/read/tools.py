"""Read tool definitions in every common format and collect each parameter's rule and default.

A file holds one tool, a JSON list of tools, or an MCP `tools/list` result (`{"tools": [...]}`).
The format is detected per tool. Parameter schemas are data: they are checked against the JSON
Schema meta-schema, every `$ref` in them must point inside the schema itself (nothing is ever
fetched or opened because of a schema), and their local `$ref`s are resolved so that `x-eval-norm`
and `default` are found at any depth. Each tool and parameter records where it is written in its
file, so that `evalrun lint` can point at the line to edit without reading the file again.

Here: a file's tools, and one tool read whole. Which format a tool is written in is
`tool_formats`; the `x-eval-*` annotations, `annotations`; the `$ref` document and the parameter
tree, `params`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..jsonvalue import MAX_DEPTH, json_kind, too_deep
from ..model import InputError, Tool
from ..pointer import Loc
from .annotations import (
    READ_ONLY_HINT,
    READONLY,
    REPEATABLE,
    TOOL_ANNOTATIONS,
    check_annotations,
    tool_flag,
)
from .files import list_files, read_json_file
from .params import read_params
from .schema_quick import surely_valid
from .tool_formats import DECLARATIONS, OPENAPI_TYPES, detect_format, gemini_declaration


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
                (gemini_declaration(d), f"{where} {key}[{j}]", (*loc, key, j))
                for j, d in enumerate(e[key])
            )
        elif isinstance(e, dict) and set(e) == {"cachePoint"}:
            continue  # a Bedrock cache checkpoint among the tools, not a tool
        else:
            found.append((e, where, loc))
    return [parse_tool(e, where, file=str(file), loc=loc) for e, where, loc in found]


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


def parse_tool(entry: Any, where: str, *, file: str = "", loc: Loc = ()) -> Tool:
    """One tool in any supported format; `where` locates it in error messages.

    `file` and `loc` say where the entry is written (`loc` within the file: `("tools", 2)`); the
    tool and its parameters record their locations from them.
    """
    if not isinstance(entry, dict):
        raise InputError(f"{where}: a tool must be a JSON object, not {json_kind(entry)}")
    fmt, spec, schema, keys = detect_format(entry, where)
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
        check_annotations(place, TOOL_ANNOTATIONS, at, where)
    repeatable = tool_flag([place for place, _ in places], REPEATABLE, where)
    readonly = tool_flag([place for place, _ in places], READONLY, where)
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
    params = read_params(schema, schema_loc, where)
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
    if surely_valid(schema):
        return  # the common case, told without importing jsonschema (start-up: issue 31)
    import jsonschema
    from jsonschema.validators import validator_for

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
