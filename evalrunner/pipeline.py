"""Files -> model -> grades -> summary: the scoring job as one library call.

`load_config` reads and checks everything that must be right before any run is graded (an error
there is unusable input); `score` streams the traces through the grader, hands each result to a
sink (the report writer) and returns the merged summary.
"""

from __future__ import annotations

import multiprocessing
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, islice
from pathlib import Path
from typing import Any, BinaryIO

from .adapters import TraceFormat, TraceReader
from .cases import load_cases
from .model import Case, InputError, Run, Tool, TraceError
from .norms import Normalizer, load_registry
from .score import Grader, RunResult
from .summary import Summary
from .tools import load_tools
from .traces import STDIN, iter_lines, trace_files

Sink = Callable[[RunResult | TraceError], None]
PROGRESS_EVERY = 2000


@dataclass(frozen=True)
class Config:
    """Tools, cases and normalizers, checked and ready to grade with."""

    tools: dict[str, Tool]
    cases: dict[str, Case]
    registry: dict[str, Normalizer] = field(repr=False)
    grader: Grader = field(repr=False, compare=False)


def load_config(tools_dir: str | Path, cases_dir: str | Path) -> Config:
    """Read tools and cases and compile every rule; InputError for anything unusable."""
    registry = load_registry()
    tools = load_tools(tools_dir)
    cases = load_cases(cases_dir)
    return Config(tools, cases, registry, Grader(tools, cases, registry=registry))


def score(
    config: Config,
    paths: Iterable[str | Path],
    *,
    sink: Sink | None = None,
    stdin: BinaryIO | None = None,
    progress: Callable[[int], None] | None = None,
    trace_format: TraceFormat | str = TraceFormat.auto,
    case_key: str | None = None,
    run_key: str | None = None,
) -> Summary:
    """Grade every run in `paths`, in order, and return their summary.

    Each result (or unscoreable line) goes to `sink` as soon as it is graded; `progress` is told
    how many lines have been read, now and then. `trace_format` (detected per line by default)
    and `case_key`/`run_key` (where the ids live) say how to read the traces: see adapters.py.
    """
    reader = TraceReader(trace_format, case_key=case_key, run_key=run_key)
    files = trace_files(paths)
    summary = Summary.for_tools(config.tools)
    grade = config.grader.grade_record
    n = 0
    for file_no, name in enumerate(files):
        for line_no, item in enumerate(reader.records(iter_lines(name, stdin=stdin))):
            result = item if type(item) is TraceError else grade(*item)
            summary.add(result, (file_no, line_no))
            if sink is not None:
                sink(result)
            n += 1
            if progress is not None and n % PROGRESS_EVERY == 0:
                progress(n)
    return summary.finish()


# --------------------------------------------------------------------------------- in parallel

BATCH_LINES = 2000
BATCH_BYTES = 2**20
IN_FLIGHT = 4
"""Batches out at once per worker: enough to keep every worker busy, few enough to keep memory flat."""


