"""The words and numbers every renderer writes the same way: how a count, a rate, a share, a
change and an interval are written (every command's renderers use these, not copies of them),
and what a score report says of its summary's view (`summary.view.SummaryView`): the headline,
the lower-bound note of a first contact, the shapes' headings, the effects, the rules the tools'
replies put in doubt, and which tools, groups and pass^k rows a report lists, in which order.

The table, Markdown, HTML and JUnit writers each lay these out their own way, but the words and
numbers come from here once, so they cannot drift apart. Where their bytes differ on purpose
they are not here: the table shows a rate from the counts (`share`) where Markdown and HTML show
the JSON's rounded rate (`pct`), and each marks up an example's case id its own way. (The number
formatters live here, not in a module of their own, because `score`'s table may import no module
of `write/` but its own and this one: tests/test_startup.py.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from ..jsonvalue import short_json
from ..shapes import FALSE_FAILURE_SHAPES, FALSE_PASS_SHAPES
from ..summary.trials import shown_ks
from ..summary.view import PassHatK, ReplyRule, SummaryView, ToolFigures, Trials
from ..words import counted, graded_calls

FEW_RULES: Final = 0.5
"""Below this share of calls made to tools that declare a rule, the false-failure count is what
the declared rules find, not what there is: the headline says it is a lower bound."""
EXAMPLE_CHARS: Final = 60
NONE: Final = "–"
"""What a number that is not there (a rate of nothing, a value a saved file lacks) is shown as."""

# ------------------------------------------------------------------------------------ numbers


def n(x: Any) -> str:
    """A count: `4,000`; anything but an integer (a value a saved file lacks) is `–`."""
    return f"{x:,}" if isinstance(x, int) else NONE


def pct(rate: Any, digits: int = 1) -> str:
    """A rate from 0 to 1 as a percentage: `22.1%` (`digits=0`: `22%`, diff's pass fractions);
    `–` for anything but a number (an audit rate of no runs is None)."""
    return f"{100 * rate:.{digits}f}%" if isinstance(rate, (int, float)) else NONE


def share(part: int, whole: int, digits: int = 1) -> str:
    """`part` as a percentage of `whole`, from the counts: `22.1%`; `–` of nothing."""
    return f"{100 * part / whole:.{digits}f}%" if whole else NONE


def share_count(part: int, whole: int) -> str:
    """`22.1% (42)`, the share and the count; of nothing, `–` alone (diff's cells). The score
    table writes `f"{share(p, w)} ({n(p)})"` instead, `– (0)` of nothing: each keeps its bytes."""
    return f"{share(part, whole)} ({n(part)})" if whole else NONE


def points(delta: Any) -> str:
    """A change of a rate, in percentage points: `+3.2 pts`, `0.0 pts`; `–` for no number."""
    if not isinstance(delta, (int, float)):
        return NONE
    return "0.0 pts" if delta == 0 else f"{100 * delta:+.1f} pts"


def change(old: Any, new: Any) -> str:
    """A change of a count: `+3`, `-1,200`, `0` (also when either is not a count)."""
    if isinstance(old, int) and isinstance(new, int) and new != old:
        return f"{new - old:+,}"
    return "0"


def interval(low: float, high: float) -> str:
    """A confidence interval of a rate: `12.0–31.5%`."""
    return f"{100 * low:.1f}–{100 * high:.1f}%"


# ----------------------------------------------------------------------------- the sentences


def lower_bound(s: SummaryView) -> bool:
    """Whether the false-failure count is only what a few declared rules find."""
    share = s.coverage.call_share_with_norms
    return share < FEW_RULES and s.reported.failed_runs > 0


def counts_line(s: SummaryView) -> str:
    """What a report counts, after its title: `4,042 runs · 4,151 calls` (`words.graded_calls`)."""
    return f"{counted(s.runs, 'run')} · {graded_calls(s.calls, s.all_calls)}"


def headline(s: SummaryView) -> str:
    """The sentence "Of 89 runs exact-match failed, 14 were correct ..." — with "at least"
    and what the count is when the rules are few (`lower_bound`)."""
    v = s.verdicts
    failed = s.reported.failed_runs
    ff, fp, both = v.get("false_failure", 0), v.get("false_pass", 0), v.get("fail", 0)
    passes = f"of {n(s.runs - failed)} it passed, {n(fp)} were wrong (false passes)"
    if not lower_bound(s):
        return (
            f"Of {counted(failed, 'run')} exact-match failed, {n(ff)} were correct (false "
            f"failures); {passes}. {counted(both, 'run')} failed both checks."
        )
    share = s.coverage.call_share_with_norms
    return (
        f"Of {counted(failed, 'run')} exact-match failed, the declared rules find {n(ff)} "
        f"correct (false failures): a lower bound, since the tools that declare rules carry only "
        f"{100 * share:.1f}% of calls; {passes}. {counted(both, 'run')} failed both checks, "
        "some perhaps only for want of a rule."
    )


def suggest_line(s: SummaryView) -> str | None:
    """The line under a lower-bound headline: what `evalrun suggest` would look at."""
    if not lower_bound(s):
        return None
    k = s.coverage.absorbable_calls or 0
    if k:
        verb, their = ("differs", "its") if k == 1 else ("differ", "their")
        return (
            f"Run `evalrun suggest`: {counted(k, 'failing call')} {verb} from {their} step only "
            "where a built-in rule would absorb the difference."
        )
    return (
        "Run `evalrun suggest`: it proposes the rules, defaults and alternate paths these traces "
        "support (no failing call differs only where a built-in rule would absorb it)."
    )


@dataclass(frozen=True)
class ShapeSection:
    """The false failures or the false passes of a summary, as every report heads them:
    "False failures: 14 runs (15.7% of reported failures)"."""

    title: str
    verdict: str
    """The verdict the shapes explain (`false_failure`, `false_pass`)."""
    key: str
    """The summary's key of their counts (`false_failures`, `false_passes`)."""
    shapes: tuple[str, ...]
    counts: Mapping[str, int]
    whole: int
    """The runs a share is of: the reported failures, or the reported passes."""
    share_of: str

    @property
    def total(self) -> int:
        return sum(self.counts.get(x, 0) for x in self.shapes)

    @property
    def heading(self) -> str:
        """What follows the title: `14 runs (15.7% of reported failures)`."""
        return f"{n(self.total)} runs ({share(self.total, self.whole)} {self.share_of})"


def shape_sections(s: SummaryView) -> tuple[ShapeSection, ShapeSection]:
    """The false failures (of the reported failures) and the false passes (of the reported
    passes)."""
    failed = s.reported.failed_runs
    return (
        ShapeSection(
            "False failures",
            "false_failure",
            "false_failures",
            FALSE_FAILURE_SHAPES,
            s.false_failures,
            failed,
            "of reported failures",
        ),
        ShapeSection(
            "False passes",
            "false_pass",
            "false_passes",
            FALSE_PASS_SHAPES,
            s.false_passes,
            s.runs - failed,
            "of reported passes",
        ),
    )


def effects_line(s: SummaryView) -> str:
    """`120 assertions checked, 3 failed, 2 unverified (no world recorded)`."""
    e = s.effects
    return (
        f"{n(e.checked)} assertions checked, {n(e.failed)} failed, {n(e.unverified)} unverified "
        "(no world recorded)"
    )


SUSPECTS_TITLE: Final = "Normalizer suspects"
SUSPECTS_INTRO: Final = (
    "calls matched only through these rules while the world disagrees; doubt the rule first"
)
TOP_TOOLS_TITLE: Final = "Tools with the most falsely failed calls"
TOP_TOOLS: Final = 5


def most_falsely_failed(s: SummaryView) -> list[ToolFigures]:
    """The tools with the most falsely failed calls (at most `TOP_TOOLS`; none without one)."""
    return sorted(
        (t for t in s.by_tool if t.falsely_failed_calls),
        key=lambda t: (-t.falsely_failed_calls, t.tool),
    )[:TOP_TOOLS]


def mostly(t: ToolFigures) -> str:
    """The false-failure shape most of a tool's calls show (the earlier shape on a tie; the
    first shape when none does)."""
    ff = t.false_failures
    return max(FALSE_FAILURE_SHAPES, key=lambda k: (ff.get(k, 0), -FALSE_FAILURE_SHAPES.index(k)))


def ranked_groups(s: SummaryView) -> list[tuple[str, SummaryView]]:
    """Under `--group-by`, the groups by name and summary, the most runs first; else none."""
    if s.groups is None:
        return []
    return sorted(s.groups.items(), key=lambda kv: (-kv[1].runs, kv[0]))


def shown_trials(t: Trials) -> list[tuple[int, PassHatK]]:
    """The rows of pass^k a report shows (`summary.trials.shown_ks`), with their index in
    `pass_hat_k`."""
    return [(k - 1, t.pass_hat_k[k - 1]) for k in shown_ks(len(t.pass_hat_k))]


def more(k: int) -> str:
    """The line under a list cut short: `… and 12 more (--format json lists them all)`."""
    return f"… and {n(k)} more (--format json lists them all)"


REPLY_TITLE: Final = "Rules the replies put in doubt"
REPLY_INTRO: Final = (
    "calls of one case that differ only where the rule equates them got different replies "
    "from the tool; doubt the rule (no verdict is changed)"
)


def reply_rows(s: SummaryView) -> list[tuple[str, str, int, int, str]]:
    """Per rule in doubt: (tool.parameter, rule, pairs that differ, pairs that agree, example)."""
    return [
        (f"{x.tool}.{x.param}", str(x.norm), x.pairs_differ, x.pairs_agree, reply_example(x))
        for x in s.reply_evidence
    ]


def reply_example(x: ReplyRule) -> str:
    """`"…09:00:00Z" (runs.jsonl:1) and "…09:00:00+01:00" (runs.jsonl:3) got different replies`."""
    if len(x.example) != 2:
        return ""
    a, b = x.example
    text = (
        f"{short_json(a.value, EXAMPLE_CHARS)} ({a.source}) and "
        f"{short_json(b.value, EXAMPLE_CHARS)} ({b.source}) got different replies"
    )
    if x.sampled:
        text += " (sampled: the bound per case and rule was reached)"
    return text


def confirmed_line(s: SummaryView) -> str | None:
    """How many rules the replies confirmed, and none put in doubt."""
    found = s.reply_confirmed
    if not found:
        return None
    pairs = sum(x.pairs_agree for x in found)
    return (
        f"Replies confirm {counted(len(found), 'rule')} ({counted(pairs, 'pair')} of calls that "
        f"differ only where the rule equates them got equal replies, none different)"
    )


__all__ = [
    "FEW_RULES",
    "NONE",
    "REPLY_INTRO",
    "REPLY_TITLE",
    "SUSPECTS_INTRO",
    "SUSPECTS_TITLE",
    "TOP_TOOLS",
    "TOP_TOOLS_TITLE",
    "ShapeSection",
    "change",
    "confirmed_line",
    "counts_line",
    "effects_line",
    "headline",
    "interval",
    "lower_bound",
    "more",
    "most_falsely_failed",
    "mostly",
    "n",
    "pct",
    "points",
    "ranked_groups",
    "reply_example",
    "reply_rows",
    "shape_sections",
    "share",
    "share_count",
    "shown_trials",
    "suggest_line",
]
