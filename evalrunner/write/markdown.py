"""`--format markdown`: the true-vs-reported table as GitHub-flavoured Markdown, for a CI job
summary (`>> $GITHUB_STEP_SUMMARY`) or a pull-request comment.

It says what the table says, from the summary's view (`SummaryView`, the same of a saved
results file): rates, shapes with their meanings, effects, suspects, coverage, the tools with
the most falsely failed calls, groups, repeated trials, and the first unscoreable lines; the
sentences and the numbers the table writes alike come from `wording`. Every string from the
inputs is escaped (`md`): a pipe cannot split a cell, a backtick or a bracket cannot start code
or a link, and `<` cannot open HTML.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..shapes import SHAPES
from ..summary.view import SummaryView
from ..terminal import visible
from ..words import counted, reported_legend
from . import Output, WriterFormat, wording
from .report import ReportWriter, RunJson
from .wording import n, pct, share

MAX_ROWS = 20
MAX_ERRORS = 20

# CommonMark lets a backslash escape any ASCII punctuation; these are the ones that can change
# what a table cell or a line means (`|` ends a GFM cell even inside code). `(` and `!` need
# none: with `[` escaped they cannot make a link or an image.
_SPECIAL = re.compile(r"([\\`*_\[\]<>|~#&])")


def md(value: Any) -> str:
    """Text from the inputs, safe in a Markdown paragraph or table cell: one line, its
    punctuation escaped, and every control character shown as an escape (`\\x1b`, `\\u202e`), as
    the table shows it: this text is printed on a terminal too, and a job summary shows a bidi
    override as it acts."""
    return _SPECIAL.sub(r"\\\1", visible(" ".join(str(value).split())))


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> list[str]:
    """A GFM table; `align` has an `l` or `r` per column (default: the first left, the rest
    right)."""
    align = align or "l" + "r" * (len(head) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return [*lines, ""]


def render(
    s: SummaryView, *, sources: Sequence[str] = (), errors: Sequence[dict[str, Any]] = ()
) -> str:
    """The report of a summary view (its warnings listed), with the earliest unscoreable
    lines."""
    head = f"### evalrun · {wording.counts_line(s)}"
    if sources:
        head += " · " + ", ".join(md(x) for x in sources)
    if s.unscoreable:
        head += f" · {counted(s.unscoreable, 'unscoreable line')}"
    out = [head, ""]
    rep, tru = s.reported, s.true
    out += _table(
        ["", "reported (exact-match)", "true"],
        [
            [
                "run failure rate",
                f"{pct(rep.run_failure_rate)} ({n(rep.failed_runs)})",
                f"**{pct(tru.run_failure_rate)} ({n(tru.failed_runs)})**",
            ],
            [
                "call failure rate",
                f"{pct(rep.call_failure_rate)} ({n(rep.failed_calls)})",
                f"**{pct(tru.call_failure_rate)} ({n(tru.failed_calls)})**",
            ],
        ],
    )
    out += ["", f"<sub>{md(reported_legend(s.reported_reading))}</sub>", ""]
    out += [md(wording.headline(s)), ""]
    suggest = wording.suggest_line(s)
    if suggest is not None:
        out += [f"**{md(suggest)}**", ""]
    for section in wording.shape_sections(s):
        out += [f"**{section.title}**: {section.heading}", ""]
        rows = []
        for x in section.shapes:
            count = section.counts.get(x)
            if not count:
                continue
            ex = s.examples.get(x)
            example = f" — e.g. {md(ex.case_id)}: {md(ex.detail)}" if ex is not None else ""
            rows.append(
                [f"`{x}`", n(count), share(count, section.whole), md(SHAPES[x].meaning) + example]
            )
        if rows:
            out += _table(["shape", "runs", "share", "meaning"], rows, "lrrl")
    out += [f"**Effects**: {wording.effects_line(s)}", ""]
    if s.suspects:
        out += [f"**{wording.SUSPECTS_TITLE}**: {wording.SUSPECTS_INTRO}", ""]
        out += _table(
            ["parameter", "rule", "runs"],
            [[f"{md(x.tool)}.{md(x.param)}", md(x.norm), n(x.runs)] for x in s.suspects[:MAX_ROWS]],
            "llr",
        )
    doubts = wording.reply_rows(s)
    if doubts:
        out += [f"**{wording.REPLY_TITLE}**: {wording.REPLY_INTRO}", ""]
        out += _table(
            ["parameter", "rule", "pairs differ", "agree", "example"],
            [[md(p), md(r), n(d), n(a), md(ex)] for p, r, d, a, ex in doubts[:MAX_ROWS]],
            "llrrl",
        )
    confirmed = wording.confirmed_line(s)
    if confirmed is not None:
        out += [md(confirmed), ""]
    c = s.coverage
    out += [
        f"**Coverage**: {n(c.tools_with_norms)} of {n(c.tools)} tools declare "
        f"equivalence rules; they carry {pct(c.call_share_with_norms)} of calls",
        "",
    ]
    out += _top_tools(s)
    out += _groups(s)
    out += _trials(s)
    warnings = s.warnings
    if warnings:
        out += [f"**Warnings** ({n(len(warnings))}):", ""]
        out += [f"- {md(w)}" for w in warnings[:MAX_ERRORS]]
        if len(warnings) > MAX_ERRORS:
            out.append(f"- {wording.more(len(warnings) - MAX_ERRORS)}")
        out.append("")
    if s.unscoreable:
        out += [f"**Unscoreable lines** ({n(s.unscoreable)}, counted, not scored):", ""]
        out += [f"- {md(x.get('source'))} {md(x.get('error'))}" for x in errors[:MAX_ERRORS]]
        more = s.unscoreable - min(len(errors), MAX_ERRORS)
        if more > 0:
            out.append(f"- {wording.more(more)}")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _top_tools(s: SummaryView) -> list[str]:
    ranked = wording.most_falsely_failed(s)
    if not ranked:
        return []
    rows = [
        [
            md(t.tool),
            n(t.calls),
            n(t.reported_failed_calls),
            n(t.true_failed_calls),
            n(t.falsely_failed_calls),
            f"`{wording.mostly(t)}`",
        ]
        for t in ranked
    ]
    headers = ["tool", "calls", "reported failed", "true failed", "falsely failed", "mostly"]
    table = _table(headers, rows, "lrrrrl")
    return [f"**{wording.TOP_TOOLS_TITLE}**", "", *table]


def _groups(s: SummaryView) -> list[str]:
    if s.groups is None:
        return []
    rows = [
        [
            md(name),
            n(g.runs),
            pct(g.reported.run_failure_rate),
            f"**{pct(g.true.run_failure_rate)}**",
            n(g.verdicts.get("false_failure")),
            n(g.verdicts.get("false_pass")),
        ]
        for name, g in wording.ranked_groups(s)[: MAX_ROWS * 5]
    ]
    more = len(s.groups) - len(rows)
    tail = [f"… and {n(more)} more groups (--format json has them all)", ""] if more > 0 else []
    return [
        f"**By {md(s.group_by)}**",
        "",
        *_table(
            [
                "group",
                "runs",
                "reported run failure",
                "true run failure",
                "false failures",
                "false passes",
            ],
            rows,
        ),
        *tail,
    ]


def _trials(s: SummaryView) -> list[str]:
    t = s.trials
    if t is None:
        return []
    rows = [
        [f"pass^{row.k}", pct(row.reported), f"**{pct(row.true)}**"]
        for _, row in wording.shown_trials(t)
    ]
    return [
        f"**Repeated trials**: {n(t.cases)} cases, {n(t.min_trials)} "
        f"to {n(t.max_trials)} runs each; pass^k is the chance that k runs of a case all "
        "pass, averaged over cases",
        "",
        *_table(["k", "reported", "true"], rows),
    ]


def _no_runs(runs: list[RunJson]) -> None:
    """The summary says it all: no run crosses back from a worker."""
    return None


class MarkdownWriter(ReportWriter):
    def __init__(self, output: Output) -> None:
        super().__init__(output, _no_runs, frozenset())

    def take(self, rendered: Any) -> None:
        pass

    def finish(self, summary: SummaryView) -> None:
        text = render(summary, sources=self.output.sources, errors=self.errors)
        self.output.stream.write(text.encode())


def _make(output: Output) -> MarkdownWriter:
    return MarkdownWriter(output)


WRITER = WriterFormat(
    name="markdown",
    summary="the table as GitHub-flavoured Markdown, for a CI job summary",
    make=_make,
    renders_results=True,
)
