"""`evalrun diff OLD NEW`: what moved between two scorings, why, and whether it is more than noise."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from ..diff import diff as run_diff
from ..diff import gates
from ..summary.groups import NO_GROUP, no_group_found
from ..traces.limits import MAX_LINE_BYTES
from ..words import counted
from ..write.diff_html import render_diff
from ..write.diff_table import render
from ..write.results import dumps
from .common import (
    EXIT_THRESHOLD,
    PER_CALL_READING,
    CaseFormatOpt,
    CaseKeyOpt,
    MaxLineOpt,
    OutputOpt,
    Reported,
    RunKeyOpt,
    TraceFormatOpt,
    check_rate,
    data_console,
    fail,
    input_errors,
    named,
    output_stream,
    reading_of,
    stderr,
)


class DiffFormat(str, Enum):
    table = "table"
    json = "json"
    html = "html"  # the page: evalrunner/write/diff_html.py


class PairingChoice(str, Enum):
    auto = "auto"
    run_id = "run_id"
    case_id = "case_id"


ToolsOpt = Annotated[
    Path,
    typer.Option(
        "--tools",
        help="Directory (or file) of tool schemas; for a git revision, its own at this path "
        "(see --traces).",
    ),
]
CasesOpt = Annotated[
    Path,
    typer.Option(
        "--cases",
        help="Directory (or file) of cases; for a git revision, its own at this path "
        "(see --traces).",
    ),
]
TracesOpt = Annotated[
    Path,
    typer.Option(
        "--traces",
        help="Where a git revision's traces are. A revision's --tools, --cases and --traces are "
        "read inside it: relative to the current folder and mapped into the revision, so from "
        "the repository's root they are relative to the root (evals/traces).",
    ),
]

SIDE_HELP = (
    "A results file (evalrun score --format json or jsonl), a trace file or directory, "
    "- for standard input, or a git revision (HEAD~1, a tag, a SHA). A path that exists wins "
    "over a revision."
)


def diff(
    old: Annotated[str, typer.Argument(metavar="OLD", help=SIDE_HELP, show_default=False)],
    new: Annotated[str, typer.Argument(metavar="NEW", help=SIDE_HELP, show_default=False)],
    tools: ToolsOpt = Path("tools"),
    cases: CasesOpt = Path("cases"),
    traces: TracesOpt = Path("traces"),
    format: Annotated[
        DiffFormat, typer.Option("--format", "-f", help="Output: table, json or html (a page).")
    ] = DiffFormat.table,
    output: OutputOpt = None,
    fail_on_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-regression/--no-fail-on-regression",
            help="Exit 1 when the true verdicts got worse and the paired test's p is below "
            "--alpha, for CI.",
        ),
    ] = False,
    fail_above_delta: Annotated[
        float | None,
        typer.Option(
            "--fail-above-delta",
            metavar="D",
            help="Exit 1 when the true run failure rate rose by more than D, a fraction (0.05 "
            "for 5 points): a gate a small suite can trip.",
            show_default=False,
        ),
    ] = None,
    fail_on_case_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-case-regression/--no-fail-on-case-regression",
            help="Exit 1 when any case's true pass share fell (each is listed), whatever the "
            "pairing.",
        ),
    ] = False,
    fail_on_suspect: Annotated[
        bool,
        typer.Option(
            "--fail-on-suspect/--no-fail-on-suspect",
            help="Exit 1 when a rule newly creates false passes: calls newly match through it "
            "while the recorded world says the run failed, or its replies differ.",
        ),
    ] = False,
    alpha: Annotated[
        float,
        typer.Option(
            "--alpha",
            help="Significance level of the paired test, between 0 and 1.",
        ),
    ] = 0.05,
    pairing: Annotated[
        PairingChoice,
        typer.Option(
            "--pairing",
            help="Pair runs by run_id or by case_id; auto pairs by run_id when both sides hold "
            "the same runs.",
        ),
    ] = PairingChoice.auto,
    group_by: Annotated[
        str | None,
        typer.Option(
            "--group-by",
            metavar="KEY",
            help="Also compare per group, as score --group-by KEY groups runs: each group's "
            "true failure rates, flips and test. A results file side must have been scored "
            "with the same --group-by.",
            show_default=False,
        ),
    ] = None,
    reported: Annotated[
        Reported,
        typer.Option(
            "--reported",
            help="How the reported (exact-match) check reads the runs of a side diff scores "
            "(trace sets, revisions), as score --reported: per-call or list. A results file "
            "keeps the reading it was scored with; both sides must read alike.",
        ),
    ] = PER_CALL_READING,
    trace_format: TraceFormatOpt = None,
    case_format: CaseFormatOpt = None,
    case_key: CaseKeyOpt = None,
    run_key: RunKeyOpt = None,
    max_line_bytes: MaxLineOpt = MAX_LINE_BYTES,
) -> None:
    """Compare two scorings: rates, shapes, flipped runs with causes, a paired test.

    OLD and NEW are each a results file, a trace file or directory (scored with
    --tools and --cases), - for standard input, or a git revision whose own
    --tools, --cases and --traces are scored (read raw from git's objects; the working
    tree is not touched). Runs pair by run_id when both sides hold the same runs,
    else cases by case_id. More: docs/diff.md.

    Exit codes: 0 done; 1 a gate fired (--fail-on-regression: the true verdicts
    got significantly worse; --fail-above-delta, --fail-on-case-regression,
    --fail-on-suspect); 2 unusable input. Each gate can be set in [tool.evalrun].
    """
    if not 0 < alpha < 1:
        raise fail(f"--alpha must be between 0 and 1 (exclusive), not {alpha:g}")
    check_rate(fail_above_delta, named("fail_above_delta", "--fail-above-delta"))
    with input_errors():
        result = run_diff(
            old,
            new,
            tools=tools,
            cases=cases,
            traces=traces,
            pairing=pairing.value,
            reading=reading_of(trace_format, case_key, run_key, max_line_bytes),
            group_by=group_by,
            reported=reported.value,
            case_format=case_format or "auto",
        )
    with output_stream(output, inputs=[old, new, traces], config=[tools, cases]) as out:
        if format is DiffFormat.json:
            out.write(dumps(result.to_json()) + b"\n")
        elif format is DiffFormat.html:
            out.write(render_diff(result.to_json(), alpha=alpha))
        else:
            render(result, alpha, data_console(out, to_file=output is not None))

    # Names, ids and paths are the user's: printed as Text, never read as Rich markup
    # (a run id `[/]r-1` would end the command; `[link=…]` would make a link).
    err = stderr()
    for name, side in (("OLD", result.old), ("NEW", result.new)):
        unscoreable = side.summary.get("unscoreable") or 0
        if unscoreable and side.kind != "results":
            lines = counted(unscoreable, "trace line")
            err.print(Text(f"{name}: {lines} could not be scored (not compared)"))
    if result.group_by is not None and [name for name, _ in result.groups] == [NO_GROUP]:
        # as score says it: a job meant to compare models must not read one group as a result
        err.print(Text(f"warning: {no_group_found(result.group_by)}"), soft_wrap=True)
    if result.suspect_rules:
        rules = ", ".join(f"{s.norm} on {s.tool}.{s.param}" for s in result.suspect_rules)
        err.print(
            Text.assemble(
                ("warning:", "bold red"),
                f" calls now match through {rules} while the recorded world says the run "
                "failed: doubt the rule before trusting the new passes",
            )
        )
    fired = [
        g
        for g in (
            gates.regression(result, alpha, named("fail_on_regression", "--fail-on-regression"))
            if fail_on_regression
            else None,
            gates.delta_above(
                result, fail_above_delta, named("fail_above_delta", "--fail-above-delta")
            )
            if fail_above_delta is not None
            else None,
            gates.case_regression(
                result, named("fail_on_case_regression", "--fail-on-case-regression")
            )
            if fail_on_case_regression
            else None,
            gates.diff_suspects(result, named("fail_on_suspect", "--fail-on-suspect"))
            if fail_on_suspect
            else None,
        )
        if g is not None
    ]
    if fail_on_regression and not fired:
        why = gates.cannot_fire(result, alpha)
        if why is not None:
            gate = named("fail_on_regression", "--fail-on-regression")
            err.print(Text(f"note: {gate}: {why}"), soft_wrap=True)
    for g in fired:
        err.print(Text(g.message), soft_wrap=True)
    if fired:
        raise typer.Exit(code=EXIT_THRESHOLD)
