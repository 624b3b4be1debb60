"""The sentences every report writes the same way, from the summary's JSON: the headline, the
lower-bound note of a first contact, and the rules the tools' replies put in doubt.

The table, Markdown and HTML writers each lay these out their own way, but the words and numbers
come from here once, so they cannot drift apart.
"""

from __future__ import annotations

from typing import Any, Final

from ..jsonvalue import short_json
from ..words import counted

FEW_RULES: Final = 0.5
"""Below this share of calls made to tools that declare a rule, the false-failure count is what
the declared rules find, not what there is: the headline says it is a lower bound."""
EXAMPLE_CHARS: Final = 60


def _n(x: Any) -> str:
    return f"{x:,}" if isinstance(x, int) else "–"


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
    passes = f"of {_n(runs - failed)} it passed, {_n(fp)} were wrong (false passes)"
    if not lower_bound(s):
        return (
            f"Of {counted(failed, 'run')} exact-match failed, {_n(ff)} were correct (false "
            f"failures); {passes}. {counted(both, 'run')} failed both checks."
        )
    share = (s.get("coverage") or {}).get("call_share_with_norms") or 0
    return (
        f"Of {counted(failed, 'run')} exact-match failed, the declared rules find {_n(ff)} "
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
    "REPLY_INTRO",
    "REPLY_TITLE",
    "confirmed_line",
    "headline",
    "lower_bound",
    "reply_example",
    "reply_rows",
    "suggest_line",
]
