"""`--format table` (the default): the true-vs-reported report as a rich table, and the runs
behind a number with their explanations (`--show`).

Written for an 80-column terminal, and readable without colour (`NO_COLOR`).
"""

from __future__ import annotations

import errno
import json
import os
import sys
import textwrap
from collections.abc import Mapping, Sequence
from functools import partial
from typing import IO, Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..grade.grader import RunResult
from ..jsonvalue import MISSING, short_json
from ..model import PREDICATES, TraceError
from ..shapes import SHAPES, UNJUDGED
from ..summary import Summary
from ..summary.view import Example, SummaryView
from ..terminal import SafeConsole, visible
from ..words import counted, reported_legend
from . import Output, WriterFormat, wording
from .wording import n, pct, share

SHOW: dict[str, frozenset[str]] = {
    "failures": frozenset({"fail", "false_pass"}),
    "real-failures": frozenset({"fail"}),
    "false-failures": frozenset({"false_failure"}),
    "false-passes": frozenset({"false_pass"}),
}
"""`--show` choices: the verdicts of the runs each lists."""
MAX_GROUPS = 30
"""Groups the table lists (the largest first)."""


class TableWriter:
    """The table on a console; with `--show`, the runs behind a number (only those cross back
    from workers)."""

    def __init__(self, output: Output) -> None:
        self.output = output
        verdicts = SHOW[output.show] if output.show is not None else None
        self.encoder = partial(shown, verdicts) if verdicts else None
        self.shown: list[RunResult] = []
        self.hidden = 0

    def write(self, runs: list[RunResult]) -> None:
        for r in runs:
            if len(self.shown) < self.output.limit:
                self.shown.append(r)
            else:
                self.hidden += 1

    def close(self, summary: Summary) -> None:
        console = data_console(self.output.stream, to_file=self.output.to_file)
        render_summary(summary, self.output.sources, console)
        if self.output.show is not None:
            console.print()
            console.print(f"[bold]Runs ({self.output.show})[/bold]")
            console.print()
            render_runs(self.shown, self.hidden, console)


def shown(verdicts: frozenset[str], items: list[RunResult | TraceError]) -> list[RunResult]:
    """`--show`: only the runs it lists cross back from a worker."""
    return [r for r in items if isinstance(r, RunResult) and r.verdict in verdicts]


WRITER = WriterFormat(
    name="table",
    summary="the true-vs-reported table, for a person (the default)",
    make=TableWriter,
    shows_runs=True,
)


def data_console(stream: IO[bytes] | Any, *, to_file: bool) -> Console:
    """A console for table output: the terminal's width, or 100 columns and no colour in a file."""
    if to_file:
        return _Console(file=_TextOut(stream), width=100, color_system=None, highlight=False)  # type: ignore[arg-type]
    width = None if sys.stdout.isatty() else int(os.environ.get("COLUMNS", "80"))
    return _Console(highlight=False, width=width)


class _Console(SafeConsole):
    def on_broken_pipe(self) -> None:
        """A reader that closed the pipe (`| head`) is no error of ours: say so to the caller
        (rich would exit 1, the code that means "a threshold was crossed")."""
        self.quiet = True
        raise BrokenPipeError(errno.EPIPE, "the reader closed the pipe")


