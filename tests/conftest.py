"""What the tests share: running the CLI, scoring a folder, the corpora in tests/data/, and the one
hypothesis set-up.

Hypothesis has two profiles, chosen by EVALRUN_HYPOTHESIS: `quick` (the default, `make test`) and
`thorough` (`make fuzz`, or a nightly run). A test that needs fewer examples because each one is
expensive says so with `@EXPENSIVE`, a fraction of the profile's count, never a number of its
own; the fuzz targets use `@FUZZ`, whose count EVALRUN_FUZZ_EXAMPLES overrides.

In CI (CI set) the draws are the same on every run (`derandomize`): a law that a random draw
breaks is found on a developer's machine or by `make fuzz`, and reproduced there, rather than
failing one CI run of a change that did not cause it. Locally the draws stay random.
The integrations venv (`make integrations`) has no hypothesis: there the profiles are not needed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from typer.testing import CliRunner, Result

from evalrunner.cli import app

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
# the scenario every framework's fixture records (tools.json, cases.json, <framework>-<form>.jsonl)
FRAMEWORKS = DATA / "frameworks"


def invoke(
    *args: str | Path, input: str | bytes | None = None, env: dict[str, str] | None = None
) -> Result:
    """`evalrun ARGS...` in process; paths may be given as Path."""
    return CliRunner().invoke(app, [str(a) for a in args], input=input, env=env)


def score_json(
    traces: str | Path,
    *args: str,
    tools: str | Path,
    cases: str | Path,
    exit_code: int = 0,
    input: str | bytes | None = None,
) -> dict[str, Any]:
    """`evalrun score TRACES --format json`: the results document, the exit code checked."""
    argv = ["score", traces, "--tools", tools, "--cases", cases, "--format", "json", *args]
    result = invoke(*argv, input=input)
    assert result.exit_code == exit_code, result.output
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


def score_folder(folder: Path, *args: str, exit_code: int = 0) -> dict[str, Any]:
    """Score a project folder laid out as `tools/`, `cases/`, `traces/`."""
    return score_json(
        folder / "traces",
        *args,
        tools=folder / "tools",
        cases=folder / "cases",
        exit_code=exit_code,
    )


def score_fixture(path: str | Path, *args: str, exit_code: int = 0) -> dict[str, Any]:
    """Score traces against the frameworks' scenario (tests/data/frameworks/)."""
    return score_json(
        path,
        *args,
        tools=FRAMEWORKS / "tools.json",
        cases=FRAMEWORKS / "cases.json",
        exit_code=exit_code,
    )


def one_line(text: str) -> str:
    """Text with its whitespace runs made single spaces: a message as said, however a table or
    the terminal's width wrapped it."""
    return " ".join(text.split())


try:
    from hypothesis import HealthCheck, settings
except ImportError:  # the integrations venv: none of its tests draws examples
    pass
else:
    PROFILES = {"quick": 100, "thorough": 1000}
    PROFILE = os.environ.get("EVALRUN_HYPOTHESIS", "quick")
    if PROFILE not in PROFILES:
        raise SystemExit(f"EVALRUN_HYPOTHESIS={PROFILE!r}: choose one of {sorted(PROFILES)}")
    for name, examples in PROFILES.items():
        settings.register_profile(name, max_examples=examples, deadline=None)
    settings.load_profile(PROFILE)
    if os.environ.get("CI"):
        parent = settings.get_profile(PROFILE)
        settings.register_profile("ci", parent, derandomize=True, print_blob=True)
        settings.load_profile("ci")

    # Tests whose every example scores a corpus or spawns work: a fifth of the profile's count.
    EXPENSIVE = settings(max_examples=max(10, settings.default.max_examples // 5))
    # The fuzz targets: 150 inputs a target in the quick profile (the same every time), 20,000 in
    # the thorough one; EVALRUN_FUZZ_EXAMPLES overrides both.
    FUZZ_EXAMPLES = int(
        os.environ.get("EVALRUN_FUZZ_EXAMPLES", "150" if PROFILE == "quick" else "20000")
    )
    FUZZ = settings(
        max_examples=FUZZ_EXAMPLES,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        derandomize=FUZZ_EXAMPLES <= 150,  # the short pass in make test is the same every time
    )
