"""The audit's statistics against values computed by hand (the arithmetic is in the comments),
and the stratified interval against its definition, checked by a brute-force search that shares
no code with it."""

from __future__ import annotations

import math

import pytest

from evalrunner.audit.stats import (
    Z95,
    Estimate,
    Stratum,
    cohen_kappa,
    fpc,
    stratified_rate,
    wilson,
)

Z2 = Z95 * Z95  # 3.841459


def close(estimate: Estimate, value, low, high, tol=5e-5):
    assert (estimate.value is None) == (value is None)
    if value is not None:
        assert estimate.value == pytest.approx(value, abs=tol)
    assert estimate.low == pytest.approx(low, abs=tol)
    assert estimate.high == pytest.approx(high, abs=tol)


# ------------------------------------------------------------------------------------- Wilson


def test_wilson_reproduces_the_spec_example():
    # 47 of 100: centre (0.47 + 3.8415/200) / (1 + 3.8415/100) = 0.489208 / 1.038415 = 0.471110
    # half 1.96 sqrt(0.47 * 0.53 / 100 + 3.8415 / 40000) / 1.038415 = 0.099686 / 1.038415 = 0.096
    close(wilson(47, 100), 0.47, 0.3751, 0.5671)
    # 11 of 120: centre (0.091667 + 0.016006) / 1.032012 = 0.104333; half 0.052374
    close(wilson(11, 120), 0.0917, 0.0520, 0.1567, tol=1e-4)


def test_wilson_at_zero_and_all():
    # 0 of 10: [0, z^2 / (n + z^2)] = [0, 3.841459 / 13.841459] = [0, 0.277533]
    close(wilson(0, 10), 0.0, 0.0, 0.277533)
    # 10 of 10: the mirror image
    close(wilson(10, 10), 1.0, 1 - 0.277533, 1.0)
    assert wilson(0, 10).low == 0.0 and wilson(10, 10).high == 1.0  # exactly, not 1e-17 off


def test_wilson_of_nothing_read_is_every_rate():
    assert wilson(0, 0) == Estimate(None, 0.0, 1.0)


def test_wilson_refuses_impossible_counts():
    with pytest.raises(ValueError):
        wilson(3, 2)


# ------------------------------------------------------------------------- the stratified rate


def wilson_fpc(hits, n, population):
    """The Wilson interval with the finite population correction: Wilson with z^2 * fpc."""
    return wilson(hits, n, Z95 * math.sqrt(fpc(population, n)))


def test_fpc_by_hand():
    assert fpc(883, 100) == pytest.approx(783 / 882)  # 0.887755
    assert fpc(10, 10) == 0.0
    assert fpc(1, 1) == 0.0


def test_the_estimate_weights_each_stratum_by_its_population_share():
    # W = 883/4000 = 0.22075 and 3117/4000 = 0.77925
    # 0.22075 * 53/100 + 0.77925 * 11/120 = 0.1169975 + 0.0714313 = 0.1884288
    e = stratified_rate([Stratum(883, 100, 53), Stratum(3117, 120, 11)])
    assert e.value == pytest.approx(0.1884288, abs=1e-7)
    assert e.low < e.value < e.high


def test_one_stratum_is_the_wilson_interval_with_the_finite_population_correction():
    # 53 of 100 drawn from 883: z^2 fpc = 3.841459 * 0.887755 = 3.410274
    # centre (0.53 + 3.410274/200) / (1 + 3.410274/100) = 0.547051 / 1.034103 = 0.529011
    # half sqrt(3.410274) sqrt(0.002491 + 3.410274/40000) / 1.034103 = 0.090641
    e = stratified_rate([Stratum(883, 100, 53)])
    close(e, 0.53, 0.43837, 0.61965)
    close(e, 0.53, wilson_fpc(53, 100, 883).low, wilson_fpc(53, 100, 883).high, tol=1e-6)


