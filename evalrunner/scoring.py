"""Files -> model -> grades -> summary -> writer: the scoring job as one library call.

`load_config` reads and checks everything that must be right before any run is graded (an error
there is unusable input). `score` streams the traces through the grader, in this process or in
`jobs` worker processes, hands the results to a writer in input order, and returns the merged
summary. The command line, `diff`, `evalrunner.dask` and library users all score through it.
"""

from __future__ import annotations

import os
import re
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any, BinaryIO

from .grade.grader import PER_CALL, Grader, RunResult
from .grade.norms import Normalizer, load_registry
from .model import Case, InputError, Tool, TraceError
from .read.case_formats import CaseWarning
from .read.case_store import keep
from .read.cases import each_case, unknown_in
from .read.tools import load_tools
from .summary import Order, Summary
from .summary.groups import (
    MAX_GROUPS,
    NO_GROUP,
    OTHER_GROUP,
    by_case,
    case_group,
    group_name,
    no_group_found,
    parse_key,
    record_value,
)
from .traces import GroupingSeen, Reading, TraceInput, TraceReader, trace_files
from .traces.files import Skipped
from .traces.format import LastLinesOf
from .traces.limits import MAX_EXPANDED_BYTES, MAX_LINE_BYTES
from .traces.lines import block_lines, read_blocks
from .write import Writer

Item = RunResult | TraceError
PROGRESS_EVERY = 2000
BATCH_LINES = 2000
"""Results are handed to the writer (and, under `--jobs`, dealt to workers) this many at a time."""
BATCH_BYTES = 2**20
IN_FLIGHT = 4
MAX_JOBS = 1024
"""The most worker processes `jobs` may ask for: more is no setting, but a typo (and refused)."""
"""Batches out at once per worker: enough to keep every worker busy, few enough to keep memory flat."""


@dataclass(frozen=True)
class Config:
    """Tools, cases and normalizers, checked and ready to grade with."""

    tools: dict[str, Tool]
    cases: Mapping[str, Case]
    """Every case by id: a dict, or for a large suite a `CaseStore` (compact, each case parsed
    back when it is read: `case_store.keep`)."""
    registry: dict[str, Normalizer] = field(repr=False)
    grader: Grader = field(repr=False, compare=False)
    warnings: tuple[str, ...] = ()
    """What is usable but likely wrong: a case step naming a tool no schema defines."""


def load_config(
    tools_dir: str | Path,
    cases_dir: str | Path,
    *,
    reported: str = PER_CALL,
    case_format: str = "auto",
) -> Config:
    """Read tools and cases (in `case_format`, or each file's own) and compile every rule;
    InputError for anything unusable.
    `reported` is how the reported check reads a run (`grader.REPORTED_READINGS`)."""
    registry = load_registry()
    tools = load_tools(tools_dir)
    if not tools:
        raise InputError(
            f"no tool is defined in {str(tools_dir)!r} (read: its *.json files): every rule, "
            "default and repeatable tool would be missing and every number wrong; set --tools to "
            "the folder or file that defines your tools"
        )
    read: list[CaseWarning] = []
    unknown: list[str] = []
    names = list(tools)
    known = set(names)

    def noted(cases: Iterable[Case]) -> Iterator[Case]:
        for case in cases:  # each case as it is read: the store never holds them all as objects
            unknown.extend(u.message for u in unknown_in(case, names, known))
            yield case

    cases = keep(noted(each_case(cases_dir, case_format, read)))
    warnings = (*map(str, read), *unknown)
    grader = Grader(tools, cases, registry=registry, reported=reported)
    return Config(tools, cases, registry, grader, warnings)


def graded(
    config: Config,
    reader: TraceReader,
    lines: Iterable[tuple[str, Any]],
    group_by: str | None = None,
    last_lines: LastLinesOf | None = None,
) -> Iterator[Item]:
    """Each record the lines hold, graded (or why it cannot be): the loop every path shares.
    With `group_by`, each run carries its group, read from its native record; `last_lines`
    finds where each trace ends in the file (`TraceInput.last_lines`)."""
    grade = config.grader.grade_record
    records = reader.records(lines, last_lines=last_lines)
    if group_by is None:
        for item in records:
            yield item if isinstance(item, TraceError) else grade(item.record, item.source)
        return
    path = parse_key(group_by)
    cases = config.cases if by_case(path) else None
    for item in records:
        if isinstance(item, TraceError):
            yield item
            continue
        result = grade(item.record, item.source)
        if isinstance(result, TraceError):
            yield result
        elif cases is not None:
            yield result._replace(group=case_group(cases.get(result.case_id), path[1]))
        else:
            yield result._replace(group=group_name(record_value(item, path)))


