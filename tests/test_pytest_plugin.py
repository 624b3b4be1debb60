"""The pytest plugin, run in a real pytest session (pytester): off until asked for, its fixture
reading tools and cases from the settings, its summary saying reported vs true."""

from __future__ import annotations

import re
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


@pytest.mark.parametrize("started_in", [".", "tests", "tests/agent"])
def test_settings_paths_hold_wherever_pytest_is_started(
    project: pytest.Pytester, started_in: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The settings' paths are relative to the settings' folder: started in a subfolder (as an
    editor's test runner does), the plugin looked for tools/ under that subfolder and failed
    every test with "tools directory not found"."""
    (project.path / "evals").mkdir()
    shutil.move(project.path / "tools", project.path / "evals" / "tools")
    shutil.move(project.path / "cases", project.path / "evals" / "cases")
    project.makepyprojecttoml(
        '[tool.evalrun]\npytest = true\ntools = "evals/tools"\ncases = "evals/cases"\n'
    )
    tests = project.path / "tests" / "agent"
    tests.mkdir(parents=True)
    shutil.move(project.path / "test_agent.py", tests / "test_agent.py")
    monkeypatch.chdir(project.path / started_in)
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["2 runs graded: *"])


def test_the_fixture_raises_no_pytest_deprecation(project: pytest.Pytester) -> None:
    """pytest 9 deprecates a session fixture defined as an instance method: the plugin's fixture
    was one, and every session that used it warned (PytestRemovedIn10Warning)."""
    result = project.runpytest("-p", "evalrun", "-W", "error::pytest.PytestRemovedIn10Warning")
    result.assert_outcomes(passed=1, failed=1)
    assert "PytestRemovedIn10Warning" not in result.stdout.str()


def test_the_readme_example(pytester: pytest.Pytester) -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    section = readme[readme.index("## In your test suite") : readme.index("## Settings")]
    code = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    examples = Path(__file__).parent.parent / "examples" / "integrations"
    (pytester.path / "tools").mkdir()
    shutil.copy(examples / "tools.json", pytester.path / "tools")
    shutil.copytree(examples / "cases", pytester.path / "cases")
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_agent=code)
    result = pytester.runpytest("-p", "evalrun")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["1 runs graded: reported failures 1 (100%), true failures 0 (0%)"])


# The README's `agent_calls`: what an agent under test would return (OpenAI tool_calls).
CONFTEST = """
import json
import pytest

@pytest.fixture
def agent_calls():
    def run(question):
        args = {"city": "paris", "unit": "celsius"}
        return [{"id": "call_1", "type": "function",
                 "function": {"name": "get_weather", "arguments": json.dumps(args)}}]
    return run
"""
