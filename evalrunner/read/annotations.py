"""The `x-eval-*` annotations evalrun reads in a tool file, and the check that no other (a
misspelt one, one in the wrong place) is ignored silently."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Final

from ..model import InputError, NormSpec
from ..pointer import Loc, json_path
from .files import edit_distance

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


def tool_flag(places: list[dict[str, Any]], name: str, where: str) -> bool:
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


def check_annotations(
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
        if not _looks_like_annotation(key):
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


@lru_cache(maxsize=4096)
def _looks_like_annotation(key: str) -> bool:
    """Whether a key means to be an annotation: its spelling, or a near miss of one. Every
    schema node asks this of each of its keys, which are mostly the same few (`type`,
    `description`): the answer is kept."""
    return bool(_ANNOTATION_LIKE.match(key)) or any(
        _close(key.lower(), name) for name in ANNOTATIONS
    )


def _close(key: str, name: str) -> bool:
    # most keys are far shorter or longer than an annotation's name: no distance to compute
    return abs(len(key) - len(name)) <= 2 and edit_distance(key, name) <= 2


def norm_spec(node: Mapping[str, Any], path: str, where: str) -> NormSpec | None:
    """A parameter's `x-eval-norm`: a rule's name, or an object with its name and options."""
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
