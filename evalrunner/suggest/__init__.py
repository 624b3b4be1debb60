"""`evalrun suggest`: the rules, defaults and alternates the traces call for, each scored as a
what-if on the same traces, and the schema fixes (`tighten`) that would make rules unneeded.

The contract is docs/spec.md, "`evalrun suggest`"; the decisions it leaves open are in
docs/suggest.md. The package, by job:

- `collect`: the one pass over the traces (it is `scoring.score`, with a grader that keeps what
  suggest needs), grouping runs that made the same calls;
- `sites`: where failing calls differ from their steps; `rules`, `defaults`, `alternates`: what
  those differences call for; `encodings`: how values are written, for `tighten`;
- `whatif`: regrading the runs a set of suggestions can move; `propose`: all of it, in order;
- `edit`: `--write`, annotating tool files in place; the table and the JSON are
  drawn in `write/` (`suggest_table`, `suggest_json`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import BinaryIO

from ..scoring import Config
from ..traces import Reading
from .collect import Corpus, collect
from .model import (
    KINDS,
    AlternateSuggestion,
    DefaultSuggestion,
    Evidence,
    Example,
    Report,
    Risk,
    RuleSuggestion,
    Suggestion,
    TightenSuggestion,
)
from .propose import propose

__all__ = [
    "KINDS",
    "AlternateSuggestion",
    "Corpus",
    "DefaultSuggestion",
    "Evidence",
    "Example",
    "Report",
    "Risk",
    "RuleSuggestion",
    "Suggestion",
    "TightenSuggestion",
    "collect",
    "propose",
    "suggest",
]


def suggest(
    config: Config,
    paths: Iterable[str | Path],
    *,
    reading: Reading | None = None,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    stdin: BinaryIO | None = None,
    tool: str | None = None,
    kinds: Collection[str] | None = None,
) -> Report:
    """Read and grade the traces as `scoring.score` does, and propose what to declare.

    `reading`, `jobs`, `progress` and `stdin` are `score`'s; `tool` and `kinds` narrow the
    suggestions listed (and the summary's figures to them).
    """
    corpus = collect(config, paths, reading=reading, jobs=jobs, progress=progress, stdin=stdin)
    return propose(config, corpus, tool=tool, kinds=kinds)
