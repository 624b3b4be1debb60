"""The traces as an audit reads them: every run scored once, through `scoring.score`, keeping
only what the audit needs of each (its key and stratum); then, in a second pass, the records of
the few runs it wants, as recorded.

A run is known by its key: its run id, its case id, and how many runs with the same two came
before it in the traces (0 unless ids repeat). Runs without a run id take their `file:line` as
their id (SPEC "Traces"), so such a sheet must be scored with the traces named as they were.

Lines that cannot be scored are kept, all of them (the writer sees each), in input order.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Any

from ..grade.grader import RunResult
from ..model import TraceError
from ..scoring import Config
from ..scoring import score as score_traces
from ..summary import Summary
from ..traces import STDIN, NativeRecord, Reading, iter_lines, trace_files
from .sampling import STRATA, stratum_of

RunKey = tuple[str, str, int]
"""(run id, case id, occurrence): a run, as a sheet names it."""
Pair = tuple[str, str]
STDIN_SPOOL = 64 * 1024 * 1024


@dataclass(frozen=True)
class Inputs:
    """What an audit reads: tool and case files, trace inputs, and how to read the traces."""

    tools: Path
    cases: Path
    traces: tuple[str, ...]
    reading: Reading | None = None
    """How to read the traces (`--trace-format`, `--case-key`, `--run-key`); None for the
    default, or, when scoring a sheet, for the reading it was sampled with."""
    reported: str | None = None
    """How the reported check reads a run (`--reported`: per-call or list), which decides the
    strata; None for per-call, or, when scoring a sheet, for the reading it was sampled with."""


@dataclass(frozen=True)
class Population:
    """Every scored run's key, by stratum, and where it stands in the traces."""

    strata: dict[str, list[tuple[RunKey, int]]]
    """Stratum -> (key, position) for each of its runs, keys in canonical (sorted) order. The
    position counts the records read (runs and unscoreable lines), from 0."""
    summary: Summary
    errors: list[TraceError]
    """Every line that could not be scored."""

    def sizes(self) -> dict[str, int]:
        return {name: len(self.strata[name]) for name in STRATA}


@contextmanager
def seekable_stdin(paths: Sequence[str], stdin: IO[bytes] | None) -> Iterator[IO[bytes] | None]:
    """Standard input, copied so that it can be read more than once (the digest, then each pass),
    when the traces name it; None otherwise."""
    if STDIN not in paths:
        yield None
        return
    source = stdin if stdin is not None else sys.stdin.buffer
    with tempfile.SpooledTemporaryFile(max_size=STDIN_SPOOL) as copy:
        while chunk := source.read(1 << 20):
            copy.write(chunk)
        copy.seek(0)
        yield copy


