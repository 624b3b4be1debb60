"""`--format html`: one self-contained page to open and share (no network when opened).

The summary is drawn where people would rather look than read — reported vs true failure rates,
the verdicts, the false-failure and false-pass shapes (their meanings from the shapes registry),
groups, repeated trials, per tool, suspects, coverage — and every run that is not a plain `pass`
is listed with its explanation, filterable by verdict, shape, tool, case and group.

What it embeds is bounded, so the page stays usable on millions of runs: every run that is not a
pass when there are at most `MAX_RUNS` of them; beyond that, a sample stratified by verdict and
shape (each stratum gets an equal share of `MAX_RUNS`, a small stratum's unused share going to
the others), and the page says so with each stratum's count. The sample is the runs with the
smallest hash of `source` and `run_id` in each stratum: uniform, the same for the same inputs
whatever `--jobs` says, and the same from a saved results file (`evalrun report`). Each run's
page entry is rendered in the worker that graded it (`render_runs`); this process keeps at most
`MAX_RUNS` entries per stratum.
"""

from __future__ import annotations

import hashlib
import heapq
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._version import __version__
from ..jsonvalue import kept
from ..shapes import SHAPES
from ..summary.view import SummaryView
from ..words import plural, reported_legend
from . import Output, WriterFormat, wording
from .explain import explain
from .page import (
    COLORS,
    Bar,
    Key,
    Pair,
    asset,
    bars,
    document,
    esc,
    legend,
    num,
    pairs,
    safe_json_bytes,
    stacked,
    table,
)
from .report import ReportWriter, RunJson
from .results import dumps
from .wording import n, pct, share

NOT_PASS = frozenset({"fail", "false_failure", "false_pass"})
MAX_RUNS = 3000
"""Runs a page embeds at most (all of them, when there are no more than this)."""
MAX_RUN_LINES = 60
"""Explanation lines per run on the page (the JSON output has every call)."""
EMBED_BUDGET = 8 * 2**20
"""Bytes of runs a page embeds at most: shares shrink evenly until the runs fit."""
MAX_ROWS = 100
"""Rows of the per-tool and per-group tables (the largest first); the JSON has them all."""
MAX_ERRORS_SHOWN = 100

Rendered = tuple[str, int, bytes]
"""A run for the page: (its stratum, its sample key, its entry as JSON safe to embed)."""


def render_runs(runs: list[RunJson]) -> list[Rendered]:
    """Each run's page entry (rendered where it was graded)."""
    return [(stratum(r), sample_key(r), safe_json_bytes(kept(dumps(page_run(r))))) for r in runs]


def stratum(run: RunJson) -> str:
    shape = run.get("shape")
    return f"{run.get('verdict')}/{shape}" if shape else str(run.get("verdict"))


def sample_key(run: RunJson) -> int:
    """A uniform hash of the run's place and id: the sample is the smallest keys."""
    text = f"{run.get('source')}\0{run.get('run_id')}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


def page_run(run: RunJson) -> dict[str, Any]:
    """What the page needs of a run: ids, verdict, shapes, the tools it touches (for the filter),
    and its explanation."""
    lines = explain(run)
    if len(lines) > MAX_RUN_LINES:
        more = len(lines) - MAX_RUN_LINES
        lines = [*lines[:MAX_RUN_LINES], ("note", f"… {more} more lines (--format json has them)")]
    tools = {c.get("tool") for c in run.get("calls") or []}
    tools |= {m.get("tool") for m in run.get("missing") or []}
    out = {
        "run_id": run.get("run_id"),
        "case_id": run.get("case_id"),
        "source": run.get("source"),
        "verdict": run.get("verdict"),
        "shapes": run.get("shapes") or [],
        "tools": sorted(str(t) for t in tools if t is not None),
        "lines": lines,
    }
    if "group" in run:
        out["group"] = run["group"]
    return out


# ---------------------------------------------------------------------------------- writer


