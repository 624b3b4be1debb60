"""A trace input as numbered lines: opened, and read in blocks of whole lines.

Every way evalrun reads trace lines goes through here (`evalrun score` in one process or many,
`lint --traces`, `diff`, `suggest`, `audit`, Dask), so line numbers and read errors are the same
everywhere. Which files a path names is `files`.

A file is read in blocks of whole lines (`read_blocks`), split into lines only where they are
graded (a worker under `--jobs`). Nothing is held beyond the current block, and a line longer than
the bound (`MAX_LINE_BYTES`, or `--max-line-bytes`) is skipped without being held: it is reported
in its place, as is the point where a file breaks off (a truncated gzip, a dropped connection).
A UTF-8 byte order mark at the start of a file is not part of its first line. A file that turns
out to be pretty-printed JSON is read record by record (`pretty.Documents`).

Records of a format whose runs span lines (OpenTelemetry spans) need to know where each run ends
in its file: `TraceInput.last_lines` is that pre-pass (`last_lines.LastLines`), run on a second
reading of the file, or on standard input while it is spooled (`spool`).
"""

from __future__ import annotations

import gzip
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from .. import interrupts
from ..model import InputError, TraceError
from .last_lines import LastLines
from .limits import BLOCK_BYTES, BOM, MAX_EXPANDED_BYTES, MAX_LINE_BYTES, READ_ERRORS
from .pretty import Documents, is_pretty
from .spool import Spooled, spool_stdin

STDIN = "-"


def open_trace(
    name: str, stdin: BinaryIO | None = None, *, max_expanded: int = MAX_EXPANDED_BYTES
) -> Any:
    """The binary stream of a trace input (decompressed for `.gz`); InputError if it cannot be
    opened. Use it in a `with`: standard input is left open.

    Standard input whose first block holds trace ids is spooled to a temporary file (deleted on
    close) and scanned on the way (`Spooled.last_lines`), so that spans in any order can be
    grouped; anything else is streamed."""
    if name == STDIN:
        return spool_stdin(stdin if stdin is not None else sys.stdin.buffer)
    try:
        if name.endswith(".gz"):
            return _Bounded(gzip.open(name, "rb"), max_expanded)
        return open(name, "rb")
    except OSError as e:
        raise InputError(f"{name}: cannot open this trace file: {e.strerror or e}") from None


class _Bounded:
    """A decompressed stream that stops with an OSError (a read error, reported at the line
    reached) once it has given `limit` bytes."""

    def __init__(self, stream: Any, limit: int) -> None:
        self.stream, self.limit, self.given = stream, limit, 0

    def _count(self, data: bytes) -> bytes:
        self.given += len(data)
        if self.given > self.limit:
            raise OSError(
                f"it expands to more than {self.limit:,} bytes (a gzip bomb?); "
                "--max-expanded-bytes raises the bound"
            )
        return data

    def read(self, n: int = -1) -> bytes:
        return self._count(self.stream.read(n))

    def read1(self, n: int = -1) -> bytes:
        return self._count(self.stream.read1(n))

    def close(self) -> None:
        self.stream.close()

    def __enter__(self) -> _Bounded:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stream.close()


def label_of(name: str) -> str:
    """How an input is named in `file:line`: standard input as `<stdin>`, a file by its name,
    with bytes that are not UTF-8 written as escapes (`b\\xff.jsonl`), so every output can
    hold it (Python reads such a name with surrogates no encoder takes)."""
    return "<stdin>" if name == STDIN else path_text(name)


def path_text(name: str | Path) -> str:
    """A file name as text every output can hold: bytes that are not UTF-8 as `\\xff`."""
    text = str(name)
    try:
        text.encode()
    except UnicodeEncodeError:
        return os.fsencode(text).decode("utf-8", "backslashreplace")
    return text


class TraceInput:
    """One trace input, read twice when it must be: its lines, and (for records whose runs span
    lines) where each trace's spans end in it (`last_lines`, scanned on first use)."""

    def __init__(
        self,
        name: str,
        *,
        stdin: BinaryIO | None = None,
        max_line: int = MAX_LINE_BYTES,
        max_expanded: int = MAX_EXPANDED_BYTES,
    ) -> None:
        self.name = name
        self.label = label_of(name)
        self.stdin = stdin
        self.max_line = max_line
        self.max_expanded = max_expanded
        self._spooled: Spooled | None = None

    def open(self) -> Any:
        """`open_trace`: the input's stream, for a `with`."""
        stream = open_trace(self.name, self.stdin, max_expanded=self.max_expanded)
        if isinstance(stream, Spooled):
            self._spooled = stream
        return stream

    def lines(self) -> Iterator[tuple[str, Any]]:
        """`iter_lines` of this input."""
        with self.open() as stream:
            yield from stream_lines(self.label, stream, max_line=self.max_line)

    def last_lines(self) -> LastLines | None:
        """For each trace id in the input, the last line that names it: a second reading of a
        file, or what standard input's spool saw; None for standard input that was not spooled
        (it did not start with spans), or a file that cannot be opened again."""
        if self.name == STDIN:
            return self._spooled.last_lines if self._spooled is not None else None
        try:
            with open_trace(self.name, max_expanded=self.max_expanded) as stream:
                return LastLines.scan(stream, max_line=self.max_line)
        except InputError:
            return None


def iter_lines(
    name: str, *, stdin: BinaryIO | None = None, max_line: int = MAX_LINE_BYTES
) -> Iterator[tuple[str, Any]]:
    """(`file:line`, raw bytes) for each non-blank line, or (`file:line`, TraceError) where a
    line is too long or the file breaks off; a pretty-printed file gives its records decoded
    (`Parsed`), each at the line it starts on."""
    yield from TraceInput(name, stdin=stdin, max_line=max_line).lines()


