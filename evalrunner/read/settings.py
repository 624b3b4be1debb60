"""The project's evalrun settings: `[tool.evalrun]` in `pyproject.toml`, or `evalrun.toml`.

The common options can be set once, for every command, in the nearest file that configures
evalrun, looked for from the current folder upwards, up to the repository's root:

    [tool.evalrun]                # pyproject.toml (in evalrun.toml: the same keys, top level)
    tools = "evals/tools"
    cases = "evals/cases"
    traces = ["evals/traces", "evals/more.jsonl"]   # a path or a list of paths
    group_by = "meta.model"
    fail_above = 0.15
    fail_on_case_regression = true    # diff's gates: fail_above_delta, fail_on_suspect, …

Rules: in each folder `evalrun.toml` is read before `pyproject.toml`, and a folder where both
configure evalrun is an error (one place to look); a `pyproject.toml` without `[tool.evalrun]`
does not count, so the search goes on above it. Paths in the file are relative to the file's
folder. A flag always wins over the file. An unknown key, or a value of the wrong type, is an
error that names the file (exit 2), with "did you mean" for a near miss.
"""

from __future__ import annotations

import difflib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model import InputError
from ..scoring import MAX_JOBS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover (Python 3.10)
    import tomli as tomllib

FILES = ("evalrun.toml", "pyproject.toml")
"""Looked for in each folder, in this order."""


