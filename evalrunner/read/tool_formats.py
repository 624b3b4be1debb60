"""The tool-file formats: how a tool written for each provider is recognised, and where its
name, parameter schema and annotations are. Each is one function registered where it is defined
(`@tool_format`), under the name its trace format has; the first that reads an entry is its
format."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..model import InputError
from ..pointer import Loc

EMPTY_SCHEMA: Mapping[str, Any] = {"type": "object", "properties": {}}


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
"""Where a Gemini `Tool` lists its functions: each is a tool of its own."""
GEMINI_SCHEMA_KEYS = ("parametersJsonSchema", "parameters_json_schema")
"""Where a Gemini function declaration keeps a schema that is JSON Schema already."""
OPENAPI_TYPES = frozenset({"OBJECT", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "NULL"})
"""Gemini's `Schema` types (an OpenAPI subset, written in capitals); JSON Schema's are lowercase."""


def gemini_declaration(entry: Any) -> Any:
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


def detect_format(entry: dict[str, Any], where: str) -> tuple[ToolFormat, dict[str, Any], Any, Loc]:
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
