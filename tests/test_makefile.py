"""The two set-up commands (issue 13.8): a .venv made by a Python evalrun cannot use is rebuilt,
not kept failing until `make clean`; `make run` installs only what running needs."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make here")


def dry_run(cwd: Path, target: str) -> str:
    """`make -n TARGET` with the repository's Makefile, in `cwd` (its .venv is the one looked at)."""
    (cwd / "pyproject.toml").touch()  # what the install stamps depend on
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    done = subprocess.run(
        ["make", "-n", "-f", str(ROOT / "Makefile"), target],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.stdout + done.stderr


def test_a_venv_made_by_an_unusable_python_is_rebuilt(tmp_path):
    broken = tmp_path / ".venv" / "bin"
    broken.mkdir(parents=True)
    (broken / "python").symlink_to(tmp_path / "a-python-that-was-removed")
    (tmp_path / ".venv" / ".installed-run").touch()
    out = dry_run(tmp_path, "run")
    assert "rebuilding it" in out
    assert not (tmp_path / ".venv").exists()  # gone, so the run below creates it anew
    assert "-m venv .venv" in out


def test_a_usable_venv_is_kept(tmp_path):
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = shutil.which("python3")
    assert python is not None
    (bin_dir / "python").symlink_to(python)
    out = dry_run(tmp_path, "run")
    assert "rebuilding" not in out
    assert (tmp_path / ".venv").exists()


def test_make_run_installs_what_running_needs_and_make_test_the_rest(tmp_path):
    run = dry_run(tmp_path, "run")
    assert "pip install --quiet -e ." in run and "[dev]" not in run
    test = dry_run(tmp_path, "test")
    assert "pip install --quiet -e '.[dev]'" in test


def test_make_fixtures_drives_each_own_venv_framework_in_its_own_venv(tmp_path):
    """The frameworks scripts/framework_traces.py lists in OWN_VENV each get a venv of their own
    with their extra (frameworks-NAME in pyproject.toml), and run there by name; the others run
    in .venv/frameworks."""
    import importlib.util

    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    spec = importlib.util.spec_from_file_location("ft", ROOT / "scripts" / "framework_traces.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    out = dry_run(tmp_path, "fixtures")
    assert "pip install --quiet -e '.[frameworks]'" in out
    assert ".venv/frameworks/bin/python scripts/framework_traces.py\n" in out
    for name in script.OWN_VENV:
        assert name in script.FRAMEWORKS and f"frameworks-{name}" in extras
        assert f"pip install --quiet -e '.[frameworks-{name}]'" in out
    assert f"for f in {' '.join(script.OWN_VENV)}; do .venv/frameworks-$f/bin/python" in out
