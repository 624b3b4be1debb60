"""`evalrun audit sample` and `evalrun audit score`: check the instrument against a person's
reading, with an error bar (docs/audit.md)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from ..audit import Inputs, Sheet
from ..audit import sample as sample_runs
from ..audit import score as score_sheet
from ..write.audit_page import render_page
from ..write.audit_table import render_audit
from ..write.results import dumps
from .common import (
    CaseKeyOpt,
    CasesOpt,
    OutputOpt,
    Reported,
    RunKeyOpt,
    ToolsOpt,
    TraceFormatOpt,
    data_console,
    input_errors,
    output_stream,
    progress,
    reading_of,
    stderr,
)

app = typer.Typer(
    name="audit",
    help=(
        "Check evalrun against a person's reading: sample runs into a sheet to label (sample), "
        "then compare the labels with evalrun's verdicts, with an error bar (score)."
    ),
    no_args_is_help=True,
    add_completion=False,
)

MAX_LISTED = 20


class SheetFormat(str, Enum):
    jsonl = "jsonl"
    html = "html"


class AuditFormat(str, Enum):
    table = "table"
    json = "json"


TracesArg = Annotated[
    list[str] | None,
    typer.Argument(
        help="Trace files or directories (.jsonl, .jsonl.gz), or - for standard input. "
        "Default: traces/",
        show_default=False,
    ),
]


@app.command("sample")
def sample(
    failures: Annotated[
        int,
        typer.Option("--failures", min=0, metavar="N", help="How many reported failures to draw."),
    ],
    passes: Annotated[
        int,
        typer.Option("--passes", min=0, metavar="M", help="How many reported passes to draw."),
    ],
    seed: Annotated[
        int,
        typer.Option(
            "--seed",
            metavar="S",
            help="The seed of the draw: the same inputs and seed draw the same runs.",
        ),
    ],
    output: Annotated[
        Path,
        typer.Option("--output", "-o", metavar="SHEET", help="Write the sheet to SHEET."),
    ],
    traces: TracesArg = None,
    format: Annotated[
        SheetFormat,
        typer.Option(
            "--format",
            "-f",
            help="jsonl: the sheet, to label in an editor; html: a page that shows one run at a "
            "time, to label with two buttons, and saves the labelled sheet (JSONL).",
        ),
    ] = SheetFormat.jsonl,
    show_verdict: Annotated[
        bool,
        typer.Option(
            "--show-verdict",
            help="Add evalrun's verdict and explanation to each run (the sheet is blind without).",
        ),
    ] = False,
    tools: ToolsOpt = Path("tools"),
    cases: CasesOpt = Path("cases"),
    trace_format: TraceFormatOpt = None,
    case_key: CaseKeyOpt = None,
    run_key: RunKeyOpt = None,
    reported: Annotated[
        Reported | None,
        typer.Option(
            "--reported",
            help="How the reported (exact-match) check reads a run, as score --reported "
            "(per-call or list): it makes the strata; the sheet records it.",
            show_default="per-call",
        ),
    ] = None,
) -> None:
    """Draw a random sample of reported failures and passes into a sheet for a person to label.

    A simple random sample from each stratum of the exact-match verdict, reproducible for the
    same inputs and seed. Each run comes with what a reviewer needs to judge it: its calls as
    recorded, the accepted sequences, the effects and the recorded world, the tools' descriptions.
    Blind by default: evalrun's verdict is not in it (--show-verdict adds it). Label each run
    "correct" or "wrong", then run: evalrun audit score SHEET. Exit codes: 0 done; 2 unusable
    input.
    """
    with input_errors():
        inputs = Inputs(
            tools,
            cases,
            tuple(traces or ["traces"]),
            reading_of(trace_format, case_key, run_key),
            reported.value if reported is not None else None,
        )
        with progress("scoring") as tick:
            sheet = sample_runs(
                inputs,
                failures=failures,
                passes=passes,
                seed=seed,
                show_verdict=show_verdict,
                progress=tick,
            )
        with output_stream(output, inputs=inputs.traces, config=[tools, cases]) as out:
            if format is SheetFormat.html:
                out.write(render_page(sheet, download=output.with_suffix(".jsonl").name).encode())
            else:
                out.writelines(sheet.lines())
    _report_sample(sheet, output, page=format is SheetFormat.html)


def _report_sample(sheet: Sheet, output: Path, *, page: bool = False) -> None:
    err = stderr()
    h = sheet.header
    parts = []
    for stratum, what in (("reported_fail", "reported failures"), ("reported_pass", "passes")):
        parts.append(f"{h.drawn[stratum]:,} of {h.population[stratum]:,} {what}")
    if page:
        # The page never writes a file beside itself: its Save button downloads the labelled
        # sheet, under this name, wherever the browser puts downloads.
        saved = output.with_suffix(".jsonl").name
        err.print(
            Text(
                f"Drew {' and '.join(parts)} (seed {h.seed}) into {output}; open it, label each "
                f"run, press Save (the browser downloads {saved}), then: "
            )
            + Text(f"evalrun audit score ~/Downloads/{saved}", style="bold")
            + Text(" (the path your browser saved it to)"),
            soft_wrap=True,
        )
    else:
        err.print(
            Text(
                f"Drew {' and '.join(parts)} (seed {h.seed}) into {output}; label each run, then: "
            )
            + Text(f"evalrun audit score {output}", style="bold"),
            soft_wrap=True,
        )
    errors = h.errors
    if not errors:
        return
    err.print(f"{len(errors):,} of {h.runs + len(errors):,} trace lines could not be scored:")
    for e in errors[:MAX_LISTED]:
        err.print(Text(f"  {e.source}  {e.error}"), soft_wrap=True)
    if len(errors) > MAX_LISTED:
        err.print(
            f"  … and {len(errors) - MAX_LISTED:,} more (the sheet's first line lists them all)"
        )


@app.command("score")
def score(
    sheet: Annotated[
        Path, typer.Argument(help="The labelled sheet (JSONL), as `audit sample` wrote it.")
    ],
    traces: TracesArg = None,
    format: Annotated[
        AuditFormat,
        typer.Option(
            "--format",
            "-f",
            help="table: hand vs measured, the agreement and the disagreements, for a person; "
            'json: one document (SPEC "evalrun audit").',
        ),
    ] = AuditFormat.table,
    output: OutputOpt = None,
    tools: ToolsOpt = Path("tools"),
    cases: CasesOpt = Path("cases"),
    trace_format: TraceFormatOpt = None,
    case_key: CaseKeyOpt = None,
    run_key: RunKeyOpt = None,
    reported: Annotated[
        Reported | None,
        typer.Option(
            "--reported",
            help="How the reported check reads a run: the sheet's own reading (the default), "
            "which this must equal when given.",
            show_default="the sheet's",
        ),
    ] = None,
) -> None:
    """Compare a labelled sheet with evalrun's verdicts on the same runs.

    Prints the hand estimate of the true run failure rate (stratified, with a 95% interval)
    beside evalrun's measured rates, the share of correct runs among reported failures and of
    wrong runs among reported passes (95% Wilson intervals), the agreement (Cohen's kappa) and
    every disagreement with the lead it gives. Unlabelled lines are counted and left out. Without
    --trace-format, --case-key or --run-key the traces are read as when the sheet was sampled;
    when the inputs changed since, the sheet is scored and a warning names what changed.
    Exit codes: 0 done; 2 an unusable sheet (a bad label, a run no longer in the traces) or input.
    """
    with input_errors():
        given = trace_format is not None or case_key is not None or run_key is not None
        inputs = Inputs(
            tools,
            cases,
            tuple(traces or ["traces"]),
            reading_of(trace_format, case_key, run_key) if given else None,
            reported.value if reported is not None else None,
        )
        with progress("scoring") as tick:
            audit = score_sheet(sheet, inputs, progress=tick)
        with output_stream(output, inputs=[sheet, *inputs.traces], config=[tools, cases]) as out:
            if format is AuditFormat.json:
                out.write(dumps(audit.to_json()) + b"\n")
            else:
                render_audit(audit, data_console(out, to_file=output is not None))
    err = stderr()
    for warning in audit.warnings():
        err.print(Text("warning: ", style="bold yellow") + Text(warning), soft_wrap=True)
    if audit.errors:
        err.print(
            f"{len(audit.errors):,} of {audit.summary.lines:,} trace lines could not be scored "
            "(listed in the output)"
        )
