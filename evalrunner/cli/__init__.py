"""The `evalrun` command line: one small module per command; the only place typer lives."""

from __future__ import annotations

from pathlib import Path

import typer
from typer.core import TyperGroup

from ..config import discover
from . import diff, lint, norms, report, score
from .common import input_errors

app = typer.Typer(
    name="evalrun",
    help=(
        "Score LLM agents' recorded tool calls honestly: the failure rate exact-match reports, "
        "the true one, and every difference explained by its shape."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("score")(score.score)
app.command("report")(report.report)
app.command("norms")(norms.norms)
app.command("lint")(lint.lint)
app.command("diff")(diff.diff)


@app.callback()
def _settings(ctx: typer.Context) -> None:
    # The project's settings ([tool.evalrun] in pyproject.toml, or evalrun.toml: see
    # evalrunner/config.py) become the command's defaults, so a flag still wins, and every
    # command gets them the same way, by the names of its own parameters.
    if ctx.resilient_parsing or ctx.invoked_subcommand is None:
        return
    with input_errors():
        settings = discover(Path.cwd())
    if settings is None:
        return
    assert isinstance(ctx.command, TyperGroup)
    command = ctx.command.get_command(ctx, ctx.invoked_subcommand)
    if command is None:
        return
    params = {
        p.name: bool(p.multiple or p.nargs == -1) for p in command.params if p.name is not None
    }
    ctx.default_map = {ctx.invoked_subcommand: settings.defaults_for(params)}


def main() -> None:
    app()
