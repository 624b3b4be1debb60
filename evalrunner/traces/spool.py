"""Standard input, spooled when its runs span lines: it cannot be read twice.

When standard input's first block holds trace ids, it is copied to a temporary file and scanned
for where each trace ends on the way (`Spooled.last_lines`); anything else is streamed.
"""

from __future__ import annotations

import tempfile
from typing import Any, BinaryIO

from .. import interrupts
from .last_lines import TRACE_ID, LastLines
from .limits import BLOCK_BYTES, BOM, READ_ERRORS


class Spooled:
    """Standard input copied to a temporary file (deleted on close), scanned on the way."""

    def __init__(self, spool: Any, last_lines: LastLines) -> None:
        self.spool = spool
        self.last_lines = last_lines

    def __enter__(self) -> Any:
        return self.spool

    def __exit__(self, *exc: object) -> None:
        self.spool.close()


def spool_stdin(stdin: BinaryIO) -> Any:
    """Standard input, spooled (`Spooled`) when its first block holds trace ids, else streamed."""
    read = getattr(stdin, "read1", stdin.read)
    try:
        head = (
            interrupts.woken(read, BLOCK_BYTES)
            if interrupts.may_block(stdin)
            else read(BLOCK_BYTES)
        )
    except READ_ERRORS:
        head = b""
    if not TRACE_ID.search(head):
        return _NoClose(_Prefixed(head, stdin))
    spool = tempfile.TemporaryFile(prefix="evalrun-stdin-")  # noqa: SIM115 (closed by Spooled)
    last = LastLines()
    data = head[len(BOM) :] if head.startswith(BOM) else head
    spool.write(head[: len(head) - len(data)])
    while data:
        spool.write(data)
        last.feed(data)
        try:
            data = read(BLOCK_BYTES)
        except READ_ERRORS:
            break  # the reader meets the break too: where the spool ends
    spool.seek(0)
    return Spooled(spool, last.close())


class _Prefixed:
    """A stream with its first bytes read already, read again from the start."""

    def __init__(self, head: bytes, stream: Any) -> None:
        self.head = head
        self.stream = stream

    def read(self, n: int = -1) -> bytes:
        if self.head:
            if n < 0:
                head, self.head = self.head, b""
                return head + bytes(self.stream.read())
            part: bytes = self.head[:n]
            self.head = self.head[n:]
            return part
        return bytes(self.stream.read(n))

    def fileno(self) -> int:
        """The stream's own: a read that may wait on it is woken (`interrupts.woken`)."""
        return int(self.stream.fileno())

    def read1(self, n: int = -1) -> bytes:
        if self.head:
            return self.read(n)
        read1 = getattr(self.stream, "read1", self.stream.read)
        return bytes(read1(n))


class _NoClose:
    """Standard input inside a `with`, left open afterwards."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def __enter__(self) -> Any:
        return self.stream

    def __exit__(self, *exc: object) -> None:
        return None
