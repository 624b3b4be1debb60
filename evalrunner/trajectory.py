"""Hold a run's calls against a call sequence under a match mode; align them for labelling.

Calls and steps are compared through keys: the reported check uses exact keys (JSON equality of
the arguments), the true check canonical keys (`ToolPlan.key`, equivalence under the tool's rules).
Both relations are equivalences, so the unordered modes are multiset comparisons, and never depend
on a greedy first match: with steps `{x: [1, 2]}` and `{x: [1]}` under `unordered_list`, the calls
`x=[1]`, `x=[2, 1]` match, whatever order they come in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence

Key = Hashable


def matches(calls: Sequence[Key], steps: Sequence[Key], mode: str) -> bool:
    """Whether the calls satisfy the sequence under `mode` (SPEC "Cases", `match`)."""
    if mode == "exact":
        return len(calls) == len(steps) and all(c == s for c, s in zip(calls, steps))
    if mode == "prefix":
        return len(calls) >= len(steps) and all(c == s for c, s in zip(calls, steps))
    if mode == "contains":
        # Taking the earliest call that fits each step in turn finds a subsequence when one exists.
        it = iter(calls)
        return all(any(c == s for c in it) for s in steps)
    if mode == "unordered":
        return len(calls) == len(steps) and Counter(calls) == Counter(steps)
    if mode == "contains_unordered":
        return not (Counter(steps) - Counter(calls))
    raise ValueError(f"unknown match mode {mode!r}")


def align(
    calls: Sequence[Key],
    exact_calls: Sequence[Key],
    steps: Sequence[Key],
    exact_steps: Sequence[Key],
    *,
    ordered: bool,
) -> list[tuple[int, int]]:
    """The best pairing (call index, step index) of equivalent calls and steps.

    Best is the most pairs, then the most exactly equal pairs. `ordered`: in order (the longest
    common subsequence), preferring earlier calls among equally good ones; otherwise an optimal
    assignment (exact pairs first, then the rest, each in order).
    """
    if ordered:
        return _align_ordered(calls, exact_calls, steps, exact_steps)
    return _align_unordered(calls, exact_calls, steps, exact_steps)


def _align_ordered(calls, exact_calls, steps, exact_steps) -> list[tuple[int, int]]:
    n, m = len(calls), len(steps)
    if n == m and all(c == s for c, s in zip(calls, steps)):
        return list(zip(range(n), range(m)))  # the common case: an in-order match
    bonus = m + 1  # a pair outweighs any number of exact upgrades
    # best[i][j]: the best score for calls[i:] against steps[j:]
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = best[i], best[i + 1]
        for j in range(m - 1, -1, -1):
            score = max(below[j], row[j + 1])
            if calls[i] == steps[j]:
                pair = bonus + (exact_calls[i] == exact_steps[j]) + below[j + 1]
                score = max(score, pair)
            row[j] = score
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if calls[i] == steps[j] and best[i][j] == (
            bonus + (exact_calls[i] == exact_steps[j]) + best[i + 1][j + 1]
        ):
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs


def _align_unordered(calls, exact_calls, steps, exact_steps) -> list[tuple[int, int]]:
    free_steps = list(range(len(steps)))
    pairs: list[tuple[int, int]] = []
    free_calls = list(range(len(calls)))
    for exact_only in (True, False):
        still_free = []
        for i in free_calls:
            for pos, j in enumerate(free_steps):
                if calls[i] == steps[j] and (not exact_only or exact_calls[i] == exact_steps[j]):
                    pairs.append((i, j))
                    del free_steps[pos]
                    break
            else:
                still_free.append(i)
        free_calls = still_free
    return sorted(pairs)
