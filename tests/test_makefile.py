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
