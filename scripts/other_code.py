"""How a measurement script runs another checkout's evalrunner (`--code DIR`), and says which it ran.

`PYTHONPATH=DIR` alone does not do: the editable install's import hook (a .pth file) maps
`evalrunner` to this checkout whatever the path says. Without site (`python -S`) no .pth file
runs, and the dependencies come from site-packages, named on the path after the other code.
"""

from __future__ import annotations

import os
import site
import subprocess
import sys
import tempfile
from pathlib import Path


def interpreter(code: str | None) -> tuple[list[str], dict[str, str]]:
    """The command that starts Python, and its environment: this checkout's code, or `code`'s."""
    env = dict(os.environ)
    if not code:
        return [sys.executable], env
    env["PYTHONPATH"] = os.pathsep.join([str(Path(code).resolve()), *site.getsitepackages()])
    return [sys.executable, "-S"], env


def which(python: list[str], env: dict[str, str], module: str = "evalrunner") -> str:
    """The file `module` is imported from by `python` in `env` (outside any checkout)."""
    done = subprocess.run(
        [*python, "-c", f"import {module} as m; print(m.__file__)"],
        env=env,
        cwd=tempfile.gettempdir(),
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()
