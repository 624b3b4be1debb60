"""What the commands share: option types, the consoles, and turning input errors into exit 2."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from ..grade.grader import REPORTED_READINGS
from ..model import InputError
from ..read.case_formats import CASE_FORMATS
from ..scoring import MAX_JOBS, available_cpus
from ..summary import Summary
from ..summary.groups import NO_GROUP
from ..terminal import SafeConsole
from ..traces import AUTO, BUILTINS, Reading
from ..traces.files import inside, read_under
from ..traces.limits import MAX_LINE_BYTES
from ..words import counted
from ..write.table import data_console as data_console  # the listings print through it too

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

try:  # typer vendors its own click from 0.2x on: its contexts are not click's
    from typer._click.core import ParameterSource
    from typer._click.globals import get_current_context
except ImportError:  # pragma: no cover (older typer)
    from click.core import ParameterSource  # type: ignore[assignment]
    from click.globals import get_current_context  # type: ignore[no-redef]

EXIT_OK, EXIT_THRESHOLD, EXIT_INPUT = 0, 1, 2

Reported = Enum(  # type: ignore[misc]
    "Reported", [(name.replace("-", "_"), name) for name in REPORTED_READINGS], type=str
)
"""`--reported`'s choices (`score`, `diff`): how the reported check reads a run."""
PER_CALL_READING = Reported("per-call")


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


TracesArg = Annotated[
    list[str] | None,
    typer.Argument(
        help="Trace files or directories (.jsonl, .jsonl.gz), or - for standard input. "
        "Default: traces/",
        show_default=False,
    ),
]
TraceFormatOpt = Annotated[
    str | None,
    typer.Option(
        "--trace-format",
        metavar="FORMAT",
        help="How trace lines are written: auto (each line's format detected), or one of "
        + ", ".join(BUILTINS)
        + " (or a plugin's). See docs/trace-formats.md.",
        show_default="auto",
    ),
]
CaseFormatOpt = Annotated[
    str | None,
    typer.Option(
        "--case-format",
        metavar="FORMAT",
        help="How case files are written: auto (each file's format detected), or one of "
        + ", ".join(CASE_FORMATS)
        + ". See docs/case-formats.md.",
        show_default="auto",
    ),
]
CaseKeyOpt = Annotated[
    str | None,
    typer.Option(
        "--case-key",
        metavar="PATH",
        help="Where each record keeps its case id, as a dotted path (request.metadata.task). "
        "Default: case_id, else metadata.case_id; for otel, the span attribute named PATH "
        "(default evalrun.case_id).",
        show_default=False,
    ),
]
RunKeyOpt = Annotated[
    str | None,
    typer.Option(
        "--run-key",
        metavar="PATH",
        help="Where each record keeps its run id, as --case-key. Default: run_id, else "
        "metadata.run_id; for otel, the attribute evalrun.run_id, else the trace id.",
        show_default=False,
    ),
]
MaxLineOpt = Annotated[
    int,
    typer.Option(
        "--max-line-bytes",
        metavar="BYTES",
        min=1,
        help="The longest trace line read; a longer one is reported unscoreable, never held "
        "in memory.",
    ),
]


JobsOpt = Annotated[
    str,
    typer.Option(
        "--jobs",
        "-j",
        metavar="N",
        help="Work on N worker processes, or auto (one per CPU): no more than the CPUs and the "
        "batches of lines there are. The output is the same as with 1, byte for byte.",
    ),
]


def parse_jobs(value: str) -> int:
    """--jobs: a whole number from 1 to MAX_JOBS, or auto (the CPUs this process may run on).
    Scoring uses no more processes than there are CPUs and batches to deal."""
    if value == "auto":
        return available_cpus()
    # ASCII digits only: "²".isdigit() is true, and int("²") a ValueError
    digits = value.lstrip("0")  # int() of more than 4,300 digits raises, leading zeros too
    if not (value.isascii() and value.isdigit()) or not digits:
        raise fail(f"--jobs takes a whole number of processes (1 or more) or auto, not {value!r}")
    if len(digits) > 6 or int(digits) > MAX_JOBS:
        raise fail(
            f"--jobs {value} is more processes than evalrun starts (at most {MAX_JOBS}; it uses "
            "no more than the CPUs there are): give a number of processes, or auto"
        )
    return int(digits)


