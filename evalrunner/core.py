"""Which core runs the hot pure functions: the native extension or the Python reference.

The native core is the PyO3 extension module `evalrun_native` (native/, built by `make run` and
`make test` when cargo is there). It ports, exactly, `jsonvalue.canon_key`, `jsonvalue.json_eq`,
the line scan of `traces.native.decode` and the normalizing walk of `grade.compare.normalize`
(`ToolPlan.key`); the Python functions stay the reference and the fallback, and
tests/test_native_core.py holds the two to the same results.

`EVALRUN_CORE=python` uses the Python core; `EVALRUN_CORE=native` requires the extension (a
command that cannot load it ends with exit 2, saying why); unset, the native core when it
imports, else the Python one. An extension built from other sources than these (`CORE_VERSION`
differs: a stale build) counts as not importable.

Imports nothing of evalrun's and is cheap when the extension is missing, so that `--version`
can say which core is active.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Final

ENV: Final = "EVALRUN_CORE"
CORE_VERSION: Final = 1
"""The `evalrun_native.CORE_VERSION` these Python sources expect."""


def _choose() -> tuple[ModuleType | None, str | None]:
    wanted = os.environ.get(ENV, "").strip().lower()
    if wanted not in ("", "native", "python"):
        return None, f"{ENV} is {os.environ[ENV]!r}: use native, python, or leave it unset"
    if wanted == "python":
        return None, None
    try:
        import evalrun_native
    except ImportError as e:
        if wanted == "native":
            return None, (
                f"{ENV}=native, but the native core cannot be imported ({e}): build it with "
                "`make run` (needs cargo), or set EVALRUN_CORE=python"
            )
        return None, None
    found = getattr(evalrun_native, "CORE_VERSION", None)
    if found != CORE_VERSION:
        if wanted == "native":
            return None, (
                f"{ENV}=native, but the installed native core is version {found}, not "
                f"{CORE_VERSION} (built from other sources): rebuild it with `make run`"
            )
        return None, None
    return evalrun_native, None


NATIVE, PROBLEM = _choose()
"""The extension module when the native core is active, else None; why the core asked for
cannot be used (then the Python core runs, and the command line stops with exit 2)."""
NAME: Final = "native" if NATIVE is not None else "python"


def describe() -> str:
    """The active core, as `evalrun --version` says it."""
    if PROBLEM is not None:
        return f"core: none usable ({PROBLEM})"
    return f"core: {NAME}"
