"""Files -> model -> grades -> summary: the scoring job as one library call.

`load_config` reads and checks everything that must be right before any run is graded (an error
there is unusable input); `score` streams the traces through the grader, hands each result to a
sink (the report writer) and returns the merged summary.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from .adapters import TraceFormat, TraceReader
from .cases import load_cases
from .model import Case, Run, Tool, TraceError
from .norms import Normalizer, load_registry
from .score import Grader, RunResult
from .summary import Summary
from .tools import load_tools
from .traces import read_file, trace_files

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
    grade = config.grader.grade
    n = 0
    for file_no, name in enumerate(files):
        for line_no, item in enumerate(read_file(name, stdin=stdin, reader=reader)):
            result = item if isinstance(item, TraceError) else grade(item)
            summary.add(result, (file_no, line_no))
            if sink is not None:
                sink(result)
            n += 1
            if progress is not None and n % PROGRESS_EVERY == 0:
                progress(n)
    return summary.finish()


def grade_runs(config: Config, runs: Iterable[Run | TraceError]) -> list[RunResult | TraceError]:
    """Grade runs already in memory (tests, adapters): results in input order."""
    return [r if isinstance(r, TraceError) else config.grader.grade(r) for r in runs]
