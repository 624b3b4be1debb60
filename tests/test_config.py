"""Settings in `[tool.evalrun]` of pyproject.toml or in evalrun.toml: found from the current
folder upwards, paths relative to the file, a flag always wins, unknown keys refused."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app
from evalrunner.model import InputError
from evalrunner.read.settings import discover, find, load
from tests.conftest import one_line

DATA = Path(__file__).parent / "data" / "cli"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A project with its evals under evals/, the current folder at its root."""
    for name in ("tools", "cases", "traces"):
        shutil.copytree(DATA / name, tmp_path / "evals" / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


PYPROJECT = """\
[project]
name = "agent"

[tool.evalrun]
tools = "evals/tools"
cases = "evals/cases"
traces = "evals/traces"
"""


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "100", "NO_COLOR": "1"})


def test_score_reads_its_inputs_from_pyproject(repo):
    (repo / "pyproject.toml").write_text(PYPROJECT + 'group_by = "meta.model"\n')
    result = invoke("score", "-f", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["summary"]["runs"] == 7 and doc["summary"]["group_by"] == "meta.model"
    assert doc["runs"][0]["source"] == "evals/traces/a.jsonl:1"


def test_paths_are_relative_to_the_file_not_the_current_folder(repo, monkeypatch):
    (repo / "pyproject.toml").write_text(PYPROJECT)
    (repo / "deep" / "er").mkdir(parents=True)
    monkeypatch.chdir(repo / "deep" / "er")
    result = invoke("score", "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["runs"][0]["source"] == "../../evals/traces/a.jsonl:1"


def test_a_flag_wins_over_the_file(repo):
    (repo / "pyproject.toml").write_text(PYPROJECT + "fail_above = 0.1\n")
    assert invoke("score").exit_code == 1  # 57% fail: the file's threshold is crossed
    assert invoke("score", "--fail-above", "0.9").exit_code == 0
    one = repo / "one.jsonl"
    one.write_text((repo / "evals" / "traces" / "a.jsonl").read_text().splitlines()[0] + "\n")
    doc = json.loads(invoke("score", str(one), "-f", "json").stdout)
    assert doc["summary"]["runs"] == 1  # the argument, not the file's traces


def test_traces_may_be_a_list(repo):
    (repo / "more.jsonl").write_text(
        (repo / "evals" / "traces" / "a.jsonl").read_text().splitlines()[0] + "\n"
    )
    (repo / "evalrun.toml").write_text(
        'tools = "evals/tools"\ncases = "evals/cases"\ntraces = ["evals/traces", "more.jsonl"]\n'
        "jobs = 2\n"
    )
    doc = json.loads(invoke("score", "-f", "json").stdout)
    assert doc["summary"]["runs"] == 8


def test_unknown_keys_are_refused_naming_the_file(repo):
    (repo / "pyproject.toml").write_text(PYPROJECT + 'trace-format = "native"\n')
    result = invoke("score")
    assert result.exit_code == 2
    assert "pyproject.toml [tool.evalrun]: unknown key 'trace-format'" in result.output
    assert "(did you mean 'trace_format'?)" in result.output
    (repo / "pyproject.toml").write_text(PYPROJECT + "colour = true\n")
    result = invoke("lint")
    assert result.exit_code == 2 and "unknown key 'colour';" in result.output


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("fail_above = 2", "fail_above must be a rate between 0 and 1, not 2"),
        ("jobs = 0", "jobs must be a whole number of processes"),
        ("traces = []", "traces must be a path or a list of paths"),
        ("tools = 3", "tools must be a path, not 3"),
    ],
)
def test_wrong_values_are_refused(repo, line, says):
    (repo / "evalrun.toml").write_text(line + "\n")
    result = invoke("score")
    assert result.exit_code == 2 and says in result.output


def test_not_toml_is_refused(repo):
    (repo / "evalrun.toml").write_text("tools = \n")
    result = invoke("score")
    assert result.exit_code == 2 and "evalrun.toml: not valid TOML" in result.output


def test_the_nearest_file_that_configures_evalrun_wins(tmp_path):
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    (tmp_path / "evalrun.toml").write_text('tools = "t"\n')
    (tmp_path / "a" / "pyproject.toml").write_text("[tool.ruff]\nline-length = 99\n")
    (tmp_path / "a" / "b" / "pyproject.toml").write_text('[tool.evalrun]\ncases = "cases"\n')
    start = tmp_path / "a" / "b" / "c"
    assert find(start) == tmp_path / "a" / "b" / "pyproject.toml"
    assert discover(start).values == {"cases": "../cases"}
    # a pyproject.toml without [tool.evalrun] does not count: the search goes on above it
    assert find(tmp_path / "a") == tmp_path / "evalrun.toml"
    assert load(tmp_path / "evalrun.toml", cwd=tmp_path / "a").values == {"tools": "../t"}


