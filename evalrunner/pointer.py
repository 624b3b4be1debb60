"""JSON locations: JSON Pointer (RFC 6901) for effect assertions and local `$ref`s in tool schemas,
and the JSON paths that name where a thing is written in a file."""

from __future__ import annotations

import re
from typing import Any

from .model import MISSING

Loc = tuple[str | int, ...]
"""Where a value is written in a JSON document: its keys and list indexes from the top."""

_INDEX = re.compile(r"0|[1-9][0-9]*")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_pointer(pointer: str) -> tuple[str, ...]:
    """Split a pointer into its unescaped reference tokens; ValueError when it is not one.

    `""` is the whole document; every other pointer starts with `/`.
    """
    if pointer == "":
        return ()
    if not pointer.startswith("/"):
        raise ValueError(f"a JSON Pointer is empty or starts with '/', not {pointer!r}")
    tokens = pointer[1:].split("/")
    for token in tokens:
        if re.search(r"~(?![01])", token):
            raise ValueError(f"'~' must be escaped as '~0' (and '/' as '~1') in {pointer!r}")
    return tuple(t.replace("~1", "/").replace("~0", "~") for t in tokens)


def resolve(document: Any, tokens: tuple[str, ...]) -> Any:
    """The value the tokens point at, or MISSING when nothing is there."""
    node = document
    for token in tokens:
        if isinstance(node, dict):
            if token not in node:
                return MISSING
            node = node[token]
        elif isinstance(node, list):
            if not _INDEX.fullmatch(token) or int(token) >= len(node):
                return MISSING  # "-" names the element after the last: nothing is there
            node = node[int(token)]
        else:
            return MISSING
    return node


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


def pointer(loc: Loc) -> str:
    """A location as a JSON Pointer fragment, the way a local `$ref` writes it: `#/$defs/Month`."""
    return "#" + "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in loc)
