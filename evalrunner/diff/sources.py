"""The two sides of a diff: results files, trace sets scored now, and git revisions.

A path that exists wins over a revision of the same name; `-` is standard input. Each side is read
into a `Side`: which reading was used, the score summary, and one `RunView` per run.

Every input is opened once and read once: a pipe or a FIFO (`evalrun score -f json | evalrun diff
- old.json`, `diff <(…) new.json`) cannot be read again, so the lines read to tell what a file holds
are kept and read again from memory.
"""

from __future__ import annotations

import gzip
import io
import sys
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO, Literal

from ..grade.grader import PER_CALL, REPORTED_READINGS
from ..jsonvalue import loads
from ..model import InputError, TraceError
from ..scoring import Config, load_config, score
from ..traces import AUTO, STDIN, TRACE_SUFFIXES, Reading, detect
from ..write import Encoder
from ..write.results import run_to_json
from .git import checkout, is_revision
from .views import RESULTS_HELP, RunStore, RunView

Relabel = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Side:
    """One side of a diff, read and scored."""

    kind: Literal["results", "traces", "revision"]
    source: str
    """Which reading was used, in words: `results file old.json`, `git revision HEAD~1 (3f2c1aa)`."""
    summary: dict[str, Any] = field(repr=False)
    """The score summary (SPEC "Results JSON")."""
    runs: tuple[RunView, ...] = field(repr=False)
    commit: str | None = None
    """For a revision: the commit it resolved to."""

    @property
    def n_runs(self) -> int:
        return len(self.runs)

    def failed(self, check: Literal["reported", "true"]) -> int:
        if check == "reported":
            return sum(not r.reported_pass for r in self.runs)
        return sum(not r.true_pass for r in self.runs)

    def to_json(self) -> dict[str, Any]:
        out = {"kind": self.kind, "source": self.source, "summary": self.summary}
        if self.commit is not None:
            out["commit"] = self.commit
        return out


