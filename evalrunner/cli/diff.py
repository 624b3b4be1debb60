"""`evalrun diff OLD NEW`: what moved between two scorings, why, and whether it is more than noise."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..diff import SHAPES, DiffResult, describe_test, gates
from ..diff import diff as run_diff
from ..traces.lines import MAX_LINE_BYTES
from ..words import counted
from ..write.diff_html import render_diff
from ..write.results import dumps
from ..write.wording import change, n, pct, points, share_count
from .common import (
    EXIT_THRESHOLD,
    CaseKeyOpt,
    MaxLineOpt,
    OutputOpt,
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

MAX_FLIPS_SHOWN = 50


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
    trace_format: TraceFormatOpt = None,
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
            err.print(Text(f"note: --fail-on-regression: {why}"), soft_wrap=True)
    for g in fired:
        err.print(Text(g.message), soft_wrap=True)
    if fired:
        raise typer.Exit(code=EXIT_THRESHOLD)


# ------------------------------------------------------------------------------------ table


def render(result: DiffResult, alpha: float, console: Console) -> None:
    old, new = result.old.summary, result.new.summary
    console.print(
        Text.assemble(
            ("evalrun diff", "bold"), f" · paired by {result.pairing}: {result.pairing_reason}"
        )
    )
    console.print(Text(f"  old  {result.old.source}"))
    console.print(Text(f"  new  {result.new.source}"))
    unpaired_old, unpaired_new = result.unpaired
    if unpaired_old or unpaired_new:
        console.print(
            Text(
                f"  not paired: {counted(unpaired_old, result.unit)} only in OLD, "
                f"{n(unpaired_new)} only in NEW (left out of the flips and the test)"
            )
        )
    console.print()

    rates = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    rates.add_column("")
    for col in ("old", "new", "change"):
        rates.add_column(col, justify="right")
    delta = result.delta()
    checks: tuple[tuple[Literal["reported", "true"], str], ...] = (
        ("reported", "reported run failure rate"),
        ("true", "true run failure rate"),
    )
    for check, label in checks:
        rates.add_row(
            label,
            share_count(result.old.failed(check), result.old.n_runs),
            share_count(result.new.failed(check), result.new.n_runs),
            points(delta[f"{check}_run_failure_rate"]),
            style="bold" if check == "true" else None,
        )
    rates.add_row("runs", n(result.old.n_runs), n(result.new.n_runs), "")
    console.print(rates)
    console.print()

    shapes = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    shapes.add_column("shape")
    for col in ("old", "new", "change"):
        shapes.add_column(col, justify="right")
    any_shape = False
    for group, names in SHAPES:
        rows = [(s, _shape_count(old, group, s), _shape_count(new, group, s)) for s in names]
        rows = [r for r in rows if r[1] or r[2]]
        if not rows:
            continue
        any_shape = True
        shapes.add_row(Text(group.replace("_", " "), style="bold"), "", "", "")
        for s, a, b in rows:
            shapes.add_row(f"  {s}", n(a), n(b), change(a, b))
    if any_shape:
        console.print(shapes)
        console.print()

    _render_groups(result, console)
    _render_suspects(result, console)
    _render_flips(result, console)
    console.print(
        Text.assemble(
            (f"Test on the true verdicts ({_TEST_NAMES[result.test.name]}): ", "bold"),
            describe_test(result, alpha),
        )
    )


_TEST_NAMES = {
    "exact_mcnemar": "exact McNemar over runs",
    "exact_sign": "exact sign test over cases",
}


def _render_groups(result: DiffResult, console: Console) -> None:
    """`--group-by`: each group's true run failure rate on both sides, its flips and its test."""
    if result.group_by is None:
        return
    console.print(Text.assemble(("By ", "bold"), (result.group_by, "bold")))
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("group", overflow="fold")
    for col in ("old true", "new true", "change", "flips", "improved", "regressed", "p"):
        table.add_column(col, justify="right")
    for name, g in result.groups:
        t = g.test
        table.add_row(
            Text(name),
            share_count(g.old.failed("true"), g.old.n_runs),
            share_count(g.new.failed("true"), g.new.n_runs),
            points(g.delta()["true_run_failure_rate"]),
            n(len(g.flips)),
            n(t.improved),
            n(t.regressed),
            f"{float(t.p_value):.2g}",
        )
    console.print(table)
    console.print()


def _render_suspects(result: DiffResult, console: Console) -> None:
    if not result.suspect_rules:
        return
    console.print(
        Text(
            "WARNING: calls now match through a rule while the recorded world says the run "
            "failed. That is how a rule change creates false passes: doubt the rule first.",
            style="bold red",
        )
    )
    for s in result.suspect_rules:
        line = (
            f"  {s.norm} on {s.tool}.{s.param}: {s.runs} run{'s' if s.runs != 1 else ''} with "
            f"failing effects ({', '.join(s.keys[:5])}{', …' if len(s.keys) > 5 else ''})"
        )
        if s.unverified_passes:
            line += f"; {s.unverified_passes} more it turned into passes had no world to check them"
        console.print(Text(line, style="red"))
    console.print()


def _render_flips(result: DiffResult, console: Console) -> None:
    flips = result.flips
    if result.pairing == "run_id":
        what = f"{counted(len(flips), 'run')} changed verdict"
    else:
        what = f"{counted(len(flips), 'case')} changed true pass fraction"
        if result.reported_only:
            what += (
                f" ({counted(result.reported_only, 'more case')} changed only their exact-match pass "
                "fraction: not flips)"
            )
    console.print(Text.assemble(("Flips", "bold"), f": {what}"))
    if not flips:
        console.print()
        return
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column(result.pairing)
    table.add_column("old → new")
    table.add_column("cause", overflow="fold")
    for f in flips[:MAX_FLIPS_SHOWN]:
        old, new = _value(f.old), _value(f.new)
        if f.shapes is not None:
            old += f" ({f.shapes[0]})" if f.shapes[0] else ""
            new += f" ({f.shapes[1]})" if f.shapes[1] else ""
        table.add_row(Text(f.key), Text(f"{old} → {new}"), Text(f.cause))
    console.print(table)
    if len(flips) > MAX_FLIPS_SHOWN:
        console.print(
            f"… and {n(len(flips) - MAX_FLIPS_SHOWN)} more (--format json lists them all)"
        )
    console.print()


def _value(v: Any) -> str:
    return v if isinstance(v, str) else pct(v, 0)


def _shape_count(summary: dict[str, Any], group: str, shape: str) -> int:
    counts = summary.get(group)
    value = counts.get(shape, 0) if isinstance(counts, dict) else 0
    return value if isinstance(value, int) else 0
