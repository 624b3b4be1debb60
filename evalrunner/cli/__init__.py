"""The `evalrun` command line: one small module per command; the only place typer lives.

Start-up stays small: `--version` and `--help` import no command's module (each is imported
when it runs, or when its own `--help` is asked for: `_LazyGroup`), and this module imports
only typer at its top.
"""

from __future__ import annotations

import errno
import gc
import importlib
import os
import signal
import sys
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

try:
    from typer._click.utils import make_default_short_help
except ImportError:  # pragma: no cover (older typer)
    from click.utils import make_default_short_help  # type: ignore[no-redef]

from .. import interrupts
from .._version import __version__

try:  # typer vendors its own click from 0.2x on: its exceptions are not click's
    from typer import _click as click
except ImportError:  # pragma: no cover (older typer)
    import click  # type: ignore[no-redef]

COMMANDS: dict[str, tuple[str, str, str]] = {
    "score": (
        "score",
        "score",
        "Score recorded runs: the failure rate exact-match reports, the true one, and why "
        "they differ.",
    ),
    "report": (
        "report",
        "report",
        "Render a saved results file as evalrun score renders live results.",
    ),
    "norms": (
        "norms",
        "norms",
        "List the normalizers a parameter can name in x-eval-norm, with class and meaning.",
    ),
    "lint": (
        "lint",
        "lint",
        "Check tool schemas, equivalence rules and cases before they bend the numbers.",
    ),
    "cases": (
        "cases",
        "cases",
        "Print the cases as evalrun reads them, in evalrun's own case format.",
    ),
    "diff": (
        "diff",
        "diff",
        "Compare two scorings: rates, shapes, flipped runs with causes, a paired test.",
    ),
    "suggest": (
        "suggest",
        "suggest",
        "Propose the rules, defaults and alternates the traces call for, each with its "
        "evidence, the runs it would pass (gains) and what it could break (risk).",
    ),
    "audit": (
        "audit",
        "app",
        "Check evalrun against a person's reading: sample runs into a sheet to label (sample), "
        "then compare the labels with evalrun's verdicts, with an error bar (score).",
    ),
}
"""Each command: (module under evalrunner.cli, its function or Typer app, the first paragraph
of its help, which the top-level `--help` lists without importing the module; a test checks
that it is the command's own)."""


def load_command(name: str) -> Any:
    """A command as click runs it, its module imported now."""
    module_name, attr, _ = COMMANDS[name]
    found = getattr(importlib.import_module(f"{__name__}.{module_name}"), attr)
    if isinstance(found, typer.Typer):  # a group, made as `add_typer` makes one
        return typer.main.get_group_from_info(
            typer.models.TyperInfo(found, name=name),
            pretty_exceptions_short=app.pretty_exceptions_short,
            rich_markup_mode=app.rich_markup_mode,
            suggest_commands=app.suggest_commands,
        )
    info = typer.models.CommandInfo(name=name, callback=found, cls=_Command)
    return typer.main.get_command_from_info(
        info, pretty_exceptions_short=app.pretty_exceptions_short, rich_markup_mode=None
    )


class _Command(TyperCommand):
    """A command whose `--help` shows the values the settings file gives (`_main` puts them in
    the context's default map) for every option: typer shows a flag's own default
    (`[default: no-fail-on-suspect]` under `fail_on_suspect = true`), and nothing for an option
    whose default is hidden (`--group-by`, `--fail-above-delta`)."""

    def format_options(self, ctx: Any, formatter: Any) -> None:
        given = ctx.default_map or {}
        swapped = [
            (p, p.default, p.show_default)
            for p in self.get_params(ctx)
            if isinstance(p, TyperOption) and p.name in given
        ]
        # an argument's default is written in its help (`Default: traces/`): the settings'
        # value replaces it there
        told = [
            (a, a.help)
            for a in self.get_params(ctx)
            if isinstance(a, TyperArgument)
            and a.name in given
            and a.help is not None
            and DEFAULT_SAID in a.help
        ]
        try:
            # typer reads a default from the default map before the option's own
            ctx.default_map = {k: _escaped(v) for k, v in given.items()} if given else None
            for p, _, _ in swapped:
                p.default, p.show_default = _escaped(given[p.name]), True
            for a, text in told:
                value = _escaped(given[a.name])
                said = " ".join(map(str, value)) if isinstance(value, list) else str(value)
                head = (text or "").rsplit(DEFAULT_SAID, 1)[0]
                a.help = f"{head}{DEFAULT_SAID}{said} (the settings)"
            super().format_options(ctx, formatter)
        finally:  # the command is made once per process: the next invocation's help is its own
            ctx.default_map = given or None
            for p, default, shown in swapped:
                p.default, p.show_default = default, shown
            for a, text in told:
                a.help = text


DEFAULT_SAID = "Default: "
"""How an argument's help says its default (`TracesArg`)."""


def _escaped(value: Any) -> Any:
    """A setting's value as `--help` prints it: its control characters shown as escapes (a
    `tools = "\\u001b]0;title\\u0007"` retitled the window), as everywhere data is printed."""
    from ..terminal import visible

    if isinstance(value, str):
        return visible(value)
    if isinstance(value, list):
        return [visible(v) if isinstance(v, str) else v for v in value]
    return value