def score(
    config: Config,
    paths: Iterable[str | Path],
    *,
    reading: Reading | None = None,
    jobs: int = 1,
    writer: Writer | None = None,
    progress: Callable[[int], None] | None = None,
    stdin: BinaryIO | None = None,
    exclude: Iterable[str | Path] = (),
    group_by: str | None = None,
) -> Summary:
    """Grade every run in `paths`, in order, and return their summary.

    `reading` says how to read the traces (format, where the ids live: `traces.Reading`; by
    default each line's format is detected). The results reach `writer` in input order, a batch
    at a time, rendered by its `encoder` (in the workers, with `jobs` > 1), and then
    `writer.close(summary)`; `progress` is told how many records have been read, now and then.
    `group_by` (a dotted path into each native run record, `meta.model`) also summarizes the
    runs per group (`Summary.groups`) and gives each result its group.
    With `jobs` > 1 the summary and the results are the same, byte for byte, as with 1.

    `exclude` names files never read, even under a traces directory (the output being written).
    The summary's `warnings` say what was not read (files under a directory that are not
    traces) and what is likely wrong in the configuration (`config.warnings`).
    """
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    jobs = min(jobs, available_cpus())  # more processes than CPUs only compete for them
    if group_by is not None:
        parse_key(group_by)  # a bad key is unusable input before anything is read
    reading = reading or Reading()
    reader = reading.reader(group_key=span_key(group_by))
    skipped: list[Skipped] = []
    files = trace_files(paths, skipped=skipped, exclude=exclude)
    out = _Out(config, writer, progress, group_by)
    if jobs == 1 or (reader.format is not None and reader.format.group is not None):
        # Runs of a grouping format (OpenTelemetry spans) span lines and files: one reader.
        for file_no, name in enumerate(files):
            source = TraceInput(
                name,
                stdin=stdin,
                max_line=reading.max_line_bytes,
                max_expanded=reading.max_expanded_bytes,
            )
            lines = source.lines()
            out.take(file_no, 0, graded(config, reader, lines, group_by, source.last_lines))
            out.note((file_no, 0), reader.errors.take_timeouts())
    else:
        _score_parallel(config, files, reading, jobs, out, stdin)
    summary = finish_summary(out.summary, config, skipped, len(files), group_by)
    if writer is not None:
        writer.close(summary)
    return summary


def finish_summary(
    summary: Summary,
    config: Config,
    skipped: Iterable[Skipped | str],
    files: int,
    group_by: str | None = None,
) -> Summary:
    """The merged summary of a scoring, finished as `score` returns it: its reading, warnings
    and file count (`evalrunner.dask` finishes its merged summary the same way)."""
    summary = summary.finish()
    summary.reported_reading = config.grader.reported
    summary.warnings = [
        *config.warnings,
        *(str(s) for s in skipped),
        *(note for _, note in summary.notes),
    ]
    unknown = summary.unknown_tools.warning()
    if unknown is not None:
        summary.warnings.append(unknown)
    if group_by is not None and summary.runs and set(summary.groups) == {NO_GROUP}:
        summary.warnings.append(no_group_found(group_by))
    if summary.folded:
        summary.warnings.append(
            f"--group-by {group_by}: {len(summary.folded):,} groups past the first "
            f"{MAX_GROUPS:,} (by their first run) are summed in the group {OTHER_GROUP}"
        )
    summary.files = files
    return summary


def span_key(group_by: str | None) -> str | None:
    """The key a grouping format (spans) keeps for `--group-by`: none for a `case.` field."""
    return None if group_by is None or by_case(parse_key(group_by)) else group_by


