"""The pytest plugin: an `evalrun` fixture, and reported vs true for the session at the end.

Installed with evalrun (entry point `pytest11`, name `evalrun`) but off until asked for: with
`pytest -p evalrun`, or `pytest = true` in `[tool.evalrun]` (pyproject.toml) or evalrun.toml.
The fixture reads tools and cases where the settings say (`tools`, `cases`, `case_format`;
default `tools/` and `cases/` beside the settings file, else the root folder):

    def test_refund(evalrun, agent):
        evalrun.assert_calls(agent.run("refund Dana's March charge"), "refund-dana-march")

and the terminal summary says how many of the session's runs exact-match would have failed, how
many truly fail, and how many are false failures or false passes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .grade.grader import RunResult
from .grade.norms import Normalizer, load_registry
from .jsonvalue import MISSING
from .model import Case, InputError, Tool
from .read.cases import load_cases
from .read.settings import discover
from .read.tools import load_tools
from .testing import CaseArg, explanation, grade_calls

NAME = "evalrun"


@dataclass
class Evalrun:
    """What the `evalrun` fixture gives a test: the tools and cases, and grading that counts."""

    tools_path: Path
    cases_path: Path
    case_format: str = "auto"
    plugins: tuple[str, ...] = ()
    """The settings' local normalizer modules (`plugins`), imported when the first run is graded."""
    results: list[RunResult] = field(default_factory=list)
    _registry: dict[str, Normalizer] | None = None
    _tools: dict[str, Tool] | None = None
    _cases: dict[str, Case] | None = None

    @property
    def tools(self) -> dict[str, Tool]:
        if self._tools is None:
            self._tools = load_tools(self.tools_path)
        return self._tools

    @property
    def cases(self) -> dict[str, Case]:
        if self._cases is None:
            self._cases = load_cases(self.cases_path, case_format=self.case_format)
        return self._cases

    @property
    def registry(self) -> dict[str, Normalizer]:
        if self._registry is None:
            self._registry = load_registry(self.plugins)
        return self._registry

    def _grade(self, calls: Any, case: CaseArg, world: Any) -> RunResult:
        return grade_calls(
            calls, case, tools=self.tools, cases=self.cases, world=world, registry=self.registry
        )

    def grade(self, calls: Any, case: CaseArg, *, world: Any = MISSING) -> RunResult:
        """The run's verdicts (counted in the session's summary), without asserting."""
        result = self._grade(calls, case, world)
        self.results.append(result)
        return result

    def assert_calls(self, calls: Any, case: CaseArg, *, world: Any = MISSING) -> RunResult:
        """`evalrunner.testing.assert_calls` with the session's tools and cases, counted."""
        result = self._grade(calls, case, world)
        self.results.append(result)
        if not result.true_pass:
            raise AssertionError(explanation(result))
        return result


def summary_lines(results: list[RunResult]) -> list[str]:
    """The session's reported vs true, as the terminal summary prints it."""
    n = len(results)
    if n == 0:
        return ["no run graded"]
    reported = sum(1 for r in results if not r.reported_pass)
    true = sum(1 for r in results if not r.true_pass)
    verdicts = Counter(r.verdict for r in results)
    shapes = Counter(s for r in results for s in r.shapes)
    lines = [
        f"{n} runs graded: reported failures {reported} ({reported / n:.0%}), "
        f"true failures {true} ({true / n:.0%})",
        f"false failures {verdicts['false_failure']}, false passes {verdicts['false_pass']}",
    ]
    if shapes:
        lines.append("shapes: " + ", ".join(f"{s} {c}" for s, c in sorted(shapes.items())))
    return lines


def session_plugin(session: Evalrun) -> ModuleType:
    """What `pytest_configure` registers when the plugin is on: the `evalrun` fixture and the
    terminal summary. A module, not an instance holding them: pytest 9 deprecates a session
    fixture bound to an instance (a PytestRemovedIn10Warning in every session that used it)."""
    plugin = ModuleType("evalrunner.pytest_plugin.session")

    @pytest.fixture(scope="session", name=NAME)
    def evalrun() -> Evalrun:
        """evalrun's grading with the tools and cases of the settings."""
        return session

    def pytest_terminal_summary(terminalreporter: Any) -> None:
        terminalreporter.write_sep("=", "evalrun: reported vs true")
        for line in summary_lines(session.results):
            terminalreporter.write_line(line)

    plugin.evalrun = evalrun  # type: ignore[attr-defined]
    plugin.pytest_terminal_summary = pytest_terminal_summary  # type: ignore[attr-defined]
    return plugin


def _asked(config: pytest.Config) -> bool:
    plugins = getattr(config.known_args_namespace, "plugins", None) or []
    return NAME in plugins or f"{__name__}" in plugins


def pytest_configure(config: pytest.Config) -> None:
    asked = _asked(config)
    try:
        settings = discover(Path(config.rootpath))
    except InputError as e:
        if asked:
            raise pytest.UsageError(f"evalrun: {e}") from None
        return  # a broken settings file is evalrun's to report, not every pytest run's
    on = asked or bool(settings is not None and settings.values.get("pytest"))
    if not on:
        return
    values = settings.values if settings is not None else {}
    # discover() gives the settings' paths relative to the folder it started from, the root
    # folder (read.settings), wherever pytest was started
    base = Path(config.rootpath)
    session = Evalrun(
        tools_path=base / values.get("tools", Path(config.rootpath) / "tools"),
        cases_path=base / values.get("cases", Path(config.rootpath) / "cases"),
        case_format=values.get("case_format", "auto"),
        plugins=tuple(values.get("plugins", ())),
    )
    config.pluginmanager.register(session_plugin(session), "evalrun-session")
