"""Hold a run's calls against a call sequence under a match mode; align them for labelling.

Which call fits which step is said one of two ways:

- by keys (`matches`): calls and steps fit when their keys are equal. Exact keys (JSON equality)
  and canonical keys (`ToolPlan.key`) are equivalences, so the unordered modes are multiset
  comparisons and never depend on a greedy first match: with steps `{x: [1, 2]}` and `{x: [1]}`
  under `unordered_list`, the calls `x=[1]`, `x=[2, 1]` match, whatever order they come in;
- by a predicate (`matches_by`): `fits(i, j)` for call i and step j, a relation that need not be
  transitive (JSON equality before a rule that reads `25` and `25.0` apart). The ordered modes
  take the earliest call that fits each step in turn; the unordered modes are bipartite matchings.

Alignment (`align`) takes, for every call and step, how they fit: not at all, equivalent or exact.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence

Key = Hashable
Fits = Callable[[int, int], bool]
"""fits(i, j): call i may stand for step j."""

FIT_NONE, FIT_EQUIVALENT, FIT_EXACT = 0, 1, 2
"""How a call fits a step, in `align`'s table."""


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


def matches_by(n: int, m: int, fits: Fits, mode: str) -> bool:
    """`matches` for `n` calls and `m` steps related by `fits`, any relation at all."""
    if mode == "exact":
        return n == m and all(fits(i, i) for i in range(m))
    if mode == "prefix":
        return n >= m and all(fits(i, i) for i in range(m))
    if mode == "contains":
        # Earliest fit is still right: if some subsequence fits, the call taken for each step is
        # at or before that subsequence's call for it, so the next step has at least as much room.
        i = 0
        for j in range(m):
            while i < n and not fits(i, j):
                i += 1
            if i == n:
                return False
            i += 1
        return True
    if mode == "unordered":
        return n == m and matching_size(n, m, fits) == m
    if mode == "contains_unordered":
        return n >= m and matching_size(n, m, fits) == m
    raise ValueError(f"unknown match mode {mode!r}")


def matching_size(n: int, m: int, fits: Fits) -> int:
    """The most pairs (call, step) that `fits`, each call and each step in at most one pair.

    Augmenting paths (Kuhn): runs and sequences are a handful of calls long.
    """
    edges = [[i for i in range(n) if fits(i, j)] for j in range(m)]
    owner: list[int | None] = [None] * n  # call -> step

    def place(j: int, seen: list[bool]) -> bool:
        for i in edges[j]:
            if not seen[i]:
                seen[i] = True
                k = owner[i]
                if k is None or place(k, seen):
                    owner[i] = j
                    return True
        return False

    return sum(1 for j in range(m) if place(j, [False] * n))


def align(kinds: Sequence[Sequence[int]], m: int, *, ordered: bool) -> list[tuple[int, int]]:
    """The best pairing (call index, step index) of calls and the `m` steps they fit.

    `kinds[i][j]` says how call i fits step j: FIT_NONE, FIT_EQUIVALENT or FIT_EXACT. Best is the
    most pairs, then the most exact pairs, then the earliest calls (SPEC "Precise readings"):
    `ordered`, in order (a longest common subsequence), the lexicographically smallest list of
    call indices; otherwise an optimal assignment, the smallest sum of call indices.
    """
    if ordered:
        return _align_ordered(kinds, len(kinds), m)
    return _align_unordered(kinds, len(kinds), m)


def _align_ordered(kinds: Sequence[Sequence[int]], n: int, m: int) -> list[tuple[int, int]]:
    if n == m and all(kinds[i][i] for i in range(n)):
        return [(i, i) for i in range(n)]  # the common case: an in-order match
    # One score orders alignments as wanted: a pair is worth more than any number of exact
    # upgrades, an exact upgrade more than any choice of calls, and call i weighs 2**(n-1-i).
    # Among index sets of one size, the lexicographically smallest has the largest sum of such
    # weights ([0, 3] beats [1, 2]: 8 + 1 > 4 + 2), so the largest score is the earliest calls.
    # Python's integers keep every bit of it.
    exact_bonus = 1 << n
    pair_bonus = exact_bonus * (m + 1)
    # worth[i][kind]: what pairing call i at that fit adds (FIT_EQUIVALENT is 1, FIT_EXACT 2)
    worth = [
        (0, pair_bonus + (1 << (n - 1 - i)), pair_bonus + exact_bonus + (1 << (n - 1 - i)))
        for i in range(n)
    ]
    # best[i][j]: the best score for calls[i:] against steps[j:]
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below, fit, gain = best[i], best[i + 1], kinds[i], worth[i]
        for j in range(m - 1, -1, -1):
            score = below[j] if below[j] > row[j + 1] else row[j + 1]
            kind = fit[j]
            if kind and gain[kind] + below[j + 1] > score:
                score = gain[kind] + below[j + 1]
            row[j] = score
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        kind = kinds[i][j]
        if kind and best[i][j] == worth[i][kind] + best[i + 1][j + 1]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs


def _align_unordered(kinds: Sequence[Sequence[int]], n: int, m: int) -> list[tuple[int, int]]:
    candidates = [i for i in range(n) if any(kinds[i])]
    if not candidates or not m:
        return []
    # Weights that order assignments as wanted: a pair outweighs any exact upgrades, an exact
    # upgrade any choice of calls, and among those the smallest sum of call indices wins.
    exact_bonus = n * n + 1
    pair_bonus = exact_bonus * (m + 1)
    weights = [
        [
            pair_bonus + (exact_bonus if kinds[i][j] == FIT_EXACT else 0) - i if kinds[i][j] else 0
            for i in candidates
        ]
        + [0] * m  # a step may stay unpaired
        for j in range(m)
    ]
    chosen = _max_assignment(weights)
    pairs = [
        (candidates[c], j)
        for j, c in enumerate(chosen)
        if c < len(candidates) and kinds[candidates[c]][j]
    ]
    return sorted(pairs)


def _max_assignment(weights: list[list[int]]) -> list[int]:
    """For each row, its column in an assignment of the largest total weight (rows <= columns).

    The Hungarian method (Kuhn-Munkres with potentials, O(rows^2 * columns)), on costs -weight.
    """
    rows, cols = len(weights), len(weights[0])
    inf = float("inf")
    u = [0] * (rows + 1)
    v = [0] * (cols + 1)
    row_of = [0] * (cols + 1)  # 1-based row assigned to each column; column 0 is a sentinel
    way = [0] * (cols + 1)
    for r in range(1, rows + 1):
        row_of[0] = r
        j0 = 0
        least: list[float] = [inf] * (cols + 1)
        used = [False] * (cols + 1)
        while True:
            used[j0] = True
            r0 = row_of[j0]
            delta: float = inf
            j1 = 0
            for j in range(1, cols + 1):
                if not used[j]:
                    cur = -weights[r0 - 1][j - 1] - u[r0] - v[j]
                    if cur < least[j]:
                        least[j] = cur
                        way[j] = j0
                    if least[j] < delta:
                        delta = least[j]
                        j1 = j
            step = int(delta)
            for j in range(cols + 1):
                if used[j]:
                    u[row_of[j]] += step
                    v[j] -= step
                else:
                    least[j] -= step
            j0 = j1
            if row_of[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            row_of[j0] = row_of[j1]
            j0 = j1
    chosen = [0] * rows
    for j in range(1, cols + 1):
        if row_of[j]:
            chosen[row_of[j] - 1] = j - 1
    return chosen
