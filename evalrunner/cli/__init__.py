"""The `evalrun` command line: one small module per command; the only place typer lives."""

from __future__ import annotations

import errno
import os
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from .. import __version__
from ..grade.norms import configure_plugins
from ..read.settings import discover
from . import cases, diff, lint, norms, report, score, suggest
from .audit import app as audit_app
from .common import SETTINGS_FILE, input_errors, stderr

try:  # typer vendors its own click from 0.2x on: its exceptions are not click's
    from typer import _click as click
except ImportError:  # pragma: no cover (older typer)
    import click  # type: ignore[no-redef]

app = typer.Typer(
    name="evalrun",
    help=(
        "Score LLM agents' recorded tool calls honestly: the failure rate exact-match reports, "
        "the true one, and every difference explained by its shape."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain click help: paragraphs rewrapped, and flags shown as flags (rich's panels showed
    # `--strict <bool>`, as if it took a value).
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        print(f"evalrun {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Score LLM agents' recorded tool calls honestly: the failure rate exact-match reports, the
    true one, and every difference explained by its shape.

    Settings in [tool.evalrun] of the nearest pyproject.toml, or in evalrun.toml, are every
    command's defaults (a flag wins): see the README."""
    # The project's settings (evalrunner/config.py) become the command's defaults, so a flag
    # still wins, and every command gets them the same way, by the names of its own parameters.
    if ctx.resilient_parsing or ctx.invoked_subcommand is None:
        return
    configure_plugins(())  # one invocation's settings never leak into the next (tests, embedders)
    with input_errors():
        settings = discover(Path.cwd())
    if settings is None:
        return
    ctx.meta[SETTINGS_FILE] = _shown(settings.file)
    # Named now, imported by the commands that need rules (a broken plugin stops only those).
    configure_plugins(settings.values.get("plugins", ()))
    if settings.file.resolve().parent != Path.cwd().resolve():
        # a file found above the current folder applies silently otherwise
        stderr().print(f"settings: {settings.file}", markup=False, soft_wrap=True)
    command = ctx.command.get_command(ctx, ctx.invoked_subcommand)  # type: ignore[attr-defined]
    if command is not None:
        ctx.default_map = {ctx.invoked_subcommand: _defaults(settings, command, ctx)}


def _defaults(settings: Any, command: Any, ctx: typer.Context) -> dict[str, Any]:
    """The settings a command takes, by its parameters' names; a group's, per subcommand."""
    params = {
        p.name: bool(p.multiple or p.nargs == -1) for p in command.params if p.name is not None
    }
    found: dict[str, Any] = settings.defaults_for(params)
    for name in getattr(command, "commands", {}):
        found[name] = _defaults(settings, command.commands[name], ctx)
    return found


def _shown(file: Path) -> str:
    """The settings file as messages name it: relative to the current folder when below it."""
    try:
        return str(file.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(file)


app.command("score")(score.score)
app.command("report")(report.report)
app.command("norms")(norms.norms)
app.command("lint")(lint.lint)
app.command("cases")(cases.cases)
app.command("diff")(diff.diff)
app.command("suggest")(suggest.suggest)
app.add_typer(audit_app, name="audit")

EXIT_PIPE = 141
"""A reader closed the pipe (`| head`): as a shell reports a process SIGPIPE ended."""


_ENDED_BY: list[int] = []
"""The signal that ended the command (SIGTERM, SIGHUP), if one did."""


def _as_interrupt(signum: int, frame: Any) -> None:
    """SIGTERM and SIGHUP end evalrun as Ctrl-C does: a file output is left as it was (no `.part`
    file stays), and it is said."""
    _ENDED_BY.append(signum)
    raise KeyboardInterrupt


def main() -> None:
    """The console script: the app, with what click does not handle said in one line."""
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _as_interrupt)
    try:
        code = app(standalone_mode=False)
    except SystemExit as e:
        # click ends a closed pipe with exit 1, the code that means "threshold crossed"; it
        # leaves stdout wrapped, which is how it is told apart.
        code = _closed_pipe() if isinstance(sys.stdout, click.utils.PacifyFlushWrapper) else e.code
    except click.ClickException as e:
        e.show()
        code = e.exit_code
    except (typer.Abort, KeyboardInterrupt):
        code = _interrupted()
    except BrokenPipeError:
        code = _closed_pipe()
    except OSError as e:
        if e.errno == errno.EPIPE:
            code = _closed_pipe()
        else:  # writing the output failed: a full disk, /dev/full
            print(f"error: cannot write the output: {e.strerror or e}", file=sys.stderr)
            code = 2
    if _ENDED_BY and code == 130:  # typer turns the interrupt into exit 130 itself
        code = 128 + _ENDED_BY[0]
    sys.exit(code if isinstance(code, int) else 0)


def _interrupted() -> int:
    """Said on stderr; the exit code a shell gives a process the signal ended (130 for Ctrl-C,
    143 for SIGTERM, 129 for SIGHUP)."""
    if _ENDED_BY:
        print(f"interrupted ({signal.Signals(_ENDED_BY[0]).name})", file=sys.stderr)
        return 128 + _ENDED_BY[0]
    print("interrupted", file=sys.stderr)
    return 130


def _closed_pipe() -> int:
    # Python flushes stdout at exit, which would fail again: point it at nothing first.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return EXIT_PIPE
