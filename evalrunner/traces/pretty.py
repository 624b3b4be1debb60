"""Pretty-printed JSON trace files: one array of records, or JSON values one after another.

A file that is not JSON Lines but pretty-printed JSON (as some exporters write them) is read
record by record (`Documents`), each known by the line it starts on. Text that is not JSON
before, between or after the records (a program's own output) is reported line by line, and
reading goes on at the next record.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..jsonvalue import RECORD_DEPTH, too_deep
from ..model import TraceError
from .limits import BLOCK_BYTES, READ_ERRORS, too_deep_message


@dataclass(frozen=True, slots=True)
class Parsed:
    """A record already decoded (read from a pretty-printed file), in a line's place."""

    value: Any


def is_pretty(data: bytes, *, eof: bool = True, limit: int = BLOCK_BYTES) -> bool | None:
    """Whether a file starting with `data` is pretty-printed JSON, not JSON Lines: its first line
    that starts with `{` or `[` opens an array or an object that the line does not close. Lines
    before it that open no JSON value (a program's own output) are passed over, in the first
    `limit` bytes; None when those are all `data` holds so far (and the input goes on)."""
    lines = data[:limit].split(b"\n")
    if not eof or len(data) > limit:
        lines.pop()  # not known to be whole
    for raw in lines:
        line = raw.strip()
        if line[:1] not in (b"[", b"{"):
            continue  # blank, or text that is not JSON Lines either
        try:
            json.loads(line)
        except ValueError:
            if line in (b"[", b"{") or line.endswith((b"{", b"[", b",")):
                return True
            continue  # a line such as "[INFO] ...", or one cut short
        return False
    return None if not eof and len(data) < limit else False