class Loader:
    """Reads sides; the current tools and cases are loaded once, when a trace side needs them.

    `tools`, `cases` and `traces` are relative to `base` (default: the current directory); for a
    git revision they are the same paths inside the revision.
    """

    def __init__(
        self,
        tools: Path,
        cases: Path,
        traces: Path,
        base: Path | None,
        *,
        reading: Reading | None = None,
        stdin: BinaryIO | None = None,
        group_by: str | None = None,
        reported: str = PER_CALL,
        case_format: str = "auto",
    ) -> None:
        self.tools, self.cases, self.traces, self.base = tools, cases, traces, base
        self.reading = reading or Reading()
        self.group_by = group_by
        """`diff --group-by`: trace sides are scored with it; a results side must have been."""
        self.reported = reported
        """`diff --reported`: how the sides scored here read the reported check."""
        self.case_format = case_format
        """`diff --case-format`: how the case files of a side scored here are written."""
        self.stdin = stdin
        self._config: Config | None = None

    def _at(self, p: Path) -> Path:
        return p if self.base is None or p.is_absolute() else self.base / p

    def config(self) -> Config:
        if self._config is None:
            self._config = load_config(
                self._at(self.tools),
                self._at(self.cases),
                reported=self.reported,
                case_format=self.case_format,
            )
        return self._config

    def load(self, spec: str, which: str) -> Side:
        side = self._load(spec, which)
        if self.group_by is not None and side.kind == "results":
            had = side.summary.get("group_by")
            if had != self.group_by:
                said = f"with --group-by {had}" if isinstance(had, str) else "without --group-by"
                raise InputError(
                    f"{which} ({spec}) is a results file scored {said}: its runs have no group "
                    f"by {self.group_by}; score it again with --group-by {self.group_by}, or "
                    "compare trace sets or revisions"
                )
        return side

    def _load(self, spec: str, which: str) -> Side:
        if not spec:
            raise InputError(f"{which} is empty: give a results file, a trace path or a revision")
        if spec == STDIN:
            stream = self.stdin if self.stdin is not None else sys.stdin.buffer
            return self._read(spec, None, stream)
        path = self._at(Path(spec))
        if path.exists():
            side = self._load_path(spec, path)
            if is_revision(spec, self.base):
                note = "(a path; the git revision of the same name was not used)"
                side = replace(side, source=f"{side.source} {note}")
            return side
        return self._load_revision(spec)

    def _load_path(self, spec: str, path: Path) -> Side:
        if path.is_dir():
            return self._score_traces(spec, path)
        try:
            stream = _open(path)
        except OSError as e:
            raise InputError(f"{spec}: cannot open: {e.strerror or e}") from None
        with stream:
            return self._read(spec, path, stream)

    def _read(self, spec: str, path: Path | None, stream: BinaryIO) -> Side:
        """A results or trace file, from `stream`, read once; `path` None for standard input."""
        regular = path is not None and path.is_file()
        with _read_errors(spec):
            if not regular:
                stream = _gunzip(stream)  # a pipe has no name to tell: look at its first bytes
            head = _Head(stream)
            trace_name = path is not None and path.name.endswith(TRACE_SUFFIXES)
            traces = trace_name or self.reading.trace_format != AUTO
            kind, doc = _sniff(head, spec, traces=traces)
            named = "on standard input" if path is None else spec
            if kind == "json":
                head.lines.clear()  # the document's text, parsed: not kept beside its objects
                summary, runs = _document(doc, spec, RunStore())
                return Side("results", f"results file {named}", summary, runs)
            if kind == "jsonl":
                summary, runs = _jsonl(head.replay(), spec, RunStore())
                return Side("results", f"results file (jsonl) {named}", summary, runs)
        if regular:
            return self._score_traces(spec, path)
        return self._score_traces(spec, path, stream=head.replay())

    def _score_traces(self, spec: str, path: Path | None, stream: BinaryIO | None = None) -> Side:
        config = self.config()
        if stream is None:
            assert path is not None
            summary, runs = _score(config, path, self.reading, group_by=self.group_by)
        elif path is None:
            summary, runs = _score(config, None, self.reading, stdin=stream, group_by=self.group_by)
        else:
            # a pipe is scored as standard input would be; its lines are named by its path
            relabel = _relabeller("<stdin>", plain=spec, label=spec)
            summary, runs = _score(
                config, None, self.reading, relabel=relabel, stdin=stream, group_by=self.group_by
            )
        what = (
            "trace directory"
            if path is not None and path.is_dir()
            else "trace file"
            if path is not None
            else "traces on standard input"
        )
        named = what if path is None else f"{what} {spec}"
        source = f"{named}, scored with the current tools ({self.tools}) and cases ({self.cases})"
        return Side("traces", source, summary, runs)

    def _load_revision(self, spec: str) -> Side:
        wanted = [self.tools, self.cases, self.traces]
        with checkout(spec, wanted, self.base) as (sha, tmp, paths):
            tools, cases, traces = paths
            # `REV:evals/traces/a.jsonl:3`, as git names a file at a revision: from the root
            named = f"{spec}:{traces.relative_to(tmp).as_posix()}"
            relabel = _relabeller(str(traces), plain=self.traces.as_posix(), label=named)
            try:
                config = load_config(
                    tools, cases, reported=self.reported, case_format=self.case_format
                )
                summary, runs = _score(
                    config, traces, self.reading, relabel=relabel, group_by=self.group_by
                )
            except InputError as e:
                # name the revision's files the way git does, not by the temporary extraction
                raise InputError(str(e).replace(f"{tmp}/", f"{spec}:")) from None
        rels = [p.relative_to(tmp).as_posix() for p in paths]
        source = (
            f"git revision {spec} ({sha[:12]}): its {rels[0]}/, {rels[1]}/ and {rels[2]}/ "
            "read raw from git"
        )
        return Side("revision", source, summary, runs, commit=sha)


def reading_of(side: Side) -> str:
    """How a side's reported check read its runs: what its summary says; a results file written
    before there was a choice read them per call."""
    found = side.summary.get("reported_reading")
    return found if found in REPORTED_READINGS else PER_CALL


