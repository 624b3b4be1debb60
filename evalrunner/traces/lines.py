"""Trace inputs as lines: which files a path names, and each file's non-blank lines, numbered.

Inputs are `.jsonl` files, `.jsonl.gz` files, directories of them (recursive, sorted), or `-` for
standard input. Every way evalrun reads trace lines goes through here (`evalrun score` in one
process or many, `lint --traces`, `diff`, `suggest`, `audit`, Dask), so line numbers and read
errors are the same everywhere.

A file is read in blocks of whole lines (`read_blocks`), split into lines only where they are
graded (a worker under `--jobs`). Nothing is held beyond the current block, and a line longer than
the bound (`MAX_LINE_BYTES`, or `--max-line-bytes`) is skipped without being held: it is reported
in its place, as is the point where a file breaks off (a truncated gzip, a dropped connection).
A UTF-8 byte order mark at the start of a file is not part of its first line.

A file that is not JSON Lines but pretty-printed JSON (one JSON array of records, or JSON objects
one after another, as some exporters write them) is read record by record (`Documents`), each
known by the line it starts on. Text that is not JSON before, between or after the records (a
program's own output) is reported line by line, and reading goes on at the next record.

Records of a format whose runs span lines (OpenTelemetry spans) need to know where each run ends
in its file, whatever order its spans come in: `LastLines` is that pre-pass, a scan of the raw
bytes for trace ids, run on a second reading of the file (`TraceInput.last_lines`). Standard input
cannot be read twice: when its first block holds trace ids it is spooled to a temporary file,
and scanned while it is spooled.
"""

from __future__ import annotations

import codecs
import errno
import gzip
import json
import os
import re
import stat
import sys
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from ..jsonvalue import RECORD_DEPTH, loads, too_deep
from ..model import InputError, TraceError
from .own_results import is_results_record

TRACE_SUFFIXES = (".jsonl", ".jsonl.gz")
STDIN = "-"
BLOCK_BYTES = 2**20
MAX_LINE_BYTES = 64 * 2**20
"""The longest trace line read (64 MiB): a longer one is reported, never held in memory."""
MAX_EXPANDED_BYTES = 16 * 2**30
"""The most a `.gz` trace file may expand to (16 GiB; `--max-expanded-bytes`): a megabyte of
gzip can hold a gigabyte of blank lines, and a small file that expands without end is a bomb.
Past it the file is reported unscoreable at the line reached, and reading goes on with the next
file."""
BOM = b"\xef\xbb\xbf"
_READ_ERRORS = (OSError, EOFError, zlib.error)


@dataclass(frozen=True, slots=True)
class Parsed:
    """A record already decoded (read from a pretty-printed file), in a line's place."""

    value: Any


@dataclass(frozen=True)
class Skipped:
    """A file under a traces directory that is not read, and why."""

    path: str
    why: str

    def __str__(self) -> str:
        return f"{path_text(self.path)}: {self.why}"


# ------------------------------------------------------------------------------------- files


def trace_files(
    paths: Iterable[str | Path],
    *,
    skipped: list[Skipped] | None = None,
    exclude: Iterable[str | Path] = (),
) -> list[str]:
    """The trace inputs named by `paths`, directories expanded (recursive, sorted); `-` is stdin.

    A file named explicitly is read whatever its name. Under a directory, `.jsonl` and
    `.jsonl.gz` files are read, except a file of evalrun's own results and those in `exclude`;
    every other file is left out and, with `skipped`, named there with the reason, as is a link
    that leads nowhere.
    """
    excluded = {_real(p) for p in exclude}
    found: list[str] = []
    for path in paths:
        name = str(path)
        if name == STDIN:
            found.append(STDIN)
            continue
        p = Path(path)
        if p.is_dir():
            found.extend(_walk(p, skipped, excluded))
        elif p.exists():  # a file, or a named pipe (`<(zcat runs.gz)`)
            found.append(name)
        elif p.is_symlink():
            raise InputError(f"trace path {name!r} is a link to nothing ({_link_target(p)})")
        elif not p.exists():
            hint = ""
            if name.lower() in ("true", "false", "yes", "no", "on", "off", "0", "1"):
                hint = "; flags such as --strict take no value"
            raise InputError(
                f"trace file or directory {name!r} does not exist (name a trace file or "
                f"directory, or - for standard input{hint})"
            )
    return _once(found, skipped)


