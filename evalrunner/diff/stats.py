"""The paired test: the exact two-sided binomial test of improved against regressed, p = 1/2."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal


def binomial_two_sided(improved: int, regressed: int) -> Fraction:
    """Exact two-sided binomial test of `improved` against `regressed` with p = 1/2.

    p = min(1, 2 · P(X ≤ min(improved, regressed))) for X ~ Binomial(improved + regressed, 1/2);
    1 when nothing changed.
    """
    n = improved + regressed
    if n == 0:
        return Fraction(1)
    k = min(improved, regressed)
    tail, term = 0, 1  # term = C(n, i), updated in place: cheaper than comb() per i for large n
    for i in range(k + 1):
        if i:
            term = term * (n - i + 1) // i
        tail += term
    return min(Fraction(1), Fraction(2 * tail, 2**n))


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
