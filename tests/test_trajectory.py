"""Matching and alignment (trajectory.py) against brute force on small tables."""

from __future__ import annotations

from itertools import combinations, permutations

from hypothesis import given
from hypothesis import strategies as st

from evalrunner.grade.trajectory import (
    FIT_EXACT,
    FIT_NONE,
    align,
    matches,
    matches_by,
    matching_size,
)

MODES = ["exact", "prefix", "contains", "unordered", "contains_unordered"]


def tables(max_calls: int = 6, max_steps: int = 4):
    """How each of n calls fits each of m steps: mostly not at all, so that choices matter."""
    return st.integers(0, max_calls).flatmap(
        lambda n: st.integers(0, max_steps).flatmap(
            lambda m: st.tuples(
                st.just(m),
                st.lists(
                    st.lists(st.sampled_from([0, 0, 0, 1, 2]), min_size=m, max_size=m),
                    min_size=n,
                    max_size=n,
                ),
            )
        )
    )


def _injections(n: int, m: int, ordered: bool):
    """Every way to pair some steps with distinct calls: lists of (call, step)."""
    for k in range(min(n, m) + 1):
        for steps in combinations(range(m), k):
            calls_choices = combinations(range(n), k) if ordered else permutations(range(n), k)
            for calls in calls_choices:
                yield list(zip(calls, steps))


def _best(kinds, m, ordered):
    n = len(kinds)
    best = None
    for pairs in _injections(n, m, ordered):
        if not all(kinds[i][j] for i, j in pairs):
            continue
        exact = sum(kinds[i][j] == FIT_EXACT for i, j in pairs)
        calls = sorted(i for i, _ in pairs)
        tie = tuple(-i for i in calls) if ordered else -sum(calls)
        score = (len(pairs), exact, tie)
        if best is None or score > best:
            best = score
    return best


def _score(kinds, pairs, ordered):
    calls = sorted(i for i, _ in pairs)
    exact = sum(kinds[i][j] == FIT_EXACT for i, j in pairs)
    return (len(pairs), exact, tuple(-i for i in calls) if ordered else -sum(calls))


@given(table=tables(), ordered=st.booleans())
def test_align_is_the_best_alignment_with_the_earliest_calls(table, ordered):
    m, kinds = table
    pairs = align(kinds, m, ordered=ordered)
    assert all(kinds[i][j] != FIT_NONE for i, j in pairs)
    assert len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})
    if ordered:
        assert pairs == sorted(pairs) and [j for _, j in pairs] == sorted(j for _, j in pairs)
    assert _score(kinds, pairs, ordered) == _best(kinds, m, ordered)


def test_the_issue_example_earliest_calls_win_in_order():
    # calls [mkdir(P), ls, ls, cd(W), mv], steps [cd(W), mkdir(P), mv]: mkdir and mv, not cd and mv
    kinds = [[0, 2, 0], [0, 0, 0], [0, 0, 0], [2, 0, 0], [0, 0, 2]]
    assert align(kinds, 3, ordered=True) == [(0, 1), (4, 2)]


def test_unordered_ties_take_the_smallest_sum_of_call_indices():
    # two calls fit the one step equally well: the earlier one is aligned
    assert align([[1], [1]], 1, ordered=False) == [(0, 0)]
    # an exact pair beats an earlier equivalent one
    assert align([[1], [2]], 1, ordered=False) == [(1, 0)]
    # more pairs beat everything: call 0 must leave step 0 to call 1
    assert align([[2, 1], [1, 0]], 2, ordered=False) == [(0, 1), (1, 0)]


def _brute_matches(n, m, fits, mode):
    if mode == "exact":
        return n == m and all(fits(i, i) for i in range(m))
    if mode == "prefix":
        return n >= m and all(fits(i, i) for i in range(m))
    if mode == "unordered" and n != m:
        return False
    ordered = mode == "contains"
    choices = combinations(range(n), m) if ordered else permutations(range(n), m)
    return any(all(fits(i, j) for j, i in enumerate(calls)) for calls in choices)


@given(table=tables(), mode=st.sampled_from(MODES))
def test_matches_by_any_relation(table, mode):
    m, kinds = table
    fits = lambda i, j: kinds[i][j] != FIT_NONE  # noqa: E731
    n = len(kinds)
    assert matches_by(n, m, fits, mode) == _brute_matches(n, m, fits, mode)


@given(
    calls=st.lists(st.sampled_from("abc"), max_size=6),
    steps=st.lists(st.sampled_from("abc"), max_size=4),
    mode=st.sampled_from(MODES),
)
def test_matching_by_keys_is_matching_by_their_equality(calls, steps, mode):
    fits = lambda i, j: calls[i] == steps[j]  # noqa: E731
    assert matches(calls, steps, mode) == matches_by(len(calls), len(steps), fits, mode)


@given(table=tables())
def test_matching_size_is_the_largest_matching(table):
    m, kinds = table
    best = _best(kinds, m, ordered=False)
    fits = lambda i, j: kinds[i][j] != FIT_NONE  # noqa: E731
    assert matching_size(len(kinds), m, fits) == best[0]


# ------------------------------------------------ the unordered alignment, solved by parts (28)


def _objective(kinds, pairs):
    """What the SPEC's alignment maximizes, in order: pairs, exact pairs, earliest calls."""
    return (len(pairs), sum(kinds[i][j] == 2 for i, j in pairs), -sum(i for i, _ in pairs))


def _reference(kinds, n, m):
    from evalrunner.grade.trajectory import _hungarian

    candidates = [i for i in range(n) if any(kinds[i])]
    if not candidates or not m:
        return []
    return [
        (candidates[r], c) for r, c in _hungarian([kinds[i] for i in candidates], candidates, m)
    ]


@st.composite
def _fits(draw):
    n, m = draw(st.integers(0, 8)), draw(st.integers(0, 8))
    if draw(st.booleans()):  # by keys: an equivalence key and an exact key per call and step
        key = st.tuples(st.integers(0, 2), st.integers(0, 2))
        calls, steps = (
            draw(st.lists(key, min_size=n, max_size=n)),
            draw(st.lists(key, min_size=m, max_size=m)),
        )
        kinds = [[2 if c == s else 1 if c[0] == s[0] else 0 for s in steps] for c in calls]
    else:  # any relation, with repeated rows (identical calls)
        rows = draw(
            st.lists(
                st.lists(st.sampled_from([0, 0, 1, 2]), min_size=m, max_size=m),
                min_size=1,
                max_size=3,
            )
        )
        kinds = [list(draw(st.sampled_from(rows))) for _ in range(n)]
    return kinds, n, m


@given(_fits())
def test_the_unordered_alignment_by_parts_is_as_good_as_the_assignment(fits):
    from evalrunner.grade.trajectory import _align_unordered, _Classes

    kinds, n, m = fits
    best = _objective(kinds, _reference(kinds, n, m))
    found = _align_unordered(kinds, n, m)
    assert _objective(kinds, found) == best
    assert len({i for i, _ in found}) == len(found) == len({j for _, j in found})
    assert all(kinds[i][j] for i, j in found)
    candidates = [i for i in range(n) if any(kinds[i])]
    if candidates and m:
        classes = _Classes([kinds[i] for i in candidates], candidates, m).align()
        assert _objective(kinds, [(candidates[r], j) for r, j in classes]) == best
