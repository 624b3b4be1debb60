"""Regular expressions over the data, searched with a time limit.

A pattern a user writes (`--error-pattern`, a step's `{"matches": REGEX}`) or one evalrun ships
is searched in text an agent or a tool wrote. Python's `re` backtracks without bound:
`^(\\w+\\s?)+$` against a 35-character reply runs past a minute, and a pattern with two `.*`
against a 1 MB reply takes most of one. Every search over the data goes through `search`, with
the `regex` module's time limit: a search that takes longer is not finished, and says so (None),
for the caller to treat as no match and to name where it happened.

    search(pattern, text, timeout=...) -> True | False | None (None: out of time)
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import regex

# The regex module (about 6 ms to import without a .pyc cache) is imported where a pattern is
# first compiled: a scoring whose cases and traces hold none need not import it.

TIMEOUT: Final = 0.25
"""Seconds one search may take. An honest pattern answers in microseconds on a reply; one that
takes a quarter of a second backtracks catastrophically, and would take minutes."""
DOTALL: Final = 0x10
"""`regex.DOTALL` (`re.DOTALL`'s value; tests/test_hostile_outputs.py checks it)."""


class PatternError(ValueError):
    """A pattern the regex engine cannot read."""


@lru_cache(maxsize=1024)
def compiled(pattern: str, flags: int = 0) -> regex.Pattern[str]:
    """`pattern` compiled (once per pattern and flags), in `re`'s syntax; PatternError when it
    is not a regular expression."""
    import regex

    try:
        return regex.compile(pattern, flags | regex.VERSION0)
    except (regex.error, RecursionError, OverflowError, ValueError) as e:
        raise PatternError(str(e)) from None


def search(
    pattern: str | regex.Pattern[str], text: str, *, timeout: float = TIMEOUT, flags: int = 0
) -> bool | None:
    """Whether `pattern` matches somewhere in `text`; None when that cannot be told within
    `timeout` seconds. PatternError for a pattern (given as text) that does not compile."""
    compiled_pattern = compiled(pattern, flags) if isinstance(pattern, str) else pattern
    try:
        return compiled_pattern.search(text, timeout=timeout) is not None
    except TimeoutError:
        return None