def reading_of(
    trace_format: str | None,
    case_key: str | None,
    run_key: str | None,
    max_line_bytes: int = MAX_LINE_BYTES,
    **options: Any,
) -> Reading:
    """The trace options every command shares, as one `Reading`, checked before anything is read
    (an InputError for a bad option: the caller's `input_errors` says what to fix)."""
    reading = Reading(trace_format or AUTO, case_key, run_key, max_line_bytes, **options)
    reading.reader()
    return reading


def stderr() -> Console:
    """Diagnostics and progress: always standard error."""
    return SafeConsole(stderr=True, highlight=False)


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
def output_stream(
    path: Path | None,
    *,
    inputs: Sequence[str | Path] = (),
    config: Sequence[str | Path] = (),
) -> Iterator[IO[bytes]]:
    """The binary stream data goes to: FILE, or standard output.

    FILE is written whole or not at all: the data goes to a temporary file beside it, renamed over
    it when the command has written everything, so a failure or an interrupt leaves the previous
    file as it was (a device or a pipe, which cannot be replaced, is written directly). An output
    that is one of the `inputs` (or resolves to one) is refused before anything is read.
    """
    if path is None:
        yield sys.stdout.buffer
        # The table is written through the text layer, JSON through the buffer: flush both, so
        # that what the command then says on stderr lands after the data, not inside it.
        sys.stdout.flush()
        sys.stdout.buffer.flush()
        return
    for name in inputs:
        if name != "-" and _same_file(path, Path(name)):
            raise fail(
                f"--output {str(path)!r} is one of the inputs ({name}): writing it would destroy "
                "what is read; write the output elsewhere"
            )
    for name in config:  # the tools and cases: a .json(l) file in their folder is read as one
        in_folder = path.name.endswith((".json", ".jsonl")) and inside(path, Path(name))
        if _same_file(path, Path(name)) or in_folder:
            raise fail(
                f"--output {str(path)!r} is read as input (tools and cases are read from "
                f"{str(name)!r}): writing it would destroy or add to them; write the output "
                "elsewhere"
            )
    folder = read_under(path, inputs)
    if folder is not None:
        raise fail(
            f"--output {str(path)!r} is read as input (it is in the folder {folder!r}): writing "
            "it would destroy it; write the output elsewhere"
        )
    if path.exists() and not path.is_file():  # /dev/stdout, a FIFO: nothing to replace
        try:
            with open(path, "wb") as f:
                yield f
        except NotWritten as e:
            raise typer.Exit(code=e.code) from None
        except OSError as e:
            raise fail(f"cannot write {path}: {e.strerror or e}") from None
        return
    try:
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    except OSError as e:
        raise fail(f"cannot write {path}: {e.strerror or e}") from None
    done = False
    try:
        with os.fdopen(fd, "wb") as f:
            try:
                yield f
            except NotWritten as e:
                stderr().print(
                    f"{path} was not written" + (" (it is as it was)" if path.exists() else ""),
                    markup=False,
                )
                raise typer.Exit(code=e.code) from None
        if path.exists():
            shutil.copymode(path, temp)
        else:
            os.chmod(temp, 0o666 & ~_umask())
        os.replace(temp, path)
        done = True
    except OSError as e:
        raise fail(f"cannot write {path}: {e.strerror or e}") from None
    except KeyboardInterrupt:
        stderr().print(
            f"interrupted: {path} was not written"
            + (" (it is as it was)" if path.exists() else ""),
            markup=False,
        )
        raise
    finally:
        if not done:
            with contextlib.suppress(OSError):
                os.unlink(temp)


class NotWritten(Exception):
    """Raised inside `output_stream` by a command that ends with unusable input (exit 2) after
    writing: a file output is then left as it was (a failure never replaces the last good
    results), and the command exits with `code`."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def keep_previous(output: Path | None, code: int) -> None:
    """End a command that wrote to `output` with `code`: exit 2 leaves a file output as it was."""
    if output is not None and code == EXIT_INPUT:
        raise NotWritten(code)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


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
            # imported when a bar is first shown (half a second into a reading)
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

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


# ------------------------------------------------------------------------------ exit codes


SETTINGS_FILE = "evalrun.settings"
"""Where the root context's `meta` keeps the settings file in force (`cli._main` puts it)."""


def named(param: str, flag: str) -> str:
    """How to name an option's value in a message: the flag, or, when the value came from the
    settings file, the setting and its file (`fail_above in evalrun.toml`): a user who never
    typed --fail-above must be told where the threshold is."""
    ctx = get_current_context(silent=True)
    if ctx is None or ctx.get_parameter_source(param) is not ParameterSource.DEFAULT_MAP:
        return flag
    file = ctx.meta.get(SETTINGS_FILE)
    return f"{param} in {file}" if file is not None else flag


