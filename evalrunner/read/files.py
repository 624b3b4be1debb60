"""Helpers shared by the readers: listing input files, reading JSON with clear errors, and telling a
misspelt key from a key evalrun does not read."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..jsonvalue import loads
from ..model import InputError


def list_files(
    path: str | Path, suffixes: tuple[str, ...], *, what: str, flag: str = "", hint: str = ""
) -> list[Path]:
    """The files under `path` (recursive, sorted) whose names end in one of `suffixes`.

    `path` may also be a single file. A missing or unreadable path is an InputError that names the
    flag to set (or the `hint`) in its message.
    """
    p = Path(path)
    if p.is_file():
        return [p]
    if not p.exists():
        hint = hint or f"set it with {flag} DIR"
        raise InputError(f"{what} directory {str(p)!r} does not exist ({hint})")
    if not p.is_dir():
        raise InputError(f"{what} path {str(p)!r} is neither a file nor a directory")
    try:
        found = [f for f in p.rglob("*") if f.is_file() and f.name.endswith(suffixes)]
    except OSError as e:
        raise InputError(f"cannot read {what} directory {str(p)!r}: {e.strerror or e}") from None
    return sorted(found, key=lambda f: f.as_posix())


def read_json_file(path: Path, *, what: str) -> Any:
    """Parse one JSON file; an InputError naming the file when it cannot be read or parsed."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(f"{path}: cannot read this {what} file: {e.strerror or e}") from None
    try:
        return loads(data)
    except ValueError as e:
        raise InputError(
            f"{path}: this {what} file is not valid JSON ({e}); fix or remove it"
        ) from None


# ----------------------------------------------------------------------------- keys and typos


def edit_distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (optimal string alignment): `mtach` is one edit from `match`."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, start=1):
            current[j] = min(
                previous[j] + 1,
                current[j - 1] + 1,
                previous[j - 1] + (ca != cb),
            )
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[len(b)]


def near_miss(key: str, known: tuple[str, ...]) -> str | None:
    """The known key that `key` looks like a typo of, or None.

    A near miss is one edit (a letter added, dropped, changed, or two swapped) from a known key of
    four letters, or two edits from a longer one: `mtach` -> `match`, `effects` -> `effect`,
    `arg` -> `args`, `expected_arg` -> `expected_args`. Keys shorter than four letters (`id`, `at`)
    are never guessed at, and four-letter ones only within one edit: `tags` is two edits from
    `args`, and a case may well carry tags.
    """
    best: tuple[int, str] | None = None
    lowered = key.lower()
    for name in known:
        if len(name) < 4:
            continue
        distance = edit_distance(lowered, name)
        if distance <= (1 if len(name) == 4 else 2) and (best is None or distance < best[0]):
            best = (distance, name)
    return best[1] if best is not None else None


def check_keys(
    record: Mapping[str, Any],
    known: tuple[str, ...],
    confused: Mapping[str, str],
    *,
    what: str,
    where: str,
) -> None:
    """InputError for a key of `record` that reads as a typo of one of the `known` keys.

    Records may carry keys evalrun does not read (a case's `description`, tags), so an unknown key
    is an error only when it is a near miss of a known one, or one of the keys users write for one
    (`confused`: `effects` for `effect`, copied from a results file). A typo must not hide: a case
    whose `effects` were ignored would pass on assertions it never made.
    """
    for key in record:
        if key in known or not isinstance(key, str):
            continue
        meant = confused.get(key) or near_miss(key, known)
        if meant is not None:
            raise InputError(
                f"{where}: unknown key {key!r} in {what}; did you mean {meant!r}? ({what} reads "
                f"{', '.join(known)}; other keys are allowed, but not one that looks like a "
                "typo of these)"
            )
