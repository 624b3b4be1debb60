"""`evalrun suggest` (the default, `--format table`): the suggestions for a person, a rich table
at 80 columns, readable without colour; `suggest_json.py` writes them for a program.

Every string that comes from the user's files (tool, parameter and case names, values) is printed
as `rich.text.Text`, never as markup: a parameter called `pay[/]` prints as it is.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.text import Text as RichText

from ..jsonvalue import dumps as json_dumps
from ..jsonvalue import short_json
from ..model import NormSpec
from ..suggest.encodings import PIN
from ..suggest.model import (
    AlternateSuggestion,
    DefaultSuggestion,
    Report,
    RuleSuggestion,
    Scored,
    TightenSuggestion,
)
from ..terminal import SafeText as Text
from ..terminal import as_is
from ..words import counted
from .suggest_json import json_value, rule_json, steps_json
from .wording import n, share


def _runs(k: int) -> str:
    return counted(k, "run")


def render_table(report: Report, sources: Iterable[str], console: Console) -> None:
    lines = _Lines(console)
    try:
        _render(report, sources, lines)
    finally:
        lines.flush()


class _Lines:
    """The console's `print` for the table's lines, each a `Text` of at most one paragraph: runs of
    lines printed together, as one `Text` joined by line feeds. rich wraps a `Text` line by line,
    so the bytes are those of one `print` per line, which cost a render each (0.5 s of the table's
    0.7 s for a suggest of 1,300 suggestions).

    A line that fits the width, of plain characters (`terminal.as_is`), prints the same bytes
    wrapped or soft-wrapped (nothing to wrap, crop or escape): it joins the run whichever it is.
    Only a line that does not fit ends a run of the other kind (a suggest of 6,100 suggestions
    printed 12,200 runs, one on each side of every alternate's line: 2.9 s)."""

    def __init__(self, console: Console) -> None:
        self.width = console.width
        self._console = console
        self._run: list[RichText] = []
        self._soft_wrap = False

    def print(self, text: RichText | None = None, soft_wrap: bool = False) -> None:
        text = Text() if text is None else text
        if soft_wrap is not self._soft_wrap and not self._fits(text):
            self.flush()
            self._soft_wrap = soft_wrap
        self._run.append(text)

    def _fits(self, text: RichText) -> bool:
        plain = text.plain
        return len(plain) <= self.width and as_is(plain) and text.cell_len <= self.width

    def flush(self) -> None:
        if self._run:
            self._console.print(Text("\n").join(self._run), soft_wrap=self._soft_wrap)
            self._run = []


def _render(report: Report, sources: Iterable[str], console: _Lines) -> None:
    s = report.summary
    console.print(
        Text.assemble(
            ("evalrun suggest", "bold"),
            f" · {counted(s.runs, 'run')} · {', '.join(sources)}",
            (f" · {counted(s.unscoreable, 'unscoreable line')}" if s.unscoreable else ""),
        )
    )
    console.print()
    scored = report.scored
    tighten = [x for x in report.suggestions if isinstance(x, TightenSuggestion)]
    safe = [x for x in scored if not x.risk.risky]
    rate = (
        f"True run failure rate: {share(s.true_failed_runs, s.runs)} ({_runs(s.true_failed_runs)})"
    )
    if scored:
        after = report.true_failed_if_safe_applied
        _para(
            console,
            f"{rate} now; {share(after, s.runs)} ({n(after)}) with "
            f"{counted(len(safe), 'suggestion')} without risk below applied.",
        )
        _para(
            console,
            f"Applied all at once, the {counted(len(scored), 'suggestion')} below would pass the "
            f"calls of {_runs(report.gains_if_all_applied)} that fail now (the sum of their "
            f"gains: {n(sum(x.gains for x in scored))}).",
        )
    else:
        _para(console, f"{rate}.")
    console.print()
    if scored:
        console.print(Text("Suggestions, by gains (the runs each would pass)", style="bold"))
        console.print()
        for x in scored:
            _suggestion(console, x)
        console.print()
    elif set(report.kinds) & {"rule", "default", "alternate"}:
        _para(
            console,
            "No rule, default or alternate to suggest: no failing call differs from its step "
            "in a way a built-in rule or a default absorbs, and no failing run with a checked "
            "world took another path.",
        )
        console.print()
    if tighten:
        _tighten(console, tighten)
    if report.case_keys:
        _case_keys(console, report)
    _errors(console, report)


def _case_keys(console: _Lines, report: Report) -> None:
    """The case lines to change by hand (`case_keys`), each with its gains and evidence."""
    console.print(Text("Case keys the runs call for (edit the case files by hand)", style="bold"))
    console.print()
    for x in report.case_keys:
        value = json_dumps(x.value).decode()
        # the step as errors and lint name it (accept[K][J]), not "step 0.0", which reads as a number
        where = f"accept[{x.step[0]}][{x.step[1]}] " if x.step is not None else ""
        key = f"{x.key} {x.param}" if x.step is not None else x.key
        head = f"{n(x.gains):>{GAINS_WIDTH}}  case {x.case_id}: {where}{key} = {value}"
        _para(console, head)
        risk = ""
        if x.risk.effects_failed or x.risk.unverified:
            risk = (
                f"; risk: {_runs(x.risk.effects_failed)} whose world fails, "
                f"{_runs(x.risk.unverified)} without a world"
            )
        examples = ", ".join(e.source for e in x.evidence.examples)
        _para(
            console,
            f"evidence: {_runs(x.evidence.runs)} ({examples}){risk}",
            indent=" " * (GAINS_WIDTH + 2),
        )
    console.print()


def _para(console: _Lines, text: str, indent: str = "", style: str = "") -> None:
    width = max(console.width - len(indent), 20)
    for line in textwrap.wrap(text, width=width, break_on_hyphens=False):
        console.print(Text(indent + line, style=style))


GAINS_WIDTH = 6
BODY = " " * (GAINS_WIDTH + 2)


def _suggestion(console: _Lines, x: Scored) -> None:
    if isinstance(x, AlternateSuggestion):
        where, what = x.case_id, "+ accepted sequence"
    else:
        where = f"{x.tool}.{x.param}"
        if isinstance(x, RuleSuggestion):
            value: Any = x.rule.name if not x.rule.options else rule_json(x.rule)
            what = f'"x-eval-norm": {short_json(value, 60)}'
        else:
            what = f'"default": {short_json(x.default, 60)}'
    head = Text(f"{n(x.gains):>{GAINS_WIDTH}}  {x.kind:<9} ")
    head.append(where, style="bold")
    if x.risk.risky:
        head.append("  RISKY", style="bold red")
    if head.cell_len + 2 + len(what) <= console.width:
        head.append(f"  {what}")
        console.print(head)
    else:  # the annotation on a line of its own rather than cut in two
        console.print(head)
        console.print(Text(BODY + what), soft_wrap=True)
    _para(console, _evidence_line(x), BODY)
    if isinstance(x, RuleSuggestion) and x.others:
        _para(console, "others: " + _others(x), BODY, "dim")
    if isinstance(x, RuleSuggestion):
        for w in x.wider_merges:
            ex = w.examples[0] if w.examples else None
            shown = (
                f" ({short_json(ex.actual, 32)} vs {short_json(ex.expected, 32)}, {ex.source})"
                if ex is not None
                else ""
            )
            _para(
                console,
                f"{w.rule} would also equate {counted(w.calls, 'call')} that {x.rule.name} reads "
                f"apart{shown}: not proposed for them.",
                BODY,
                "dim",
            )
    if isinstance(x, DefaultSuggestion) and x.others:
        top = x.evidence.calls or 0
        seen = ", ".join(f"{short_json(v, 40)} in {counted(k, 'call')}" for v, k in x.others)
        tie = " (a tie: check which the tool documents)" if x.others[0][1] >= top else ""
        _para(console, f"also left out with another value: {seen}{tie}", BODY, "dim")
    if isinstance(x, AlternateSuggestion):
        line = json_dumps(steps_json(x)).decode()
        console.print(Text(BODY + line), soft_wrap=True)
    for line in _risk_lines(x):
        _para(console, line, BODY, "red")
    _para(console, "checked by: " + _checked(x), BODY, "dim")
    if not x.risk.risky and x.risk.unverified:
        _para(
            console,
            f"{n(x.risk.unverified)} of the {_runs(x.gains)} it would pass recorded no world "
            "to check (unverified).",
            BODY,
        )
    if not x.gains:
        _para(
            console,
            "gains nothing alone: the runs it explains also need other suggestions (they "
            "count in the total with all applied).",
            BODY,
        )


def _checked(x: Scored) -> str:
    """What checked the suggestion beyond the arguments: effects, replies, or nothing."""
    e = x.evidence
    parts = []
    if "effects" in e.checked_by:
        parts.append(f"effects ({counted(e.checked_worlds, 'run')} with a checked world)")
    if e.replies is not None and "replies" in e.checked_by:
        r = e.replies
        parts.append(
            f"replies ({counted(r.agree, 'pair')} agree, {n(r.differ)} differ"
            + (", sampled" if r.sampled else "")
            + ")"
        )
    if not parts:
        return "nothing: no world recorded and no replies to compare (unverified)"
    return ", ".join(parts)


def _risk_lines(x: Scored) -> list[str]:
    """One line per risk the suggestion carries."""
    r = x.risk
    out = []
    if r.effects_failed:
        out.append(
            f"risky: {n(r.effects_failed)} of the {_runs(x.gains)} it would pass "
            "fail an effect assertion: it would make false passes. Doubt it first."
        )
    for w in r.narrower_differs:
        ex = w.examples[0] if w.examples else None
        shown = (
            f" ({short_json(ex.actual, 32)} vs {short_json(ex.expected, 32)}, {ex.source})"
            if ex is not None
            else ""
        )
        out.append(
            f"risky: {w.rule}, narrower, reads {counted(w.calls, 'call')} apart that this rule "
            f"would equate{shown}; not counted as gains."
        )
    if r.description is not None:
        out.append(f'risky: the parameter\'s description says "{r.description}".')
    if r.replies_differ:
        replies = x.evidence.replies
        pair = replies.examples[0] if replies is not None and replies.examples else None
        shown = ""
        if pair is not None:
            shown = (
                f" ({short_json(json_value(pair.first.value), 32)} and "
                f"{short_json(json_value(pair.second.value), 32)} in case {pair.case_id})"
            )
        out.append(
            f"risky: {counted(r.replies_differ, 'pair')} of calls it would equate got different "
            f"replies from the tool{shown}."
        )
    return out


def _others(x: RuleSuggestion) -> str:
    """The other rules that absorb some of the evidence: as many (and wider, or it would have
    been chosen), or fewer, with how many."""
    same = [o.name + _options(o) for o, k in x.others if k >= x.absorbed]
    fewer = [(o.name + _options(o), k) for o, k in x.others if k < x.absorbed]
    parts = []
    if same:
        verb = "absorbs" if len(same) == 1 else "absorb"
        parts.append(
            f"{' and '.join(same)} {verb} as many, but {'is' if len(same) == 1 else 'are'} wider"
        )
    parts.extend(f"{name} absorbs {n(k)} of these {n(x.absorbed)} calls" for name, k in fewer)
    return "; ".join(parts)


def _options(spec: NormSpec) -> str:
    if not spec.options:
        return ""
    return " (" + ", ".join(f"{k} {v}" for k, v in spec.options.items()) + ")"


def _evidence_line(x: Scored) -> str:
    e = x.evidence
    ex = e.examples[0] if e.examples else None
    if isinstance(x, AlternateSuggestion):
        where = f" (e.g. {ex.source})" if ex is not None else ""
        return (
            f"{_runs(e.runs)} made these calls and recorded a world that holds every effect "
            f'assertion of the case{where}; paste into its "accept":'
        )
    assert ex is not None, "a rule or default always has an example"
    name = x.param.rsplit(".", 1)[-1] if "." in x.param else x.param
    pair = f"{name}: {short_json(ex.actual, 32)} vs {short_json(ex.expected, 32)}"
    if isinstance(x, RuleSuggestion):
        result = x.rule.name + _options(x.rule)
    else:
        result = f"default {short_json(x.default, 24)}"
    return f"{pair} in {_runs(e.runs)} → {result}"


def _tighten(console: _Lines, tighten: list[TightenSuggestion]) -> None:
    console.print(Text("The better fix: one encoding per parameter", style="bold"))
    _para(
        console,
        "These parameters receive one meaning in several encodings. A rule absorbs them; a "
        "schema that accepts only one (type, format, pattern) removes the false failures at "
        "the source, and tells the agent which to send.",
    )
    console.print()
    for t in tighten:
        total = sum(k for _, k in t.encodings)
        head = Text("  ")
        head.append(f"{t.tool}.{t.param}", style="bold")
        head.append(f" ({t.rule})")
        console.print(head)
        shares = " · ".join(f"{name} {n(k)} ({share(k, total, 0)})" for name, k in t.encodings)
        _para(console, shares, "      ")
        pin = PIN.get(t.rule)
        if pin is not None:
            _para(console, f"one encoding, {pin[0]}: {pin[1]}", "      ", "dim")
    console.print()


def _errors(console: _Lines, report: Report) -> None:
    s = report.summary
    if not s.unscoreable:
        return
    console.print(
        Text(f"Unscoreable lines ({n(s.unscoreable)}, counted, not scored):", style="bold")
    )
    for source, error in report.errors[:20]:
        console.print(Text(f"  {source}  {error}"))
    if s.unscoreable > 20:
        console.print(Text(f"  … and {n(s.unscoreable - 20)} more (--format json lists them all)"))