@dataclass(frozen=True)
class Sample:
    """What the page holds of the runs that are not a pass, per stratum: (kept, of how many)."""

    strata: dict[str, tuple[int, int]]

    @property
    def kept(self) -> int:
        return sum(k for k, _ in self.strata.values())

    @property
    def total(self) -> int:
        return sum(t for _, t in self.strata.values())


class HtmlWriter(ReportWriter):
    def __init__(self, output: Output) -> None:
        super().__init__(output, render_runs, NOT_PASS)
        self.heaps: dict[str, list[tuple[int, int, bytes]]] = {}
        """Per stratum, the runs with the smallest sample keys: (-key, order, entry)."""
        self.counts: Counter[str] = Counter()
        self.order = 0

    def take(self, rendered: list[Rendered]) -> None:
        for name, key, data in rendered:
            self.counts[name] += 1
            self.order += 1
            heap = self.heaps.setdefault(name, [])
            if len(heap) < MAX_RUNS:
                heapq.heappush(heap, (-key, self.order, data))
            elif -key > heap[0][0]:
                heapq.heapreplace(heap, (-key, self.order, data))

    def finish(self, summary: SummaryView) -> None:
        runs, sample = self.chosen()
        self.output.stream.write(
            render_page(summary, runs, sample, sources=self.output.sources, errors=self.errors)
        )

    def chosen(self) -> tuple[list[bytes], Sample]:
        """The runs the page embeds, in input order, and what they are of the whole."""
        ranked = {
            name: sorted((-k, order, data) for k, order, data in heap)
            for name, heap in self.heaps.items()
        }
        quota = _shares({name: len(r) for name, r in ranked.items()}, MAX_RUNS)
        while True:
            size = sum(len(d) for name, r in ranked.items() for _, _, d in r[: quota[name]])
            if size <= EMBED_BUDGET or not any(quota.values()):
                break
            quota = {name: q * 9 // 10 for name, q in quota.items()}
        picked = sorted(
            (order, data) for name, r in ranked.items() for _, order, data in r[: quota[name]]
        )
        strata = {name: (quota[name], self.counts[name]) for name in sorted(self.counts)}
        return [data for _, data in picked], Sample(strata)


def _shares(sizes: dict[str, int], total: int) -> dict[str, int]:
    """Split `total` places between strata as evenly as their sizes allow (water-filling)."""
    out: dict[str, int] = {}
    left = total
    pending = sorted(sizes, key=lambda name: (sizes[name], name))
    for i, name in enumerate(pending):
        out[name] = min(sizes[name], left // (len(pending) - i))
        left -= out[name]
    return out


def _make(output: Output) -> HtmlWriter:
    return HtmlWriter(output)


WRITER = WriterFormat(
    name="html",
    summary="one self-contained page with charts and every run that is not a pass, filterable "
    "(use with --output)",
    make=_make,
    renders_results=True,
)


# ------------------------------------------------------------------------------------ page


def render_page(
    s: SummaryView,
    runs: Sequence[bytes],
    sample: Sample,
    *,
    sources: Sequence[str] = (),
    errors: Sequence[dict[str, Any]] = (),
) -> bytes:
    """The whole page: the summary's view drawn (its warnings first), and the runs (page
    entries, already JSON safe to embed) listed. A number carries its summary-JSON path
    (`page.num`): the view's fields are the JSON's keys."""
    false_failures, false_passes = wording.shape_sections(s)
    body = [
        _header(s, sources),
        _warnings(s.warnings),
        _headline(s),
        _shapes(s, false_failures),
        _shapes(s, false_passes),
        _groups(s),
        _trials(s),
        _tools(s),
        _suspects(s),
        _replies(s),
        _coverage(s),
        _unscoreable(s, errors),
        _runs(s, runs, sample),
    ]
    script = asset("runs.js")
    return document("evalrun report", "\n".join(b for b in body if b), script=script).encode()


def _graded_of(s: SummaryView) -> str:
    """`calls`, or `graded calls of N` when `extra` calls were left out (`words.graded_calls`,
    its count apart: the page marks it as a number)."""
    calls, made = s.calls, s.all_calls
    if made is None or made == calls:
        return plural(calls, "call")
    return f"graded {plural(calls, 'call')} of {made:,}"


def _header(s: SummaryView, sources: Sequence[str]) -> str:
    parts = [
        f"{num(('runs',), n(s.runs))} runs",
        f"{num(('calls',), n(s.calls))} {_graded_of(s)}",
        f"{num(('unscoreable',), n(s.unscoreable))} {plural(s.unscoreable, 'unscoreable line')}",
    ]
    if sources:
        parts.append("from " + ", ".join(f"<code>{esc(x)}</code>" for x in sources))
    if s.group_by:
        parts.append(f"grouped by <code>{esc(s.group_by)}</code>")
    nav = " · ".join(
        f'<a href="#{anchor}">{label}</a>'
        for anchor, label in (
            ("headline", "reported vs true"),
            ("false_failures", "false failures"),
            ("false_passes", "false passes"),
            *((("groups", "groups"),) if s.group_by else ()),
            *((("trials", "trials"),) if s.trials is not None else ()),
            ("tools", "per tool"),
            ("suspects", "suspects"),
            ("coverage", "coverage"),
            ("unscoreable", "unscoreable"),
            ("runs", "runs"),
        )
    )
    return (
        f"<h1>evalrun report</h1><p class=sub>{' · '.join(parts)} · evalrun {esc(__version__)}</p>"
        f"<nav>{nav}</nav>"
    )


def _headline(s: SummaryView) -> str:
    rep, tru, v = s.reported, s.true, s.verdicts
    cards = "".join(
        f'<div class="card {cls}"><span class="muted">{label}</span>'
        f"<span class=big>{num((cls, 'run_failure_rate'), pct(c.run_failure_rate))}</span>"
        f"{num((cls, 'failed_runs'), n(c.failed_runs))} of {n(s.runs)} runs failed · "
        f"calls {num((cls, 'call_failure_rate'), pct(c.call_failure_rate))} "
        f"({num((cls, 'failed_calls'), n(c.failed_calls))})</div>"
        for cls, label, c in (
            ("reported", "reported (exact-match) run failure rate", rep),
            ("true", "true run failure rate", tru),
        )
    )
    chart = bars(
        [
            Bar(
                "reported (exact-match)",
                rep.run_failure_rate,
                pct(rep.run_failure_rate),
                COLORS["reported"],
            ),
            Bar("true", tru.run_failure_rate, pct(tru.run_failure_rate), COLORS["true"]),
        ],
        title="run failure rate: reported vs true",
    )
    verdicts = stacked(
        [
            (label, v.get(key, 0), COLORS[key], ("verdicts", key))
            for key, label in (
                ("pass", "pass"),
                ("false_failure", "false failure"),
                ("false_pass", "false pass"),
                ("fail", "fail"),
            )
        ],
        title="runs by verdict",
    )
    words = wording.headline(s)
    suggest = wording.suggest_line(s)
    then = f"<p class=warn><b>{esc(suggest)}</b></p>" if suggest is not None else ""
    return (
        f"<section id=headline><h2>Reported vs true</h2><div class=cards>{cards}</div>{chart}"
        f"<p class=muted>{esc(reported_legend(s.reported_reading))}</p>"
        f"<h3>Runs by verdict</h3>{verdicts}<p>{esc(words)}</p>{then}</section>"
    )


def _shapes(s: SummaryView, section: wording.ShapeSection) -> str:
    counts, whole, key = section.counts, section.whole, section.key
    color = COLORS[section.verdict]
    chart = bars(
        [
            Bar(
                x,
                counts.get(x, 0),
                f"{n(counts.get(x, 0))} ({share(counts.get(x, 0), whole)})",
                color,
            )
            for x in section.shapes
        ],
        title=f"{section.title.lower()} by shape",
    )
    rows = []
    for x in section.shapes:
        ex = s.examples.get(x)
        example = (
            f"<div class=example>e.g. <code>{esc(ex.case_id)}</code>: {esc(ex.detail)}</div>"
            if ex is not None and counts.get(x)
            else ""
        )
        rows.append(
            [
                f"<code>{esc(x)}</code>",
                num((key, x), n(counts.get(x, 0))),
                f"<span class=meaning>{esc(SHAPES[x].meaning)}</span>{example}",
            ]
        )
    return (
        f"<section id={key}><h2>{section.title}: {section.heading}</h2>"
        f"{chart}{table(['shape', 'runs', 'meaning'], rows, 'lrl')}</section>"
    )


def _groups(s: SummaryView) -> str:
    if s.groups is None:
        return ""
    ranked = wording.ranked_groups(s)
    shown = ranked[:MAX_ROWS]
    chart_rows = []
    rows = []
    for name, g in shown:
        k: Key = ("groups", name)
        chart_rows.append(Pair(name, g.reported.run_failure_rate, g.true.run_failure_rate))
        verdicts = g.verdicts
        rows.append(
            [
                f"<code>{esc(name)}</code>",
                num((*k, "runs"), n(g.runs)),
                num((*k, "reported", "run_failure_rate"), pct(g.reported.run_failure_rate)),
                num((*k, "true", "run_failure_rate"), pct(g.true.run_failure_rate)),
                num((*k, "verdicts", "false_failure"), n(verdicts.get("false_failure"))),
                num((*k, "verdicts", "false_pass"), n(verdicts.get("false_pass"))),
                num((*k, "verdicts", "fail"), n(verdicts.get("fail"))),
            ]
        )
    more = (
        f"<p class=muted>… and {n(len(ranked) - len(shown))} more groups (--format json has them all)</p>"
        if len(ranked) > len(shown)
        else ""
    )
    return (
        f"<section id=groups><h2>By {esc(s.group_by)}</h2>"
        f"{legend()}{pairs(chart_rows[:20], title='run failure rate per group: reported vs true')}"
        + table(
            [
                "group",
                "runs",
                "reported failure",
                "true failure",
                "false failures",
                "false passes",
                "failed both",
            ],
            rows,
        )
        + f"{more}</section>"
    )


def _trials(s: SummaryView) -> str:
    t = s.trials
    if t is None:
        return ""
    chart_rows = []
    rows = []
    for i, row in wording.shown_trials(t):
        chart_rows.append(Pair(f"pass^{row.k}", row.reported, row.true))
        rows.append(
            [
                f"pass^{esc(row.k)}",
                num(("trials", "pass_hat_k", i, "reported"), pct(row.reported)),
                num(("trials", "pass_hat_k", i, "true"), pct(row.true)),
            ]
        )
    return (
        "<section id=trials><h2>Repeated trials</h2>"
        f"<p>{n(t.cases)} cases, {num(('trials', 'min_trials'), n(t.min_trials))} to "
        f"{num(('trials', 'max_trials'), n(t.max_trials))} runs each. pass^k is the chance "
        "that k runs of a case, drawn at random, all pass, averaged over the cases (k up to the "
        "fewest runs of any case; --format json has every k).</p>"
        f"{legend()}{pairs(chart_rows[:20], title='pass^k: reported vs true', top=1)}"
        f"{table(['k', 'reported', 'true'], rows)}</section>"
    )


def _tools(s: SummaryView) -> str:
    tools = s.by_tool
    if not tools:
        return ""
    rows = []
    for i, t in enumerate(tools[:MAX_ROWS]):
        calls, rep, tru = t.calls, t.reported_failed_calls, t.true_failed_calls
        whole = calls or 1
        bar = (
            f'<svg class=mini viewBox="0 0 100 14" width="120" height="14" role="img" '
            f'aria-label="share of its calls failed: reported {share(rep, calls)}, true '
            f'{share(tru, calls)}"><rect x="0" y="1" width="100" height="12" fill="#edf2f7"></rect>'
            f'<rect x="0" y="1" width="{100 * rep / whole:.1f}" height="6" '
            f'fill="{COLORS["reported"]}"></rect>'
            f'<rect x="0" y="7" width="{100 * tru / whole:.1f}" height="6" '
            f'fill="{COLORS["true"]}"></rect></svg>'
        )
        rows.append(
            [
                f"<code>{esc(t.tool)}</code>",
                num(("by_tool", i, "calls"), n(calls)),
                num(("by_tool", i, "reported_failed_calls"), n(rep)),
                num(("by_tool", i, "true_failed_calls"), n(tru)),
                n(t.falsely_failed_calls),
                esc(wording.mostly(t)) if sum(t.false_failures.values()) else "–",
                bar,
            ]
        )
    more = (
        f"<p class=muted>… and {n(len(tools) - MAX_ROWS)} more tools (--format json has them all)</p>"
        if len(tools) > MAX_ROWS
        else ""
    )
    return (
        "<section id=tools><h2>Per tool</h2><p class=muted>Calls graded per tool, failed by "
        f'each check (<span style="color:{COLORS["reported"]}">reported</span>, '
        f'<span style="color:{COLORS["true"]}">true</span>; the share is of the tool\'s '
        "calls), and the calls whose reported failure a false-failure shape explains.</p>"
        + table(
            [
                "tool",
                "calls",
                "reported failed",
                "true failed",
                "falsely failed",
                "mostly",
                "share",
            ],
            rows,
            "lrrrrll",
        )
        + f"{more}</section>"
    )


def _suspects(s: SummaryView) -> str:
    found = s.suspects
    if not found:
        return (
            "<section id=suspects><h2>Normalizer suspects</h2><p class=muted>None: no run matched "
            "only through a rule while its recorded world failed.</p></section>"
        )
    rows = [
        [
            f"<code>{esc(x.tool)}.{esc(x.param)}</code>",
            f"<code>{esc(x.norm)}</code>",
            num(("normalizer_suspects", i, "runs"), n(x.runs)),
        ]
        for i, x in enumerate(found[:MAX_ROWS])
    ]
    return (
        "<section id=suspects><h2>Normalizer suspects</h2><p class=warn>Calls matched only "
        "through these rules while the recorded world says the run failed: doubt the rule "
        "first.</p>" + table(["parameter", "rule", "runs"], rows, "llr") + "</section>"
    )


def _replies(s: SummaryView) -> str:
    """The rules the tools' replies put in doubt (`summary.reply_evidence`), beside the suspects."""
    doubts = wording.reply_rows(s)
    confirmed = wording.confirmed_line(s)
    if not doubts and confirmed is None:
        return ""
    body = ""
    if doubts:
        rows = [
            [
                f"<code>{esc(p)}</code>",
                f"<code>{esc(r)}</code>",
                num(("reply_evidence", i, "pairs_differ"), n(d)),
                num(("reply_evidence", i, "pairs_agree"), n(a)),
                esc(ex),
            ]
            for i, (p, r, d, a, ex) in enumerate(doubts[:MAX_ROWS])
        ]
        body += f"<p class=warn>{esc(wording.REPLY_INTRO.capitalize())}.</p>" + table(
            ["parameter", "rule", "pairs differ", "agree", "example"], rows, "llrrl"
        )
    if confirmed is not None:
        body += f"<p class=muted>{esc(confirmed)}.</p>"
    return f"<section id=replies><h2>{esc(wording.REPLY_TITLE)}</h2>{body}</section>"


def _coverage(s: SummaryView) -> str:
    c, e = s.coverage, s.effects
    tools, with_norms = c.tools, c.tools_with_norms
    chart = bars(
        [
            Bar(
                "tools with rules",
                with_norms / tools if tools else 0,
                f"{with_norms} of {tools} tools",
                COLORS["true"],
            ),
            Bar(
                "calls to them",
                c.call_share_with_norms,
                pct(c.call_share_with_norms),
                COLORS["true"],
            ),
        ],
        title="coverage of equivalence rules",
        top=1,
    )
    return (
        "<section id=coverage><h2>Coverage and effects</h2>"
        f"<p>{num(('coverage', 'tools_with_norms'), n(with_norms))} of "
        f"{num(('coverage', 'tools'), n(tools))} tools declare equivalence rules; they carry "
        f"{num(('coverage', 'call_share_with_norms'), pct(c.call_share_with_norms))} of "
        f"calls.</p>{chart}"
        f"<p>Effects: {num(('effects', 'checked'), n(e.checked))} assertions checked, "
        f"{num(('effects', 'failed'), n(e.failed))} failed, "
        f"{num(('effects', 'unverified'), n(e.unverified))} unverified (no world "
        "recorded).</p></section>"
    )


def _warnings(warnings: Sequence[str]) -> str:
    """What was read but deserves a word, first on the page: a file in the traces folder that
    was not read is runs that are in no number below."""
    if not warnings:
        return ""
    items = "".join(f"<li>{esc(w)}</li>" for w in warnings[:MAX_ERRORS_SHOWN])
    more = len(warnings) - MAX_ERRORS_SHOWN
    tail = f"<p class=muted>{wording.more(more)}</p>" if more > 0 else ""
    return (
        f"<section id=warnings><h2>Warnings: {n(len(warnings))}</h2><ul class=errors>{items}</ul>"
        f"{tail}</section>"
    )


def _unscoreable(s: SummaryView, errors: Sequence[dict[str, Any]]) -> str:
    count = s.unscoreable
    if not count:
        return (
            "<section id=unscoreable><h2>Unscoreable lines</h2><p class=muted>None: every line "
            "read was scored.</p></section>"
        )
    items = "".join(
        f"<li>{esc(e.get('source'))}  {esc(e.get('error'))}</li>" for e in errors[:MAX_ERRORS_SHOWN]
    )
    more = count - min(len(errors), MAX_ERRORS_SHOWN)
    tail = f"<p class=muted>{wording.more(more)}</p>" if more > 0 else ""
    return (
        f"<section id=unscoreable><h2>Unscoreable lines: {num(('unscoreable',), n(count))}</h2>"
        f"<p class=muted>Counted, not scored: runs scored + unscoreable = "
        f"{num(('lines',), n(s.lines))} lines read.</p><ul class=errors>{items}</ul>{tail}"
        "</section>"
    )


def _runs(s: SummaryView, runs: Sequence[bytes], sample: Sample) -> str:
    if sample.kept == sample.total:
        note = (
            f"<p>All {n(sample.total)} runs that are not a plain pass are here, with their "
            "explanations.</p>"
        )
    else:
        rows = [
            [f"<code>{esc(name)}</code>", n(kept), n(total), share(kept, total)]
            for name, (kept, total) in sample.strata.items()
        ]
        note = (
            f"<div class=note><p><b>A sample.</b> {n(sample.total)} runs are not a plain pass; "
            f"this page holds {n(sample.kept)} of them, drawn at random within each verdict and "
            "shape (an equal share of the page each, a small stratum's spare share going to the "
            "others). The counts everywhere else on this page are of every run. "
            "<code>evalrun score --format jsonl</code> lists them all.</p>"
            f"{table(['verdict/shape', 'on this page', 'runs', 'share'], rows)}</div>"
        )
    group_filter = (
        '<label>group<select id="f-group"><option value="">all</option></select></label>'
        if s.group_by
        else ""
    )
    data = b"[" + b",".join(runs) + b"]"
    return (
        "<section id=runs><h2>Runs that are not a plain pass</h2>"
        f"{note}"
        '<div class="filters">'
        '<label>verdict<select id="f-verdict"><option value="">all</option></select></label>'
        '<label>shape<select id="f-shape"><option value="">all</option></select></label>'
        '<label>tool<select id="f-tool"><option value="">all</option></select></label>'
        '<label>case<input id="f-case" list="case-ids" placeholder="case id contains…">'
        '<datalist id="case-ids"></datalist></label>'
        f"{group_filter}"
        '<button id="reset" type="button">clear</button></div>'
        '<p id="shown">Showing <b id="n-shown">0</b> of <b id="n-match">0</b> matching runs.</p>'
        '<div id="run-list"></div><button id="more" type="button" hidden>show more</button>'
        f'<script type="application/json" id="evalrun-runs">{data.decode()}</script>'
        "</section>"
    )


__all__ = ["WRITER", "HtmlWriter", "render_page"]
