"""Other valid call sequences: runs whose calls match no accepted sequence while their recorded
world passes every effect assertion of their case.

Runs are grouped by their calls as the grader sees them (equivalent arguments are one call;
errored attempts and repeats to repeatable tools dropped). A group is evidence only through its
runs whose world was checked and held: without a world there is nothing to say the calls did the
job. Not proposed: calls that repeat an earlier call to a tool that is not repeatable (a loop,
not a path); calls whose arguments cannot be read (they cannot be written into a case); and calls
that include a call to every tool of an accepted sequence: those took the accepted path and
failed on an argument (which a rule or a default explains, or which is wrong where the effect
assertions do not look: a search for the wrong month before the right refund) or on a call too
many - another path calls other tools (`get_customer` instead of `search_invoices`), or fewer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..grade.grader import Grader
from ..model import Case, Step
from .collect import EXAMPLES, Group


@dataclass(frozen=True)
class AlternateChoice:
    case_id: str
    steps: tuple[Step, ...]
    runs: int
    """Runs with these calls whose world was checked and held."""
    examples: tuple[tuple[str, str], ...]
    """(run_id, source) of the earliest of them."""


def alternates(
    groups: Sequence[Group], failing: Collection[int], grader: Grader, cases: Mapping[str, Case]
) -> list[AlternateChoice]:
    """The sequences of the `failing` groups (indices into `groups`: those whose calls match no
    accepted sequence, under `grader`'s rules), grouped, each with its runs."""
    buckets: dict[Any, list[tuple[int, tuple[Step, ...]]]] = {}
    for i in sorted(failing):
        g = groups[i]
        if not g.checked:
            continue
        found = _sequence(g, grader)
        if found is not None and not _takes_accepted_path(found[1], cases[g.case_id]):
            key, steps = found
            buckets.setdefault((g.case_id, key), []).append((i, steps))
    out = []
    for (case_id, _), members in buckets.items():
        runs = sum(groups[i].checked for i, _ in members)
        examples = tuple(ex for i, _ in members for ex in groups[i].checked_examples)[:EXAMPLES]
        _, steps = max(members, key=lambda m: (groups[m[0]].checked, -m[0]))
        out.append(AlternateChoice(case_id, steps, runs, examples))
    return out


def _sequence(g: Group, grader: Grader) -> tuple[Any, tuple[Step, ...]] | None:
    """(the calls' key, the calls as steps), or None when they are no sequence to propose."""
    keys: list[Any] = []
    steps: list[Step] = []
    for call in g.calls:
        if call.errored:
            continue
        if call.malformed is not None:
            return None
        plan = grader.plan(call.tool)
        key = (call.tool, plan.key(call.args))
        if key in keys:
            if plan.repeatable:
                continue
            return None  # a loop
        keys.append(key)
        steps.append(Step(call.tool, call.args))
    if not steps:
        return None
    return tuple(keys), tuple(steps)


def _takes_accepted_path(steps: tuple[Step, ...], case: Case) -> bool:
    """Whether the calls include, tool for tool, every call of an accepted sequence."""
    mine = Counter(s.tool for s in steps)
    return any(not Counter(s.tool for s in seq) - mine for seq in case.accept)
