"""Recorded runs, read as a stream: the files a path names (`files`), each read as lines
(`lines`; pretty-printed JSON in `pretty`, where each trace ends in `last_lines`, standard input
spooled in `spool`, the bounds in `limits`), formats in a registry (`formats/`, `registry`), read
into native run records (`reader`) and runs (`native`).

Every command and the library read traces through `read_runs` or a `TraceReader`, so a format
added here (a module in `formats/`, or a plugin in the `evalrunner.trace_formats` entry-point
group) reaches all of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from ..model import Run, TraceError
from .files import TRACE_SUFFIXES, trace_files
from .format import Grouper, GroupKeys, NativeRecord, TraceFormat
from .last_lines import LastLines
from .lines import STDIN, TraceInput, iter_lines, stream_lines
from .native import (
    call_args,
    call_tool,
    is_errored,
    not_json,
    parse_args,
    parse_call,
    parse_line,
    parse_record,
    run_id_of,
)
from .reader import GroupingSeen, Reading, TraceReader, read_lines
from .registry import AUTO, BUILTINS, detect, resolve, trace_formats, unknown_layout

__all__ = [
    "AUTO",
    "BUILTINS",
    "STDIN",
    "TRACE_SUFFIXES",
    "GroupKeys",
    "Grouper",
    "GroupingSeen",
    "LastLines",
    "NativeRecord",
    "Reading",
    "TraceFormat",
    "TraceInput",
    "TraceReader",
    "call_args",
    "call_tool",
    "detect",
    "is_errored",
    "iter_lines",
    "not_json",
    "parse_args",
    "parse_call",
    "parse_line",
    "parse_record",
    "read_file",
    "read_lines",
    "read_runs",
    "resolve",
    "run_id_of",
    "stream_lines",
    "trace_files",
    "trace_formats",
    "unknown_layout",
]


def read_runs(
    paths: Iterable[str | Path],
    *,
    reading: Reading | None = None,
    stdin: BinaryIO | None = None,
) -> Iterator[Run | TraceError]:
    """Every run in the trace inputs, in order (files sorted, lines in file order), in any format
    the registry reads (`reading` says which, and where the ids live; default: detected per line).

    A line that cannot be scored is a `TraceError` with its `file:line` and the reason.
    """
    reading = reading or Reading()
    reader = reading.reader()
    for name in trace_files(paths):
        source = TraceInput(
            name,
            stdin=stdin,
            max_line=reading.max_line_bytes,
            max_expanded=reading.max_expanded_bytes,
        )
        yield from reader.read(source.lines(), last_lines=source.last_lines)


def read_file(
    name: str, *, reading: Reading | None = None, stdin: BinaryIO | None = None
) -> Iterator[Run | TraceError]:
    """The runs of one trace file (`-` for standard input)."""
    reading = reading or Reading()
    source = TraceInput(
        name,
        stdin=stdin,
        max_line=reading.max_line_bytes,
        max_expanded=reading.max_expanded_bytes,
    )
    yield from reading.reader().read(source.lines(), last_lines=source.last_lines)
