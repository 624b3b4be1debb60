"""A path into a record, JSON text read as JSON on the way: shared by the formats and the reader
(which must not import a format's module to find a run's ids)."""

from __future__ import annotations

from typing import Any

from ...jsonvalue import loads


def json_value(value: Any) -> Any:
    """An attribute that holds JSON text, decoded (anything else as it is)."""
    if type(value) is str and value[:1] in ("{", "["):
        try:
            return loads(value)
        except ValueError:
            return value
    return value


def walk(value: Any, parts: list[str] | tuple[str, ...]) -> Any:
    """A path into a value; a string holding a JSON object or list is read as JSON on the way.
    None when the path leads nowhere."""
    for part in parts:
        value = json_value(value)
        if type(value) is dict:
            value = value.get(part)
        elif type(value) is list and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
        if value is None:
            return None
    return value
