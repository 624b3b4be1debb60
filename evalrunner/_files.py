"""File helpers shared by the readers: listing input files and reading JSON with clear errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from .model import InputError


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
        return orjson.loads(data)
    except orjson.JSONDecodeError as e:
        raise InputError(
            f"{path}: this {what} file is not valid JSON ({e}); fix or remove it"
        ) from None