class _Out:
    """The merged summary, and the writer the batches go to, in input order."""

    def __init__(
        self,
        config: Config,
        writer: Writer | None,
        progress: Callable[[int], None] | None,
        group_by: str | None = None,
    ) -> None:
        self.config = config
        self.group_by = group_by
        self.summary = Summary.for_tools(config.tools, group_by=group_by)
        self.writer = writer
        self.encoder = writer.encoder if writer is not None else None
        self.progress = progress
        self.lines = 0

    def new_summary(self) -> Summary:
        """A batch's summary: unbounded in groups (a batch is small), merged into the bounded
        whole in input order, so that the groups kept are the same with any --jobs."""
        return Summary.for_tools(self.config.tools, group_by=self.group_by, max_groups=None)

    def take(self, file_no: int, first: int, results: Iterable[Item]) -> None:
        """Summarize graded records of file `file_no`, numbered from `first`, and hand them to
        the writer, a batch at a time.

        Without groups, the records are added to the whole summary itself: a summary is
        bounded without merging (only a part's groups are not), and merging is exact, so this
        is the summary a merge per batch gives, without the merges (merging was a fifth of what
        reply evidence cost, whose samples are merged table by table). With groups, a summary a
        batch keeps their number small before the bounded whole folds them."""
        per_batch = self.group_by is not None
        part = self.new_summary() if per_batch else self.summary
        batch: list[Item] = []
        count = 0
        for n, result in enumerate(results, first):
            part.add(result, (file_no, n))
            if self.encoder is not None:
                batch.append(result)
            count += 1
            if count == BATCH_LINES:
                self.emit(part if per_batch else None, self.encode(batch), count)
                batch, count = [], 0
                if per_batch:
                    part = self.new_summary()
        self.emit(part if per_batch else None, self.encode(batch), count)

    def note(self, order: Order, notes: list[str]) -> None:
        """Warnings about records (`Summary.notes`), each kept at the place it was made."""
        self.summary.notes = sorted([*self.summary.notes, *((order, n) for n in notes)])

    def encode(self, results: list[Item]) -> Any:
        return self.encoder(results) if self.encoder is not None else None

    def emit(self, part: Summary | None, encoded: Any, n: int) -> None:
        """Merge `part` (when given: see `take`), write `encoded`, and tell how far reading is."""
        if part is not None:
            self.summary.merge(part)
        if self.writer is not None and self.encoder is not None and n:
            self.writer.write(encoded)
        before, self.lines = self.lines, self.lines + n
        if self.progress is not None and self.lines // PROGRESS_EVERY > before // PROGRESS_EVERY:
            self.progress(self.lines)


# --------------------------------------------------------------------------------- in parallel


def available_cpus() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _score_parallel(
    config: Config,
    files: list[str],
    reading: Reading,
    jobs: int,
    out: _Out,
    stdin: BinaryIO | None,
) -> None:
    """`score` on `jobs` worker processes: the same summary, the same results in the same order.

    This process reads the trace lines (with `score`'s own line reader, so line numbers and read
    errors are the same) and deals them out in batches, large files included; each worker grades
    a batch with the config it was given once and summarizes it under the same (file, record)
    order keys, and the summaries merge exactly. Each worker also renders its batch with the
    writer's encoder: rendering there, into a few large objects, keeps this process, which only
    writes, from becoming the bottleneck (unpickling a RunResult costs more than grading it).
    A file that turns out to hold records of a grouping format is read here, from that batch on.
    """
    reader = reading.reader(group_key=span_key(out.group_by))
    batches = _Batches(files, stdin, reading.max_line_bytes, reading.max_expanded_bytes)
    pending: deque[tuple[_Batch, Any]] = deque()

    def read_here(batch: _Batch) -> None:
        """A batch with grouped records: this file, from here on, is read in this process."""
        parts = [batch.lines()]
        while pending and pending[0][0].file_no == batch.file_no:
            parts.append(pending.popleft()[0].lines())  # a worker's reading of it is dropped
        parts.extend(b.lines() for b in batches.rest_of(batch.file_no))
        lines = chain.from_iterable(parts)
        last_lines = batches.inputs[batch.file_no].last_lines
        out.take(
            batch.file_no, batch.first, graded(config, reader, lines, out.group_by, last_lines)
        )
        out.note((batch.file_no, batch.first), reader.errors.take_timeouts())

    def drain() -> None:
        batch, job = pending.popleft()
        done = job.get()
        if done is None:
            read_here(batch)
        else:
            out.emit(done[0], done[1], batch.count)

    # No more workers than there are batches to deal: one line is graded by one process.
    jobs = max(1, batches.peek(jobs))
    setup = (config, reading, out.encoder, out.group_by)
    import multiprocessing  # for --jobs only (about 4 ms to import without a .pyc cache)

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


@dataclass(frozen=True, slots=True)
class _Batch:
    file_no: int
    first: int
    """The record number of its first line in the file."""
    count: int
    """How many records (lines that are not blank) it holds."""
    pairs: list[tuple[str, Any]] | None = None
    """(`file:line`, a line's place) as `traces.iter_lines` gives them: read errors and
    pretty-printed records."""
    block: tuple[str, int, bytes] | None = None
    """Whole lines as read, with the file's label and the number of the first line: the worker
    splits them, so that this process, which also writes, does no work per line."""

    def lines(self) -> Iterator[tuple[str, Any]]:
        """(`file:line`, bytes) for each line that is not blank, as `traces.iter_lines` gives."""
        if self.block is None:
            return iter(self.pairs or ())
        return block_lines(*self.block)


