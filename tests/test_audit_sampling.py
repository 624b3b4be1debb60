"""The audit's draw: simple random sampling without replacement per stratum, reproducible."""

from __future__ import annotations

import random
from collections import Counter

from evalrunner.audit.sampling import draw, generator, shuffled, stratified

KEYS = [(f"r{i}", "c", 0) for i in range(10)]


def test_a_seed_draws_the_same_runs_on_any_python():
    # Pinned: the draw uses only Random.random() over a string seed, both stable across Python
    # versions; a change here changes every sheet's sample and must be deliberate.
    assert stratified({"reported_fail": KEYS}, {"reported_fail": 4}, 7) == {
        "reported_fail": [("r6", "c", 0), ("r7", "c", 0), ("r9", "c", 0), ("r4", "c", 0)]
    }


def test_the_order_the_traces_list_runs_in_does_not_matter():
    shuffled_keys = KEYS[::-1]
    random.Random(3).shuffle(shuffled_keys)
    sizes = {"reported_fail": 4}
    assert stratified({"reported_fail": shuffled_keys}, sizes, 7) == stratified(
        {"reported_fail": KEYS}, sizes, 7
    )


def test_another_seed_draws_other_runs():
    sizes = {"reported_fail": 4}
    assert stratified({"reported_fail": KEYS}, sizes, 7) != stratified(
        {"reported_fail": KEYS}, sizes, 8
    )


def test_without_replacement_and_all_when_there_are_fewer():
    got = draw(list(range(100)), 60, generator(1, "x"))
    assert len(got) == len(set(got)) == 60
    assert sorted(draw(list(range(5)), 60, generator(1, "x"))) == [0, 1, 2, 3, 4]
    assert draw(list(range(5)), 0, generator(1, "x")) == []


def test_a_larger_sample_with_the_same_seed_keeps_the_runs_already_drawn():
    small = draw(list(range(1000)), 50, generator(5, "reported_pass"))
    large = draw(list(range(1000)), 80, generator(5, "reported_pass"))
    assert large[:50] == small


def test_each_stratum_has_its_own_generator():
    # Drawing more passes leaves the failures' sample as it was.
    strata = {"reported_fail": KEYS, "reported_pass": [(f"p{i}", "c", 0) for i in range(50)]}
    a = stratified(strata, {"reported_fail": 3, "reported_pass": 5}, 11)
    b = stratified(strata, {"reported_fail": 3, "reported_pass": 40}, 11)
    assert a["reported_fail"] == b["reported_fail"]


def test_every_run_is_equally_likely_to_be_drawn():
    # 20 runs, 5 drawn, 4,000 seeds: each run expected 1,000 times, standard deviation
    # sqrt(4000 * 0.25 * 0.75) = 27; a band of +-150 is over 5 of them.
    counts: Counter[int] = Counter()
    for seed in range(4000):
        counts.update(draw(list(range(20)), 5, generator(seed, "reported_fail")))
    assert set(counts) == set(range(20))
    assert all(850 <= n <= 1150 for n in counts.values()), counts


def test_every_pair_is_equally_likely_to_be_drawn_together():
    # A simple random sample: each pair of 6 runs drawn 2 at a time has chance 1/15.
    pairs: Counter[frozenset[int]] = Counter()
    for seed in range(6000):
        pairs[frozenset(draw(list(range(6)), 2, generator(seed, "p")))] += 1
    assert len(pairs) == 15
    assert all(300 <= n <= 500 for n in pairs.values()), pairs  # expected 400, sd 19


def test_the_sheet_order_is_a_permutation_fixed_by_the_seed():
    items = list(range(30))
    assert sorted(shuffled(items, 3)) == items
    assert shuffled(items, 3) == shuffled(items, 3) != shuffled(items, 4)


def test_the_global_generator_is_left_alone():
    random.seed(123)
    expected = random.random()
    random.seed(123)
    stratified({"reported_fail": KEYS}, {"reported_fail": 4}, 7)
    assert random.random() == expected
