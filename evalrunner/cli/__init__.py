"""The `evalrun` command line: one small module per command; the only place typer lives."""

from __future__ import annotations

import typer

from . import diff, lint, norms, score, suggest

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
app.command("norms")(norms.norms)
app.command("lint")(lint.lint)
app.command("diff")(diff.diff)
app.command("suggest")(suggest.suggest)


def main() -> None:
    app()
