"""What the commands share: option types, the consoles, and turning input errors into exit 2."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import IO, Annotated

import typer
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

from ..model import InputError
from ..write.table import data_console as data_console  # the listings print through it too

EXIT_OK, EXIT_THRESHOLD, EXIT_INPUT = 0, 1, 2


class Format(str, Enum):
    """The formats of a listing (`norms`, `lint`). `score` offers its writers' (`write.WRITERS`)."""

    table = "table"
    json = "json"
    jsonl = "jsonl"


ToolsOpt = Annotated[Path, typer.Option("--tools", help="Directory (or file) of tool schemas.")]
CasesOpt = Annotated[Path, typer.Option("--cases", help="Directory (or file) of cases.")]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output: table, json or jsonl.")]
OutputOpt = Annotated[
    Path | None, typer.Option("--output", "-o", help="Write the output to FILE, not stdout.")
]


def stderr() -> Console:
    """Diagnostics and progress: always standard error."""
    return Console(stderr=True, highlight=False)


def fail(message: str) -> typer.Exit:
    """Print an input error to stderr; return the exit to raise (code 2)."""
    # soft_wrap: a message is one line however long, so that logs and grep keep it whole
    err = stderr()
    err.print("[bold red]error:[/bold red] ", end="", markup=True)
    err.print(message, markup=False, soft_wrap=True)
    return typer.Exit(code=EXIT_INPUT)


@contextmanager
def input_errors() -> Iterator[None]:
    """Unusable input ends the command with exit code 2 and a message that says what to fix."""
    try:
        yield
    except InputError as e:
        raise fail(str(e)) from None


@contextmanager
def output_stream(path: Path | None) -> Iterator[IO[bytes]]:
    """The binary stream data goes to: FILE, or standard output."""
    if path is None:
        yield sys.stdout.buffer
        # The table is written through the text layer, JSON through the buffer: flush both, so
        # that what the command then says on stderr lands after the data, not inside it.
        sys.stdout.flush()
        sys.stdout.buffer.flush()
        return
    try:
        with open(path, "wb") as f:
            yield f
    except OSError as e:
        raise fail(f"cannot write {path}: {e.strerror or e}") from None


@contextmanager
def progress(what: str) -> Iterator[Callable[[int], None] | None]:
    """A callback to tell how many records have been read: a progress line on stderr, shown when
    stderr is a terminal and the work takes more than a moment; None (no callback) otherwise."""
    if not sys.stderr.isatty():
        yield None
        return
    shown = _Progress(what)
    try:
        yield shown
    finally:
        shown.stop()


class _Progress:
    DELAY = 0.5

    def __init__(self, what: str) -> None:
        self.what = what
        self.start = time.monotonic()
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def __call__(self, lines: int) -> None:
        if self.bar is None:
            if time.monotonic() - self.start < self.DELAY:
                return
            self.bar = Progress(
                SpinnerColumn(),
                TextColumn(f"{self.what}: {{task.completed:,}} records"),
                TimeElapsedColumn(),
                console=stderr(),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.what, total=None)
        assert self.task is not None
        self.bar.update(self.task, completed=lines)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