def test_in_a_large_population_one_stratum_is_the_plain_wilson_interval():
    e = stratified_rate([Stratum(10**9, 100, 53)])
    close(e, 0.53, wilson(53, 100).low, wilson(53, 100).high, tol=1e-6)


def test_a_stratum_read_in_full_is_known_exactly():
    # 30 reported failures, all read, 12 wrong: that part of the rate is 30/1030 * 12/30 exactly;
    # the other stratum carries all the uncertainty: its W times its own interval.
    e = stratified_rate([Stratum(30, 30, 12), Stratum(1000, 100, 5)])
    w_f, w_p = 30 / 1030, 1000 / 1030
    alone = wilson_fpc(5, 100, 1000)
    close(e, w_f * 0.4 + w_p * 0.05, w_f * 0.4 + w_p * alone.low, w_f * 0.4 + w_p * alone.high)


def test_everything_read_is_a_point():
    e = stratified_rate([Stratum(4, 4, 2), Stratum(3, 3, 2)])
    # 4/7 * 2/4 + 3/7 * 2/3 = 2/7 + 2/7 = 4/7
    close(e, 4 / 7, 4 / 7, 4 / 7, tol=1e-12)


def test_a_stratum_not_sampled_leaves_the_rate_unknown_and_the_interval_wide():
    # Only the reported failures were read (53 of 100 of 883 wrong). The passes' rate is unknown:
    # no estimate; the interval holds whatever it is: from W_F * (F's low) with the passes'
    # rate 0, to W_F * (F's high) + W_P with it 1.
    e = stratified_rate([Stratum(883, 100, 53), Stratum(3117, 0, 0)])
    alone = wilson_fpc(53, 100, 883)  # [0.43837, 0.61965]
    close(e, None, 0.22075 * alone.low, 0.22075 * alone.high + 0.77925)
    assert e.low == pytest.approx(0.09677, abs=1e-5)  # 0.22075 * 0.43837
    assert e.high == pytest.approx(0.91604, abs=1e-5)  # 0.22075 * 0.61965 + 0.77925


def test_nothing_labelled_is_every_rate():
    close(stratified_rate([Stratum(883, 0, 0), Stratum(3117, 0, 0)]), None, 0.0, 1.0)
    close(stratified_rate([]), None, 0.0, 1.0)


def test_an_empty_stratum_of_the_population_does_not_count():
    # No reported passes at all: the rate is the failures' alone.
    e = stratified_rate([Stratum(883, 100, 53), Stratum(0, 0, 0)])
    close(e, 0.53, 0.43837, 0.61965)


@pytest.mark.parametrize(
    "strata",
    [
        # 0 wrong anywhere: the estimate is 0, the lower bound 0, the upper bound above 0
        [Stratum(883, 100, 0), Stratum(3117, 120, 0)],
        # every failure wrong, no pass wrong: neither stratum has a sample variance (Wald's
        # interval would be the point 0.22075); the score interval is not
        [Stratum(883, 100, 100), Stratum(3117, 120, 0)],
        # all wrong everywhere
        [Stratum(883, 100, 100), Stratum(3117, 120, 120)],
        # the motivating post's shape
        [Stratum(883, 100, 53), Stratum(3117, 120, 11)],
        # few draws, a rare outcome
        [Stratum(300, 20, 1), Stratum(3700, 30, 0)],
    ],
)
def test_the_interval_is_where_the_score_test_stops_rejecting(strata):
    e = stratified_rate(strata)
    estimate = e.value
    assert estimate is not None and e.low <= estimate <= e.high
    total = sum(s.population for s in strata)
    for bound, inside in ((e.low, e.low < estimate), (e.high, e.high > estimate)):
        if not inside:  # a bound at the estimate: every rate beyond it is impossible
            assert bound in (0.0, 1.0)
            continue
        assert brute_force_z(strata, total, bound) == pytest.approx(Z95, abs=1e-6)