class Documents:
    """A pretty-printed JSON file: one array of records, or JSON values one after another.

    Text that is not JSON among the records (a program's own output between two exporter
    objects, a line cut short, an object broken in the middle) loses only itself: each stray
    line is reported in its place, a broken record once with the lines it spans, and reading
    goes on at the next line that opens a record (`{` or `[` where the records start their lines:
    at column 0, or at the array's elements' indentation)."""

    def __init__(self, label: str, stream: Any, head: bytes, max_line: int) -> None:
        self.label = label
        self.stream = stream
        self.head = head
        self.max_line = max_line
        # A character split between two reads is decoded whole.
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.broken: str | None = None
        """Why the stream could not be read to its end, if it could not."""
        self._text = ""
        self._pos = 0  # where reading is in `_text`
        self._line = 1  # the line `_pos` is on
        self._more = True  # whether the stream may hold more

    def records(self) -> Iterator[tuple[str, Any]]:
        """(`file:line` where each record starts, Parsed(record)), or a TraceError in the place
        of text that cannot be read (the records after it are read); a TraceError where the
        stream itself breaks off."""
        decoder = json.JSONDecoder(parse_constant=_no_constant)
        self._text = self._decode(self.head)
        in_array, seen_any = False, False
        opens = _OPENS  # the lines a record may start on, to read on from after a bad one
        while self._skip_space(",]" if in_array else ""):
            text, pos, line = self._text, self._pos, self._line
            if not in_array and not seen_any and text[pos] == "[" and _alone(text, pos + 1):
                in_array, self._pos = True, pos + 1
                continue
            where = f"{self.label}:{line}"
            try:
                value, end = decoder.raw_decode(text, pos)
            except RecursionError:
                yield from self._resync(too_deep_message(), value=True, opens=opens)
                continue
            except ValueError as e:
                # Cut short by the end of what is read so far: read on (a value's lines end in
                # the text, so an error on its last line may be the cut).
                # (A NaN, refused by `_no_constant`, has no position: the rest of its line.)
                cut = e.pos if isinstance(e, json.JSONDecodeError) else _line_end(text, pos)
                if self._more and "\n" not in text[cut:] and len(text) - pos <= self.max_line:
                    self._fill()
                    continue
                if self.broken is not None and not self._more:
                    yield where, TraceError(where, self.broken)
                    return
                # A value that breaks past its first line is one record; a line that is not
                # JSON by itself ("[INFO] ...", a line cut short) is one line, as the next are.
                why = self._why(e) if text[pos] in "{[" else ""
                positioned = isinstance(e, json.JSONDecodeError)
                broken = bool(why) and (not positioned or "\n" in text[pos:cut])
                yield from self._resync(why, value=broken, opens=opens)
                continue
            if in_array and not seen_any:  # the elements' indentation: where records start
                opens = _opens(pos - (text.rfind("\n", 0, pos) + 1), in_array=True)
            seen_any = True
            if too_deep(value, RECORD_DEPTH):
                yield where, TraceError(where, too_deep_message())
            else:
                yield where, Parsed(value)
            self._line += text.count("\n", pos, end)
            self._pos = end

    def _why(self, e: ValueError) -> str:
        if not isinstance(e, json.JSONDecodeError):
            return str(e)
        if e.pos >= len(self._text) and not self._more:
            return "the file ends before it does"
        at = self._line + self._text.count("\n", self._pos, e.pos)
        column = e.pos - (self._text.rfind("\n", 0, e.pos) + 1) + 1
        return f"{e.msg} at line {at}, column {column}"

    def _resync(
        self, why: str, *, value: bool, opens: re.Pattern[str]
    ) -> Iterator[tuple[str, TraceError]]:
        """Past text that cannot be read, from `_pos` to the next line that opens a record (or
        the end): a record that breaks (`value`) is one error, naming its lines; stray lines
        are one error each, as in a file of JSON Lines."""
        first = last = self._line
        if not value:
            where = f"{self.label}:{first}"
            yield where, TraceError(where, _stray(why))
        end = self._line_end()
        while end < len(self._text):
            self._pos, self._line = end + 1, self._line + 1
            end = self._line_end()
            content = self._text[self._pos : end]
            if opens.match(content):
                break
            if content.strip():
                last = self._line
                if not value:
                    where = f"{self.label}:{last}"
                    yield where, TraceError(where, _stray(""))
        else:
            self._pos = len(self._text)
        if value:
            where = f"{self.label}:{first}"
            lines = f"line {first}" if last == first else f"lines {first}-{last}"
            reason = (
                f"a record over {lines} that cannot be read as JSON ({why}): skipped, and the "
                "records after it read"
            )
            yield where, TraceError(where, reason)

    def _line_end(self) -> int:
        """Where the line at `_pos` ends in `_text` (its newline, or the end of the input),
        reading on as needed; of a line longer than the bound only its start is kept."""
        while True:
            end = self._text.find("\n", self._pos)
            if end >= 0 or not self._more:
                return end if end >= 0 else len(self._text)
            if len(self._text) - self._pos > self.max_line:
                self._text, self._pos = self._text[self._pos : self._pos + 80], 0
            self._fill()

    def _skip_space(self, also: str) -> bool:
        """Past white space (and `also`, separators), reading on; False at the end."""
        while True:
            self._pos, self._line = _skip(self._text, self._pos, self._line, also)
            if self._pos < len(self._text):
                return True
            if not self._more:
                return False
            self._fill()

    def _fill(self) -> None:
        """The text from `_pos` on, and the stream's next block."""
        chunk = self._read_more()
        self._more = chunk is not None
        self._text, self._pos = self._text[self._pos :] + (chunk or ""), 0

    def _read_more(self) -> str | None:
        try:
            data = self.stream.read(BLOCK_BYTES)
        except READ_ERRORS as e:
            self.broken = f"the file cannot be read past this point: {e}"
            return None
        return self._decode(data) if data else None

    def _decode(self, data: bytes) -> str:
        return str(self.decoder.decode(data, final=not data))


STRAY = "the line is not JSON"


def _stray(why: str) -> str:
    """What a line among pretty-printed records that is not JSON is told (`why`: the parser's
    words, for a line that starts as JSON)."""
    return (
        f"{STRAY}{f' ({why})' if why else ''}: text among pretty-printed JSON records (a "
        "program's own output, say): skipped, and the records after it read"
    )


def _opens(indent: int, *, in_array: bool = False) -> re.Pattern[str]:
    """A line a record may start on, where records start at column `indent` (in an array, also
    the line that closes it)."""
    starts = r"{\[\]" if in_array else r"{\["
    return re.compile(rf"[ \t]{{0,{indent}}}[{starts}]")


_OPENS = _opens(0)


def _alone(text: str, pos: int) -> bool:
    """Whether the rest of the line from `pos` is blank (a `[` that opens an array of records,
    not a line such as `[INFO] ...`)."""
    return not text[pos : _line_end(text, pos)].strip()


def _line_end(text: str, pos: int) -> int:
    """Where the line at `pos` ends in `text`: its newline, or the end of the text."""
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def _skip(text: str, pos: int, line: int, also: str) -> tuple[int, int]:
    """Past white space (and `also`, separators), counting newlines."""
    while pos < len(text) and (text[pos] in " \t\r\n" or text[pos] in also):
        if text[pos] == "\n":
            line += 1
        pos += 1
    return pos, line


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
