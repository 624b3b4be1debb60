"""`--group-by KEY`: which group a run belongs to, read from its trace record as logged.

KEY is a dotted path into the record as it was logged, in whatever format (`model` in an
Anthropic or OpenAI log, `metadata.prompt_version`, `request.model` in a gateway's exchange), or,
for a format whose runs span lines (OpenTelemetry spans), a span attribute (`gen_ai.request.model`,
on any span of the trace, else a resource attribute, `service.version`; the earliest-starting
span's value where they disagree). Where the logged record has nothing there, the native record
evalrun read from it is looked at (`case_id`, `run_id`), then its `meta` (`--group-by model`
finds `meta.model` in a native run). A part of KEY made of digits indexes a list
(`meta.tags.0`); a dotted name that is one key of an object is found too
(`gen_ai.request.model` logged flat).

`case.FIELD` groups by the run's case instead: `case.tags` (a group per tag: a case of two tags
counts in both groups, so groups overlap), `case.id`, `case.match`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from ..jsonvalue import dumps as json_dumps
from ..model import MISSING, Case, InputError
from ..traces.format import NativeRecord, logged_of

NO_GROUP = "(none)"
"""The group of a run whose record has no value at KEY (absent or null): named, never dropped."""
OTHER_GROUP = "(other)"
"""The group of the runs past `MAX_GROUPS` groups: counted, never dropped."""
MAX_GROUPS = 1000
"""The most groups kept apart (the earliest by first run); later ones are summed in
`OTHER_GROUP`, and said. A group by a run id would otherwise hold a summary per run."""

CASE_FIELDS = ("tags", "id", "match")
"""What `case.FIELD` may name."""

Group = str | tuple[str, ...]
"""A run's group: one name, or (`case.tags`) the names of every group it counts in."""


def parse_key(key: str) -> tuple[str, ...]:
    """KEY split at its dots; InputError for an empty key or an empty part (`meta..model`), or
    a `case.` field evalrun does not know."""
    parts = tuple(key.split("."))
    if not key or any(not part for part in parts):
        raise InputError(f"--group-by {key!r}: give a dotted path like meta.model")
    if parts[0] == "case" and (len(parts) != 2 or parts[1] not in CASE_FIELDS):
        raise InputError(
            f"--group-by {key!r}: a case is grouped by "
            + ", ".join(f"case.{f}" for f in CASE_FIELDS)
        )
    return parts


def by_case(path: Sequence[str]) -> bool:
    """Whether KEY names a field of the run's case (`case.tags`), not of its record."""
    return len(path) == 2 and path[0] == "case"


def value_at(record: Any, path: Sequence[str]) -> Any:
    """The value at `path` in a JSON value; MISSING when there is none (or it is null)."""
    value = record
    for i, part in enumerate(path):
        if type(value) is dict:
            if part in value:
                value = value[part]
            else:
                rest = ".".join(path[i:])
                return value[rest] if rest in value and value[rest] is not None else MISSING
        elif type(value) is list and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return MISSING
        if value is None:
            return MISSING
    return value


def record_value(item: NativeRecord, path: Sequence[str]) -> Any:
    """The value at `path` for one run: in the record as logged, else the native record, else
    its `meta`; MISSING when none has it."""
    for where in (logged_of(item), item.record, item.record.get("meta")):
        if where is not None:
            found = value_at(where, path)
            if found is not MISSING:
                return found
    return MISSING


def group_name(value: Any) -> str:
    """A value as a group's name: a string as it is, any other JSON value as compact JSON (`3`,
    `true`); `NO_GROUP` for MISSING."""
    if value is MISSING:
        return NO_GROUP
    if type(value) is str:
        return value
    return json_dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def group_of(record: Any, path: tuple[str, ...]) -> str:
    """The group of a native run record (without a logged one): `record_value` as a name."""
    return group_name(record_value(NativeRecord(record, ""), path))


def case_group(case: Case | None, field: str) -> Group:
    """The group(s) of a run by its case: a tag each (`NO_GROUP` when it has none), its id or
    its match mode."""
    if case is None:
        return NO_GROUP
    if field == "tags":
        return case.tags or NO_GROUP
    return case.id if field == "id" else case.match


def no_group_found(key: str) -> str:
    """The warning when no run has a value at KEY (every run in `NO_GROUP`)."""
    if by_case(parse_key(key)):
        return (
            f"--group-by {key}: no run's case has a value there (cases carry 'tags', a list of "
            f"names), so every run is in {NO_GROUP}"
        )
    return (
        f"--group-by {key}: no run has a value there, so every run is in {NO_GROUP}; KEY is a "
        "dotted path into the record as logged (model, metadata.prompt), or a span attribute, "
        "and falls back to the run's meta"
    )
