"""The paired test: the exact two-sided binomial test of improved against regressed, p = 1/2."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

EXACT_WORK = 1 << 28
"""Above this many bit operations ((k + 1) · n: k terms of n bits), the tail is summed in floating
point: summed with integers, 200,000 improved against 200,000 regressed took half a minute."""


def binomial_two_sided(improved: int, regressed: int) -> Fraction:
    """Exact two-sided binomial test of `improved` against `regressed` with p = 1/2.

    p = min(1, 2 · P(X ≤ min(improved, regressed))) for X ~ Binomial(improved + regressed, 1/2);
    1 when nothing changed. Summed with integers, so exact, while that is cheap (see EXACT_WORK);
    beyond, the same sum in floating point, good to about 12 significant digits (`_tail`).
    """
    n = improved + regressed
    k = min(improved, regressed)
    if n == 0 or 2 * k + 1 >= n:
        return Fraction(1)  # the tail holds at least half the distribution
    if (k + 1) * n > EXACT_WORK:
        return _tail(n, k)
    tail, term = 0, 1  # term = C(n, i), updated in place: cheaper than comb() per i for large n
    for i in range(k + 1):
        if i:
            term = term * (n - i + 1) // i
        tail += term
    return min(Fraction(1), Fraction(2 * tail, 2**n))


def _tail(n: int, k: int) -> Fraction:
    """2 · P(X ≤ k), X ~ Binomial(n, 1/2), for 0 < k < n/2, in floating point.

    The largest term, P(X = k), is computed as R's dbinom computes it (C. Loader, "Fast and
    accurate computation of binomial probabilities", 2000), without the cancellation of
    log-gamma differences; the others follow from it by the ratio of consecutive terms,
    C(n, i - 1) / C(n, i) = i / (n - i + 1) < 1, until they no longer change the sum: about √n
    terms at most. The result may be far below the smallest float (2 / 2^400000), so it is built
    as a Fraction from its base-2 logarithm.
    """
    total, term = 1.0, 1.0
    for i in range(k, 0, -1):
        term *= i / (n - i + 1)
        if term < total * 1e-17:
            break
        total += term
    log2_p = (_log_dbinom_half(n, k) + math.log(total)) / math.log(2) + 1
    exponent = math.floor(log2_p)
    return min(Fraction(1), Fraction(2 ** (log2_p - exponent)) * Fraction(2) ** exponent)


def _log_dbinom_half(n: int, k: int) -> float:
    """ln P(X = k) for X ~ Binomial(n, 1/2), 0 < k < n (Loader's saddle-point form)."""
    half = n / 2
    return (
        _stirlerr(n)
        - _stirlerr(k)
        - _stirlerr(n - k)
        - _bd0(k, half)
        - _bd0(n - k, half)
        + 0.5 * math.log(n / (2 * math.pi * k * (n - k)))
    )


def _stirlerr(n: int) -> float:
    """ln(n!) - ln(√(2πn) (n/e)^n): the error of Stirling's formula."""
    if n <= 15:
        return math.lgamma(n + 1) - (n + 0.5) * math.log(n) + n - 0.5 * math.log(2 * math.pi)
    nn = float(n) * n
    s0, s1, s2, s3, s4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188
    if n > 500:
        return (s0 - s1 / nn) / n
    if n > 80:
        return (s0 - (s1 - s2 / nn) / nn) / n
    if n > 35:
        return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n


def _bd0(x: float, np: float) -> float:
    """x ln(x / np) + np - x, without cancellation when x is near np."""
    if abs(x - np) < 0.1 * (x + np):
        v = (x - np) / (x + np)
        s = (x - np) * v
        ej = 2 * x * v
        v *= v
        for j in range(1, 1000):
            ej *= v
            s1 = s + ej / (2 * j + 1)
            if s1 == s:
                return s1
            s = s1
        return s
    return x * math.log(x / np) + np - x


def mcnemar_exact(improved: int, regressed: int) -> Fraction:
    """Exact McNemar test on paired runs: the binomial test on the discordant pairs only."""
    return binomial_two_sided(improved, regressed)


def sign_test(improved: int, regressed: int) -> Fraction:
    """Exact two-sided sign test over cases; ties (unchanged cases) are left out before."""
    return binomial_two_sided(improved, regressed)


@dataclass(frozen=True)
class TestResult:
    name: Literal["exact_mcnemar", "exact_sign"]
    improved: int
    regressed: int
    p_value: Fraction

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "improved": self.improved,
            "regressed": self.regressed,
            "p_value": float(self.p_value),
        }