def stream_lines(
    label: str, stream: Any, *, max_line: int = MAX_LINE_BYTES
) -> Iterator[tuple[str, Any]]:
    """`iter_lines` for a stream already open (anything with `read(n)`)."""
    for block in read_blocks(label, stream, max_line=max_line):
        if isinstance(block, TraceError):
            yield block.source, block
        elif isinstance(block, Documents):
            yield from block.records()
        else:
            yield from block_lines(label, *block)


_NOT_BLANK = re.compile(rb"^[ \t\r\x0b\x0c]*[^ \t\r\x0b\x0c\n][^\n]*", re.MULTILINE)
"""A line that is not blank (`line.strip()` is not empty), from its start to its end."""


def block_lines(label: str, number: int, data: bytes) -> Iterator[tuple[str, bytes]]:
    """The non-blank lines of a block of whole lines whose first line is `number`."""
    # Lines that are not blank are found by one search, blank ones counted in bulk: a file of
    # blank lines (a gzip of a gigabyte of them is a megabyte) costs no work per line. What
    # follows the last newline is nothing (blank, skipped) or a last line without one.
    if not data.strip():
        return
    n, at = number, 0
    for match in _NOT_BLANK.finditer(data):
        start = match.start()
        n += data.count(b"\n", at, start)
        at = start
        yield f"{label}:{n}", match.group()


def read_blocks(
    label: str, stream: Any, *, max_line: int = MAX_LINE_BYTES, block_bytes: int | None = None
) -> Iterator[tuple[int, bytes] | TraceError | Documents]:
    """A stream as blocks of whole lines, (number of the block's first line, bytes), in order.

    A line longer than `max_line` is a TraceError in its place, and is never held whole; so is
    the point where the stream breaks off. A stream that turns out to be pretty-printed JSON is
    handed on whole as `Documents`.
    """
    number = 1  # the line the next block starts with
    carry: list[bytes] = []  # the start of a line that continues in the next read
    carried = 0
    dropping = -1  # bytes of a too-long line dropped so far; -1 when not dropping
    undecided = True  # JSON Lines or pretty-printed: told by the first whole line
    # read1 returns what one underlying read gives: where a stream breaks off (a truncated gzip),
    # everything before the break is read, whatever the block size.
    read = getattr(stream, "read1", stream.read)
    block_bytes = block_bytes or BLOCK_BYTES
    wake = interrupts.may_block(stream)
    while True:
        interrupts.check()  # an interrupt a finalizer dropped: never wait on a pipe after one
        try:
            data = interrupts.woken(read, block_bytes) if wake else read(block_bytes)
        except READ_ERRORS as e:
            yield TraceError(f"{label}:{number}", f"the file cannot be read past this point: {e}")
            return
        if undecided:
            if data and b"\n" not in data and carried + len(data) <= max_line:
                carry.append(data)
                carried += len(data)
                continue
            eof = not data
            head = b"".join((*carry, data))
            if head.startswith(BOM):
                head = head[len(BOM) :]
            pretty = is_pretty(head, eof=eof, limit=min(max_line, BLOCK_BYTES))
            if pretty is None:  # only text that opens no JSON value so far: read on
                carry, carried = [head], len(head)
                continue
            undecided, data, carry, carried = False, head, [], 0
            if pretty:
                yield Documents(label, stream, data, max_line)
                return
            if eof and data:  # the whole stream is one line without a newline
                yield from _whole_lines(label, number, data, max_line)
                return
        if not data:
            break
        cut = data.rfind(b"\n")
        if cut < 0:  # no line ends in this read
            if dropping >= 0:
                dropping += len(data)
            else:
                carry.append(data)
                carried += len(data)
                if carried > max_line:
                    dropping, carry, carried = carried, [], 0
            continue
        head, tail = data[: cut + 1], data[cut + 1 :]
        if dropping >= 0:
            end = head.index(b"\n")
            yield _too_long(label, number, dropping + end, max_line)
            number, head, dropping = number + 1, head[end + 1 :], -1
        elif carry:
            head = b"".join((*carry, head))
            carry, carried = [], 0
        if head:
            yield from _whole_lines(label, number, head, max_line)
            number += head.count(b"\n")
        if len(tail) > max_line:
            dropping = len(tail)
        elif tail:
            carry, carried = [tail], len(tail)
    if dropping >= 0:
        yield _too_long(label, number, dropping, max_line)
    elif carry:
        yield from _whole_lines(label, number, b"".join(carry), max_line)


def _whole_lines(
    label: str, number: int, block: bytes, max_line: int
) -> Iterator[tuple[int, bytes] | TraceError]:
    """A block of whole lines, with any line longer than `max_line` cut out and reported."""
    if len(block) <= max_line:
        yield number, block
        return
    start = 0
    while start < len(block):
        end = block.find(b"\n", start)
        end = len(block) if end < 0 else end
        if end - start > max_line:
            yield _too_long(label, number, end - start, max_line)
            number += 1
            start = end + 1
            continue
        # the run of lines from here that fit
        run_start, run_number = start, number
        while start < len(block):
            end = block.find(b"\n", start)
            end = len(block) if end < 0 else end
            if end - start > max_line:
                break
            start, number = end + 1, number + 1
        yield run_number, block[run_start:start]


def _too_long(label: str, number: int, size: int, max_line: int) -> TraceError:
    where = f"{label}:{number}"
    return TraceError(
        where,
        f"the line is {size:,} bytes, longer than the {max_line:,} evalrun reads "
        "(skipped without being read; raise --max-line-bytes to read it)",
    )
