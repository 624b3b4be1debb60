"""A new user's first hour (issue 13): CI that cannot go green on nothing, typos that cannot hide,
messages that say what to fix. CliRunner on real files; each test failed before its fix."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app
from evalrunner.write import wording
from tests.conftest import one_line

DATA = Path(__file__).parent / "data" / "cli"
BASE = ["--tools", str(DATA / "tools"), "--cases", str(DATA / "cases")]
RUN = (DATA / "traces" / "a.jsonl").read_text().splitlines()[0]


def score(*args: str):
    return CliRunner().invoke(app, ["score", *BASE, *args], env={"COLUMNS": "200", "NO_COLOR": "1"})


# ----------------------------------------------------------------------- green on nothing


def test_an_empty_folder_is_exit_2_even_with_a_threshold(tmp_path):
    result = score(str(tmp_path), "--fail-above", "0.1")
    assert result.exit_code == 2
    assert "no run was scored: no trace file was found" in one_line(result.stderr)


def test_a_folder_of_json_files_names_each_and_exits_2(tmp_path):
    (tmp_path / "runs.json").write_text(json.dumps([json.loads(RUN)]))
    (tmp_path / "notes.txt").write_text("hello")
    result = score(str(tmp_path), "--format", "json")
    assert result.exit_code == 2
    err = one_line(result.stderr)
    assert (
        f"warning: {tmp_path / 'runs.json'}: a .json file, not read: traces are JSON Lines" in err
    )
    assert f"warning: {tmp_path / 'notes.txt'}: not a trace file" in err
    doc = json.loads(result.stdout)  # the document is still written, and says the same
    assert doc["warnings"] == [
        f"{tmp_path / 'notes.txt'}: not a trace file (.jsonl or .jsonl.gz), not read",
        f"{tmp_path / 'runs.json'}: a .json file, not read: traces are JSON Lines (.jsonl, one "
        "record a line); rename it to .jsonl, or name the file itself to read it",
    ]


def test_a_json_file_named_explicitly_is_read(tmp_path):
    """Named on the command line, a pretty-printed array of runs is read record by record."""
    records = [json.loads(RUN), {**json.loads(RUN), "run_id": "r9"}]
    (tmp_path / "runs.json").write_text(json.dumps(records, indent=2))
    result = score(str(tmp_path / "runs.json"), "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [(r["run_id"], r["source"]) for r in doc["runs"]] == [
        ("r1", f"{tmp_path / 'runs.json'}:2"),
        ("r9", f"{tmp_path / 'runs.json'}:27"),  # the line its object opens on
    ]


def test_a_file_whose_every_line_is_unscoreable_is_exit_2(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"case_id": "nope", "calls": []}\nnot json\n')
    result = score(str(tmp_path))
    assert result.exit_code == 2
    assert (
        f"no run was scored: read 1 trace file(s), 2 record(s), none of them a run that can be "
        f"scored, e.g. {tmp_path / 'a.jsonl'}:1: unknown case 'nope'" in one_line(result.stderr)
    )


def test_strict_on_an_empty_file_is_exit_2(tmp_path):
    (tmp_path / "a.jsonl").write_text("\n\n")
    result = score(str(tmp_path), "--strict")
    assert result.exit_code == 2
    assert "read 1 trace file(s), 0 record(s); the files are empty" in one_line(result.stderr)


def test_strict_names_itself(tmp_path):
    (tmp_path / "a.jsonl").write_text(RUN + "\nnot json\n")
    result = score(str(tmp_path), "--strict")
    assert result.exit_code == 2
    assert "error: --strict: 1 trace record could not be scored" in one_line(result.stderr)


# ----------------------------------------------------------------------- unknown tools


def test_a_case_step_naming_an_unknown_tool_is_a_warning(tmp_path):
    shutil.copytree(DATA, tmp_path / "d")
    cases = tmp_path / "d" / "cases" / "more.jsonl"
    step = {"tool": "serach_invoices", "args": {}}
    cases.write_text(json.dumps({"id": "typo", "accept": [[step]]}) + "\n")
    result = CliRunner().invoke(
        app,
        [
            *("score", str(tmp_path / "d" / "traces"), "--format", "json"),
            *("--tools", str(tmp_path / "d" / "tools"), "--cases", str(tmp_path / "d" / "cases")),
        ],
    )
    assert result.exit_code == 0, result.output
    expected = (
        "case 'typo': accept[0][0] calls 'serach_invoices', which no tool schema defines; "
        "did you mean 'search_invoices'?"
    )
    assert f"warning: {expected}" in one_line(result.stderr)
    assert json.loads(result.stdout)["warnings"] == [expected]


# ----------------------------------------------------------------------- messages and flags


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("39", "--fail-above takes a fraction from 0 to 1, not 39: for 39%, write 0.39"),
        ("-0.5", "--fail-above takes a fraction from 0 to 1, not -0.5"),
    ],
)
def test_fail_above_takes_a_fraction(value, message):
    result = score(str(DATA / "traces"), "--fail-above", value)
    assert result.exit_code == 2
    assert f"error: {message}" in one_line(result.stderr)


def test_fail_above_shows_the_digits_that_differ(tmp_path):
    # 4 true failures of 7 runs: 57.142857...% against 57.14%
    result = score(str(DATA / "traces"), "--fail-above", "0.5714")
    assert result.exit_code == 1
    assert "true run failure rate 57.143% is above --fail-above 57.140%" in one_line(result.stderr)


def test_limit_without_show_is_refused():
    result = score(str(DATA / "traces"), "--limit", "3")
    assert result.exit_code == 2
    assert "--limit counts the runs --show lists: add --show" in one_line(result.stderr)


def test_a_missing_path_is_named_as_a_file_or_directory(tmp_path):
    result = score(str(tmp_path / "nothere.jsonl"))
    assert result.exit_code == 2
    assert "trace file or directory" in result.stderr and "traces directory" not in result.stderr


def test_a_flag_given_a_value_says_flags_take_none():
    result = score(str(DATA / "traces"), "--strict", "true")
    assert result.exit_code == 2
    assert "flags such as --strict take no value" in one_line(result.stderr)


def test_boolean_flags_show_as_flags_and_there_is_a_version():
    help_text = CliRunner().invoke(app, ["score", "--help"], env={"COLUMNS": "100"}).stdout
    assert "--strict " in help_text and "<bool>" not in help_text
    version = CliRunner().invoke(app, ["--version"])
    assert version.exit_code == 0 and version.stdout.startswith("evalrun 0.")


def test_an_empty_tools_folder_is_unusable_input(tmp_path):
    """Scoring without a single tool would drop every rule, default and repeatable tool and
    report a failure rate that means nothing: exit 2, saying what to set."""
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "README.md").write_text("the schemas live elsewhere")
    data = Path(__file__).parent / "data" / "cli"
    result = CliRunner().invoke(
        app,
        [
            "score",
            str(data / "traces"),
            "--tools",
            str(tmp_path / "tools"),
            "--cases",
            str(data / "cases"),
        ],
    )
    assert result.exit_code == 2
    assert "no tool is defined in" in result.stderr and "set --tools" in result.stderr


FIRST = Path(__file__).parent / "data" / "scenarios" / "first_contact"


def _first_contact(*extra: str) -> str:
    result = CliRunner().invoke(
        app,
        [
            "score",
            str(FIRST / "traces"),
            "--tools",
            str(FIRST / "tools"),
            "--cases",
            str(FIRST / "cases"),
            *extra,
        ],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    return result.stdout


def test_few_rules_make_the_headline_a_lower_bound_that_names_suggest(tmp_path):
    """Rules cover 1 of 8 calls: the false-failure count is what the declared rules find, and
    the next line names `evalrun suggest` with the failing calls a built-in rule would absorb
    (d2 casefold, l1 instant, l2 unordered_list; not l4, whose value breaks its schema's
    format, nor d3 and l3, which name another deployment and service)."""
    lower = (
        "Of 7 runs exact-match failed, the declared rules find 1 correct (false failures): a "
        "lower bound, since the tools that declare rules carry only 12.5% of calls"
    )
    then = (
        "Run `evalrun suggest`: 3 failing calls differ from their step only where a built-in "
        "rule would absorb the difference."
    )
    table = _first_contact()
    assert lower in table and then in table
    markdown = _first_contact("--format", "markdown")
    assert lower in markdown and "**Run \\`evalrun suggest\\`: 3 failing calls" in markdown
    page = tmp_path / "r.html"
    _first_contact("--format", "html", "--output", str(page))
    text = page.read_text()
    assert lower in text and "Run `evalrun suggest`: 3 failing calls" in text
    doc = json.loads(_first_contact("--format", "json"))
    assert doc["summary"]["coverage"]["absorbable_calls"] == 3


def test_with_rules_on_most_calls_the_headline_states_a_fact():
    summary = {
        "runs": 10,
        "reported": {"failed_runs": 4},
        "verdicts": {"false_failure": 2, "false_pass": 0, "fail": 2},
        "coverage": {"call_share_with_norms": 0.5, "absorbable_calls": 9},
    }
    assert wording.headline(summary) == (
        "Of 4 runs exact-match failed, 2 were correct (false failures); of 6 it passed, 0 were "
        "wrong (false passes). 2 runs failed both checks."
    )
    assert wording.suggest_line(summary) is None