def test_two_files_in_one_folder_are_an_error(tmp_path):
    (tmp_path / "evalrun.toml").write_text('tools = "t"\n')
    (tmp_path / "pyproject.toml").write_text('[tool.evalrun]\ncases = "c"\n')
    with pytest.raises(InputError, match="configure evalrun: keep the settings in one"):
        find(tmp_path)


def test_no_file_no_settings(tmp_path):
    assert discover(tmp_path) is None


def test_help_shows_the_settings_as_defaults(repo):
    (repo / "pyproject.toml").write_text(PYPROJECT)
    result = invoke("score", "--help")
    assert result.exit_code == 0 and "evals/tools" in result.output
    # the traces argument's help says its default in words: the settings' value replaces it
    said = one_line(result.output)
    assert "Default: evals/traces (the settings)" in said and "Default: traces/" not in said


GATES = """\
[tool.evalrun]
fail_on_suspect = true
fail_on_case_regression = true
fail_above_delta = 0.05
group_by = "model"
trace_format = "anthropic"
"""


@pytest.mark.parametrize(
    ("command", "shown", "plain"),
    [
        (
            "score",
            [
                "--fail-on-suspect / --no-fail-on-suspect",
                "[default: fail-on-suspect]",
                "[default: model]",
                "[default: anthropic]",
            ],
            ["[default: no-fail-on-suspect]"],
        ),
        (
            "diff",
            [
                "[default: fail-on-case-regression]",
                "[default: fail-on-suspect]",
                "[default: 0.05]",
                "[default: model]",
                "[default: anthropic]",
            ],
            [
                "[default: no-fail-on-case-regression]",
                "[default: no-fail-on-suspect]",
            ],
        ),
    ],
)
def test_help_shows_the_gates_and_groups_the_settings_turn_on(
    tmp_path, monkeypatch, command, shown, plain
):
    """--help said `[default: no-fail-on-suspect]` under `fail_on_suspect = true` (typer shows
    a flag's own default), and nothing for --group-by or --fail-above-delta set in the file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()  # the settings search stops here

    def help_of() -> str:
        return one_line(CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"}).stdout)

    before = help_of()
    (tmp_path / "pyproject.toml").write_text(GATES)
    configured = help_of()
    for text in shown:
        assert text in configured
    for text in plain:
        assert text not in configured and text in before
    (tmp_path / "pyproject.toml").unlink()
    assert help_of() == before  # the next invocation's help is its own


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="git")
def test_diff_of_two_commits_reads_the_evals_folder_the_settings_name(repo, monkeypatch):
    (repo / "pyproject.toml").write_text(PYPROJECT)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "one")
    tools = repo / "evals" / "tools" / "billing.json"
    tools.write_text(tools.read_text().replace('"x-eval-norm": "month"', '"description": "m"'))
    _git(repo, "commit", "-qam", "two: no month rule")
    (repo / "sub").mkdir()
    for where in (repo, repo / "sub"):
        monkeypatch.chdir(where)
        result = invoke("diff", "HEAD~1", "HEAD", "-f", "json")
        assert result.exit_code == 0, result.output
        d = json.loads(result.stdout)
        assert d["old"]["kind"] == d["new"]["kind"] == "revision"
        assert d["pairing"] == "run_id" and d["flips"], where
        html = invoke("diff", "HEAD~1", "HEAD", "-f", "html")
        assert html.exit_code == 0 and html.stdout.startswith("<!doctype html>")


@pytest.mark.parametrize("command", ["score", "diff"])
def test_help_shows_a_setting_s_control_characters_as_escapes(tmp_path, monkeypatch, command):
    """A value from the settings file is data: `--help` printed `tools = "\\u001b]0;x\\u0007"`
    raw, which retitles the window (click strips only colour codes, and only off a terminal)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "evalrun.toml").write_text(
        'tools = "t\\u001b]0;x\\u0007"\ntraces = ["r\\u202e"]\ngroup_by = "g\\u009b2J"\n'
    )
    result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    shown = one_line(result.stdout)
    assert not any(c in result.stdout for c in "\x1b\x07\u202e\x9b")
    assert "[default: t\\x1b]0;x\\x07]" in shown and "[default: g\\x9b2J]" in shown
    if command == "diff":
        assert "[default: r\\u202e]" in shown
