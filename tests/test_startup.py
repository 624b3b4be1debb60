"""Start-up: `--version` and `--help` import no command's module, and the help they list is each
command's own (issue 31). Checked in a fresh interpreter through `sys.modules`, not by timing."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest
import typer

from evalrunner.cli import COMMANDS, load_command

PROBE = """
import json, sys
sys.argv = ["evalrun", *{args!r}]
from evalrunner.cli import main
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
print("\\n" + json.dumps(sorted(sys.modules)))
"""


def _modules_after(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=list(args))],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("args", [["--version"], ["--help"], []])
def test_version_and_help_import_no_command(args):
    loaded = _modules_after(*args)
    ours = {m for m in loaded if m.startswith("evalrunner")}
    assert ours == {"evalrunner", "evalrunner.cli"}, ours
    for heavy in ("jsonschema", "pydantic", "orjson", "regex", "rich", "dask"):
        assert heavy not in loaded, heavy


def test_a_command_imports_only_its_own_module():
    loaded = _modules_after("norms", "--help")
    commands = {f"evalrunner.cli.{module}" for module, _, _ in COMMANDS.values()}
    assert commands & loaded == {"evalrunner.cli.norms"}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_listed_help_is_the_commands_own(name):
    """The top-level listing reads `COMMANDS`; it must say what each command's help says."""
    module, attr, summary = COMMANDS[name]
    command = load_command(name)
    assert command.name == name
    found = getattr(sys.modules[f"evalrunner.cli.{module}"], attr)
    own = found.info.help if isinstance(found, typer.Typer) else inspect.getdoc(found)
    assert own is not None
    assert " ".join(own.split("\n\n")[0].split()) == summary