def _once(found: list[str], skipped: list[Skipped] | None) -> list[str]:
    """Each file read once: the same file named twice (or by a folder and by name, or through
    a link) would count its runs twice."""
    seen: set[str] = set()
    out = []
    for name in found:
        key = name if name == STDIN else _real(name)
        if key in seen:
            if skipped is not None:
                skipped.append(Skipped(name, "named more than once: read once"))
            continue
        seen.add(key)
        out.append(name)
    return out


def _walk(root: Path, skipped: list[Skipped] | None, excluded: set[str]) -> list[str]:
    found: list[Path] = []
    try:
        entries = sorted(root.rglob("*"), key=lambda f: f.as_posix())
    except OSError as e:
        raise InputError(f"cannot read traces directory {str(root)!r}: {e.strerror or e}") from None
    for f in entries:
        try:
            is_file, is_dir = f.is_file(), f.is_dir()
        except OSError as e:  # a link that loops
            is_file = is_dir = False
            if skipped is not None:
                skipped.append(Skipped(str(f), f"cannot be read ({e.strerror or e})"))
            continue
        if is_dir or (excluded and _real(f) in excluded):
            continue
        if not is_file:
            if skipped is not None:
                skipped.append(Skipped(str(f), _why_not_a_file(f)))
            continue
        if f.name.endswith(TRACE_SUFFIXES):
            # A results file is read all the same, each record an unscoreable line of its own
            # (the reader knows them): a trace taken for results is never dropped unseen, and
            # --strict, the headline and diff count what was left out.
            if skipped is not None and _holds_results(f):
                skipped.append(Skipped(str(f), RESULTS_FILE))
            found.append(f)
        elif skipped is not None and not f.name.startswith("."):
            skipped.append(Skipped(str(f), _why_not_read(f)))
    return [str(f) for f in found]


def read_under(path: str | Path, inputs: Iterable[str | Path]) -> str | None:
    """The input directory under which the existing file `path` would be read as traces (its
    name ends in a trace suffix and it does not hold evalrun's results), else None: writing an
    output there would destroy a trace file."""
    p = Path(path)
    if not p.is_file() or not p.name.endswith(TRACE_SUFFIXES) or _holds_results(p):
        return None
    return next((str(n) for n in inputs if str(n) != STDIN and inside(p, Path(n))), None)


def inside(path: Path, folder: Path) -> bool:
    """Whether `path` (existing or not) lies under the directory `folder`, links resolved."""
    return folder.is_dir() and Path(_real(path)).is_relative_to(_real(folder))


RESULTS_FILE = (
    "evalrun's own results (score --format jsonl), not runs: its records are counted "
    "unscoreable, not scored; keep results out of the traces"
)
RESULTS_HEAD = 1 << 20
"""How much of a file is read to tell whether its first record is a results record."""


def _holds_results(f: Path) -> bool:
    """Whether a file's first record is one of evalrun's results records, by its structure
    (`own_results`): the words `"verdict"` or `"reported"` in a run's data do not make one."""
    try:
        with open_trace(str(f)) as stream:
            head = stream.read(RESULTS_HEAD)
    except (InputError, *_READ_ERRORS):
        return False  # read in its turn, where the error is reported with its line
    if head.startswith(BOM):
        head = head[len(BOM) :]
    for line in head.split(b"\n"):
        if line.strip():
            try:
                return is_results_record(loads(line))
            except ValueError:
                return False  # not JSON, or cut short by the head: read as a trace
    return False


