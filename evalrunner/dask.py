"""Score traces on a Dask cluster: a bag of JSONL files, scored partition by partition.

Needs the `dask` extra (`pip install 'evalrun[dask]'`). Each partition holds whole files or byte
ranges of large ones (one by default) and comes back as a `Summary`; the summaries are merged on
the cluster in a tree (`Summary.merge` is exact: counts add up, and examples and error lines are
the earliest in input order), so the result equals what `evalrun score` computes on the same
files in one process: the summary, and with a `writer` the per-run output too, byte for byte.

    from dask.distributed import Client
    from evalrunner.dask import score_bag, trace_bag
    from evalrunner.scoring import load_config
    from evalrunner.write.jsonl import JsonlWriter

    client = Client("tcp://scheduler:8786")   # or Client(LocalCluster(...)) on one machine
    config = load_config("tools", "cases")    # read here, sent to each worker once
    bag = trace_bag("s3://bucket/traces/*.jsonl.gz", storage_options={"anon": False})
    summary = score_bag(bag, config, storage_options={"anon": False})
    print(summary.to_json())

    with open("results.jsonl", "wb") as out:  # every run's result too, in input order
        score_bag(bag, config, writer=JsonlWriter(out))

Files are opened on the workers with fsspec (with `storage_options`), so they must reach them: a
shared filesystem, or an object store URL (s3://, gs://, abfs://, with the matching fsspec
package installed on every worker). The config is sent to every worker once (scattered to all
of them when a distributed client is running); it pickles as the tools, cases and normalizers
it was made from, never with its grader's caches, so each worker grades with a fresh grader of
its own. Grading is pure Python: run workers as processes with one thread each (`dask worker
tcp://scheduler:8786 --nworkers auto --nthreads 1`), or more threads per worker will only
contend for one GIL.

An uncompressed file larger than `split_bytes` (64 MiB by default) is scored in byte ranges cut
on line boundaries, one task each: a first pass counts each range's lines, so that line numbers
and input order are the ones `evalrun score` gives. A file that is pretty-printed JSON, or has a
line longer than the longest read, is scored whole. A compressed file is always one task. A
split file must not hold OpenTelemetry spans (their runs span lines): that is an error saying so
(score such files with `split_bytes=None`).
"""

from __future__ import annotations

import os
import uuid
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import dask.bag as db
import fsspec
from dask.base import compute
from dask.delayed import delayed

from .model import InputError
from .scoring import Config, Item, _blank_lines, finish_summary, graded, span_key
from .summary import Summary
from .traces import (
    TRACE_SUFFIXES,
    GroupingSeen,
    LastLines,
    Reading,
    TraceInput,
    stream_lines,
    trace_files,
)
from .traces.files import Skipped
from .traces.limits import BLOCK_BYTES, BOM, MAX_LINE_BYTES
from .traces.lines import block_lines, label_of
from .traces.pretty import is_pretty
from .write import Writer

SPLIT_BYTES = 64 * 2**20
"""An uncompressed file larger than this is scored in byte ranges of about this size."""

Part = tuple[int, str, int, int | None]
"""A bag item: (file number, path or URL, first byte, end byte or None for the whole file)."""

_listed: weakref.WeakKeyDictionary[db.Bag, tuple[list[Skipped], int]] = weakref.WeakKeyDictionary()
"""What `trace_bag` passed over and how many files it listed, for the summary's warnings."""


