"""`evalrun suggest`: the rules, defaults and alternates the traces call for, with what each
would gain and could break; `--write` annotates the tool files."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from ..jsonvalue import short_json
from ..scoring import load_config
from ..suggest import KINDS
from ..suggest import suggest as run_suggest
from ..suggest.edit import write_suggestions
from ..traces.limits import MAX_LINE_BYTES
from ..write.suggest_json import write_json
from ..write.suggest_table import render_table
from ..write.table import data_console
from .common import (
    CaseFormatOpt,
    CaseKeyOpt,
    CasesOpt,
    JobsOpt,
    MaxLineOpt,
    OutputOpt,
    RunKeyOpt,
    ToolsOpt,
    TraceFormatOpt,
    TracesArg,
    fail,
    input_errors,
    keep_previous,
    output_stream,
    parse_jobs,
    progress,
    reading_of,
    stderr,
    verdict_exit,
)


class SuggestFormat(str, Enum):
    table = "table"
    json = "json"


Kind = Enum("Kind", [(k, k) for k in KINDS], type=str)  # type: ignore[misc]


def suggest(
    traces: TracesArg = None,
    tools: ToolsOpt = Path("tools"),
    cases: CasesOpt = Path("cases"),
    format: Annotated[
        SuggestFormat,
        typer.Option(
            "--format",
            "-f",
            help="Output: table, for a person (the default); json, one document for a program.",
        ),
    ] = SuggestFormat.table,
    output: OutputOpt = None,
    tool: Annotated[
        str | None,
        typer.Option("--tool", metavar="NAME", help="Only the suggestions for this tool."),
    ] = None,
    kind: Annotated[
        list[Kind] | None,
        typer.Option(
            "--kind",
            help="Only suggestions of this kind: rule, default, alternate, tighten (repeatable).",
            show_default=False,
        ),
    ] = None,
    write: Annotated[
        bool,
        typer.Option(
            "--write",
            help="Write the rule and default suggestions without risk into the tool files "
            "(in place, keeping each file's format and key order) and print what changed. "
            "Alternates are printed as case lines to paste, never written.",
        ),
    ] = False,
    include_risky: Annotated[
        bool,
        typer.Option("--include-risky", help="With --write, write the risky suggestions too."),
    ] = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 2 when any trace line cannot be scored.")
    ] = False,
    trace_format: TraceFormatOpt = None,
    case_format: CaseFormatOpt = None,
    case_key: CaseKeyOpt = None,
    run_key: RunKeyOpt = None,
    max_line_bytes: MaxLineOpt = MAX_LINE_BYTES,
    jobs: JobsOpt = "1",
) -> None:
    """Propose the rules, defaults and alternates the traces call for, each with its evidence,
    the runs it would pass (gains) and what it could break (risk).

    Reads tools, cases and traces as score does. Each rule, default and alternate is scored as
    a what-if on the same traces. Rules are tried narrowest first. A risky one would pass runs
    whose recorded world fails an effect assertion, equate values a narrower rule reads apart,
    go against its parameter's description (case-sensitive, timestamp) or equate calls the tool
    answered differently; each says what checked it (effects, replies, or nothing). Tighten
    proposals name the parameters better fixed in the schema. See docs/suggest.md. Exit codes
    as score: 0 done; 2 unusable input (or, with --strict, any unreadable trace line).
    """
    paths = traces or ["traces"]
    if include_risky and not write:
        raise fail("--include-risky says what --write writes; add --write")
    n_jobs = parse_jobs(jobs)
    kinds = {k.value for k in kind} if kind else None
    with input_errors():
        reading = reading_of(trace_format, case_key, run_key, max_line_bytes)
        config = load_config(tools, cases, case_format=case_format or "auto")
        if tool is not None and tool not in config.tools:
            raise fail(f"--tool {tool!r}: no tool of that name in {tools}")
        with progress("reading") as tick:
            report = run_suggest(
                config, paths, reading=reading, jobs=n_jobs, progress=tick,
                tool=tool, kinds=kinds,
            )  # fmt: skip
        with output_stream(output, inputs=paths, config=[tools, cases]) as out:
            if format is SuggestFormat.json:
                write_json(report, out)
            else:
                render_table(report, paths, data_console(out, to_file=output is not None))
            code = verdict_exit(report.summary, strict=strict)
            keep_previous(output, code)

    err = stderr()
    if write:
        with input_errors():
            written, skipped = write_suggestions(
                report.suggestions, config.tools, include_risky=include_risky
            )
        for w in written:
            line = f'wrote {w.file}: {w.tool}.{w.param}  "{w.key}": {short_json(w.value, 60)}'
            if w.shared:
                line += " (in a shared definition: every parameter using it gets it)"
            err.print(Text(line), soft_wrap=True)
        for s in skipped:
            err.print(
                Text(f"not written: {s.suggestion.tool}.{s.suggestion.param}: {s.reason}"),
                soft_wrap=True,
            )
        alternates = sum(1 for s in report.suggestions if s.kind == "alternate")
        if alternates:
            where = "its case" if alternates == 1 else "their cases"
            err.print(f"alternates are never written: paste the {alternates} above into {where}")
        if not written:
            err.print("nothing written")
    raise typer.Exit(code=code)
