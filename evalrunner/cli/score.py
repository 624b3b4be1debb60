"""`evalrun score`: the true-vs-reported failure table, or results JSON for pipes."""

from __future__ import annotations

import os
import sys
import time
from enum import Enum
from functools import partial
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from ..adapters import TraceFormat
from ..model import TraceError
from ..pipeline import load_config, score_parallel
from ..pipeline import score as run_scoring
from ..report import JsonlWriter, JsonWriter, encode_items
from ..score import RunResult
from ..table import render_runs, render_summary
from .common import (
    EXIT_INPUT,
    EXIT_THRESHOLD,
    CasesOpt,
    Format,
    FormatOpt,
    OutputOpt,
    ToolsOpt,
    data_console,
    fail,
    input_errors,
    output_stream,
    stderr,
)


class Show(str, Enum):
    failures = "failures"
    real_failures = "real-failures"
    false_failures = "false-failures"
    false_passes = "false-passes"


SHOW_VERDICTS = {
    Show.failures: {"fail", "false_pass"},
    Show.real_failures: {"fail"},
    Show.false_failures: {"false_failure"},
    Show.false_passes: {"false_pass"},
}


def score(
    traces: Annotated[
        list[str] | None,
        typer.Argument(
            help="Trace files or directories (.jsonl, .jsonl.gz), or - for standard input. "
            "Default: traces/",
            show_default=False,
        ),
    ] = None,
    tools: ToolsOpt = Path("tools"),
    cases: CasesOpt = Path("cases"),
    format: FormatOpt = Format.table,
    output: OutputOpt = None,
    fail_above: Annotated[
        float | None,
        typer.Option(
            "--fail-above",
            min=0.0,
            max=1.0,
            metavar="RATE",
            help="Exit 1 when the true run failure rate is above RATE (0 to 1), for CI.",
        ),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 2 when any trace line cannot be scored.")
    ] = False,
    show: Annotated[
        Show | None,
        typer.Option(
            "--show",
            help="After the table, list the runs behind a number with their explanations: "
            "failures (every true failure), real-failures, false-failures, false-passes.",
        ),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=0, help="How many runs --show lists.")] = 20,
    trace_format: Annotated[
        TraceFormat,
        typer.Option(
            "--trace-format",
            help="How trace lines are written: auto (detected per line), native, openai-chat, "
            "openai-responses, anthropic, mcp or otel (OpenTelemetry GenAI spans). "
            "See docs/trace-formats.md.",
        ),
    ] = TraceFormat.auto,
    case_key: Annotated[
        str | None,
        typer.Option(
            "--case-key",
            metavar="PATH",
            help="Where each record keeps its case id, as a dotted path (request.metadata.task). "
            "Default: case_id, else metadata.case_id; for otel, the span attribute named "
            "PATH (default evalrun.case_id).",
            show_default=False,
        ),
    ] = None,
    run_key: Annotated[
        str | None,
        typer.Option(
            "--run-key",
            metavar="PATH",
            help="Where each record keeps its run id, as --case-key. Default: run_id, else "
            "metadata.run_id; for otel, the attribute evalrun.run_id, else the trace id.",
            show_default=False,
        ),
    ] = None,
    jobs: Annotated[
        str,
        typer.Option(
            "--jobs",
            "-j",
            metavar="N",
            help="Score on N worker processes, or auto (one per CPU). The output is the same "
            "as with 1, byte for byte.",
        ),
    ] = "1",
) -> None:
    """Score recorded runs: the failure rate exact-match reports, the true one, and why they differ.

    Reads tool schemas (--tools), cases (--cases) and traces; prints the true-vs-reported table,
    or one results document (--format json), or one run a line then the summary (--format jsonl).
    Exit codes: 0 done; 1 --fail-above crossed; 2 unusable input (or, with --strict, any
    unreadable trace line).
    """
    paths = traces or ["traces"]
    if show is not None and format is not Format.table:
        raise fail("--show lists runs under the table; with --format json or jsonl, filter with jq")
    n_jobs = _jobs(jobs)
    with input_errors():
        config = load_config(tools, cases)
        shown: list[RunResult] = []
        hidden = 0

        with output_stream(output) as out:
            writer = None
            if format is Format.json:
                writer = JsonWriter(out)
            elif format is Format.jsonl:
                writer = JsonlWriter(out)

            wanted = SHOW_VERDICTS.get(show, set()) if show is not None else set()

            def sink(item) -> None:
                nonlocal hidden
                if writer is not None:
                    writer.add(item)
                elif wanted and isinstance(item, RunResult) and item.verdict in wanted:
                    if len(shown) < limit:
                        shown.append(item)
                    else:
                        hidden += 1

            with _progress() as progress:
                if n_jobs == 1:
                    summary = run_scoring(
                        config,
                        paths,
                        sink=sink,
                        progress=progress,
                        trace_format=trace_format,
                        case_key=case_key,
                        run_key=run_key,
                    )
                else:
                    # Workers render (or filter) the results; only what is written comes back.
                    if writer is not None:
                        back = {"sink": writer.add_encoded_many, "encode": encode_items}
                    elif wanted:

                        def sink_shown(runs: list[RunResult]) -> None:
                            for r in runs:
                                sink(r)

                        back = {"sink": sink_shown, "encode": partial(_shown, frozenset(wanted))}
                    else:
                        back = {}
                    summary = score_parallel(
                        config,
                        paths,
                        jobs=n_jobs,
                        progress=progress,
                        trace_format=trace_format,
                        case_key=case_key,
                        run_key=run_key,
                        **back,
                    )

            if writer is not None:
                writer.close(summary)
            else:
                console = data_console(out, to_file=output is not None)
                render_summary(summary, paths, console)
                if show is not None:
                    console.print()
                    console.print(f"[bold]Runs ({show.value})[/bold]")
                    console.print()
                    render_runs(shown, hidden, console)

    err = stderr()
    if summary.unscoreable:
        err.print(
            f"{summary.unscoreable} of {summary.lines} trace lines could not be scored "
            "(listed with file:line in the output)"
        )
    if strict and summary.unscoreable:
        raise typer.Exit(code=EXIT_INPUT)
    if (
        fail_above is not None
        and summary.runs
        and summary.true_failed_runs / summary.runs > fail_above
    ):
        rate = summary.true_failed_runs / summary.runs
        err.print(f"true run failure rate {rate:.1%} is above --fail-above {fail_above:.1%}")
        raise typer.Exit(code=EXIT_THRESHOLD)