def test_a_bound_at_zero_or_one_is_only_where_no_other_rate_is_possible():
    e = stratified_rate([Stratum(883, 100, 0), Stratum(3117, 120, 0)])
    assert e.value == 0.0 and e.low == 0.0 and e.high > 0.02
    e = stratified_rate([Stratum(883, 100, 100), Stratum(3117, 120, 120)])
    assert e.value == 1.0 and e.high == 1.0 and e.low < 0.98


def brute_force_z(strata, total, p0):
    """|Z| of the score test of "the rate is p0" for two strata, by its definition: the stratum
    rates most likely under the constraint W_a pi_a + W_b pi_b = p0 found by a ternary search over
    pi_a (the log-likelihood is concave along the constraint), not by the Lagrange multiplier
    `stats` solves for."""
    (a, b) = strata
    wa, wb = a.population / total, b.population / total

    def loglik(s, pi):
        if pi <= 0.0:
            return 0.0 if s.hits == 0 else -math.inf
        if pi >= 1.0:
            return 0.0 if s.hits == s.sampled else -math.inf
        return s.hits * math.log(pi) + (s.sampled - s.hits) * math.log(1 - pi)

    def along(pa):
        return loglik(a, pa) + loglik(b, (p0 - wa * pa) / wb)

    lo, hi = max(0.0, (p0 - wb) / wa), min(1.0, p0 / wa)  # pi_b in [0, 1]
    for _ in range(300):
        m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if along(m1) < along(m2):
            lo = m1
        else:
            hi = m2
    pa = (lo + hi) / 2
    pb = (p0 - wa * pa) / wb
    variance = sum(
        (s.population / total) ** 2 * fpc(s.population, s.sampled) * pi * (1 - pi) / s.sampled
        for s, pi in ((a, pa), (b, pb))
    )
    estimate = wa * a.hits / a.sampled + wb * b.hits / b.sampled
    return abs(estimate - p0) / math.sqrt(variance)


def test_with_large_samples_it_agrees_with_the_normal_approximation():
    # Wald with the finite population correction: p +- z sqrt(sum W^2 fpc p(1-p)/n)
    strata = [Stratum(100_000, 4000, 2000), Stratum(100_000, 4000, 800)]
    w = 0.5
    var = sum(w * w * fpc(s.population, s.sampled) * 0.5 * 0.5 / s.sampled for s in strata[:1])
    var += w * w * fpc(100_000, 4000) * 0.2 * 0.8 / 4000
    half = Z95 * math.sqrt(var)
    e = stratified_rate(strata)
    close(e, 0.35, 0.35 - half, 0.35 + half, tol=5e-4)


def test_strata_must_be_possible():
    with pytest.raises(ValueError):
        Stratum(10, 11, 0)
    with pytest.raises(ValueError):
        Stratum(10, 5, 6)


# ------------------------------------------------------------------------------------ kappa


def test_kappa_by_hand():
    # n = 220, p_o = 214/220 = 0.972727; rows 164, 56; columns 162, 58;
    # p_e = (164*162 + 56*58) / 220^2 = 29816/48400 = 0.616033
    # kappa = (0.972727 - 0.616033) / (1 - 0.616033) = 0.356694 / 0.383967 = 0.928971
    assert cohen_kappa([[160, 4], [2, 54]]) == pytest.approx(0.928971, abs=1e-6)


def test_kappa_of_agreement_no_better_than_chance_is_zero():
    # every run both ways at random: p_o = 0.5 = p_e
    assert cohen_kappa([[25, 25], [25, 25]]) == pytest.approx(0.0)


def test_kappa_of_total_disagreement_is_minus_one():
    assert cohen_kappa([[0, 5], [5, 0]]) == pytest.approx(-1.0)


def test_kappa_is_undefined_without_ratings_or_without_a_second_category():
    assert cohen_kappa([[0, 0], [0, 0]]) is None
    # every run read correct and passed: agreement is certain by chance alone
    assert cohen_kappa([[7, 0], [0, 0]]) is None
