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
from collections.abc import Callable, Hashable, Mapping, Sequence
from itertools import pairwise
from typing import Any, Final

Key = Hashable
Fits = Callable[[int, int], bool]
"""fits(i, j): call i may stand for step j."""

FIT_NONE, FIT_EQUIVALENT, FIT_EXACT = 0, 1, 2
"""How a call fits a step, in `align`'s table."""


def matches(
    calls: Sequence[Key],
    steps: Sequence[Key],
    mode: str,
    counts: Mapping[Key, int] | None = None,
) -> bool:
    """Whether the calls satisfy the sequence under `mode` (SPEC "Cases", `match`).

    `counts`: how many times each key occurs among the steps, when the caller has it (a case plan
    counts its sequences once). Counts compare as plain dicts: `Counter`'s own `==` and `-` are
    Python loops, and this runs for every run and sequence.
    """
    if mode == "exact":
        return len(calls) == len(steps) and all(c == s for c, s in zip(calls, steps))
    if mode == "prefix":
        return len(calls) >= len(steps) and all(c == s for c, s in zip(calls, steps))
    if mode == "contains":
        # Taking the earliest call that fits each step in turn finds a subsequence when one exists.
        it = iter(calls)
        return all(any(c == s for c in it) for s in steps)
    if mode == "unordered":
        if len(calls) != len(steps):
            return False
        return dict(Counter(calls)) == (dict(Counter(steps)) if counts is None else counts)
    if mode == "contains_unordered":
        if len(calls) < len(steps):
            return False
        have = Counter(calls)
        need = Counter(steps) if counts is None else counts
        return all(have[k] >= n for k, n in need.items())
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

    Augmenting paths (Kuhn) after a greedy pass: runs and sequences are mostly a handful of
    calls long, and long ones mostly repeat one call.
    """
    edges = [[i for i in range(n) if fits(i, j)] for j in range(m)]
    owner: list[int | None] = [None] * n  # call -> step
    # A greedy pass first (each step the first free call that fits it): identical calls and
    # steps are then matched without a search, and only what it left is augmented.
    placed = 0
    left = []
    for j in range(m):
        free = next((i for i in edges[j] if owner[i] is None), None)
        if free is None:
            left.append(j)
        else:
            owner[free] = j
            placed += 1
    return placed + sum(1 for j in left if _place(j, [False] * n, edges, owner))


def _place(j: int, seen: list[bool], edges: list[list[int]], owner: list[int | None]) -> bool:
    """An augmenting path from step `j`: `matching_size`'s search, a module function (a nested
    one that calls itself is a reference cycle, left to the cyclic collector once per call)."""
    for i in edges[j]:
        if not seen[i]:
            seen[i] = True
            k = owner[i]
            if k is None or _place(k, seen, edges, owner):
                owner[i] = j
                return True
    return False


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


ALIGN_WORK: Final = 20_000_000
"""The most steps of work one unordered alignment may take (about two seconds): a run past it is
unscoreable, "too large to align", rather than the scoring stalling on one line."""
_HUNGARIAN_SMALL: Final = 200_000
"""Below this much work the assignment is solved call by call (it always was)."""


class AlignmentTooLarge(ValueError):
    """An unordered alignment that would take more than `ALIGN_WORK` steps."""


def _align_unordered(kinds: Sequence[Sequence[int]], n: int, m: int) -> list[tuple[int, int]]:
    candidates = [i for i in range(n) if any(kinds[i])]
    if not candidates or not m:
        return []
    # Steps no call relates share nothing: each connected part of the fits is solved alone (a
    # run of 400 different parallel calls is 400 parts of one call and one step).
    parts: list[tuple[list[int], list[int], list[list[int]], Any]] = []
    work = 0
    for calls, steps in _components(kinds, candidates, m):
        sub = [[kinds[i][j] for j in steps] for i in calls]
        by_key = _by_key(sub, len(steps))
        if by_key is not None:
            parts.append((calls, steps, sub, by_key))
            continue
        hungarian = len(steps) * len(steps) * (len(calls) + len(steps))
        classes = _Classes(sub, calls, len(steps)) if hungarian > _HUNGARIAN_SMALL else None
        cost = min(hungarian, classes.work()) if classes is not None else hungarian
        work += cost
        if work > ALIGN_WORK:
            raise AlignmentTooLarge(
                f"too large to align: {len(candidates)} calls against {m} steps in any order is "
                f"more work than one run is given ({len(calls)} calls and {len(steps)} steps "
                "relate to one another in ways that do not reduce)"
            )
        parts.append(
            (calls, steps, sub, classes if classes is not None and cost < hungarian else None)
        )
    pairs: list[tuple[int, int]] = []
    for calls, steps, sub, how in parts:
        if isinstance(how, list):
            local = how
        elif how is not None:
            local = how.align()
        else:
            local = _hungarian(sub, calls, len(steps))
        pairs.extend((calls[r], steps[c]) for r, c in local)
    return sorted(pairs)


def _by_key(sub: Sequence[Sequence[int]], m: int) -> list[tuple[int, int]] | None:
    """The best assignment of a part where every call fits every step and the exact fits are by
    key (blocks of calls and steps exactly equal), in linear time; None for any other part.

    Matching by keys always gives such parts. Then each key pairs as many of its calls as it has
    steps exactly (its earliest calls to its earliest steps), and the earliest calls left fill
    the steps left: the most pairs, then the most exact ones, then the earliest calls.
    """
    if not all(all(row) for row in sub):
        return None
    blocks: dict[tuple[int, ...], list[int]] = {}
    for r, row in enumerate(sub):
        blocks.setdefault(tuple(j for j in range(m) if row[j] == FIT_EXACT), []).append(r)
    seen: set[int] = set()
    for cols in blocks:
        if seen.intersection(cols):
            return None  # exact fits that overlap: not keys
        seen.update(cols)
    pairs: list[tuple[int, int]] = []
    used_rows: set[int] = set()
    used_cols: set[int] = set()
    for cols, rows in blocks.items():
        for r, j in zip(rows, cols):
            pairs.append((r, j))
            used_rows.add(r)
            used_cols.add(j)
    rest_rows = (r for r in range(len(sub)) if r not in used_rows)
    rest_cols = [j for j in range(m) if j not in used_cols]
    pairs.extend(zip(rest_rows, rest_cols))
    return sorted(pairs)


def _components(
    kinds: Sequence[Sequence[int]], candidates: list[int], m: int
) -> list[tuple[list[int], list[int]]]:
    """The connected parts of the fits: (call indices, step indices), each in order; parts in
    order of their first call. A step no call fits is in no part."""
    parent = list(range(len(candidates) + m))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    k = len(candidates)
    for r, i in enumerate(candidates):
        row = kinds[i]
        for j in range(m):
            if row[j]:
                a, b = root(r), root(k + j)
                if a != b:
                    parent[b] = a
    found: dict[int, tuple[list[int], list[int]]] = {}
    for r, i in enumerate(candidates):
        found.setdefault(root(r), ([], []))[0].append(i)
    for j in range(m):
        part = found.get(root(k + j))
        if part is not None:
            part[1].append(j)
    return list(found.values())


def _hungarian(sub: Sequence[Sequence[int]], ids: list[int], m: int) -> list[tuple[int, int]]:
    """The best assignment of one part, call by call: (row, column) pairs of `sub`, whose rows
    are the calls `ids`."""
    # Weights that order assignments as wanted: a pair outweighs any exact upgrades, an exact
    # upgrade any choice of calls, and among those the smallest sum of call indices wins.
    exact_bonus = (ids[-1] + 1) * (m + 1) + 1
    pair_bonus = exact_bonus * (m + 1)
    weights = [
        [
            pair_bonus + (exact_bonus if sub[r][j] == FIT_EXACT else 0) - i if sub[r][j] else 0
            for r, i in enumerate(ids)
        ]
        + [0] * m  # a step may stay unpaired
        for j in range(m)
    ]
    chosen = _max_assignment(weights)
    return [(c, j) for j, c in enumerate(chosen) if c < len(ids) and sub[c][j]]


class _Classes:
    """An unordered alignment on classes: calls that fit every step alike are one class (their
    indices, in order), as are steps that every call fits alike. The best assignment is then a
    minimum-cost flow from call classes to step classes, found one pair at a time along the
    cheapest augmenting path (Bellman-Ford on the residual graph of the classes): the t-th call
    taken from a class is its t-th earliest, so a class's cost grows with each call taken, and
    the earliest calls win as the SPEC's smallest sum of call indices asks."""

    def __init__(self, sub: Sequence[Sequence[int]], ids: list[int], m: int) -> None:
        self.n, self.m = len(ids), m
        by_row: dict[tuple[int, ...], list[int]] = {}
        for r in range(len(ids)):
            by_row.setdefault(tuple(sub[r]), []).append(r)
        self.rows = list(by_row.values())
        """Each call class's rows of `sub`, in order; classes in order of their first row."""
        self.calls = [[ids[r] for r in rows] for rows in self.rows]
        """The same classes as call indices (the cost of taking each)."""
        reps = [rows[0] for rows in self.rows]
        by_col: dict[tuple[int, ...], list[int]] = {}
        for j in range(m):
            by_col.setdefault(tuple(sub[r][j] for r in reps), []).append(j)
        self.steps = list(by_col.values())
        self.fit = [[sub[r][col[0]] for col in self.steps] for r in reps]

    def work(self) -> int:
        a, b = len(self.calls), len(self.steps)
        return min(self.n, self.m) * (a + b + 2) * (a * b + a + b)

    def align(self) -> list[tuple[int, int]]:
        """The best assignment: (row, column) pairs of the part."""
        a_n, b_n = len(self.calls), len(self.steps)
        # a pair outweighs any exact upgrades, an exact upgrade any sum of call indices
        exact_bonus = (max(c[-1] for c in self.calls) + 1) * (self.m + 1) + 1
        pair_bonus = exact_bonus * (self.m + 1)
        gain = [
            [pair_bonus + (exact_bonus if k == FIT_EXACT else 0) if k else None for k in row]
            for row in self.fit
        ]
        taken = [0] * a_n  # calls taken from each call class
        filled = [0] * b_n  # steps filled in each step class
        flow = [[0] * b_n for _ in range(a_n)]
        # nodes: 0 the source, 1..a_n call classes, a_n+1..a_n+b_n step classes, a_n+b_n+1 sink
        sink = a_n + b_n + 1
        while True:
            arcs: list[tuple[int, int, int]] = []
            for a, calls in enumerate(self.calls):
                if taken[a] < len(calls):
                    arcs.append((0, 1 + a, calls[taken[a]]))
                if taken[a]:
                    arcs.append((1 + a, 0, -calls[taken[a] - 1]))
                for b in range(b_n):
                    g = gain[a][b]
                    if g is not None:
                        arcs.append((1 + a, 1 + a_n + b, -g))
                        if flow[a][b]:
                            arcs.append((1 + a_n + b, 1 + a, g))
            for b, steps in enumerate(self.steps):
                if filled[b] < len(steps):
                    arcs.append((1 + a_n + b, sink, 0))
                if filled[b]:
                    arcs.append((sink, 1 + a_n + b, 0))
            path = _cheapest_path(sink + 1, arcs, 0, sink)
            if path is None:
                break
            for u, v in pairwise(path):
                if u == 0:
                    taken[v - 1] += 1
                elif v == 0:
                    taken[u - 1] -= 1
                elif v == sink:
                    filled[u - 1 - a_n] += 1
                elif u == sink:
                    filled[v - 1 - a_n] -= 1
                elif u <= a_n:
                    flow[u - 1][v - 1 - a_n] += 1
                else:
                    flow[v - 1][u - 1 - a_n] -= 1
        # The calls each class gives, earliest first, to the step classes in order; in each step
        # class the calls fill its steps in order (a call fits identical steps: the earliest).
        to_steps: list[list[int]] = [[] for _ in range(b_n)]
        for a, rows in enumerate(self.rows):
            given = iter(rows[: taken[a]])
            for b in range(b_n):
                to_steps[b].extend(next(given) for _ in range(flow[a][b]))
        pairs = [
            (i, j) for b, steps in enumerate(self.steps) for i, j in zip(sorted(to_steps[b]), steps)
        ]
        return sorted(pairs)


def _cheapest_path(
    nodes: int, arcs: list[tuple[int, int, int]], source: int, sink: int
) -> list[int] | None:
    """The cheapest path from `source` to `sink` when it costs less than nothing (Bellman-Ford:
    the residual graph of a minimum-cost flow has no negative cycle); None otherwise."""
    inf = float("inf")
    dist: list[float] = [inf] * nodes
    back = [-1] * nodes
    dist[source] = 0
    for _ in range(nodes - 1):
        changed = False
        for u, v, cost in arcs:
            if dist[u] + cost < dist[v]:
                dist[v] = dist[u] + cost
                back[v] = u
                changed = True
        if not changed:
            break
    if dist[sink] >= 0:
        return None
    path = [sink]
    while path[-1] != source:
        path.append(back[path[-1]])
    return path[::-1]


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
