"""The words and numbers every renderer writes the same way: how a count, a rate, a share, a
change and an interval are written (every command's renderers use these, not copies of them),
and the sentences of a score report, from its summary: the headline, the lower-bound note of a
first contact, and the rules the tools' replies put in doubt.

The table, Markdown and HTML writers each lay these out their own way, but the words and numbers
come from here once, so they cannot drift apart. (The number formatters live here, not in a
module of their own, because `score`'s table may import no module of `write/` but its own and
this one: tests/test_startup.py.)
"""

from __future__ import annotations

from typing import Any, Final

from ..jsonvalue import short_json
from ..words import counted

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


def lower_bound(s: dict[str, Any]) -> bool:
    """Whether the false-failure count is only what a few declared rules find."""
    coverage = s.get("coverage") or {}
    share = coverage.get("call_share_with_norms")
    reported_failed = (s.get("reported") or {}).get("failed_runs") or 0
    return isinstance(share, (int, float)) and share < FEW_RULES and reported_failed > 0


def headline(s: dict[str, Any]) -> str:
    """The sentence "Of 89 runs exact-match failed, 14 were correct ..." — with "at least"
    and what the count is when the rules are few (`lower_bound`)."""
    v = s.get("verdicts") or {}
    runs = s.get("runs") or 0
    failed = (s.get("reported") or {}).get("failed_runs") or 0
    ff, fp, both = v.get("false_failure", 0), v.get("false_pass", 0), v.get("fail", 0)
    passes = f"of {n(runs - failed)} it passed, {n(fp)} were wrong (false passes)"
    if not lower_bound(s):
        return (
            f"Of {counted(failed, 'run')} exact-match failed, {n(ff)} were correct (false "
            f"failures); {passes}. {counted(both, 'run')} failed both checks."
        )
    share = (s.get("coverage") or {}).get("call_share_with_norms") or 0
    return (
        f"Of {counted(failed, 'run')} exact-match failed, the declared rules find {n(ff)} "
        f"correct (false failures): a lower bound, since the tools that declare rules carry only "
        f"{100 * share:.1f}% of calls; {passes}. {counted(both, 'run')} failed both checks, "
        "some perhaps only for want of a rule."
    )


def suggest_line(s: dict[str, Any]) -> str | None:
    """The line under a lower-bound headline: what `evalrun suggest` would look at."""
    if not lower_bound(s):
        return None
    k = (s.get("coverage") or {}).get("absorbable_calls") or 0
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


REPLY_TITLE: Final = "Rules the replies put in doubt"
REPLY_INTRO: Final = (
    "calls of one case that differ only where the rule equates them got different replies "
    "from the tool; doubt the rule (no verdict is changed)"
)


def reply_rows(s: dict[str, Any]) -> list[tuple[str, str, int, int, str]]:
    """Per rule in doubt: (tool.parameter, rule, pairs that differ, pairs that agree, example)."""
    rows = []
    for x in s.get("reply_evidence") or []:
        rows.append(
            (
                f"{x.get('tool')}.{x.get('param')}",
                str(x.get("norm")),
                x.get("pairs_differ") or 0,
                x.get("pairs_agree") or 0,
                reply_example(x),
            )
        )
    return rows


def reply_example(x: dict[str, Any]) -> str:
    """`"…09:00:00Z" (runs.jsonl:1) and "…09:00:00+01:00" (runs.jsonl:3) got different replies`."""
    ex = x.get("example") or {}
    calls = ex.get("calls") or []
    if len(calls) != 2:
        return ""
    a, b = calls
    text = (
        f"{short_json(a.get('value'), EXAMPLE_CHARS)} ({a.get('source')}) and "
        f"{short_json(b.get('value'), EXAMPLE_CHARS)} ({b.get('source')}) got different replies"
    )
    if x.get("sampled"):
        text += " (sampled: the bound per case and rule was reached)"
    return text


def confirmed_line(s: dict[str, Any]) -> str | None:
    """How many rules the replies confirmed, and none put in doubt."""
    found = s.get("reply_confirmed") or []
    if not found:
        return None
    pairs = sum(x.get("pairs_agree") or 0 for x in found)
    return (
        f"Replies confirm {counted(len(found), 'rule')} ({counted(pairs, 'pair')} of calls that "
        f"differ only where the rule equates them got equal replies, none different)"
    )


__all__ = [
    "FEW_RULES",
    "NONE",
    "REPLY_INTRO",
    "REPLY_TITLE",
    "change",
    "confirmed_line",
    "headline",
    "interval",
    "lower_bound",
    "n",
    "pct",
    "points",
    "reply_example",
    "reply_rows",
    "share",
    "share_count",
    "suggest_line",
]
