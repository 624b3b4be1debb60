"""`evalrun lint`: check tools, rules and cases; findings as a table, JSON or JSONL."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from ..lint import CODES, Finding, LintReport
from ..lint import lint as run_lint
from ..read.case_formats import CaseWarning
from ..traces.lines import MAX_LINE_BYTES
from ..words import counted
from ..write.results import dumps
from ..write.wording import n, pct
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

INDENT = " " * 10
STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


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
    case args that fail the tool's schema, bad defaults; reports rule coverage.
    Codes and fixes: docs/lint.md.

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


def render(report: LintReport, console: Console) -> None:
    """Findings grouped by file, then the counts and the coverage; readable at 80 columns.

    Each finding: severity, code and JSON path, then the message and the fix, wrapped under the
    code with a hanging indent (rich's tables would pad every line with trailing spaces).
    """
    width = max(console.width, 40)
    groups: dict[str, list[Finding]] = {}
    for f in report.findings:
        groups.setdefault(f"{f.file}:{f.line}" if f.line is not None else f.file, []).append(f)
    for where, findings in groups.items():
        console.print(Text(where, style="bold"), overflow="fold")
        for f in findings:
            head = Text(INDENT[:2])
            head.append(f"{f.severity:<7}", style=STYLE[f.severity])
            head.append(f" {f.code}", style="bold")
            if len(head) + 2 + len(f.path) <= width:
                head.append(f"  {f.path}", style="dim")
                console.print(head)
            else:
                console.print(head)
                for part in _wrap(f.path, width, breaks=False):
                    console.print(Text(part, style="dim"))
            for part in _wrap(f.message, width) + _wrap(f"fix: {f.fix}", width):
                console.print(Text(part))
        console.print()
    counts = [
        counted(report.count("error"), "error"),
        counted(report.count("warning"), "warning"),
        f"{report.count('info')} info",
    ]
    tail = f" ({report.ignored} ignored)" if report.ignored else ""
    console.print(Text(", ".join(counts) + tail, style="bold"))
    c = report.coverage
    console.print(f"tools with rules: {c.tools_with_norms} of {n(c.tools)}")
    if c.calls is not None:
        share = c.call_share_with_norms or 0.0
        text = (
            f"calls to them: {pct(share)} of {counted(c.calls, 'call')} recorded in "
            f"{counted(c.runs or 0, 'run')} of the traces"
        )
        console.print(text, overflow="fold")
        if c.unreadable_lines:
            console.print(
                f"unreadable trace lines: {n(c.unreadable_lines)} (evalrun score lists them)"
            )


def _wrap(text: str, width: int, *, breaks: bool = True) -> list[str]:
    """`text` in lines under the code column; a JSON path is cut anywhere (`breaks=False`)."""
    if breaks:
        return textwrap.wrap(text, width, initial_indent=INDENT, subsequent_indent=INDENT) or [""]
    room = width - len(INDENT)
    return [INDENT + text[i : i + room] for i in range(0, len(text), room)]
