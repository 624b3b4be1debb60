"""The pytest plugin, run in a real pytest session (pytester): off until asked for, its fixture
reading tools and cases from the settings, its summary saying reported vs true."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

DATA = Path(__file__).parent / "data" / "case_formats"

TEST = """
def test_equivalent(evalrun):
    evalrun.assert_calls([{"tool": "get_weather", "args": {"city": "paris"}}], "mlf-oslo-ish")

def test_fails(evalrun):
    evalrun.assert_calls([{"tool": "get_weather", "args": {"city": "Rome"}}], "mlf-oslo-ish")
"""
CASES = '{"id": "mlf-oslo-ish", "accept": [[{"tool": "get_weather", "args": {"city": "Paris"}}]]}\n'


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    shutil.copytree(DATA / "tools", pytester.path / "tools")
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "c.jsonl").write_text(CASES)
    pytester.makepyfile(test_agent=TEST)
    return pytester


def test_off_unless_asked(project: pytest.Pytester) -> None:
    result = project.runpytest()
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*fixture 'evalrun' not found*"])
    assert "reported vs true" not in result.stdout.str()


def test_on_with_p_evalrun(project: pytest.Pytester) -> None:
    result = project.runpytest("-p", "evalrun")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*evalrun: reported vs true*",
            "2 runs graded: reported failures 2 (100%), true failures 1 (50%)",
            "false failures 1, false passes 0",
            "shapes: encoding 1",
        ]
    )
    result.stdout.fnmatch_lines(['*city: "Rome" → "rome" ≠ "Paris" → "paris" (rule casefold)*'])


def test_on_from_settings_with_their_paths(project: pytest.Pytester) -> None:
    (project.path / "evals").mkdir()
    shutil.move(project.path / "tools", project.path / "evals" / "tools")
    shutil.move(project.path / "cases", project.path / "evals" / "cases")
    project.makepyprojecttoml(
        '[tool.evalrun]\npytest = true\ntools = "evals/tools"\ncases = "evals/cases"\n'
    )
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["2 runs graded: *"])
