"""Rules that newly pass calls while the recorded world says the run failed."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .views import RunDetail, RunView

MAX_SUSPECT_KEYS = 20
"""How many run (or case) keys a suspect rule lists as examples; all are counted."""


@dataclass(frozen=True)
class SuspectRule:
    """A rule through which calls newly match while the recorded world says the run failed."""

    tool: str
    param: str
    norm: str
    keys: tuple[str, ...]
    """The runs (or cases) where it newly happens."""
    runs: int
    unverified_passes: int
    """Runs that the same rule turned into true passes with no world to check them against."""

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "param": self.param,
            "norm": self.norm,
            "runs": self.runs,
            "keys": list(self.keys[:MAX_SUSPECT_KEYS]),
            "unverified_passes": self.unverified_passes,
        }


def suspect_rules(
    groups: Sequence[tuple[str, Sequence[RunView], Sequence[RunView]]],
) -> tuple[SuspectRule, ...]:
    """Rules through which calls newly match while their effects fail, per run (or case).

    A normalizer that turns failing runs into passes is only as good as its rule: where a world was
    recorded and disagrees, the rule is the first thing to doubt, and the runs it passed with no
    world to check are counted alongside.
    """
    keys: dict[tuple[str, str, str], list[str]] = {}
    runs: Counter[tuple[str, str, str]] = Counter()
    for key, olds, news in groups:
        before = {s for r in olds for s in r.suspects}
        fresh = Counter(s for r in news for s in r.suspects if s not in before)
        for s, k in fresh.items():
            keys.setdefault(s, []).append(key)
            runs[s] += k
    if not keys:
        return ()
    unverified: Counter[tuple[str, str, str]] = Counter()
    for _, olds, news in groups:
        was_passing = any(r.true_pass for r in olds)
        for r in news:
            if not r.true_pass or was_passing or not r.unverified:
                continue
            for rule in _absorbing_rules(r.detail()):
                if rule in keys:
                    unverified[rule] += 1
    return tuple(
        SuspectRule(t, p, n, tuple(keys[(t, p, n)]), runs[(t, p, n)], unverified[(t, p, n)])
        for t, p, n in sorted(keys)
    )


_INDEX = re.compile(r"\[\d+\]")
"""A list index in a difference's path (`flights[1].date`); suspects name the parameter
(`flights[].date`)."""


def _absorbing_rules(r: RunDetail) -> set[tuple[str, str, str]]:
    """(tool, parameter path, normalizer) for each difference a rule absorbed in a matched call."""
    return {
        (c.tool, _INDEX.sub("[]", p.path), p.norm)
        for c in r.calls
        if c.label == "equivalent"
        for p in c.params
        if p.kind == "equivalent" and p.norm
    }
