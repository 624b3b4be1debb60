"""The audit's statistics: a proportion's Wilson interval, the stratified estimate of the true run
failure rate with its 95% interval, and Cohen's kappa.

Notation (docs/audit.md uses the same): stratum h (reported failures, reported passes) holds N_h
runs of the population, W_h = N_h / N of it; a reviewer labelled n_h of them, sampled at random
without replacement, and called x_h of those wrong.

- The estimate is p = sum_h W_h x_h / n_h.
- Its interval is a score (Wilson-type) interval for a stratified sample: every rate p0 that the
  score test of "sum_h W_h pi_h = p0" does not reject at 5%. The test's variance,
  V = sum_h W_h^2 (N_h - n_h) / (N_h - 1) pi_h (1 - pi_h) / n_h (with the finite population
  correction: the rate is a statement about these N runs), is taken at the stratum rates pi_h
  most likely under p0 (restricted maximum likelihood), so a stratum with no wrong run, or all
  wrong, still has a variance: where a normal approximation (Wald) gives a zero-width interval,
  this one does not. With one stratum it is exactly the Wilson interval with the finite
  population correction. A stratum read in full (n_h = N_h) is known exactly.
- A stratum of the population with no labelled run leaves its rate unknown: the estimate is None,
  and the interval is the one the labelled strata give with the unknown rate taken as 0 for the
  lower bound and 1 for the upper: it holds whatever that rate is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

Z95 = NormalDist().inv_cdf(0.975)
"""1.959963984540054: the two-sided 95% normal quantile."""


@dataclass(frozen=True)
class Stratum:
    """One stratum of a stratified sample, for one outcome (a run labelled wrong, say)."""

    population: int
    """N_h: runs in the stratum."""
    sampled: int
    """n_h: runs of it that were drawn and labelled."""
    hits: int
    """x_h: labelled runs with the outcome."""

    def __post_init__(self) -> None:
        if not 0 <= self.hits <= self.sampled <= self.population:
            raise ValueError(f"a stratum needs 0 <= hits <= sampled <= population: {self}")


@dataclass(frozen=True)
class Estimate:
    """A proportion estimated from a sample, with its 95% interval."""

    value: float | None
    """None when the sample cannot say (nothing labelled, or a stratum with no labelled run)."""
    low: float
    high: float


def wilson(hits: int, n: int, z: float = Z95) -> Estimate:
    """The Wilson score interval of a binomial proportion (hits of n); [0, 1] when n is 0."""
    if not 0 <= hits <= n:
        raise ValueError(f"wilson needs 0 <= hits <= n, not {hits} of {n}")
    if n == 0:
        return Estimate(None, 0.0, 1.0)
    p = hits / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # At 0 and n the bounds are 0 and 1 exactly; computed, they may be off by a rounding error.
    low = 0.0 if hits == 0 else max(0.0, centre - half)
    high = 1.0 if hits == n else min(1.0, centre + half)
    return Estimate(p, low, high)


def fpc(population: int, sampled: int) -> float:
    """The finite population correction of a proportion's variance, (N - n) / (N - 1)."""
    return (population - sampled) / (population - 1) if population > 1 else 0.0


def stratified_rate(strata: Sequence[Stratum], z: float = Z95) -> Estimate:
    """The stratified estimate of the population's rate and its score interval (module docstring)."""
    total = sum(s.population for s in strata)
    if total == 0:
        return Estimate(None, 0.0, 1.0)
    unknown = 0.0  # the population share of strata with no labelled run
    known = 0.0  # the part of the rate that strata read in full contribute, exactly
    varying: list[_Varying] = []
    for s in strata:
        weight = s.population / total
        if s.population == 0:
            continue
        if s.sampled == 0:
            unknown += weight
        elif fpc(s.population, s.sampled) == 0.0:
            known += weight * s.hits / s.sampled
        else:
            c = weight * weight * fpc(s.population, s.sampled) / s.sampled
            varying.append(_Varying(weight, s.sampled, s.hits, c))
    estimate = known + sum(v.weight * v.hits / v.n for v in varying)
    low = known + _lower(varying, z * z)
    flipped = [_Varying(v.weight, v.n, v.n - v.hits, v.c) for v in varying]
    high = known + sum(v.weight for v in varying) - _lower(flipped, z * z) + unknown
    return Estimate(
        None if unknown else _clip(estimate), _clip(min(low, estimate)), _clip(max(high, estimate))
    )


def _clip(x: float) -> float:
    return min(1.0, max(0.0, x))


@dataclass(frozen=True)
class _Varying:
    """A stratum sampled in part: its weight W, n, x, and its variance factor W^2 fpc / n."""

    weight: float
    n: int
    hits: int
    c: float


