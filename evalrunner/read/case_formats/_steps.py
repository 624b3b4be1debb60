"""Helpers the case formats share: a tool call written some other way, as a step."""

from __future__ import annotations

from typing import Any

from ...jsonvalue import loads
from .format import Source


def step(source: Source, at: str, name: Any, args: Any) -> dict[str, Any] | None:
    """`{"tool", "args"}` from a name and arguments (an object, or a JSON string of one, as OpenAI
    writes `function.arguments`); None, with a warning, when there is no usable name."""
    if not isinstance(name, str) or not name:
        source.warn(at, "a tool call without a tool name; left out of the case")
        return None
    if isinstance(args, str):
        try:
            args = loads(args) if args.strip() else {}
        except ValueError:
            source.warn(at, f"the arguments of {name!r} are not valid JSON; read as {{}}")
            args = {}
    if args is None:
        args = {}
    if not isinstance(args, dict):
        source.warn(at, f"the arguments of {name!r} are not an object; read as {{}}")
        args = {}
    return {"tool": name, "args": args}


def text_of(value: Any) -> str:
    """A user's input as text: a string, the text parts of a content object, or JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("parts"), list):
        return "".join(
            p["text"]
            for p in value["parts"]
            if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    if value is None:
        return ""
    import orjson

    from ...jsonvalue import dumps

    return dumps(value, orjson.OPT_SORT_KEYS).decode()
