"""`evalrun score`: the true-vs-reported failure table, or results JSON for pipes."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ..scoring import load_config
from ..scoring import score as run_scoring
from ..traces.limits import MAX_EXPANDED_BYTES, MAX_LINE_BYTES
from ..traces.lines import path_text
from ..write import WRITERS, Output
from ..write.table import SHOW
from .common import (
    PER_CALL_READING,
    CaseFormatOpt,
    CaseKeyOpt,
    CasesOpt,
    JobsOpt,
    MaxLineOpt,
    OutputOpt,
    Reported,
    RunKeyOpt,
    ToolsOpt,
    TraceFormatOpt,
    TracesArg,
    check_rate,
    fail,
    input_errors,
    keep_previous,
    named,
    output_stream,
    parse_jobs,
    progress,
    reading_of,
    verdict_exit,
)

ResultsFormat = Enum(  # type: ignore[misc]
    "ResultsFormat", [(name, name) for name in WRITERS], type=str
)
TABLE = ResultsFormat("table")
Show = Enum("Show", [(name.replace("-", "_"), name) for name in SHOW], type=str)  # type: ignore[misc]


def score(
    traces: TracesArg = None,
    tools: ToolsOpt = Path("tools"),
    cases: CasesOpt = Path("cases"),
    case_format: CaseFormatOpt = None,
    format: Annotated[
        ResultsFormat,
        typer.Option(
            "--format",
            "-f",
            help="Output: " + "; ".join(f"{w.name}, {w.summary}" for w in WRITERS.values()) + ".",
        ),
    ] = TABLE,
    output: OutputOpt = None,
    fail_above: Annotated[
        float | None,
        typer.Option(
            "--fail-above",
            metavar="RATE",
            help="Exit 1 when the true run failure rate is above RATE, a fraction from 0 to 1 "
            "(0.15 for 15%), for CI.",
        ),
    ] = None,
    fail_on_suspect: Annotated[
        bool,
        typer.Option(
            "--fail-on-suspect/--no-fail-on-suspect",
            help="Exit 1 when a rule may be creating false passes: a normalizer suspect (calls "
            "matched through it while the recorded world says the run failed) or a rule whose "
            "replies differ.",
        ),
    ] = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 2 when any trace record cannot be scored.")
    ] = False,
    show: Annotated[
        Show | None,
        typer.Option(
            "--show",
            help="After the table, list the runs behind a number with their explanations: "
            "failures (every true failure), real-failures, false-failures, false-passes.",
        ),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit", min=0, help="How many runs --show lists (default 20).", show_default=False
        ),
    ] = None,
    trace_format: TraceFormatOpt = None,
    case_key: CaseKeyOpt = None,
    run_key: RunKeyOpt = None,
    max_line_bytes: MaxLineOpt = MAX_LINE_BYTES,
    max_expanded_bytes: Annotated[
        int,
        typer.Option(
            "--max-expanded-bytes",
            metavar="BYTES",
            min=1,
            help="The most a .jsonl.gz trace file may expand to (a gzip bomb stops there, "
            "reported at the line reached).",
        ),
    ] = MAX_EXPANDED_BYTES,
    group_by: Annotated[
        str | None,
        typer.Option(
            "--group-by",
            metavar="KEY",
            help="Also summarize per value of KEY, a dotted path into each trace record as "
            "logged, in any format (model, metadata.prompt; a span or resource attribute for "
            "span formats, gen_ai.request.model), else the run's meta; case.tags groups by the "
            "cases' tags. Runs without it form the group (none); a KEY no run has is a warning "
            "(exit 2 with --strict).",
            show_default=False,
        ),
    ] = None,
    error_pattern: Annotated[
        list[str] | None,
        typer.Option(
            "--error-pattern",
            metavar="REGEX",
            help="A tool reply whose text matches REGEX (searched) makes its call an errored "
            "attempt, in every trace format; repeatable. Frameworks' own error texts are read "
            "already (docs/trace-formats.md).",
            show_default=False,
        ),
    ] = None,
    case_id: Annotated[
        str | None,
        typer.Option(
            "--case-id",
            metavar="ID",
            help="Every run read is a run of case ID (a file of one case: bare lists of "
            "messages, say), whatever the records say.",
            show_default=False,
        ),
    ] = None,
    reported: Annotated[
        Reported,
        typer.Option(
            "--reported",
            help="How the reported (exact-match) check reads a run: per-call, the case's first "
            "accepted sequence under its match mode, each call checked on its own (an exact "
            "repeat passes); list, the whole call list equal to that sequence, repeats and all.",
        ),
    ] = PER_CALL_READING,
    jobs: JobsOpt = "1",
) -> None:
    """Score recorded runs: the failure rate exact-match reports, the true one, and why they differ.

    Reads tool schemas (--tools), cases (--cases) and traces; prints the true-vs-reported table,
    or one results document (--format json), or one run a line then the summary (--format jsonl).
    Exit codes: 0 done; 1 --fail-above crossed (or --fail-on-suspect fired); 2 unusable input
    (or, with --strict, any unreadable trace line).
    """
    paths = traces or ["traces"]
    writer_format = WRITERS[format.value]
    if show is not None and not writer_format.shows_runs:
        raise fail(
            f"--show lists runs under the table; with --format {format.value}, filter with jq"
        )
    if limit is not None and show is None:
        raise fail("--limit counts the runs --show lists: add --show (failures, for instance)")
    check_rate(fail_above, named("fail_above", "--fail-above"))
    n_jobs = parse_jobs(jobs)
    with input_errors():
        reading = reading_of(
            trace_format,
            case_key,
            run_key,
            max_line_bytes,
            error_patterns=tuple(error_pattern or ()),
            case_id=case_id,
            max_expanded_bytes=max_expanded_bytes,
        )
        config = load_config(
            tools, cases, reported=reported.value, case_format=case_format or "auto"
        )
        with output_stream(output, inputs=paths, config=[tools, cases]) as out:
            writer = writer_format.make(
                Output(
                    out,
                    to_file=output is not None,
                    path=output,
                    sources=tuple(path_text(p) for p in paths),
                    show=show.value if show is not None else None,
                    limit=limit if limit is not None else 20,
                )
            )
            with progress("scoring") as tick:
                summary = run_scoring(
                    config,
                    paths,
                    reading=reading,
                    jobs=n_jobs,
                    writer=writer,
                    progress=tick,
                    exclude=[output] if output is not None else [],
                    group_by=group_by,
                )
            code = verdict_exit(
                summary, strict=strict, fail_above=fail_above, fail_on_suspect=fail_on_suspect
            )
            keep_previous(output, code)
    raise typer.Exit(code=code)
