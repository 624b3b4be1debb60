"""`evalrun report RESULTS`: render a saved results file as a page, Markdown or JUnit XML."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ..write import WRITERS, Output
from ..write.report import ReportWriter, render_saved
from .common import OutputOpt, input_errors, output_stream

ReportFormat = Enum(  # type: ignore[misc]
    "ReportFormat", [(w.name, w.name) for w in WRITERS.values() if w.renders_results], type=str
)


def report(
    results: Annotated[
        Path,
        typer.Argument(
            metavar="RESULTS",
            help="A results file: the output of evalrun score --format json or jsonl (.gz too).",
            show_default=False,
        ),
    ],
    format: Annotated[
        ReportFormat,
        typer.Option(
            "--format",
            "-f",
            help="Output: "
            + "; ".join(f"{w.name}, {w.summary}" for w in WRITERS.values() if w.renders_results)
            + ".",
            show_default=False,
        ),
    ],
    output: OutputOpt = None,
) -> None:
    """Render a saved results file as evalrun score renders live results.

    The page, the Markdown and the JUnit XML are the same as `evalrun score --format ...` gives
    for the same runs: score once (--format json), render as often as needed. Exit codes: 0
    done; 2 a file that is not an evalrun results file.
    """
    with input_errors(), output_stream(output) as out:
        writer = WRITERS[format.value].make(
            Output(out, to_file=output is not None, path=output, sources=(str(results),))
        )
        assert isinstance(writer, ReportWriter), f"{format.value} renders results"
        render_saved(results, writer)