def trace_bag(
    urlpath: str | Path | Sequence[str | Path],
    *,
    storage_options: dict[str, Any] | None = None,
    files_per_partition: int = 1,
    split_bytes: int | None = SPLIT_BYTES,
) -> db.Bag:
    """A bag of (file number, path or URL, first byte, end byte): the trace files at `urlpath`,
    in scoring order, an uncompressed one larger than `split_bytes` as several byte ranges
    (end None: the whole file; `split_bytes=None` never splits).

    Local paths (files or directories) are listed as `evalrun score` lists them; a URL with a
    protocol (`s3://bucket/traces/`, `gs://bucket/day=*/*.jsonl.gz`) is listed, or globbed, with
    fsspec. The file number is each file's place in that order: it orders examples and errors as
    a single process would. `files_per_partition` is how many items (files or ranges) a
    partition holds.
    """
    if split_bytes is not None and split_bytes < 1:
        raise ValueError(f"split_bytes must be at least 1, or None, not {split_bytes}")
    options = storage_options or {}
    paths = [urlpath] if isinstance(urlpath, (str, Path)) else list(urlpath)
    files: list[str] = []
    skipped: list[Skipped] = []
    for path in paths:
        if "://" in str(path):
            files.extend(_remote_files(str(path), options))
        else:
            files.extend(trace_files([path], skipped=skipped))
    items: list[Part] = []
    for file_no, name in enumerate(files):
        size = _size(name, options) if split_bytes is not None and _plain(name) else 0
        if split_bytes is None or size <= split_bytes:
            items.append((file_no, name, 0, None))
            continue
        cuts = [*range(0, size, split_bytes), size]
        items.extend((file_no, name, a, b) for a, b in pairwise(cuts))
    n = max(1, -(-len(items) // max(1, files_per_partition)))
    bag = db.from_sequence(items, npartitions=n)
    _listed[bag] = (skipped, len(files))
    return bag


def summary_of(
    bag: db.Bag,
    config: Config,
    *,
    reading: Reading | None = None,
    storage_options: dict[str, Any] | None = None,
    split_every: int | None = None,
    group_by: str | None = None,
) -> Any:
    """The merged summary of the files in `bag`, as a lazy Dask item (`.compute()` it, then
    `.finish()`); `group_by` as `evalrunner.scoring.score` takes it."""
    parts = _scored(bag, config, reading, storage_options or {}, group_by, None)
    return parts.reduction(_merge_parts, _merge, split_every=split_every)


def score_bag(
    bag: db.Bag,
    config: Config,
    *,
    writer: Writer | None = None,
    reading: Reading | None = None,
    storage_options: dict[str, Any] | None = None,
    split_every: int | None = None,
    group_by: str | None = None,
) -> Summary:
    """Score every file in `bag` (see `trace_bag`) on the current Dask scheduler and return the
    merged summary, finished as `evalrunner.scoring.score` returns it (warnings, file count).

    With a `writer` (`evalrunner.write`: the jsonl one, `Collect`, ...), each partition's results
    are rendered on its worker by the writer's encoder and written here in input order, then
    `writer.close(summary)`: the bytes `evalrun score` writes for the same files."""
    options = storage_options or {}
    encoder = writer.encoder if writer is not None else None
    if encoder is None:
        merged = summary_of(
            bag,
            config,
            reading=reading,
            storage_options=options,
            split_every=split_every,
            group_by=group_by,
        ).compute()
    else:
        assert writer is not None
        merged = Summary.for_tools(config.tools, group_by=group_by)
        for part in _in_order(_scored(bag, config, reading, options, group_by, encoder)):
            for summary, encoded in part:
                merged.merge(summary)
                writer.write(encoded)
    listed = _listed.get(bag)
    if listed is None:  # a bag not made by trace_bag (or mapped since): its files counted here
        listed = ([], int(bag.pluck(0).distinct().count().compute()))
    skipped, files = listed
    summary = finish_summary(merged, config, skipped, files, group_by)
    if writer is not None:
        writer.close(summary)
    return summary


def _scored(
    bag: db.Bag,
    config: Config,
    reading: Reading | None,
    storage_options: dict[str, Any],
    group_by: str | None,
    encoder: Callable[[list[Item]], Any] | None,
) -> db.Bag:
    """A bag of (summary, rendered results) per partition."""
    reading = reading or Reading()
    reading.reader()  # bad options fail here, not on the workers
    shared = _shared(config)
    max_line = reading.max_line_bytes
    counts = bag.map_partitions(_count_partition, storage_options, max_line)
    offsets = delayed(_offsets_of)(counts.reduction(list, _concat))
    return bag.map_partitions(
        _score_partition, shared, reading, storage_options, group_by, encoder, offsets
    )


def _shared(config: Config) -> Any:
    """The config as one graph item, sent to each worker once: scattered to every worker when a
    distributed client is running (no worker then fetches it from another one mid-run), else
    one opaque delayed object (not traversed)."""
    try:
        from distributed import default_client

        client = default_client()
    except (ImportError, ValueError):
        client = None
    if client is not None:
        return client.scatter(config, broadcast=True, hash=False)
    return delayed(config, name=f"evalrun-config-{uuid.uuid4().hex}", traverse=False)


def _in_order(parts: db.Bag) -> Iterator[list[tuple[Summary, Any]]]:
    """Each partition's result, in order, as soon as it and the ones before it are done; on a
    distributed client only the ones not yet written are held."""
    pieces = parts.to_delayed()
    try:
        from distributed import default_client

        client = default_client()
    except (ImportError, ValueError):
        client = None
    if client is None:
        yield from compute(*pieces)
        return
    futures = client.compute(pieces)
    for i, future in enumerate(futures):
        yield future.result()
        futures[i] = None  # released: the worker may drop it
        future.release()


# ------------------------------------------------------------------------------ on the workers


def _score_partition(
    items: Iterable[Part],
    config: Config,
    reading: Reading,
    storage_options: dict[str, Any],
    group_by: str | None,
    encoder: Callable[[list[Item]], Any] | None,
    offsets: dict[int, dict[int, tuple[int, int]] | None],
) -> list[tuple[Summary, Any]]:
    # One reader per partition: OpenTelemetry traces are grouped within a file (across files, a
    # span arriving after its trace was scored is only recognized when both share a partition).
    reader = reading.reader(group_key=span_key(group_by))
    summary = Summary.for_tools(config.tools, group_by=group_by)
    results: list[Item] = []

    def take(file_no: int, first: int, items: Iterable[Item]) -> None:
        for n, result in enumerate(items, first):
            summary.add(result, (file_no, n))
            if encoder is not None:
                results.append(result)

    for file_no, name, start, end in items:
        ranges = offsets.get(file_no) if end is not None else None
        if ranges is None:
            if start == 0:  # a whole file, or the first range of a file not split
                lines, last_lines = _lines(name, storage_options)
                take(file_no, 0, graded(config, reader, lines, group_by, last_lines))
                notes = reader.errors.take_timeouts()
                summary.notes.extend(((file_no, 0), note) for note in notes)
            continue
        assert end is not None  # only a range has offsets
        first_line, first = ranges[start]
        data = _range(name, storage_options, start, end)
        if start == 0 and data.startswith(BOM):
            data = data[len(BOM) :]
        one = reading.reader(grouping=False, group_key=span_key(group_by))
        try:
            lines = block_lines(label_of(name), first_line, data)
            take(file_no, first, graded(config, one, lines, group_by))
        except GroupingSeen as e:
            raise InputError(
                f"{label_of(name)}: holds {e} records, whose runs span lines, so it cannot be "
                "scored in byte ranges: score it with trace_bag(..., split_bytes=None), or "
                "split it into files by trace"
            ) from None
        summary.notes.extend(((file_no, first), note) for note in one.errors.take_timeouts())
    summary.notes.sort()
    return [(summary, encoder(results) if encoder is not None else None)]


def _count_partition(
    items: Iterable[Part], storage_options: dict[str, Any], max_line: int = MAX_LINE_BYTES
) -> list[tuple[int, int, int, int, bool]]:
    """For each byte range: (file number, first byte, lines, records, plain JSON Lines)."""
    found = []
    for file_no, name, start, end in items:
        if end is None:
            continue
        data = _range(name, storage_options, start, end)
        lines = data.count(b"\n")
        records = lines + (not data.endswith(b"\n")) - _blank_lines(data)
        plain = _longest_line(data) <= max_line
        if start == 0:
            head = data[len(BOM) :] if data.startswith(BOM) else data
            plain = plain and is_pretty(head, eof=True, limit=min(max_line, BLOCK_BYTES)) is False
        found.append((file_no, start, lines, records, plain))
    return found


def _concat(parts: Iterable[list[Any]]) -> list[Any]:
    return [item for part in parts for item in part]


def _offsets_of(
    counts: Iterable[tuple[int, int, int, int, bool]],
) -> dict[int, dict[int, tuple[int, int]] | None]:
    """Where each range starts, (line number, record number), by file and first byte; None for
    a file scored whole (not plain JSON Lines)."""
    done: dict[int, dict[int, tuple[int, int]] | None] = {}
    by_file: dict[int, list[tuple[int, int, int, int, bool]]] = {}
    for c in counts:
        by_file.setdefault(c[0], []).append(c)
    for file_no, ranges in by_file.items():
        if not all(c[4] for c in ranges):
            done[file_no] = None
            continue
        line, record, starts = 1, 0, {}
        for _, start, lines, records, _plain in sorted(ranges):
            starts[start] = (line, record)
            line, record = line + lines, record + records
        done[file_no] = starts
    return done


def _merge_parts(parts: Iterable[tuple[Summary, Any]]) -> Summary:
    return _merge(s for s, _ in parts)


def _merge(summaries: Iterable[Summary]) -> Summary:
    merged = Summary()
    for s in summaries:
        merged.merge(s)
    return merged


def _plain(name: str) -> bool:
    """A file read as it is stored (not compressed), whose bytes can be read in ranges."""
    return name.endswith(".jsonl")


def _size(name: str, storage_options: dict[str, Any]) -> int:
    if "://" not in name:
        return os.path.getsize(name)
    fs, path = fsspec.core.url_to_fs(name, **storage_options)
    return int(fs.size(path))


def _range(name: str, storage_options: dict[str, Any], start: int, end: int) -> bytes:
    """The whole lines that start in bytes [start, end) of a file."""
    with fsspec.open(name, "rb", **storage_options) as stream:
        a = _line_start(stream, start)
        b = _line_start(stream, end)
        stream.seek(a)
        data: bytes = stream.read(b - a) if b > a else b""
        return data


def _line_start(stream: Any, pos: int) -> int:
    """The first byte at or after `pos` that starts a line (or the end of the file)."""
    if pos == 0:
        return 0
    stream.seek(pos - 1)
    at = pos - 1
    while True:
        chunk = stream.read(BLOCK_BYTES)
        if not chunk:
            return at
        cut = chunk.find(b"\n")
        if cut >= 0:
            return at + cut + 1
        at += len(chunk)


def _longest_line(data: bytes) -> int:
    if len(data) <= MAX_LINE_BYTES // 4:
        return len(data)  # no line can be longer than the whole (the usual case: no search)
    longest, at = 0, 0
    while True:
        cut = data.find(b"\n", at)
        if cut < 0:
            return max(longest, len(data) - at)
        longest, at = max(longest, cut - at), cut + 1


def _lines(
    name: str, storage_options: dict[str, Any]
) -> tuple[Iterator[tuple[str, Any]], Callable[[], LastLines | None]]:
    """A file's lines, and where its traces end (read again when it holds spans)."""
    if "://" not in name:
        source = TraceInput(name)  # a local file: exactly what `evalrun score` reads
        return source.lines(), source.last_lines

    def lines() -> Iterator[tuple[str, Any]]:
        with fsspec.open(name, "rb", compression="infer", **storage_options) as stream:
            yield from stream_lines(name, stream)

    def last_lines() -> LastLines:
        with fsspec.open(name, "rb", compression="infer", **storage_options) as stream:
            return LastLines.scan(stream)

    return lines(), last_lines


def _remote_files(url: str, storage_options: dict[str, Any]) -> list[str]:
    fs, _, roots = fsspec.get_fs_token_paths(url, storage_options=storage_options)
    found: list[str] = []
    for root in roots:
        if fs.isdir(root):
            found.extend(f for f in fs.find(root) if f.endswith(TRACE_SUFFIXES))
        else:
            found.append(root)
    return sorted(fs.unstrip_protocol(f) for f in found)