class _Commands(MutableMapping[str, Any]):
    """The top-level group's commands by name: those of `COMMANDS` are loaded when first looked
    up (a listing of the names loads none)."""

    def __init__(self, loaded: MutableMapping[str, Any]) -> None:
        self.loaded = loaded

    def __getitem__(self, name: str) -> Any:
        if name not in self.loaded and name in COMMANDS:
            self.loaded[name] = load_command(name)
        return self.loaded[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self.loaded[name] = command

    def __delitem__(self, name: str) -> None:
        del self.loaded[name]

    def __iter__(self) -> Iterator[str]:
        yield from self.loaded
        yield from (n for n in COMMANDS if n not in self.loaded)

    def __len__(self) -> int:
        return len(self.loaded) + sum(1 for n in COMMANDS if n not in self.loaded)

    def __contains__(self, name: object) -> bool:
        return name in self.loaded or name in COMMANDS


class _LazyGroup(TyperGroup):
    """The top-level group: commands listed from `COMMANDS`, each imported when it is used."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = _Commands(self.commands)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)  # the names, none loaded (typer's reads every item)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        # The listing's one line per command, from `COMMANDS`: no command is imported for it.
        names = self.list_commands(ctx)
        if not names:
            return
        assert isinstance(self.commands, _Commands)
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = []
        for name in names:
            loaded = self.commands.loaded.get(name)
            if loaded is not None:
                rows.append((name, loaded.get_short_help_str(limit)))
            else:
                rows.append((name, make_default_short_help(COMMANDS[name][2], limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


app = typer.Typer(
    name="evalrun",
    help=(
        "Score LLM agents' recorded tool calls honestly: the failure rate exact-match reports, "
        "the true one, and every difference explained by its shape."
    ),
    no_args_is_help=True,
    add_completion=False,
    cls=_LazyGroup,
    pretty_exceptions_enable=False,
    # Plain click help: paragraphs rewrapped, and flags shown as flags (rich's panels showed
    # `--strict <bool>`, as if it took a value).
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        from .. import core  # small: the extension, when it is built, and os

        print(f"evalrun {__version__} ({core.describe()})")
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
    from .. import core
    from ..grade.norms import configure_plugins
    from ..read.settings import discover
    from .common import SETTINGS_FILE, fail, input_errors, stderr

    if core.PROBLEM is not None:  # EVALRUN_CORE asks for a core that cannot run
        raise fail(core.PROBLEM)

    configure_plugins(())  # one invocation's settings never leak into the next (tests, embedders)
    with input_errors():
        settings = discover(Path.cwd())
    if settings is None:
        return
    ctx.meta[SETTINGS_FILE] = _shown(settings.file)
    # Named now, imported by the commands that need rules (a broken plugin stops only those).
    configure_plugins(settings.values.get("plugins", ()))
    # ... and they end with it: a library call made after it (an embedder's, a test's, from
    # another folder) reads no plugin path relative to the folder this invocation ran in.
    ctx.call_on_close(lambda: configure_plugins(()))
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


EXIT_PIPE = 141
"""A reader closed the pipe (`| head`): as a shell reports a process SIGPIPE ended."""


_ENDED_BY: list[int] = []
"""The signal that ended the command (SIGTERM, SIGHUP), if one did."""


def _as_interrupt(signum: int, frame: Any) -> None:
    """SIGTERM and SIGHUP end evalrun as Ctrl-C does: a file output is left as it was (no `.part`
    file stays), and it is said."""
    _ENDED_BY.append(signum)
    _on_interrupt(signum, frame)


def _on_interrupt(signum: int, frame: Any) -> None:
    """Ctrl-C: noted where a read checks it (`interrupts`), in case the KeyboardInterrupt raised
    here is raised inside a finalizer, which drops it."""
    interrupts.PENDING.append(signum)
    raise KeyboardInterrupt


YOUNG_OBJECTS = 1_000_000
"""The cyclic collector's first threshold for the command line (Python's default is 700).

Grading makes no reference cycles (`tests/test_grading.py` holds it), so what a young
collection walks is the objects the grader's tables keep, to find nothing; the fewer times it
runs, the more of them have been dropped again before it does (BENCHMARKS.md). A cycle made
elsewhere waits at most this many new objects."""


def main() -> None:
    """The console script: the app, with what click does not handle said in one line."""
    # Grading allocates many small objects, and keeps many for the whole run (the grader's memo
    # and caches, the summary's bounded samples): at the default threshold the collector walked
    # the kept ones again every 700 allocations, 14% of `score`'s CPU on the bench corpus and
    # most of what reply evidence cost (BENCHMARKS.md). Worker processes are forked: they
    # inherit it. Memory is the same (what is freed is freed by reference counts).
    gc.set_threshold(YOUNG_OBJECTS, *gc.get_threshold()[1:])
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _as_interrupt)
    interrupts.PENDING.clear()  # a run in the same process before this one (tests) is over
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when ignored (nohup &)
        signal.signal(signal.SIGINT, _on_interrupt)
    interrupts.watch()  # a read waiting on a pipe wakes to see a signal that came just before it
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
