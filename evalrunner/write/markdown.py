"""`--format markdown`: the true-vs-reported table as GitHub-flavoured Markdown, for a CI job
summary (`>> $GITHUB_STEP_SUMMARY`) or a pull-request comment.

It says what the table says, from the summary JSON (so a saved results file renders alike):
rates, shapes with their meanings, effects, suspects, coverage, the tools with the most falsely
failed calls, groups, repeated trials, and the first unscoreable lines. Every string from the
inputs is escaped (`md`): a pipe cannot split a cell, a backtick or a bracket cannot start code
or a link, and `<` cannot open HTML.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..shapes import FALSE_FAILURE_SHAPES, FALSE_PASS_SHAPES, SHAPES
from ..summary.trials import shown_ks
from ..terminal import visible
from ..words import counted, graded_calls, plural, reported_legend
from . import Output, WriterFormat, wording
from .explain import falsely_failed
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
    summary: dict[str, Any],
    *,
    sources: Sequence[str] = (),
    errors: Sequence[dict[str, Any]] = (),
    warnings: Sequence[str] = (),
) -> str:
    s = summary
    rep, tru = s.get("reported") or {}, s.get("true") or {}
    runs = s.get("runs") or 0
    calls = s.get("calls")
    made = s.get("all_calls")
    said = (
        graded_calls(calls, made if isinstance(made, int) else None)
        if isinstance(calls, int)
        else f"{n(calls)} calls"
    )
    head = f"### evalrun · {n(runs)} {plural(runs, 'run')} · {said}"
    if sources:
        head += " · " + ", ".join(md(x) for x in sources)
    if s.get("unscoreable"):
        head += f" · {counted(s['unscoreable'], 'unscoreable line')}"
    out = [head, ""]
    out += _table(
        ["", "reported (exact-match)", "true"],
        [
            [
                "run failure rate",
                f"{pct(rep.get('run_failure_rate'))} ({n(rep.get('failed_runs'))})",
                f"**{pct(tru.get('run_failure_rate'))} ({n(tru.get('failed_runs'))})**",
            ],
            [
                "call failure rate",
                f"{pct(rep.get('call_failure_rate'))} ({n(rep.get('failed_calls'))})",
                f"**{pct(tru.get('call_failure_rate'))} ({n(tru.get('failed_calls'))})**",
            ],
        ],
    )
    out += ["", f"<sub>{md(reported_legend(s.get('reported_reading')))}</sub>", ""]
    reported_failed = rep.get("failed_runs") or 0
    out += [md(wording.headline(s)), ""]
    suggest = wording.suggest_line(s)
    if suggest is not None:
        out += [f"**{md(suggest)}**", ""]
    examples = s.get("examples") or {}
    for title, key, names, whole, of in (
        (
            "False failures",
            "false_failures",
            FALSE_FAILURE_SHAPES,
            reported_failed,
            "of reported failures",
        ),
        (
            "False passes",
            "false_passes",
            FALSE_PASS_SHAPES,
            runs - reported_failed,
            "of reported passes",
        ),
    ):
        counts = s.get(key) or {}
        total = sum(counts.get(x, 0) for x in names)
        out += [f"**{title}**: {n(total)} runs ({share(total, whole)} {of})", ""]
        rows = []
        for x in names:
            if not counts.get(x):
                continue
            ex = examples.get(x)
            example = (
                f" — e.g. {md(ex.get('case_id'))}: {md(ex.get('detail'))}"
                if isinstance(ex, dict)
                else ""
            )
            rows.append(
                [f"`{x}`", n(counts[x]), share(counts[x], whole), md(SHAPES[x].meaning) + example]
            )
        if rows:
            out += _table(["shape", "runs", "share", "meaning"], rows, "lrrl")
    e = s.get("effects") or {}
    out += [
        f"**Effects**: {n(e.get('checked'))} assertions checked, {n(e.get('failed'))} failed, "
        f"{n(e.get('unverified'))} unverified (no world recorded)",
        "",
    ]
    suspects = s.get("normalizer_suspects") or []
    if suspects:
        out += [
            "**Normalizer suspects**: calls matched only through these rules while the world "
            "disagrees; doubt the rule first",
            "",
        ]
        out += _table(
            ["parameter", "rule", "runs"],
            [
                [f"{md(x.get('tool'))}.{md(x.get('param'))}", md(x.get("norm")), n(x.get("runs"))]
                for x in suspects[:MAX_ROWS]
            ],
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
    c = s.get("coverage") or {}
    out += [
        f"**Coverage**: {n(c.get('tools_with_norms'))} of {n(c.get('tools'))} tools declare "
        f"equivalence rules; they carry {pct(c.get('call_share_with_norms'))} of calls",
        "",
    ]
    out += _top_tools(s)
    out += _groups(s)
    out += _trials(s)
    if warnings:
        out += [f"**Warnings** ({n(len(warnings))}):", ""]
        out += [f"- {md(w)}" for w in warnings[:MAX_ERRORS]]
        if len(warnings) > MAX_ERRORS:
            out.append(
                f"- … and {n(len(warnings) - MAX_ERRORS)} more (--format json lists them all)"
            )
        out.append("")
    if s.get("unscoreable"):
        out += [f"**Unscoreable lines** ({n(s['unscoreable'])}, counted, not scored):", ""]
        out += [f"- {md(x.get('source'))} {md(x.get('error'))}" for x in errors[:MAX_ERRORS]]
        more = (s.get("unscoreable") or 0) - min(len(errors), MAX_ERRORS)
        if more > 0:
            out.append(f"- … and {n(more)} more (--format json lists them all)")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _top_tools(s: dict[str, Any]) -> list[str]:
    ranked = sorted(
        (t for t in s.get("by_tool") or [] if falsely_failed(t)),
        key=lambda t: (-falsely_failed(t), str(t.get("tool"))),
    )[:5]
    if not ranked:
        return []
    rows = []
    for t in ranked:
        ff = t["false_failures"]
        top = max(
            FALSE_FAILURE_SHAPES, key=lambda k: (ff.get(k, 0), -FALSE_FAILURE_SHAPES.index(k))
        )
        rows.append(
            [
                md(t.get("tool")),
                n(t.get("calls")),
                n(t.get("reported_failed_calls")),
                n(t.get("true_failed_calls")),
                n(falsely_failed(t)),
                f"`{top}`",
            ]
        )
    headers = ["tool", "calls", "reported failed", "true failed", "falsely failed", "mostly"]
    table = _table(headers, rows, "lrrrrl")
    return ["**Tools with the most falsely failed calls**", "", *table]


def _groups(s: dict[str, Any]) -> list[str]:
    groups = s.get("groups")
    if not isinstance(groups, dict):
        return []
    rows = []
    for name, g in sorted(groups.items(), key=lambda kv: (-(kv[1].get("runs") or 0), kv[0]))[
        : MAX_ROWS * 5
    ]:
        v = g.get("verdicts") or {}
        rows.append(
            [
                md(name),
                n(g.get("runs")),
                pct((g.get("reported") or {}).get("run_failure_rate")),
                f"**{pct((g.get('true') or {}).get('run_failure_rate'))}**",
                n(v.get("false_failure")),
                n(v.get("false_pass")),
            ]
        )
    more = len(groups) - len(rows)
    tail = [f"… and {n(more)} more groups (--format json has them all)", ""] if more > 0 else []
    return [
        f"**By {md(s.get('group_by'))}**",
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


def _trials(s: dict[str, Any]) -> list[str]:
    t = s.get("trials")
    if not isinstance(t, dict):
        return []
    ks = t.get("pass_hat_k") or []
    rows = [
        [f"pass^{row.get('k')}", pct(row.get("reported")), f"**{pct(row.get('true'))}**"]
        for row in (ks[k - 1] for k in shown_ks(len(ks)))
    ]
    return [
        f"**Repeated trials**: {n(len(t.get('cases') or {}))} cases, {n(t.get('min_trials'))} "
        f"to {n(t.get('max_trials'))} runs each; pass^k is the chance that k runs of a case all "
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

    def finish(self, summary: dict[str, Any]) -> None:
        text = render(
            summary, sources=self.output.sources, errors=self.errors, warnings=self.warnings
        )
        self.output.stream.write(text.encode())


def _make(output: Output) -> MarkdownWriter:
    return MarkdownWriter(output)


WRITER = WriterFormat(
    name="markdown",
    summary="the table as GitHub-flavoured Markdown, for a CI job summary",
    make=_make,
    renders_results=True,
)