def score_parallel(
    config: Config,
    paths: Iterable[str | Path],
    *,
    jobs: int,
    sink: Callable[[Any], None] | None = None,
    encode: Callable[[list[RunResult | TraceError]], Any] | None = None,
    stdin: BinaryIO | None = None,
    progress: Callable[[int], None] | None = None,
    trace_format: TraceFormat | str = TraceFormat.auto,
    case_key: str | None = None,
    run_key: str | None = None,
) -> Summary:
    """`score` on `jobs` worker processes: the same summary, the same results in the same order.

    This process reads the trace lines (with `score`'s own reader, so line numbers and read errors
    are the same) and deals them out in batches, large files included; each worker grades a batch
    with the config it was given once and summarizes it under the same (file, record) order keys,
    and the summaries merge exactly. Results reach `sink` here, one at a time, in input order.
    `encode`, when given, runs in the worker on each batch of results (a list, in input order),
    and `sink` receives what it returns, once a batch: rendering there, into a few large objects,
    keeps this process, which only writes, from becoming the bottleneck (unpickling a RunResult
    costs more than grading it). It must be picklable (a module-level function, or a partial).
    """
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    reader = TraceReader(trace_format, case_key=case_key, run_key=run_key)
    if jobs == 1 or reader.format is TraceFormat.otel:
        # OpenTelemetry spans are grouped into runs across lines and files: one reader reads them.
        deliver = sink if sink is None or encode is None else lambda r: sink(encode([r]))
        return score(
            config,
            paths,
            sink=deliver,
            stdin=stdin,
            progress=progress,
            trace_format=trace_format,
            case_key=case_key,
            run_key=run_key,
        )
    files = trace_files(paths)
    summary = Summary.for_tools(config.tools)
    grade = config.grader.grade_record
    batches = _Batches(files, stdin)
    pending: deque[tuple[_Batch, Any]] = deque()
    lines = 0

    def emit(part: Summary, results: Any, n: int) -> None:
        nonlocal lines
        summary.merge(part)
        if sink is not None and encode is not None:
            sink(results)
        elif sink is not None:
            for r in results:
                sink(r)
        if progress is not None and (lines + n) // PROGRESS_EVERY > lines // PROGRESS_EVERY:
            progress(lines + n)
        lines += n

    def read_here(batch: _Batch) -> None:
        """A batch with OpenTelemetry spans: this file, from here on, is read in this process."""
        parts = [batch.lines()]
        while pending and pending[0][0].file_no == batch.file_no:
            parts.append(pending.popleft()[0].lines())  # a worker's reading of it is dropped
        parts.extend(b.lines() for b in batches.rest_of(batch.file_no))
        part, results, count = Summary.for_tools(config.tools), [], 0
        items = reader.records(chain.from_iterable(parts))
        for n, item in enumerate(items, start=batch.first):
            result = item if type(item) is TraceError else grade(*item)
            part.add(result, (batch.file_no, n))
            results.append(result)
            count += 1
            if count == BATCH_LINES:
                emit(part, results if encode is None else encode(results), count)
                part, results, count = Summary.for_tools(config.tools), [], 0
        emit(part, results if encode is None else encode(results), count)

    def drain() -> None:
        batch, job = pending.popleft()
        done = job.get()
        if done is None:
            read_here(batch)
        else:
            emit(done[0], done[1], batch.count)

    setup = (config, (trace_format, case_key, run_key), encode, sink is not None)
    with multiprocessing.get_context().Pool(jobs, _start_worker, setup) as pool:
        for batch in batches:
            if isinstance(batch, InputError):  # a file that cannot be opened, in its turn
                while pending:
                    drain()
                raise batch
            pending.append((batch, pool.apply_async(_grade_batch, (batch,))))
            if len(pending) >= jobs * IN_FLIGHT:
                drain()
        while pending:
            drain()
    return summary.finish()


@dataclass(frozen=True, slots=True)
class _Batch:
    file_no: int
    first: int
    """The record number of its first line in the file."""
    count: int
    """How many records (lines that are not blank) it holds."""
    pairs: list[tuple[str, Any]] | None = None
    """(`file:line`, bytes) as `traces.iter_lines` gives them: stdin and compressed files."""
    block: tuple[str, int, bytes] | None = None
    """A plain file's whole lines as read, with its label and the number of its first line: the
    worker splits them, so that this process, which also writes, does no work per line."""

    def lines(self) -> Iterator[tuple[str, Any]]:
        """(`file:line`, bytes) for each line that is not blank, as `traces.iter_lines` gives."""
        if self.block is None:
            return iter(self.pairs or ())
        return _block_lines(*self.block)


def _block_lines(label: str, number: int, data: bytes) -> Iterator[tuple[str, bytes]]:
    lines = data.split(b"\n")
    last = lines.pop()  # what follows the last newline: nothing, or a last line without one
    for line in lines:
        if line.strip():
            yield f"{label}:{number}", line + b"\n"
        number += 1
    if last.strip():
        yield f"{label}:{number}", last


_BLANK = re.compile(rb"\n[ \t\r\x0b\x0c]*(?=\n|\Z)")


def _blank_lines(block: bytes) -> int:
    """How many lines of `block` are blank (`line.strip()` is empty), counted without a loop."""
    text = b"\n" + (block[:-1] if block.endswith(b"\n") else block)
    return len(_BLANK.findall(text))