def same_reading(old: tuple[str, Side], new: tuple[str, Side], reported: str) -> None:
    """Both sides' reported checks read runs alike, or an InputError that says how to make them:
    a results file scored with --reported list against traces scored per call would flip every
    run with a repeat, and move the reported rate by the reading alone (on the example corpus,
    969 flips and 24 points)."""
    (old_spec, a), (new_spec, b) = old, new
    ra, rb = reading_of(a), reading_of(b)
    if ra == rb:
        return
    said = [
        f"{which} ({spec}) is a results file scored with --reported {r}"
        if side.kind == "results"
        else f"{which} ({spec}) is scored with --reported {r}"
        for which, spec, side, r in (("OLD", old_spec, a, ra), ("NEW", new_spec, b, rb))
    ]
    results = [r for side, r in ((a, ra), (b, rb)) if side.kind == "results"]
    fix = (
        f"give --reported {results[0]} to score the other side alike"
        if len(results) == 1
        else "score one of them again with the other's --reported"
    )
    raise InputError(
        f"{said[0]}, {said[1]}: the reported verdicts would compare two readings of exact-match, "
        f"not two scorings; {fix}"
    )


def _score(
    config: Config,
    traces: Path | None,
    reading: Reading,
    *,
    relabel: Relabel | None = None,
    stdin: BinaryIO | None = None,
    group_by: str | None = None,
) -> tuple[dict[str, Any], tuple[RunView, ...]]:
    """Score `traces` (or, when None, `stdin`) as `evalrun score` would: the one place a diff
    scores, so that it reads traces exactly as `score` does."""
    views = _Views(relabel)
    summary = score(
        config,
        [traces if traces is not None else STDIN],
        reading=reading,
        writer=views,
        stdin=stdin,
        group_by=group_by,
    ).to_json()
    runs = views.runs
    if relabel is not None:
        for example in summary.get("examples", {}).values():
            if isinstance(example, dict) and "source" in example:
                fields = {"source": example["source"], "run_id": example.get("run_id")}
                example.update(relabel(fields))
    return summary, tuple(runs)


class _Views:
    """A writer that keeps each scored run as a `RunView` (its explanation in a compressed store)."""

    def __init__(self, relabel: Relabel | None) -> None:
        self.encoder: Encoder | None = list
        self.relabel = relabel
        self.store = RunStore()
        self.runs: list[RunView] = []

    def write(self, items: list[Any]) -> None:
        for item in items:
            if not isinstance(item, TraceError):
                d = run_to_json(item)
                if self.relabel is not None:
                    d = self.relabel(d)
                self.runs.append(RunView.from_json(d, d["source"], self.store))

    def close(self, summary: Any) -> None:
        pass


def _relabeller(prefix: str, *, plain: str, label: str) -> Relabel:
    """Sources that start with `prefix` (a temporary extraction, `<stdin>`) start with `label`.

    A run without a `run_id` is known by its source; it gets `plain` instead, so that the same
    line at two revisions is the same run.
    """

    def relabel(d: dict[str, Any]) -> dict[str, Any]:
        source = d.get("source")
        if not isinstance(source, str) or not source.startswith(prefix):
            return d
        rest = source[len(prefix) :]
        if rest and rest[0] not in "/\\:":
            return d  # `traces2/…` is not under `traces`
        rest = rest.lstrip("/\\")
        glue = "" if not rest or rest.startswith(":") else "/"
        d = dict(d)
        if d.get("run_id") == source:
            d["run_id"] = plain + glue + rest
        d["source"] = label + glue + rest
        return d

    return relabel


# ---------------------------------------------------------------------------- results files


def _open(path: Path) -> BinaryIO:
    if path.name.endswith(".gz"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb")


def _gunzip(stream: BinaryIO) -> BinaryIO:
    """`stream`, decompressed when it starts as gzip does."""
    magic = stream.read(2)
    again: BinaryIO = io.BufferedReader(_Replay(magic, stream))
    if magic == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=again, mode="rb")  # type: ignore[return-value]
    return again