def _jobs(value: str) -> int:
    """--jobs: a whole number >= 1, or auto (the CPUs this process may run on)."""
    if value == "auto":
        if hasattr(os, "sched_getaffinity"):
            return max(1, len(os.sched_getaffinity(0)))
        return os.cpu_count() or 1
    if not value.isdigit() or int(value) < 1:
        raise fail(f"--jobs takes a whole number of processes (1 or more) or auto, not {value!r}")
    return int(value)


def _shown(verdicts: frozenset[str], items: list[RunResult | TraceError]) -> list[RunResult]:
    """--show: only the runs it lists cross back from a worker."""
    return [r for r in items if isinstance(r, RunResult) and r.verdict in verdicts]


class _progress:
    """A progress line on stderr when it is a terminal and scoring takes more than a moment."""

    DELAY = 0.5

    def __enter__(self):
        self.start = time.monotonic()
        self.bar: Progress | None = None
        self.task = None
        return self if sys.stderr.isatty() else None

    def __call__(self, lines: int) -> None:
        if self.bar is None:
            if time.monotonic() - self.start < self.DELAY:
                return
            self.bar = Progress(
                SpinnerColumn(),
                TextColumn("scoring: {task.completed:,} lines"),
                TimeElapsedColumn(),
                console=stderr(),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task("score", total=None)
        self.bar.update(self.task, completed=lines)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
