"""`evalrun diff` (the default, `--format table`): what moved between two scorings, for a person
(80 columns, readable without colour); `diff_html.py` draws the same diff as a page.

Names, ids and paths are the user's: printed as `rich.text.Text`, never read as markup.
"""

from __future__ import annotations

from typing import Any, Literal

from rich import box
from rich.console import Console
from rich.table import Table

from ..diff import SHAPES, DiffResult, describe_test
from ..terminal import SafeText as Text
from ..words import counted
from .wording import change, n, pct, points, share_count

MAX_FLIPS_SHOWN = 50


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
