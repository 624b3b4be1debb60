"""Trace inputs as lines: which files a path names, and each file's non-blank lines, numbered.

Inputs are `.jsonl` files, `.jsonl.gz` files, directories of them (recursive, sorted), or `-` for
standard input. Nothing is held beyond the current line. Where a file breaks off (a truncated
gzip, a dropped connection) the reader yields a `TraceError` in the line's place and stops: the
lines before it are kept, and what was lost is counted.

Every way evalrun reads trace lines goes through here (`evalrun score` in one process or many,
`lint --traces`, `diff`, Dask), so line numbers and read errors are the same everywhere.
"""

from __future__ import annotations

import gzip
import sys
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from .._files import list_files
from ..model import InputError, TraceError

TRACE_SUFFIXES = (".jsonl", ".jsonl.gz")
STDIN = "-"


def trace_files(paths: Iterable[str | Path]) -> list[str]:
    """The trace inputs named by `paths`, directories expanded (recursive, sorted); `-` is stdin."""
    found: list[str] = []
    for path in paths:
        if str(path) == STDIN:
            found.append(STDIN)
        else:
            found.extend(
                str(f)
                for f in list_files(
                    path, TRACE_SUFFIXES, what="traces", hint="name a trace file or directory"
                )
            )
    return found


def iter_lines(name: str, *, stdin: BinaryIO | None = None) -> Iterator[tuple[str, Any]]:
    """(`file:line`, raw bytes) for each non-blank line; a TraceError if the file breaks off."""
    with _open(name, stdin) as stream:
        yield from stream_lines("<stdin>" if name == STDIN else name, stream)


def stream_lines(label: str, stream: Iterable[bytes]) -> Iterator[tuple[str, Any]]:
    """`iter_lines` for a stream already open: (`label:line`, bytes), blank lines skipped, and
    a TraceError where the stream breaks off (a truncated gzip, a dropped connection)."""
    number = 0
    try:
        for number, line in enumerate(stream, start=1):
            if line.strip():
                yield f"{label}:{number}", line
    except (OSError, EOFError, zlib.error) as e:
        where = f"{label}:{number + 1}"
        yield where, TraceError(where, f"the file cannot be read past this point: {e}")


def _open(name: str, stdin: BinaryIO | None) -> Any:
    if name == STDIN:
        stream = stdin if stdin is not None else sys.stdin.buffer
        return _NoClose(stream)
    try:
        if name.endswith(".gz"):
            return gzip.open(name, "rb")
        return open(name, "rb")
    except OSError as e:
        raise InputError(f"{name}: cannot open this trace file: {e.strerror or e}") from None


class _NoClose:
    """Standard input inside a `with`, left open afterwards."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream

    def __enter__(self) -> BinaryIO:
        return self.stream

    def __exit__(self, *exc: object) -> None:
        return None
