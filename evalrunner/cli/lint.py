"""`evalrun lint`: check tools, rules and cases; findings as a table, JSON or JSONL."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..lint import CODES
from ..lint import lint as run_lint
from ..read.case_formats import CaseWarning
from ..traces.limits import MAX_LINE_BYTES
from ..write.lint_table import render
from ..write.results import dumps
from .common import (
    EXIT_THRESHOLD,
    CaseFormatOpt,
    CaseKeyOpt,
    CasesOpt,
    Format,
    FormatOpt,
    MaxLineOpt,
    OutputOpt,
    RunKeyOpt,
    ToolsOpt,
    TraceFormatOpt,
    data_console,
    fail,
    input_errors,
    output_stream,
    reading_of,
    stderr,
)


def lint(
    tools: ToolsOpt = Path("tools"),
    cases: CasesOpt = Path("cases"),
    traces: Annotated[
        list[str] | None,
        typer.Option(
            "--traces",
            metavar="PATH",
            help="Trace file or directory (.jsonl, .jsonl.gz, - for stdin): check the rules on "
            "the recorded arguments too, and report call coverage. Repeatable.",
            show_default=False,
        ),
    ] = None,
    format: FormatOpt = Format.table,
    output: OutputOpt = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 on warnings too, not only on errors.")
    ] = False,
    ignore: Annotated[
        list[str] | None,
        typer.Option(
            "--ignore",
            metavar="CODE",
            help="Leave out the findings of CODE (see docs/lint.md). Repeatable, or comma-separated.",
            show_default=False,
        ),
    ] = None,
    trace_format: TraceFormatOpt = None,
    case_format: CaseFormatOpt = None,
    case_key: CaseKeyOpt = None,
    run_key: RunKeyOpt = None,
    max_line_bytes: MaxLineOpt = MAX_LINE_BYTES,
) -> None:
    """Check tool schemas, equivalence rules and cases before they bend the numbers.

    Finds unknown normalizers, rules that cannot apply or break their laws on the
    values present, aliased keys, parameters with several encodings and no rule,
    case args that fail the tool's schema, bad defaults, and case keys that
    cannot work (a judge path naming no parameter, a pattern that does not
    compile or backtracks, a forbid entry no call can match, grade writes with
    no read-only tool); reports rule coverage. Codes and fixes: docs/lint.md.

    Exit codes: 0 no errors; 1 errors (with --strict, warnings too); 2 unusable
    input or an unknown --ignore code.
    """
    codes = [c.strip() for item in ignore or [] for c in item.split(",") if c.strip()]
    unknown = sorted(set(codes) - set(CODES))
    if unknown:
        raise fail(
            f"--ignore: unknown lint code {', '.join(map(repr, unknown))} "
            f"(codes: {', '.join(sorted(CODES))})"
        )
    with input_errors():
        reading = reading_of(trace_format, case_key, run_key, max_line_bytes)
        read: list[CaseWarning] = []
        report = run_lint(
            tools,
            cases,
            traces,
            reading=reading,
            case_format=case_format or "auto",
            case_warnings=read,
        ).ignoring(codes)
    for warning in read:  # what a case source holds that evalrun cannot express
        stderr().print(f"warning: {warning}", markup=False, soft_wrap=True, highlight=False)
    with output_stream(output, inputs=traces or (), config=[tools, cases]) as out:
        if format is Format.json:
            out.write(dumps(report.to_json()) + b"\n")
        elif format is Format.jsonl:
            summary = report.to_json()
            del summary["findings"]
            lines = [dumps(f.to_json()) for f in report.findings] + [dumps({"summary": summary})]
            out.write(b"\n".join(lines) + b"\n")
        else:
            render(report, data_console(out, to_file=output is not None))
    if report.failed(strict=strict):
        raise typer.Exit(code=EXIT_THRESHOLD)
