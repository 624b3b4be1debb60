"""`--group-by KEY`: which group a run belongs to, read from its trace record.

KEY is a dotted path into the native run record (SPEC "Traces"): `meta.model`, `meta.prompt`,
`case_id`. A trace in another format is read into a native record first (`case_id`, `run_id`,
`calls`, `world`, and its line's `meta`), so the path names a field of that record: a Chat
Completions line's own `meta.model` is there, its `metadata.model` is not.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..jsonvalue import dumps as json_dumps
from ..model import InputError

NO_GROUP = "(none)"
"""The group of a run whose record has no value at KEY (absent or null): named, never dropped."""


def parse_key(key: str) -> tuple[str, ...]:
    """KEY split at its dots; InputError for an empty key or an empty part (`meta..model`)."""
    parts = tuple(key.split("."))
    if not key or any(not part for part in parts):
        raise InputError(f"--group-by {key!r}: give a dotted path like meta.model")
    return parts


def group_of(record: Any, path: tuple[str, ...]) -> str:
    """The group of a native run record: the value at `path` as text (a string as it is, any
    other JSON value as compact JSON: `3`, `true`), or `NO_GROUP`. A list is indexed by a part
    made of digits (`meta.tags.0`)."""
    value = record
    for part in path:
        if type(value) is dict:
            value = value.get(part)
        elif type(value) is list and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return NO_GROUP
        if value is None:
            return NO_GROUP
    if type(value) is str:
        return value
    return json_dumps(value, option=orjson.OPT_SORT_KEYS).decode()