class _TextOut:
    """A text view of a binary stream, for rich."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(text.encode())
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return False


def render_summary(summary: Summary, sources: Sequence[str], console: Console) -> None:
    """The table of a live scoring: its summary's view (`SummaryView`, what every score
    renderer reads), with the earliest unscoreable lines it kept."""
    view = SummaryView.of(summary)
    # The results JSON keeps the share of calls to tools with rules rounded to four places; the
    # table has always shown it from the counts, and the rounding can move the last digit shown
    # (a share of 0.54249 is 0.5425 in the JSON: 54.2% from the counts, 54.3% from the JSON).
    coverage = share(summary.calls_with_norms, summary.all_calls)
    errors = [(source, error) for _, source, error in summary.errors]
    render_view(view, sources, errors, console, coverage=coverage)


def render_view(
    s: SummaryView,
    sources: Sequence[str],
    errors: Sequence[tuple[str, str]],
    console: Console,
    *,
    coverage: str | None = None,
) -> None:
    """The table of a summary view; `coverage` the share of calls to tools with rules, from
    the counts when they are known (else the JSON's rounded share is shown)."""
    console.print(
        Text.assemble(
            ("evalrun", "bold"),
            f" · {wording.counts_line(s)} · {visible(', '.join(sources))}",
            (f" · {counted(s.unscoreable, 'unscoreable line')}" if s.unscoreable else ""),
        )
    )
    console.print()
    rates = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    rates.add_column("")
    rates.add_column("reported (exact-match)", justify="right")
    rates.add_column("true", justify="right", style="bold")
    rates.add_row(
        "run failure rate",
        f"{share(s.reported.failed_runs, s.runs)} ({n(s.reported.failed_runs)})",
        f"{share(s.true.failed_runs, s.runs)} ({n(s.true.failed_runs)})",
    )
    rates.add_row(
        "call failure rate",
        f"{share(s.reported.failed_calls, s.calls)} ({n(s.reported.failed_calls)})",
        f"{share(s.true.failed_calls, s.calls)} ({n(s.true.failed_calls)})",
    )
    console.print(rates)
    console.print(Text(reported_legend(s.reported_reading), style="dim"))
    console.print(Text(wording.headline(s)))
    suggest = wording.suggest_line(s)
    if suggest is not None:
        console.print(Text(suggest, style="bold"))
    console.print()
    for section in wording.shape_sections(s):
        _shape_table(console, section, s.examples)
    console.print(f"[bold]Effects[/bold]: {wording.effects_line(s)}")
    if s.suspects:
        console.print()
        console.print(f"[bold]{wording.SUSPECTS_TITLE}[/bold]: {wording.SUSPECTS_INTRO}")
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        table.add_column("parameter")
        table.add_column("rule")
        table.add_column("runs", justify="right")
        for x in s.suspects[:10]:  # the most runs first
            table.add_row(Text(visible(f"{x.tool}.{x.param}")), Text(visible(x.norm)), n(x.runs))
        console.print(table)
    _replies(console, s)
    console.print()
    console.print(
        f"[bold]Coverage[/bold]: {s.coverage.tools_with_norms} of {s.coverage.tools} tools declare "
        f"equivalence rules; they carry {coverage or pct(s.coverage.call_share_with_norms)} of "
        "calls"
    )
    _top_tools(console, s)
    _groups(console, s)
    _trials(console, s)
    if s.unscoreable:
        console.print()
        console.print(f"[bold]Unscoreable lines[/bold] ({n(s.unscoreable)}, counted, not scored):")
        for source, error in errors:
            console.print(Text(f"  {visible(source)}  {visible(error)}"))
        if s.unscoreable > len(errors):
            console.print(f"  {wording.more(s.unscoreable - len(errors))}")


def _replies(console: Console, s: SummaryView) -> None:
    """The rules the tools' replies put in doubt, beside the suspects."""
    rows = wording.reply_rows(s)
    confirmed = wording.confirmed_line(s)
    if rows:
        console.print()
        console.print(Text.assemble((wording.REPLY_TITLE, "bold"), f": {wording.REPLY_INTRO}"))
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        table.add_column("parameter")
        table.add_column("rule")
        table.add_column("pairs differ", justify="right")
        table.add_column("agree", justify="right")
        for param, norm, differ, agree, _ in rows[:10]:
            table.add_row(Text(param), Text(norm), n(differ), n(agree))
        console.print(table)
        for param, _, _, _, example in rows[:10]:
            if example:
                text = f"e.g. {param}: {example}"
                for line in textwrap.wrap(text, width=max(console.width - 6, 20)):
                    console.print(Text("  " + line, style="dim"))
    if confirmed is not None:
        console.print()
        console.print(Text(confirmed))


def _shape_table(
    console: Console, section: wording.ShapeSection, examples: Mapping[str, Example]
) -> None:
    counts = section.counts
    console.print(f"[bold]{section.title}[/bold]: {section.heading}")
    for shape in section.shapes:
        if not counts[shape]:
            continue
        part = share(counts[shape], section.whole)
        console.print(
            Text(f"  {shape:<16}{n(counts[shape]):>7}  {part:>6}  {SHAPES[shape].meaning}")
        )
        ex = examples.get(shape)
        if ex:
            # wrapped under itself, not cut: the raw -> normalized value is the point of it
            text = visible(f"e.g. {ex.case_id}: {ex.detail}")
            for line in textwrap.wrap(text, width=max(console.width - 6, 20)):
                console.print(Text("      " + line, style="dim"))
    console.print()


def _top_tools(console: Console, s: SummaryView) -> None:
    ranked = wording.most_falsely_failed(s)
    if not ranked:
        return
    console.print()
    # A falsely failed call fails exact-match and not the true check; a tool's true failures can
    # still outnumber its reported ones (loops and rejected calls exact-match passes).
    console.print(f"[bold]{wording.TOP_TOOLS_TITLE}[/bold] (failed calls: falsely, reported, true)")
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("tool", overflow="fold")
    table.add_column("calls", justify="right")
    table.add_column("falsely", justify="right")
    table.add_column("reported", justify="right")
    table.add_column("true", justify="right")
    table.add_column("mostly")
    for st in ranked:
        table.add_row(
            Text(visible(st.tool)),
            n(st.calls),
            n(st.falsely_failed_calls),
            n(st.reported_failed_calls),
            n(st.true_failed_calls),
            wording.mostly(st),
        )
    console.print(table)


def _groups(console: Console, s: SummaryView) -> None:
    """Under `--group-by`: each group's runs, failure rates and disagreements."""
    if s.group_by is None or s.groups is None:
        return
    console.print()
    console.print(Text.assemble(("By ", "bold"), (visible(s.group_by), "bold")))
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("group", overflow="fold")
    table.add_column("runs", justify="right")
    table.add_column("reported", justify="right")
    table.add_column("true", justify="right", style="bold")
    table.add_column("false fail.", justify="right")
    table.add_column("false pass", justify="right")
    ranked = wording.ranked_groups(s)
    for name, g in ranked[:MAX_GROUPS]:
        table.add_row(
            Text(visible(name)),
            n(g.runs),
            share(g.reported.failed_runs, g.runs),
            share(g.true.failed_runs, g.runs),
            n(g.verdicts["false_failure"]),
            n(g.verdicts["false_pass"]),
        )
    console.print(table)
    if len(ranked) > MAX_GROUPS:
        console.print(f"  … and {n(len(ranked) - MAX_GROUPS)} more groups (--format json has them)")


def _trials(console: Console, s: SummaryView) -> None:
    """When a case has several runs: pass^k, reported and true."""
    t = s.trials
    if t is None:
        return
    console.print()
    console.print(
        f"[bold]Repeated trials[/bold]: {n(t.cases)} cases, {t.min_trials} to "
        f"{t.max_trials} runs each; pass^k: the chance that k runs of a case all pass, "
        "averaged over cases"
    )
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("k")
    table.add_column("reported", justify="right")
    table.add_column("true", justify="right", style="bold")
    for _, row in wording.shown_trials(t):
        table.add_row(f"pass^{row.k}", pct(row.reported), pct(row.true))
    console.print(table)


# ------------------------------------------------------------------------------------ --show


def render_run(r: RunResult, console: Console) -> None:
    """One run with its explanation: verdict, each call's label and differences, what is missing."""
    head = visible(f"{r.run_id}  {r.case_id}  {r.source}  {r.verdict}")
    if r.shapes:
        head += f" ({', '.join(r.shapes)})"
    console.print(Text(head, style="bold"))
    seq = (
        f"accepted sequence #{r.accepted}"
        if r.accepted is not None
        else (f"no accepted sequence matched; labelled against #{r.aligned_to}")
    )
    console.print(
        Text(
            f"  reported {'pass' if r.reported_pass else 'fail'} · "
            f"true {'pass' if r.true_pass else 'fail'} · {seq}"
        )
    )
    for c in r.calls:
        line = f"  [{c.index}] {visible(c.tool)}: {c.label}"
        if c.step is not None:
            line += f" (step {c.step})"
        if c.repeats is not None:
            line += f" (repeats call {c.repeats})"
        if c.reason:
            line += f" — {visible(c.reason)}"
        console.print(Text(line))
        if c.comparison is not None:
            for d in c.comparison.diffs:
                console.print(Text("      " + visible(_diff_line(d))))
    for j, step in r.missing:
        # the whole of the args, wrapped under itself between tokens: cut, it would end mid-token
        args = json.dumps(dict(step.args), ensure_ascii=False, sort_keys=True, default=repr)
        text = visible(f"missing step {j}: {step.tool} {args}")
        width = max(console.width - 2, 20)
        for i, line in enumerate(textwrap.wrap(text, width, break_long_words=False)):
            console.print(Text(("  " if i == 0 else "      ") + line))
    for e in r.effects:
        if e.ok is not True:
            console.print(Text(f"  effect {e.op} at {e.at or '/'}: {e.status} ({e.detail})"))
    for tool, param, norm in r.suspects:
        console.print(Text(f"  suspect rule: {norm} on {tool}.{param}"))


def _diff_line(d: Any) -> str:
    if d.kind == "mismatch":
        text = f"{d.path or '(args)'}: {short_json(d.actual)} ≠ {short_json(d.expected)}"
        if d.actual_norm is not MISSING and d.norm:
            text += f" (normalized by {d.norm}: {short_json(d.actual_norm)} ≠ {short_json(d.expected_norm)})"
        if d.note:
            text += f" — {d.note}"
        return text
    if d.kind == "default":
        side = "actual" if d.actual is not MISSING else "expected"
        value = d.actual if d.actual is not MISSING else d.expected
        return f"{d.path}: {short_json(value)} on the {side} side only is the declared default (default)"
    if d.shape == UNJUDGED and d.norm in PREDICATES:  # the step's own test of the value
        pair = f"{short_json(d.actual)} for {short_json(d.expected)}"
        return f"{d.path}: {pair}: passes the step's {d.norm} (unjudged)"
    if d.shape == UNJUDGED:  # free text the rule does not judge: show both wordings
        pair = f"{short_json(d.actual)} for {short_json(d.expected)}"
        return f"{d.path}: {pair}: {d.norm} absorbed it (unjudged)"
    return (
        f"{d.path}: {short_json(d.actual)} ~ {short_json(d.expected)} → {short_json(d.actual_norm)} "
        f"by {d.norm} ({d.shape})"
    )


def render_runs(runs: Sequence[RunResult], more: int, console: Console) -> None:
    for r in runs:
        render_run(r, console)
        console.print()
    if more:
        console.print(f"… and {n(more)} more runs (raise --limit, or use --format jsonl)")