class _Batches:
    """Every input's lines in batches, in order; an InputError in the place its file would be."""

    def __init__(self, files: list[str], stdin: BinaryIO | None) -> None:
        self._it = self._read(files, stdin)
        self._back: _Batch | InputError | None = None

    def __iter__(self) -> Iterator[_Batch | InputError]:
        return self

    def __next__(self) -> _Batch | InputError:
        if self._back is not None:
            batch, self._back = self._back, None
            return batch
        return next(self._it)

    def rest_of(self, file_no: int) -> Iterator[_Batch]:
        """The batches left of file `file_no`; the next file's stay for the caller."""
        for batch in self:
            if not isinstance(batch, _Batch) or batch.file_no != file_no:
                self._back = batch
                return
            yield batch

    @classmethod
    def _read(cls, files: list[str], stdin: BinaryIO | None) -> Iterator[_Batch | InputError]:
        for file_no, name in enumerate(files):
            try:
                if name == STDIN or name.endswith(".gz"):
                    yield from cls._lines(file_no, name, stdin)
                else:
                    yield from cls._blocks(file_no, name)
            except InputError as e:
                yield e
                return

    @staticmethod
    def _lines(
        file_no: int, name: str, stdin: BinaryIO | None, *, skip: int = 0
    ) -> Iterator[_Batch]:
        """Batches of `iter_lines` pairs, from record number `skip` on."""
        first, pairs, size = skip, [], 0
        for pair in islice(iter_lines(name, stdin=stdin), skip, None):
            pairs.append(pair)
            size += len(pair[1]) if type(pair[1]) is bytes else 0
            if len(pairs) >= BATCH_LINES or size >= BATCH_BYTES:
                yield _Batch(file_no, first, len(pairs), pairs=pairs)
                first, pairs, size = first + len(pairs), [], 0
        if pairs:
            yield _Batch(file_no, first, len(pairs), pairs=pairs)

    @classmethod
    def _blocks(cls, file_no: int, name: str) -> Iterator[_Batch]:
        """A plain file in blocks of whole lines, counted here (in C) and split by the workers."""
        try:
            stream = open(name, "rb")  # noqa: SIM115 (closed below)
        except OSError:
            yield from cls._lines(file_no, name, None)  # iter_lines says why, in its turn
            return
        line, record, carry = 1, 0, b""
        with stream:
            while True:
                try:
                    data = stream.read(BATCH_BYTES)
                except OSError:  # read the rest as `score` does: the same lines, the same error
                    yield from cls._lines(file_no, name, None, skip=record)
                    return
                buf = carry + data
                cut = len(buf) if not data else buf.rfind(b"\n") + 1
                block, carry = buf[:cut], buf[cut:]
                if block:
                    lines = block.count(b"\n") + (not block.endswith(b"\n"))
                    records = lines - _blank_lines(block)
                    if records:
                        yield _Batch(file_no, record, records, block=(name, line, block))
                    line, record = line + lines, record + records
                if not data:
                    return


class _SpansSeen(Exception):
    pass


class _NoSpans:
    """A worker's stand-in for the reader's OpenTelemetry grouper: spans are grouped into runs
    across lines and files, so a batch that holds one is handed back and read in order."""

    def add(self, record: Any, source: str) -> Iterator[Run | TraceError]:
        raise _SpansSeen

    def flush(self) -> Iterator[Run | TraceError]:
        return iter(())


class _Worker:
    def __init__(
        self,
        config: Config,
        reading: tuple[Any, str | None, str | None],
        encode: Callable[[list[RunResult | TraceError]], Any] | None,
        keep: bool,
    ) -> None:
        self.config = config
        self.reader = TraceReader(reading[0], case_key=reading[1], run_key=reading[2])
        self.reader.otel = _NoSpans()  # type: ignore[assignment]
        self.encode = encode
        self.keep = keep


_worker: _Worker | None = None


def _start_worker(*setup: Any) -> None:
    global _worker
    _worker = _Worker(*setup)


def _grade_batch(batch: _Batch) -> tuple[Summary, Any] | None:
    """One batch graded and summarized, with its results (encoded) when wanted; None when it
    holds spans."""
    w = _worker
    assert w is not None, "the pool's initializer sets up each worker"
    grade, encode = w.config.grader.grade_record, w.encode
    part = Summary.for_tools(w.config.tools)
    results: list[Any] | None = [] if w.keep else None
    try:
        for n, item in enumerate(w.reader.records(batch.lines()), start=batch.first):
            result = item if type(item) is TraceError else grade(*item)
            part.add(result, (batch.file_no, n))
            if results is not None:
                results.append(result)
    except _SpansSeen:
        return None
    return part, results if results is None or encode is None else encode(results)