def _real(p: str | Path) -> str:
    try:
        return str(Path(p).resolve())
    except (OSError, RuntimeError):  # a link loop: Python 3.11's resolve() raises RuntimeError
        return str(p)


def _why_not_read(f: Path) -> str:
    if f.name.endswith((".json", ".json.gz")):
        return (
            "a .json file, not read: traces are JSON Lines (.jsonl, one record a line); "
            "rename it to .jsonl, or name the file itself to read it"
        )
    return "not a trace file (.jsonl or .jsonl.gz), not read"


def _why_not_a_file(f: Path) -> str:
    """Why an entry of a traces folder that is neither a file nor a folder is not read."""
    try:
        mode = f.stat().st_mode
    except OSError as e:
        if f.is_symlink():
            if e.errno == errno.ELOOP:
                return f"a link that loops, not read ({_link_target(f)})"
            return f"a link to nothing ({_link_target(f)})"
        return f"cannot be read ({e.strerror or e})"
    what = (
        "a named pipe (FIFO)"
        if stat.S_ISFIFO(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "not a regular file"
    )
    if f.is_symlink():
        what = f"a link to {what} ({_link_target(f)})"
    return f"{what}, not read under a folder: name it to read it"


def _link_target(p: Path) -> str:
    try:
        return f"it points to {p.readlink()}"
    except OSError:
        return "it cannot be followed"


# ------------------------------------------------------------------------------------- lines


def open_trace(
    name: str, stdin: BinaryIO | None = None, *, max_expanded: int = MAX_EXPANDED_BYTES
) -> Any:
    """The binary stream of a trace input (decompressed for `.gz`); InputError if it cannot be
    opened. Use it in a `with`: standard input is left open.

    Standard input whose first block holds trace ids is spooled to a temporary file (deleted on
    close) and scanned on the way (`Spooled.last_lines`), so that spans in any order can be
    grouped; anything else is streamed."""
    if name == STDIN:
        return _spool_spans(stdin if stdin is not None else sys.stdin.buffer)
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
    while True:
        try:
            data = read(block_bytes)
        except _READ_ERRORS as e:
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
            pretty = _pretty(head, eof=eof, limit=min(max_line, BLOCK_BYTES))
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


# ------------------------------------------------------------------------- pretty-printed JSON


def _pretty(data: bytes, *, eof: bool = True, limit: int = BLOCK_BYTES) -> bool | None:
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
        except _READ_ERRORS as e:
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


# --------------------------------------------------------------------- where each trace ends

# A trace id as the span formats write it: OTLP's "traceId", the Python SDK's and OpenAI Agents'
# "trace_id" (any key spelled so), and an OpenAI Agents trace object's own "id": "trace_...".
# The key and its value stand on one line in every exporter's output, pretty-printed or not.
_TRACE_ID = re.compile(
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
        for m in _TRACE_ID.finditer(block):
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
            except _READ_ERRORS:
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


class Spooled:
    """Standard input copied to a temporary file (deleted on close), scanned on the way."""

    def __init__(self, spool: Any, last_lines: LastLines) -> None:
        self.spool = spool
        self.last_lines = last_lines

    def __enter__(self) -> Any:
        return self.spool

    def __exit__(self, *exc: object) -> None:
        self.spool.close()


def _spool_spans(stdin: BinaryIO) -> Any:
    """Standard input, spooled (`Spooled`) when its first block holds trace ids, else streamed."""
    read = getattr(stdin, "read1", stdin.read)
    try:
        head = read(BLOCK_BYTES)
    except _READ_ERRORS:
        head = b""
    if not _TRACE_ID.search(head):
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
        except _READ_ERRORS:
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


def too_deep_message() -> str:
    return (
        f"the record is nested more than {RECORD_DEPTH} levels deep; evalrun reads records up "
        f"to {RECORD_DEPTH} levels (skipped)"
    )
