"""Score traces on a Dask cluster: a bag of JSONL files, scored partition by partition.

Needs the `dask` extra (`pip install 'evalrun[dask]'`). Each partition holds whole files (one by
default) and comes back as a `Summary`; the summaries are merged on the cluster in a tree
(`Summary.merge` is exact: counts add up, and examples and error lines are the earliest in input
order), so the result equals what `evalrun score` computes on the same files in one process.

    from dask.distributed import Client
    from evalrunner.dask import score_bag, trace_bag
    from evalrunner.scoring import load_config

    client = Client("tcp://scheduler:8786")   # or Client(LocalCluster(...)) on one machine
    config = load_config("tools", "cases")    # read here, sent to each worker once
    bag = trace_bag("s3://bucket/traces/*.jsonl.gz", storage_options={"anon": False})
    summary = score_bag(bag, config, storage_options={"anon": False})
    print(summary.to_json())

Files are opened on the workers with fsspec, so they must reach them: a shared filesystem, or an
object store URL (s3://, gs://, abfs://, with the matching fsspec package installed on every
worker). Grading is pure Python: run workers as processes with one thread each
(`dask worker tcp://scheduler:8786 --nworkers auto --nthreads 1`), or more threads per
worker will only contend for one GIL. A large file is one task: split very large traces into
several files to spread them.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import dask.bag as db
import fsspec
from dask.delayed import delayed

from .scoring import Config, graded, span_key
from .summary import Summary
from .traces import TRACE_SUFFIXES, LastLines, Reading, TraceInput, stream_lines, trace_files


def trace_bag(
    urlpath: str | Path | Sequence[str | Path],
    *,
    storage_options: dict[str, Any] | None = None,
    files_per_partition: int = 1,
) -> db.Bag:
    """A bag of (file number, path or URL): the trace files at `urlpath`, in scoring order.

    Local paths (files or directories) are listed as `evalrun score` lists them; a URL with a
    protocol (`s3://bucket/traces/`, `gs://bucket/day=*/*.jsonl.gz`) is listed, or globbed, with
    fsspec. The file number is each file's place in that order: it orders examples and errors as
    a single process would.
    """
    paths = [urlpath] if isinstance(urlpath, (str, Path)) else list(urlpath)
    files: list[str] = []
    for path in paths:
        if "://" in str(path):
            files.extend(_remote_files(str(path), storage_options or {}))
        else:
            files.extend(trace_files([path]))
    items = list(enumerate(files))
    n = max(1, -(-len(items) // max(1, files_per_partition)))
    return db.from_sequence(items, npartitions=n)


def summary_of(
    bag: db.Bag,
    config: Config,
    *,
    reading: Reading | None = None,
    storage_options: dict[str, Any] | None = None,
    split_every: int | None = None,
    group_by: str | None = None,
) -> Any:
    """The merged summary of the files in `bag`, as a lazy Dask item (`.compute()` it);
    `group_by` as `evalrunner.scoring.score` takes it."""
    reading = reading or Reading()
    reading.reader()  # bad options fail here, not on the workers
    # Sent to each worker once, not with every task; not traversed (it is one opaque object).
    shared = delayed(config, name=f"evalrun-config-{uuid.uuid4().hex}", traverse=False)
    parts = bag.map_partitions(_score_partition, shared, reading, storage_options or {}, group_by)
    return parts.reduction(_merge, _merge, split_every=split_every)


def score_bag(bag: db.Bag, config: Config, **options: Any) -> Summary:
    """Score every file in `bag` (see `trace_bag`) on the current Dask scheduler; `options` are
    `summary_of`'s. Returns the merged summary."""
    return summary_of(bag, config, **options).compute().finish()


# ------------------------------------------------------------------------------ on the workers


def _score_partition(
    files: Iterable[tuple[int, str]],
    config: Config,
    reading: Reading,
    storage_options: dict[str, Any],
    group_by: str | None = None,
) -> list[Summary]:
    # One reader per partition: OpenTelemetry traces are grouped within a file (across files, a
    # span arriving after its trace was scored is only recognized when both share a partition).
    reader = reading.reader(group_key=span_key(group_by))
    summary = Summary.for_tools(config.tools, group_by=group_by)
    for file_no, name in files:
        lines, last_lines = _lines(name, storage_options)
        for n, result in enumerate(graded(config, reader, lines, group_by, last_lines)):
            summary.add(result, (file_no, n))
    return [summary]


def _merge(summaries: Iterable[Summary]) -> Summary:
    merged = Summary()
    for s in summaries:
        merged.merge(s)
    return merged


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
