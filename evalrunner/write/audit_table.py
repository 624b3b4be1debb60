"""`evalrun audit score --format table` (the default): the hand estimate beside evalrun's measurement, as
the motivating post reported them, then the agreement and every disagreement with its lead.

Everything that comes from a sheet or the traces (ids, notes, explanations) is printed as
`rich.text.Text`, never as markup: a note that says `[bold]` stays those seven characters.
"""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table

from ..audit.compare import Audit
from ..audit.stats import Estimate
from ..terminal import SafeText as Text
from .wording import interval, n, pct

MAX_ERRORS = 20


def _ci(e: Estimate) -> str:
    return interval(e.low, e.high)


def render_audit(audit: Audit, console: Console) -> None:
    h = audit.header
    fails, passes = audit.counts["reported_fail"], audit.counts["reported_pass"]
    read_f = fails["correct"] + fails["wrong"]
    read_p = passes["correct"] + passes["wrong"]
    console.print(
        Text.assemble(
            ("evalrun audit", "bold"),
            f" · {audit.sheet} · {n(audit.labelled)} runs labelled"
            + (f", {n(audit.unlabelled)} not yet (left out)" if audit.unlabelled else "")
            + f" · seed {h.seed}",
        )
    )
    console.print(
        f"Population: {n(h.runs)} runs, {n(h.population['reported_fail'])} reported failures "
        f"and {n(h.population['reported_pass'])} reported passes"
    )
    console.print()
    m = audit.measured()
    rates = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    rates.add_column("")
    rates.add_column(f"hand ({n(audit.labelled)} read)", justify="right", style="bold")
    rates.add_column("95% interval", justify="right")
    rates.add_column(f"evalrun ({n(audit.summary.runs)})", justify="right")
    rates.add_row(
        "true run failure rate",
        pct(audit.rate.value),
        _ci(audit.rate),
        pct(m["true_run_failure_rate"]),
    )
    rates.add_row("reported (exact-match)", "", "", pct(m["reported_run_failure_rate"]))
    rates.add_row(
        "correct among reported fails",
        f"{pct(audit.correct_among_failures.value)} ({fails['correct']}/{read_f})",
        _ci(audit.correct_among_failures),
        pct(m["correct_among_reported_failures"]),
    )
    rates.add_row(
        "wrong among reported passes",
        f"{pct(audit.wrong_among_passes.value)} ({passes['wrong']}/{read_p})",
        _ci(audit.wrong_among_passes),
        pct(m["wrong_among_reported_passes"]),
    )
    console.print(rates)
    if audit.rate.value is None and h.runs:
        console.print(
            "The hand estimate needs labelled runs from both strata; the interval holds "
            "whatever the unread stratum's rate is."
        )
    console.print()
    _agreement(audit, console)
    _disagreements(audit, console)
    _errors(audit, console)


def _agreement(audit: Audit, console: Console) -> None:
    if not audit.labelled:
        console.print("[bold]Agreement[/bold]: no labelled runs yet")
        return
    kappa = "undefined" if audit.kappa is None else f"{audit.kappa:.2f}"
    left_out = audit.changed_labelled
    rate = f" ({pct(audit.agree / audit.compared)})" if audit.compared else ""
    console.print(
        f"[bold]Agreement[/bold]: {n(audit.agree)} of {n(audit.compared)} labelled runs"
        f"{rate}, Cohen's kappa {kappa}"
        + (
            f"; {n(left_out)} labelled {'run' if left_out == 1 else 'runs'} left out: "
            "changed since sampling (listed in the warnings)"
            if left_out
            else ""
        )
    )
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("read as")
    table.add_column("evalrun pass", justify="right")
    table.add_column("evalrun fail", justify="right")
    for label, row in audit.matrix.items():
        table.add_row(label, n(row["pass"]), n(row["fail"]))
    console.print(table)
    console.print()


def _disagreements(audit: Audit, console: Console) -> None:
    if not audit.disagreements:
        if audit.labelled:
            console.print("No disagreements: evalrun reads every labelled run as the reviewer did.")
        return
    console.print(f"[bold]Disagreements[/bold] ({len(audit.disagreements)}), each a lead:")
    console.print()
    for d in audit.disagreements:
        e = d.entry
        console.print(
            Text(f"{e.run_id}  {e.case_id}  {d.result.source} (sheet line {e.line})", style="bold")
        )
        verb = "passes" if d.evalrun == "pass" else "fails"
        console.print(Text(f"  read {e.label}, evalrun {verb} ({d.result.verdict}) → {d.lead}"))
        for hint in d.hints():
            console.print(Text(f"  · {hint}"))
        if e.note:
            console.print(Text(f"  note: {e.note}"))
        for line in d.detail_lines():
            console.print(Text("  " + line, style="dim"))
        console.print()


def _errors(audit: Audit, console: Console) -> None:
    if not audit.errors:
        return
    console.print(f"[bold]Unscoreable lines[/bold] ({n(len(audit.errors))}, counted, not scored):")
    for e in audit.errors[:MAX_ERRORS]:
        console.print(Text(f"  {e.source}  {e.error}"))
    if len(audit.errors) > MAX_ERRORS:
        console.print(
            f"  … and {n(len(audit.errors) - MAX_ERRORS)} more (--format json lists them all)"
        )