def named_value(param: str, flag: str, value: str) -> str:
    """An option and its value as a message names them: `--group-by model`, or, when the
    settings file set it, `group_by = "model" in evalrun.toml`."""
    where = named(param, flag)
    if where == flag:
        return f"{flag} {value}"
    return f"{param} = {json.dumps(value, ensure_ascii=False)}{where.removeprefix(param)}"


def check_rate(rate: float | None, flag: str = "--fail-above") -> None:
    """A rate flag takes a fraction: 39 for 39% is a usage error that says so."""
    if rate is None or 0.0 <= rate <= 1.0:
        return
    hint = f": for {rate:g}%, write {rate / 100:g}" if 1.0 < rate <= 100.0 else ""
    raise fail(f"{flag} takes a fraction from 0 to 1, not {rate:g}{hint}")


def verdict_exit(
    summary: Summary,
    *,
    strict: bool = False,
    fail_above: float | None = None,
    fail_on_suspect: bool = False,
) -> int:
    """The exit code of a scoring, with what decided it said on stderr: 2 when no run was scored
    (a broken path or logger must not pass CI) or, with --strict, when a record could not be
    scored; 1 when the true run failure rate is above --fail-above, or with --fail-on-suspect
    when a rule may be creating false passes; else 0."""
    err = stderr()
    for warning in summary.warnings:
        err.print(f"warning: {warning}", markup=False, soft_wrap=True, highlight=False)
    if summary.unscoreable:
        err.print(
            f"{summary.unscoreable:,} of {summary.lines:,} trace records could not be scored "
            "(listed with file:line in the output)"
        )
    for _, source, message in summary.internal:
        # a verdict the grader could not explain: a bug of evalrun's, said loudly, never hidden
        err.print(f"{source}: {message}", markup=False, soft_wrap=True, highlight=False)
    if summary.runs == 0:
        fail(_nothing_scored(summary))
        return EXIT_INPUT
    if strict and summary.unscoreable:
        fail(f"--strict: {counted(summary.unscoreable, 'trace record')} could not be scored")
        return EXIT_INPUT
    if strict and summary.group_by is not None and set(summary.groups) == {NO_GROUP}:
        fail(
            f"--strict: {named_value('group_by', '--group-by', summary.group_by)} is found in no run"
        )
        return EXIT_INPUT
    code = EXIT_OK
    if fail_above is not None:
        rate = summary.true_failed_runs / summary.runs
        if rate > fail_above:
            a, b = _distinct_percentages(rate, fail_above)
            flag = named("fail_above", "--fail-above")
            err.print(f"true run failure rate {a} is above {flag} {b}", markup=False)
            code = EXIT_THRESHOLD
    if fail_on_suspect:
        from ..diff import gates  # here: the diff package is large, and score needs it only here

        fired = gates.suspect_gate(
            [
                f"{norm} on {tool}.{param} ({counted(runs, 'run')})"
                for (tool, param, norm), runs in sorted(summary.suspects.items())
            ],
            gates.replies_differ(summary.to_json()),
            named("fail_on_suspect", "--fail-on-suspect"),
        )
        if fired is not None:
            err.print(fired.message, markup=False, soft_wrap=True, highlight=False)
            code = EXIT_THRESHOLD
    return code


def _nothing_scored(summary: Summary) -> str:
    read = f"{summary.files:,} trace file(s), {summary.lines:,} record(s)"
    if summary.files == 0:
        why = "no trace file was found"
        if summary.warnings:
            why += " (see the warnings above: files that were not read)"
        return f"no run was scored: {why}; name a trace file or directory"
    if summary.lines == 0:
        return f"no run was scored: read {read}; the files are empty"
    first = summary.errors[0] if summary.errors else None
    example = f", e.g. {first[1]}: {first[2]}" if first is not None else ""
    return f"no run was scored: read {read}, none of them a run that can be scored{example}"


def _distinct_percentages(a: float, b: float) -> tuple[str, str]:
    """Both rates as percentages with as many decimals as it takes to tell them apart."""
    for digits in range(1, 7):
        x, y = f"{a:.{digits}%}", f"{b:.{digits}%}"
        if x != y:
            return x, y
    return f"{a:%}", f"{b:%}"
