"""Where each trace ends in its input: the pre-pass over the raw bytes for trace ids.

Records of a format whose runs span lines (OpenTelemetry spans) need to know where each run ends
in its file, whatever order its spans come in: `LastLines` scans the raw bytes for trace ids, on
a second reading of the file (`lines.TraceInput.last_lines`), or on standard input while it is
spooled (`spool`), since it cannot be read twice.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .limits import BLOCK_BYTES, BOM, MAX_LINE_BYTES, READ_ERRORS

# A trace id as the span formats write it: OTLP's "traceId", the Python SDK's and OpenAI Agents'
# "trace_id" (any key spelled so), and an OpenAI Agents trace object's own "id": "trace_...".
# The key and its value stand on one line in every exporter's output, pretty-printed or not.
TRACE_ID = re.compile(
    rb'"(?:trace_?[iI][dD]|TraceId)"[ \t]*:[ \t]*"([^"\\\n]{1,256})"'
    rb'|"id"[ \t]*:[ \t]*"(trace_[^"\\\n]{1,250})"'
)
MAX_PLANNED_TRACES = 1_000_000
"""The most traces of one input whose last line is remembered (about 110 bytes each)."""


def trace_key(trace_id: str | bytes) -> int:
    """How the pre-pass knows a trace id: hashed, as its readers spell it (lower case, no 0x).

    Two ids with one hash only make both traces wait for the later one's last line."""
    raw = trace_id.encode() if isinstance(trace_id, str) else trace_id
    if raw[:2] in (b"0x", b"0X"):
        raw = raw[2:]
    return hash(raw.lower())


class LastLines:
    """The pre-pass over an input's raw bytes: for each trace id named in it, the last line that
    names it.

    It is conservative: every line that holds a trace id's key names it, whatever the record is,
    so the line found is never before the trace's last span (a mention elsewhere, in a link or an
    attribute, only makes the trace wait longer). A trace it does not know (an id written some
    other way, or beyond `max_traces`) gets no line, and its reader falls back to its own rule.
    """

    def __init__(
        self, *, max_traces: int = MAX_PLANNED_TRACES, max_line: int = MAX_LINE_BYTES
    ) -> None:
        self._last: dict[int, int] = {}
        self.max_traces = max_traces
        self.max_line = max_line
        self.full = False
        """More traces than `max_traces`: the later ones are not known."""
        self._line = 1  # the line the next whole line fed is
        self._carry: list[bytes] = []  # the start of a line that goes on in the next bytes
        self._carried = 0
        self._dropping = False  # in a line longer than max_line: skipped, as its reader does

    def get(self, trace_id: str) -> int | None:
        """The last line naming `trace_id`, or None when the scan does not know it."""
        return self._last.get(trace_key(trace_id))

    def __len__(self) -> int:
        return len(self._last)

    def feed(self, data: bytes) -> None:
        """The next bytes of the input."""
        cut = data.rfind(b"\n")
        if cut < 0:
            if not self._dropping:
                self._carry.append(data)
                self._carried += len(data)
                if self._carried > self.max_line:
                    self._carry, self._carried, self._dropping = [], 0, True
            return
        head, tail = data[: cut + 1], data[cut + 1 :]
        if self._dropping:
            first = head.index(b"\n")
            self._line += 1
            self._dropping, head = False, head[first + 1 :]
        elif self._carry:
            head = b"".join((*self._carry, head))
        self._block(head)
        self._carry, self._carried = [tail] if tail else [], len(tail)
        if self._carried > self.max_line:
            self._carry, self._carried, self._dropping = [], 0, True

    def close(self) -> LastLines:
        """The end of the input (a last line without a newline)."""
        if self._carry and not self._dropping:
            self._block(b"".join(self._carry) + b"\n")
        self._carry, self._carried = [], 0
        return self

    def add(self, number: int, line: bytes) -> None:
        """One line, numbered: for lines read already (`LastLines.of_lines`)."""
        self._line = number
        self._block(line if line.endswith(b"\n") else line + b"\n")

    def _block(self, block: bytes) -> None:
        """Whole lines, the first of them line `self._line`."""
        last, limit = self._last, self.max_traces
        line, at = self._line, 0
        for m in TRACE_ID.finditer(block):
            line += block.count(b"\n", at, m.start())
            at = m.start()
            key = trace_key(m.group(1) or m.group(2))
            if key in last or len(last) < limit:
                last[key] = line  # lines only grow: the last mention is the latest
            else:
                self.full = True
        self._line = line + block.count(b"\n", at)

    @classmethod
    def scan(cls, stream: Any, *, max_line: int = MAX_LINE_BYTES) -> LastLines:
        """Scan a whole stream. A line longer than `max_line` is skipped, as its reader skips it
        (what it names could only make a trace wait); a stream that breaks off ends there, as
        its reader stops there."""
        found = cls(max_line=max_line)
        read = getattr(stream, "read1", stream.read)
        first = True
        while True:
            try:
                data = read(BLOCK_BYTES)
            except READ_ERRORS:
                break
            if not data:
                break
            if first and data.startswith(BOM):
                data = data[len(BOM) :]
            first = False
            found.feed(data)
        return found.close()

    @classmethod
    def of_lines(cls, lines: Iterable[tuple[str, Any]]) -> LastLines:
        """The pre-pass over lines already read, (`file:line`, bytes) as `iter_lines` gives."""
        found = cls()
        for source, line in lines:
            if type(line) is bytes:
                found.add(line_number(source), line)
        return found


def line_number(source: str) -> int:
    """The line of a `file:line` source."""
    return int(source.rpartition(":")[2])