class _Head:
    """The start of a stream, kept as it is read, so that the whole stream can be read again."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.lines: list[bytes] = []

    def first_line(self) -> bytes | None:
        """The first line that is not blank (None when there is none)."""
        for line in self.stream:
            self.lines.append(line)
            if line.strip():
                return line
        return None

    def rest(self) -> bytes:
        """What follows the lines read so far."""
        return self.stream.read()

    def whole(self) -> bytes:
        """Everything, from the first byte (the lines read so far are no longer kept)."""
        head, self.lines = b"".join(self.lines), []
        return head + self.rest()

    def replay(self) -> BinaryIO:
        """The whole stream again, from its first byte: the kept lines, then the rest."""
        return io.BufferedReader(_Replay(b"".join(self.lines), self.stream))


@contextmanager
def _read_errors(spec: str) -> Iterator[None]:
    """A stream that breaks off (a truncated gzip, a closed pipe) is unusable input."""
    try:
        yield
    except (OSError, EOFError, zlib.error) as e:
        raise InputError(f"{spec}: cannot read: {e}") from None


class _Replay(io.RawIOBase):
    """`head`, then what is left of `rest`."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = memoryview(head)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _sniff(
    head: _Head, spec: str, *, traces: bool
) -> tuple[Literal["json", "jsonl", "traces"], Any]:
    """What the stream holds, from its first line (with the parsed document, for `json`).

    A results file is recognized by its keys, a trace file by its first record's shape in any
    trace format. When `traces` (a `.jsonl` name, or a `--trace-format` given), a file that is
    not a results file is a trace file, whatever its lines hold: the trace reader reads it, or
    lists each line it cannot score. InputError when it is none of them.
    """

    def bad(why: str) -> InputError:
        return InputError(f"{spec}: not an evalrun results file ({why}); {RESULTS_HELP}")

    first = head.first_line()
    if first is None:
        if traces:
            return "traces", None  # an empty trace file: zero runs, as `evalrun score` reads it
        raise bad("the file is empty")
    laid = _Laid.out(first)
    if laid is not None:  # as `evalrun score --format json` writes it: read a run at a time
        if head.rest().strip():
            raise InputError(f"{spec}: not an evalrun results file; {RESULTS_HELP}")
        return "json", laid
    whole = False
    try:
        value = loads(first)
    except ValueError:
        if traces:
            return "traces", None
        value, whole = _parse(head.whole()), True  # a results document, pretty-printed
        if value is None:
            raise bad("its first line is not JSON") from None
    if type(value) is not dict:
        if traces:
            return "traces", None
        raise bad("it is not a JSON object")
    keys = value.keys()
    if {"evalrun", "runs", "summary"} <= keys:
        if not whole and head.rest().strip():
            raise InputError(f"{spec}: not an evalrun results file; {RESULTS_HELP}")
        return "json", value
    if "verdict" in keys and "run_id" in keys:
        return "jsonl", None
    if {"errors", "summary"} <= keys and "calls" not in keys:
        return "jsonl", None  # the summary line of a run-less jsonl results file
    if traces or detect(value) is not None:
        return "traces", None
    shown = ", ".join(sorted(map(str, keys))[:6]) or "none"
    raise bad(f"a JSON object with keys {shown}")


def _parse(data: bytes) -> Any:
    try:
        return loads(data)
    except ValueError:
        return None