def _path(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _paths(value: Any) -> list[str] | None:
    if isinstance(value, str) and value:
        return [value]
    if isinstance(value, list) and value and all(_path(v) for v in value):
        return list(value)
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _rate(value: Any) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1
    return float(value) if ok else None


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _jobs(value: Any) -> str | None:
    if value == "auto":
        return "auto"
    ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_JOBS
    return str(value) if ok else None


def _as_written(value: Any) -> str:
    """A settings value as TOML writes it (`true`, `"4"`, `[1, 2]`), not as Python prints it
    (`True`): the user wrote the file, and a message should quote it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_as_written(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_as_written(v)}" for k, v in value.items()) + "}"
    return str(value)


@dataclass(frozen=True)
class Key:
    """A setting: how its value is checked (None when it is not valid), and what it must be."""

    read: Callable[[Any], Any]
    wants: str
    path: bool = False
    """A path (or paths): relative to the file's folder."""


KEYS: dict[str, Key] = {
    "tools": Key(_path, "a path", path=True),
    "cases": Key(_path, "a path", path=True),
    "traces": Key(_paths, "a path or a list of paths", path=True),
    "trace_format": Key(_text, "a trace format's name (auto, native, openai-chat, …)"),
    "case_format": Key(_text, "a case format's name (auto, native, adk, bfcl, …)"),
    "pytest": Key(_flag, "true or false: the pytest plugin is on without -p evalrun"),
    "case_key": Key(_text, "a dotted path (metadata.case_id)"),
    "run_key": Key(_text, "a dotted path (metadata.run_id)"),
    "group_by": Key(_text, "a dotted path (meta.model)"),
    "fail_above": Key(_rate, "a rate between 0 and 1"),
    "fail_above_delta": Key(_rate, "a rise of the rate between 0 and 1 (0.05 for 5 points)"),
    "fail_on_regression": Key(_flag, "true or false"),
    "fail_on_case_regression": Key(_flag, "true or false"),
    "fail_on_suspect": Key(_flag, "true or false"),
    "plugins": Key(
        _paths, "a path or a list of paths of .py files defining normalizers", path=True
    ),
    "reported": Key(lambda v: v if v in ("per-call", "list") else None, '"per-call" or "list"'),
    "jobs": Key(_jobs, f'a whole number of processes from 1 to {MAX_JOBS}, or "auto"'),
}
"""The settings a file may hold, by the name the options take (`--trace-format` is
`trace_format`)."""


@dataclass(frozen=True)
class Settings:
    """The settings of one file, checked, with paths relative to the current folder."""

    file: Path
    values: dict[str, Any]

    def defaults_for(self, params: dict[str, bool]) -> dict[str, Any]:
        """The defaults a command takes from the file: `params` names the command's parameters
        and whether each takes several values. A list of paths goes to a parameter of one path
        only when it holds one."""
        out: dict[str, Any] = {}
        for name, many in params.items():
            if name not in self.values:
                continue
            value = self.values[name]
            if isinstance(value, list) and not many:
                if len(value) != 1:
                    continue
                value = value[0]
            elif many and not isinstance(value, list):
                value = [value]
            out[name] = value
        return out


def find(start: Path) -> Path | None:
    """The nearest file that configures evalrun, from `start` upwards; None when there is none.
    InputError when a folder holds two.

    The search stops at the repository's root (the folder holding `.git`): a settings file
    above it belongs to no project of this one. Outside a repository it stops below a folder
    that others may write to (`/tmp`): an `evalrun.toml` put there would apply to every
    project below it, silently."""
    for folder in _searched(start):
        found = [folder / name for name in FILES if _configures(folder / name)]
        if len(found) > 1:
            raise InputError(
                f"both {found[0]} and {found[1]} configure evalrun: keep the settings in one"
            )
        if found:
            return found[0]
    return None


def _searched(start: Path) -> list[Path]:
    """The folders the settings are looked for in: `start`, then up to the repository's root,
    or (outside one) up to the last folder no other user may write to."""
    chain = [start, *start.parents]
    root = next((i for i, f in enumerate(chain) if (f / ".git").exists()), None)
    if root is not None:
        return chain[: root + 1]
    searched = [start]
    for folder in chain[1:]:
        if _writable_by_others(folder):
            break
        searched.append(folder)
    return searched


def _writable_by_others(folder: Path) -> bool:
    try:
        info = folder.stat()
    except OSError:
        return True
    return bool(info.st_mode & 0o002) or (
        hasattr(os, "getuid") and info.st_uid not in (0, os.getuid())
    )


def _configures(file: Path) -> bool:
    if not file.is_file():
        return False
    if file.name != "pyproject.toml":
        return True
    table = _read(file).get("tool")
    return isinstance(table, dict) and "evalrun" in table


def _read(file: Path) -> dict[str, Any]:
    try:
        with open(file, "rb") as f:
            data: dict[str, Any] = tomllib.load(f)
            return data
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{file}: not valid TOML: {e}") from None
    except OSError as e:
        raise InputError(f"cannot read {file}: {e.strerror or e}") from None


def load(file: Path, *, cwd: Path | None = None) -> Settings:
    """The settings in `file`, checked; paths made relative to `cwd` (default: the current
    folder) when they can be, so that messages name them as the user would."""
    data = _read(file)
    where = f"{file}"
    if file.name == "pyproject.toml":
        data = data.get("tool", {}).get("evalrun", {})
        where = f"{file} [tool.evalrun]"
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a table of settings")
    here = (cwd or Path.cwd()).resolve()
    base = file.resolve().parent
    values: dict[str, Any] = {}
    for name, raw in data.items():
        key = KEYS.get(name)
        if key is None:
            near = difflib.get_close_matches(name.replace("-", "_"), KEYS, n=1, cutoff=0.6)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise InputError(f"{where}: unknown key {name!r}{hint}; the keys are {', '.join(KEYS)}")
        value = key.read(raw)
        if value is None:
            raise InputError(f"{where}: {name} must be {key.wants}, not {_as_written(raw)}")
        if key.path:
            value = (
                [_relative(base / v, here) for v in value]
                if isinstance(value, list)
                else _relative(base / value, here)
            )
        values[name] = value
    return Settings(file, values)


def _relative(path: Path, here: Path) -> str:
    """`path` as seen from `here`: relative when it can be (`evals/tools`, `../evals/tools`)."""
    try:
        return os.path.relpath(path.resolve(), here)
    except ValueError:  # another drive (Windows)
        return str(path.resolve())


def discover(start: Path | None = None) -> Settings | None:
    """The settings of the nearest file that configures evalrun, or None."""
    here = (start or Path.cwd()).resolve()
    file = find(here)
    return load(file, cwd=here) if file is not None else None