def read_population(
    config: Config,
    inputs: Inputs,
    *,
    stdin: IO[bytes] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Population:
    """Score every run and keep its key and stratum."""
    keeper = _Keys()
    summary = score_traces(
        config,
        inputs.traces,
        reading=inputs.reading or Reading(),
        writer=keeper,
        progress=progress,
        stdin=_rewound(stdin),
    )
    rows = sorted(keeper.runs)  # (run id, case id, position, reported pass)
    strata: dict[str, list[tuple[RunKey, int]]] = {name: [] for name in STRATA}
    previous: Pair | None = None
    occurrence = 0
    for run_id, case_id, position, reported_pass in rows:
        occurrence = occurrence + 1 if previous == (run_id, case_id) else 0
        previous = (run_id, case_id)
        strata[stratum_of(reported_pass)].append(((run_id, case_id, occurrence), position))
    return Population(strata, summary, keeper.errors)


class _Keys:
    """A writer that keeps each run's ids, position and stratum, and every unscoreable line."""

    def __init__(self) -> None:
        self.encoder = _light
        self.runs: list[tuple[str, str, int, bool]] = []
        self.errors: list[TraceError] = []
        self.position = 0
        self.case_ids: dict[str, str] = {}  # one string per case id: a million runs share a few

    def write(self, items: list[tuple[str, str, bool] | TraceError]) -> None:
        for item in items:
            if isinstance(item, TraceError):
                self.errors.append(item)
            else:
                run_id, case_id, reported_pass = item
                case_id = self.case_ids.setdefault(case_id, case_id)
                self.runs.append((run_id, case_id, self.position, reported_pass))
            self.position += 1

    def close(self, summary: Summary) -> None:
        pass


def _light(items: list[RunResult | TraceError]) -> list[tuple[str, str, bool] | TraceError]:
    return [
        item if isinstance(item, TraceError) else (item.run_id, item.case_id, item.reported_pass)
        for item in items
    ]


# ------------------------------------------------------------------------ the sheet's runs


@dataclass(frozen=True)
class Scored:
    """The runs a sheet names, as scored now, and the population they were scored in."""

    found: dict[RunKey, tuple[RunResult, int]]
    """Key -> (its result, its position in the traces)."""
    summary: Summary
    errors: list[TraceError]


def score_runs(
    config: Config,
    inputs: Inputs,
    wanted: set[RunKey],
    *,
    stdin: IO[bytes] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Scored:
    """Score every run; keep the results of the `wanted` ones (and every unscoreable line)."""
    keeper = _Wanted({(run_id, case_id) for run_id, case_id, _ in wanted})
    summary = score_traces(
        config,
        inputs.traces,
        reading=inputs.reading or Reading(),
        writer=keeper,
        progress=progress,
        stdin=_rewound(stdin),
    )
    found = {}
    for pair, results in keeper.found.items():
        for occurrence, result in enumerate(results):
            key = (*pair, occurrence)
            if key in wanted:
                found[key] = result
    return Scored(found, summary, keeper.errors)


class _Wanted:
    """A writer that keeps the results of runs with the wanted ids, in input order."""

    def __init__(self, pairs: set[Pair]) -> None:
        self.encoder = partial(_select, frozenset(pairs))
        self.found: dict[Pair, list[tuple[RunResult, int]]] = {}
        self.errors: list[TraceError] = []
        self.position = 0

    def write(self, items: list[RunResult | TraceError | int]) -> None:
        for item in items:
            if isinstance(item, TraceError):
                self.errors.append(item)
                self.position += 1
            elif isinstance(item, int):
                self.position += item
            else:
                self.found.setdefault((item.run_id, item.case_id), []).append((item, self.position))
                self.position += 1

    def close(self, summary: Summary) -> None:
        pass


def _select(
    pairs: frozenset[Pair], items: list[RunResult | TraceError]
) -> list[RunResult | TraceError | int]:
    """The batch's wanted runs and unscoreable lines; a count in place of the runs between."""
    out: list[RunResult | TraceError | int] = []
    for item in items:
        if isinstance(item, TraceError) or (item.run_id, item.case_id) in pairs:
            out.append(item)
        elif out and isinstance(out[-1], int):
            out[-1] += 1
        else:
            out.append(1)
    return out


def records_at(
    inputs: Inputs, positions: set[int], *, stdin: IO[bytes] | None = None
) -> dict[int, NativeRecord]:
    """The native records at `positions` (as `read_population` counts them), as recorded: read
    again in the same order by a reader of the same kind, so position n is the same record."""
    reader = (inputs.reading or Reading()).reader()
    out: dict[int, NativeRecord] = {}
    position = 0
    for name in trace_files(inputs.traces):
        for item in reader.records(iter_lines(name, stdin=_rewound(stdin))):
            if position in positions and isinstance(item, NativeRecord):
                out[position] = item
            position += 1
            if len(out) == len(positions):
                return out
    return out


def _rewound(stream: IO[bytes] | None) -> Any:
    if stream is not None:
        stream.seek(0)
    return stream
