"""Writers: a scoring's results and summary, rendered for a person or a program; and, beside
them, every other command's renderers (`diff_table`, `diff_html`, `lint_table`, `suggest_table`,
`suggest_json`, `audit_table`, `audit_page`), so that what any command draws is drawn here and
the libraries (`diff/`, `lint/`, `suggest/`, `audit/`) only compute it. One place, not a
`render` module per command, because the renderers share what is written once here: the words
and number formats (`wording`), the page's building blocks (`page`), the console (`table`).

Each output format of `evalrun score --format` is one module here that defines `WRITER`, a
`WriterFormat` keyed by the name the user types; `WRITERS` collects them and feeds the command's
choices and help. A writer receives the results in input order, a batch at a time, then the
summary. What it needs of each batch it says with `encoder`, a picklable function that runs where
the batch was graded (a worker process under `--jobs`), so that only what it writes crosses back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from ..grade.grader import RunResult
from ..model import TraceError
from ..summary import Summary

Item = RunResult | TraceError
"""A scored run, or a trace line that could not be scored."""

Encoder = Callable[[list[Item]], Any]


@dataclass(frozen=True)
class Output:
    """Where a writer writes, and what the command asked of it."""

    stream: IO[bytes]
    to_file: bool = False
    """`--output FILE`: a file, not the terminal or a pipe."""
    path: Path | None = None
    sources: Sequence[str] = ()
    """The trace inputs as the user named them."""
    show: str | None = None
    """`--show`: which runs to list with their explanations (a format that `shows_runs`)."""
    limit: int = 20
    """`--limit`: how many runs `--show` lists."""


class Writer(Protocol):
    """What every output format's writer is: `score` (and `dask.score_bag`) give it the
    results in input order, a batch at a time, then the summary. The report formats implement
    it through `report.ReportWriter`, which also renders a saved results file."""

    @property
    def encoder(self) -> Encoder | None:
        """Renders a batch of results (in a worker process under `--jobs`, so it must pickle: a
        module-level function or a partial of one); None when the writer needs only the summary."""
        ...

    def write(self, encoded: Any) -> None:
        """Take one batch, as `encoder` rendered it, in input order."""
        ...

    def close(self, summary: Summary) -> None:
        """Write what is left, with the summary of every run."""
        ...


@dataclass(frozen=True)
class WriterFormat:
    name: str
    """What `--format` takes."""
    summary: str
    """One line for `--help`."""
    make: Callable[[Output], Writer]
    shows_runs: bool = False
    """Takes `--show` (lists runs with their explanations)."""
    renders_results: bool = False
    """Renders a saved results file too (`evalrun report`): `make` returns a
    `report.ReportWriter`, the `Writer` that renders the results-JSON layout whichever way it
    came."""


_BUILTIN: tuple[tuple[str, str, bool, bool], ...] = (
    ("table", "the true-vs-reported table, for a person (the default)", True, False),
    ("json", 'one results document (SPEC "Results JSON"), for jq or a program', False, False),
    (
        "jsonl",
        "one run result a line, then the summary: for streams, DuckDB, a dashboard",
        False,
        False,
    ),
    (
        "html",
        "one self-contained page with charts and every run that is not a pass, filterable "
        "(use with --output)",
        False,
        True,
    ),
    ("markdown", "the table as GitHub-flavoured Markdown, for a CI job summary", False, True),
    ("junit", "JUnit XML, one test case per run, for CI test reports", False, True),
)
"""Each built-in format: (name, also its module's, summary, shows_runs, renders_results), as
its module's `WRITER` says (a test checks it): listed here so that `--format`'s choices and help
import no writer; a writer's module is imported when it is made."""


def writer_module(name: str) -> Any:
    """The module of a built-in format, imported now."""
    from importlib import import_module

    return import_module(f"{__name__}.{name}")


def _made_by(name: str) -> Callable[[Output], Writer]:
    def make(output: Output) -> Writer:
        made: Writer = writer_module(name).WRITER.make(output)
        return made

    return make


def _formats() -> dict[str, WriterFormat]:
    return {
        name: WriterFormat(name, summary, _made_by(name), shows_runs, renders)
        for name, summary, shows_runs, renders in _BUILTIN
    }


WRITERS: dict[str, WriterFormat] = _formats()
"""The output formats of `evalrun score`, by name, in the order `--help` lists them."""


class Collect:
    """A writer that keeps every result, in input order: for the library and tests, on inputs
    small enough to hold (the other writers stream)."""

    def __init__(self) -> None:
        self.encoder: Encoder | None = list
        self.items: list[Item] = []
        self.summary: Summary | None = None

    def write(self, items: list[Item]) -> None:
        self.items.extend(items)

    def close(self, summary: Summary) -> None:
        self.summary = summary