@dataclass(frozen=True)
class _Laid:
    """A results document laid out as `evalrun score --format json` writes it, on one line with
    its keys sorted: `{"errors":[…],"evalrun":…,"runs":[{"calls":…},{"calls":…}],"summary":{…}}`.

    Its runs are parsed one at a time, as a JSONL file's are: parsed whole, 400,000 runs made
    1.8 GB of objects out of 209 MB of text. Anything else is parsed whole.
    """

    outline: dict[str, Any]
    """The document without its runs."""
    text: bytes
    start: int
    """Where the runs begin in `text` and where they end."""
    end: int

    RUNS, SUMMARY, NEXT = b',"runs":[', b'],"summary":', b'},{"calls":'

    @classmethod
    def out(cls, text: bytes) -> _Laid | None:
        if not text.startswith(b'{"errors":['):
            return None
        start, end = text.find(cls.RUNS), text.rfind(cls.SUMMARY)
        if start < 0 or end < start + len(cls.RUNS):
            return None
        outline = _parse(text[:start] + text[end + 1 :])
        if type(outline) is not dict or not {"evalrun", "summary"} <= outline.keys():
            return None
        return cls(outline, text, start + len(cls.RUNS), end)

    def runs(self, spec: str) -> Iterator[tuple[bytes, Any]]:
        """Each run's text and its value, in order.

        A run ends where the next begins, `},{"calls":`; the same bytes can stand inside a run
        (a list of objects whose second has a key "calls"), but never inside a string, where a
        quote is escaped. Cut there, the text before is never JSON (the run's own braces are
        still open), so a piece that does not parse runs on to the next cut.
        """
        text, at, search, end = self.text, self.start, self.start, self.end
        while at < end:
            cut = text.find(self.NEXT, search, end)
            stop = end if cut < 0 else cut + 1
            piece = text[at:stop]
            try:
                value = loads(piece)
            except ValueError as e:
                if cut < 0:
                    raise InputError(f"{spec}: a run is not JSON ({e}); {RESULTS_HELP}") from None
                search = stop
                continue
            yield piece, value
            at = search = stop + 1


def _document(
    doc: dict[str, Any] | _Laid, spec: str, store: RunStore
) -> tuple[dict[str, Any], tuple[RunView, ...]]:
    """The summary and runs of a results document (`evalrun score --format json`)."""
    if isinstance(doc, _Laid):
        pieces = enumerate(doc.runs(spec))
        views = tuple(
            RunView.from_json(v, f"{spec}: run {i}", store, raw=r) for i, (r, v) in pieces
        )
        return _check_summary(doc.outline["summary"], spec), views
    found = doc["runs"]
    if type(found) is not list:
        raise InputError(f'{spec}: not an evalrun results file ("runs" is not a list)')
    runs = []
    for i in range(len(found)):
        # each run's objects are let go as soon as it is kept: memory peaks at the document's
        # size, not at twice it
        run, found[i] = found[i], None
        runs.append(RunView.from_json(run, f"{spec}: run {i}", store))
    return _check_summary(doc["summary"], spec), tuple(runs)


def _jsonl(
    stream: BinaryIO, spec: str, store: RunStore
) -> tuple[dict[str, Any], tuple[RunView, ...]]:
    """The runs and summary of a JSONL results file (`evalrun score --format jsonl`)."""
    runs: list[RunView] = []
    summary = None
    for number, line in _numbered(stream):
        where = f"{spec}:{number}"
        if summary is not None:
            raise InputError(f"{where}: a line after the summary line; {RESULTS_HELP}")
        try:
            value = loads(line)
        except ValueError as e:
            raise InputError(f"{where}: not JSON ({e}); {RESULTS_HELP}") from None
        if type(value) is dict and "summary" in value and "run_id" not in value:
            summary = _check_summary(value["summary"], where)
        else:
            runs.append(RunView.from_json(value, where, store, raw=line))
    if summary is None:
        raise InputError(
            f"{spec}: this jsonl results file ends without its summary line (cut short?); "
            "write it again with `evalrun score --format jsonl`"
        )
    return summary, tuple(runs)


def _numbered(stream: BinaryIO) -> Iterator[tuple[int, bytes]]:
    for number, line in enumerate(stream, start=1):
        if line.strip():
            yield number, line


def _check_summary(summary: Any, where: str) -> dict[str, Any]:
    ok = (
        type(summary) is dict
        and type(summary.get("runs")) is int
        and all(
            type(summary.get(check)) is dict and type(summary[check].get("failed_runs")) is int
            for check in ("reported", "true")
        )
    )
    if not ok:
        raise InputError(
            f'{where}: not an evalrun results file (its "summary" lacks runs and failed_runs); '
            f"{RESULTS_HELP}"
        )
    checked: dict[str, Any] = summary
    return checked
