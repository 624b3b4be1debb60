"""The calls with a recorded reply, sampled per (case, tool) during suggest's pass; judged per
suggestion by `replies.judge` (whose docstring says how)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Final

from ..grade.replies import REPLY_CHARS, digest, make_room
from ..jsonvalue import short_json

MAX_CALLS: Final = 256
"""Distinct argument objects kept per (case, tool)."""
MAX_REPLIES: Final = 16
"""Distinct replies counted per argument object."""


@dataclass
class Sent:
    """One distinct argument object of one (case, tool), with the replies it got."""

    args: Any
    """The arguments object."""
    replies: Counter[int] = field(default_factory=Counter)
    example: tuple[str, str, int, str] | None = None
    """The earliest call: (run id, source, reply digest, reply text)."""


@dataclass
class ReplySample:
    """Per (case id, tool): argument digest -> `Sent`."""

    calls: dict[tuple[str, str], dict[int, Sent]] = field(default_factory=dict)
    sampled: set[tuple[str, str]] = field(default_factory=set)

    def add(
        self,
        case_id: str,
        tool: str,
        args: Any,
        spelling: int,
        result: Any,
        run_id: str,
        source: str,
    ) -> None:
        try:
            reply = digest(result)
        except TypeError:
            return
        self._insert(
            (case_id, tool),
            spelling,
            args,
            reply,
            1,
            (run_id, source, reply, short_json(result, REPLY_CHARS)),
        )

    def _insert(
        self,
        key: tuple[str, str],
        spelling: int,
        args: Any,
        reply: int,
        count: int,
        example: tuple[str, str, int, str],
    ) -> None:
        table = self.calls.setdefault(key, {})
        entry = table.get(spelling)
        if entry is None:
            if len(table) >= MAX_CALLS:
                self.sampled.add(key)
                if not make_room(table, spelling)[0]:
                    return
            entry = table[spelling] = Sent(args)
        if reply not in entry.replies and len(entry.replies) >= MAX_REPLIES:
            self.sampled.add(key)
            if not make_room(entry.replies, reply)[0]:
                return
        entry.replies[reply] += count
        if entry.example is None:
            entry.example = example

    def merge(self, other: ReplySample) -> None:
        """Add a later batch's sample (examples stay the earliest: batches come in input order)."""
        self.sampled |= other.sampled
        for key, table in other.calls.items():
            for spelling, entry in table.items():
                assert entry.example is not None
                for reply, n in entry.replies.items():
                    self._insert(key, spelling, entry.args, reply, n, entry.example)
