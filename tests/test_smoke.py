from typer.testing import CliRunner

from evalrunner.cli import app


def test_help_lists_commands():
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "score" in result.output and "norms" in result.output
