"""Calls in the runs that name a tool no schema defines, counted for one warning.

Such a call is still graded (its arguments compare by JSON equality, under no rule), so a trace
whose calls name the tools otherwise than the tool files do (a plugin-qualified
`Billing-get_customer`, a renamed tool) would score every call of theirs without a word. The
scoring warns once: how many calls, how many tools, and where the first run naming each is.
Counts and earliest examples only, so it merges exactly, in any order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Order = tuple[int, int]

MAX_NAMES = 1_000
"""Names kept (the earliest by input order): a corpus of made-up names stays small in memory;
the call count stays exact."""
SHOWN = 3


@dataclass
class UnknownTools:
    calls: int = 0
    """Calls naming a tool no schema defines."""
    first: dict[str, tuple[Order, str]] = field(default_factory=dict)
    """Per such tool, where the first run naming it stands: (order, file:line)."""
    more: bool = False
    """Names past `MAX_NAMES` were seen and not kept."""

    def add(self, tool: str, order: Order, source: str) -> None:
        self.calls += 1
        known = self.first.get(tool)
        if known is None:
            if len(self.first) >= 2 * MAX_NAMES:
                self._bound()
            self.first[tool] = (order, source)
        elif order < known[0]:
            self.first[tool] = (order, source)

    def merge(self, other: UnknownTools) -> None:
        self.calls += other.calls
        self.more = self.more or other.more
        for tool, seen in other.first.items():
            known = self.first.get(tool)
            if known is None or seen[0] < known[0]:
                self.first[tool] = seen
        self._bound()

    def _bound(self) -> None:
        if len(self.first) <= MAX_NAMES:
            return
        kept = sorted(self.first.items(), key=lambda item: (item[1][0], item[0]))[:MAX_NAMES]
        self.first = dict(kept)
        self.more = True

    def warning(self) -> str | None:
        """The one warning the scoring gives, or None when every call names a defined tool."""
        if not self.calls:
            return None
        self._bound()
        named = sorted(self.first.items(), key=lambda item: (item[1][0], item[0]))
        tools = f"{len(named):,}{' or more' if self.more else ''} tool(s)"
        shown = ", ".join(f'"{tool}" (first at {source})' for tool, (_, source) in named[:SHOWN])
        rest = len(named) - SHOWN
        if rest > 0 or self.more:
            shown += f", and {rest:,}{' or more' if self.more else ''} more"
        return (
            f"{self.calls:,} call(s) in the runs name {tools} no schema defines: {shown}; they "
            "are compared as JSON, under no rule: a tool the agent made up, or the traces name "
            "the tools otherwise than the tool files do (a plugin-qualified name, a renamed "
            "tool: name them alike)"
        )
