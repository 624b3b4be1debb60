"""The draw: a simple random sample without replacement from each stratum, reproducible.

Reproducible means: the same population (the same run keys in each stratum, in whatever order
the traces list them) and the same seed give the same sample, on any machine and any Python.
So the keys are put in their canonical (sorted) order first, each stratum gets its own generator,
`random.Random` seeded with a string that names the seed and the stratum (never the module's
global generator), and the draw uses only `Random.random()`, the one method whose sequence Python
promises to keep across versions.

The draw is a partial Fisher–Yates shuffle, so a sample of n is the first n runs of a sample of
n + k drawn with the same seed: an audit can be extended by drawing more with the same seed, and
the runs already read stay in it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

K = TypeVar("K")
Key = TypeVar("Key", bound=tuple[Any, ...])
"""A run key: ordered, so that the keys have a canonical order."""

STRATA = ("reported_fail", "reported_pass")
"""The strata of an audit: the exact-match verdict, the one a team's dashboard shows."""


def stratum_of(reported_pass: bool) -> str:
    return "reported_pass" if reported_pass else "reported_fail"


def generator(seed: int, purpose: str) -> random.Random:
    """A generator of its own for one use of the seed. (A string seed is hashed with SHA-512,
    the same on every run and every Python, unlike `hash()`.)"""
    return random.Random(f"evalrun audit {seed} {purpose}")


def draw(keys: Sequence[K], n: int, rng: random.Random) -> list[K]:
    """`n` of `keys` (all of them when there are fewer) without replacement, in the order drawn."""
    pool = list(keys)
    k = min(n, len(pool))
    for i in range(k):
        j = i + _below(rng, len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]


def _below(rng: random.Random, n: int) -> int:
    """A uniform integer in [0, n) from `random()` alone (its bias, under n / 2^53, is nil here)."""
    return min(int(rng.random() * n), n - 1)


def stratified(
    strata: Mapping[str, Sequence[Key]], sizes: Mapping[str, int], seed: int
) -> dict[str, list[Key]]:
    """Per stratum, `sizes[stratum]` keys drawn from its keys in their canonical (sorted) order."""
    return {
        name: draw(sorted(keys), sizes.get(name, 0), generator(seed, name))
        for name, keys in strata.items()
    }


def shuffled(keys: Sequence[K], seed: int) -> list[K]:
    """`keys` in a random order of their own (the order the sheet presents the runs in)."""
    return draw(keys, len(keys), generator(seed, "order"))