def _rates(strata: Sequence[_Varying], lam: float) -> list[float]:
    """The stratum rates that maximize the likelihood of the labels subject to the weighted
    rate being where the Lagrange multiplier `lam` (>= 0) puts it: each solves
    x - n pi = lam W pi (1 - pi) in [0, 1]: the smaller root of a pi^2 - b pi + x, written
    2x / (b + sqrt(D)) so as not to cancel, with D = b^2 - 4ax = (n - a)^2 + 4a(n - x) >= 0."""
    out = []
    for s in strata:
        a = lam * s.weight
        root = math.sqrt((s.n - a) ** 2 + 4 * a * (s.n - s.hits))
        out.append(min(1.0, 2 * s.hits / (s.n + a + root)))
    return out


def _lower(strata: Sequence[_Varying], z2: float) -> float:
    """The lower score bound of sum W_h pi_h (without the fixed parts): the smallest p0 the test
    does not reject. Along lam >= 0 the restricted estimates run from the sample's rates (lam = 0)
    down to 0; the bound is where (estimate - p0)^2 = z^2 V first exceeds, found by bisection."""
    estimate = sum(s.weight * s.hits / s.n for s in strata)
    if estimate == 0.0:
        return 0.0

    def at(lam: float) -> tuple[float, bool]:
        pis = _rates(strata, lam)
        p0 = sum(s.weight * pi for s, pi in zip(strata, pis))
        variance = sum(s.c * pi * (1 - pi) for s, pi in zip(strata, pis))
        return p0, (estimate - p0) ** 2 > z2 * variance

    accepted, rejected = 0.0, max(s.n / s.weight for s in strata)
    for _ in range(200):  # doubling: the rejection region is reached well before 2^200
        if at(rejected)[1]:
            break
        accepted, rejected = rejected, rejected * 2
    for _ in range(100):
        mid = (accepted + rejected) / 2
        if mid in (accepted, rejected):
            break
        if at(mid)[1]:
            rejected = mid
        else:
            accepted = mid
    return at(accepted)[0]


def cohen_kappa(table: Sequence[Sequence[int]]) -> float | None:
    """Cohen's kappa of a square agreement table (rows one rater, columns the other, the same
    categories in the same order): (p_o - p_e) / (1 - p_e). None when it is undefined: no
    ratings, or chance agreement is certain (both raters used one and the same category)."""
    n = sum(sum(row) for row in table)
    if n == 0:
        return None
    k = len(table)
    observed = sum(table[i][i] for i in range(k)) / n
    rows = [sum(table[i]) / n for i in range(k)]
    cols = [sum(table[i][j] for i in range(k)) / n for j in range(k)]
    chance = sum(r * c for r, c in zip(rows, cols))
    if chance >= 1.0:
        return None
    return (observed - chance) / (1 - chance)


# ------------------------------------------------------------------------------------ planning


def runs_for_share(
    share: float, half_width: float, *, population: int | None = None, z: float = Z95
) -> int:
    """How many runs of a stratum to read for a 95% interval of +-`half_width` on a share near
    `share`: n0 = z^2 p (1 - p) / h^2 (the normal approximation, which the Wilson interval's
    width approaches), then n0 / (1 + (n0 - 1) / N) in a stratum of N runs."""
    n = z * z * share * (1 - share) / (half_width * half_width)
    if population is not None:
        n = n / (1 + (n - 1) / population)
    return math.ceil(n)


def runs_for_rate(
    strata: Sequence[tuple[float, float]], half_width: float, *, z: float = Z95
) -> list[int]:
    """How many runs to read in each stratum, given as (its share of the population W_h, the
    share of wrong runs expected in it p_h), for a 95% interval of +-`half_width` on the rate:
    n = z^2 (sum W_h S_h)^2 / h^2 with S_h = sqrt(p_h (1 - p_h)), shared out in proportion to
    W_h S_h (Neyman allocation, the least runs for the width; large strata)."""
    spread = [w * math.sqrt(p * (1 - p)) for w, p in strata]
    total = sum(spread)
    n = z * z * total * total / (half_width * half_width)
    return [math.ceil(n * s / total) if total else 0 for s in spread]


def half_width_of_rate(strata: Sequence[tuple[float, float, int]], *, z: float = Z95) -> float:
    """The normal approximation's half-width of the rate's 95% interval for strata given as
    (W_h, p_h, runs read n_h): z sqrt(sum W_h^2 p_h (1 - p_h) / n_h) (large strata)."""
    return z * math.sqrt(sum(w * w * p * (1 - p) / n for w, p, n in strata))