_BLANK = re.compile(rb"\n[ \t\r\x0b\x0c]*(?=\n|\Z)")


def _blank_lines(block: bytes) -> int:
    """How many lines of `block` are blank (`line.strip()` is empty), counted without a loop."""
    if not block.strip():  # all blank (a gzip of blank lines): counted without a search
        return block.count(b"\n") + (not block.endswith(b"\n"))
    text = b"\n" + (block[:-1] if block.endswith(b"\n") else block)
    return len(_BLANK.findall(text))


class _Batches:
    """Every input's lines in batches, in order; an InputError in the place its file would be."""

    def __init__(
        self,
        files: list[str],
        stdin: BinaryIO | None,
        max_line: int = MAX_LINE_BYTES,
        max_expanded: int = MAX_EXPANDED_BYTES,
    ) -> None:
        self.inputs = [
            TraceInput(name, stdin=stdin, max_line=max_line, max_expanded=max_expanded)
            for name in files
        ]
        """Each input, by file number: read again for where its traces end (`read_here`)."""
        self._it = self._read(self.inputs, max_line)
        self._back: deque[_Batch | InputError] = deque()

    def __iter__(self) -> Iterator[_Batch | InputError]:
        return self

    def __next__(self) -> _Batch | InputError:
        if self._back:
            return self._back.popleft()
        return next(self._it)

    def peek(self, n: int) -> int:
        """Read up to `n` batches ahead (they are still to come); how many there are."""
        while len(self._back) < n:
            batch = next(self._it, None)
            if batch is None:
                break
            self._back.append(batch)
        return len(self._back)

    def rest_of(self, file_no: int) -> Iterator[_Batch]:
        """The batches left of file `file_no`; the next file's stay for the caller."""
        for batch in self:
            if not isinstance(batch, _Batch) or batch.file_no != file_no:
                self._back.appendleft(batch)
                return
            yield batch

    @staticmethod
    def _read(inputs: list[TraceInput], max_line: int) -> Iterator[_Batch | InputError]:
        for file_no, source in enumerate(inputs):
            label, record = source.label, 0
            try:
                with source.open() as stream:
                    blocks = read_blocks(label, stream, max_line=max_line, block_bytes=BATCH_BYTES)
                    for block in blocks:
                        if isinstance(block, tuple):
                            data = block[1]
                            lines = data.count(b"\n") + (not data.endswith(b"\n"))
                            records = lines - _blank_lines(data)
                            if records:
                                yield _Batch(file_no, record, records, block=(label, *block))
                            record += records
                            continue
                        pairs = (
                            [(block.source, block)]
                            if isinstance(block, TraceError)
                            else list(block.records())
                        )
                        for at in range(0, len(pairs), BATCH_LINES):
                            part = pairs[at : at + BATCH_LINES]
                            yield _Batch(file_no, record, len(part), pairs=part)
                            record += len(part)
            except InputError as e:
                yield e
                return


class _Worker:
    def __init__(
        self,
        config: Config,
        reading: Reading,
        encode: Callable[[list[Item]], Any] | None,
        group_by: str | None,
    ):
        self.config = config
        self.reader = reading.reader(grouping=False, group_key=span_key(group_by))
        self.encode = encode
        self.group_by = group_by


_worker: _Worker | None = None


def _start_worker(*setup: Any) -> None:
    global _worker
    # The command line ends on SIGTERM as on Ctrl-C (cli.main); a worker, forked with that
    # handler, must die of it as the pool expects when it terminates its workers.
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    _worker = _Worker(*setup)


def _grade_batch(batch: _Batch) -> tuple[Summary, Any] | None:
    """One batch graded and summarized, with its results rendered by the writer's encoder; None
    when it holds records of a grouping format."""
    w = _worker
    assert w is not None, "the pool's initializer sets up each worker"
    part = Summary.for_tools(w.config.tools, group_by=w.group_by, max_groups=None)
    results: list[Item] = []
    try:
        lines = batch.lines()
        for n, result in enumerate(graded(w.config, w.reader, lines, w.group_by), batch.first):
            part.add(result, (batch.file_no, n))
            if w.encode is not None:
                results.append(result)
    except GroupingSeen:
        w.reader.errors.take_timeouts()
        return None
    part.notes = [((batch.file_no, batch.first), n) for n in w.reader.errors.take_timeouts()]
    return part, (w.encode(results) if w.encode is not None else None)
