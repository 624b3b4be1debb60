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
    # `--version` says which core is active: evalrunner.core, which imports only os and the
    # extension (a shared library, about 1 ms); evalrunner.interrupts imports only the standard
    # library (the flag the Ctrl-C handler sets, which every read checks, and the reads' wake-up)
    expected = {"evalrunner", "evalrunner._version", "evalrunner.cli", "evalrunner.interrupts"} | (
        {"evalrunner.core"} if "--version" in args else set()
    )
    assert ours == expected, ours
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


def test_score_imports_no_other_command_nor_writer(tmp_path):
    """`score` with the table imports its own module and writer only: not lint's, diff's,
    suggest's or audit's code, nor the other writers."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    line = next(p for p in sorted((root / "traces").glob("*.jsonl"))).read_bytes().split(b"\n")[0]
    (tmp_path / "one.jsonl").write_bytes(line + b"\n")
    loaded = _modules_after(
        "score",
        str(tmp_path / "one.jsonl"),
        "--tools",
        str(root / "tools"),
        "--cases",
        str(root / "cases"),
    )
    assert "evalrunner.cli.score" in loaded and "evalrunner.write.table" in loaded
    for name in loaded:
        parts = name.split(".")
        if parts[0] != "evalrunner" or len(parts) < 3:
            continue
        assert parts[1] not in ("lint", "diff", "suggest", "audit"), name
        assert parts[1] != "cli" or parts[2] in ("common", "score"), name
        assert parts[1] != "write" or parts[2] in ("table", "wording"), name
    # typer 0.29 and later build every option through pydantic (pyproject caps typer below it)
    assert "pydantic" not in loaded
    # a native run is read without detection: no trace format's module is imported (the
    # registry imports one when it is first asked for), nor OpenTelemetry's span conventions
    formats = {m for m in loaded if m.startswith("evalrunner.traces.formats.")}
    assert formats <= {"evalrunner.traces.formats._pairing", "evalrunner.traces.formats._walk"}
    # imported where they are used: --jobs, a progress bar shown, an id made for a case record
    # without one
    for lazy in ("multiprocessing", "rich.progress", "hashlib"):
        assert lazy not in loaded, lazy


def test_score_imports_regex_only_for_a_pattern(tmp_path):
    """The regex module is imported where a pattern is first compiled (a case's `matches`, an
    --error-pattern, a built-in error text searched in a reply of another format's run): a
    native run of a case without a pattern compiles none."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    case = {
        "id": "tax-jp",
        "accept": [[{"tool": "calculate_tax", "args": {"amount": 4900, "country": "JP"}}]],
    }
    (tmp_path / "cases.json").write_text(json.dumps([case]))
    run = {"run_id": "r-1", "case_id": "tax-jp", "calls": [case["accept"][0][0]]}
    (tmp_path / "one.jsonl").write_text(json.dumps(run) + "\n")
    args = [str(tmp_path / "one.jsonl"), "--tools", str(root / "tools")]
    loaded = _modules_after("score", *args, "--cases", str(tmp_path / "cases.json"))
    assert "evalrunner.write.table" in loaded  # it did score
    assert "regex" not in loaded
    loaded = _modules_after(
        "score", *args, "--cases", str(tmp_path / "cases.json"), "--error-pattern", "x"
    )
    assert "regex" in loaded
    # the example tools' schemas are told valid by read/schema_quick.py, without jsonschema
    assert "jsonschema" not in loaded


@pytest.mark.parametrize("name", ["table", "json", "jsonl", "html", "markdown", "junit"])
def test_the_listed_writer_is_the_modules_own(name):
    """`--format`'s choices and help come from a table; each module's `WRITER` must agree."""
    from evalrunner.write import WRITERS, writer_module

    listed, own = WRITERS[name], writer_module(name).WRITER
    assert (listed.name, listed.summary, listed.shows_runs, listed.renders_results) == (
        own.name,
        own.summary,
        own.shows_runs,
        own.renders_results,
    )


DETECT = """
import json, sys
from evalrunner.traces import detect
detect(json.loads(sys.argv[1]))
print(json.dumps(sorted(sys.modules)))
"""


def test_detection_imports_no_format_after_the_one_that_reads_the_line():
    """Detection asks the formats in order, each module imported when its format is first asked
    for: a span (the second format tried) imports native's and otel's, no other format's."""
    from pathlib import Path

    from evalrunner.traces.formats import TABLE

    root = Path(__file__).resolve().parent
    line = (root / "data" / "frameworks" / "genai-chat-spans.jsonl").read_text().split("\n")[0]
    done = subprocess.run(
        [sys.executable, "-c", DETECT, line], capture_output=True, text=True, check=True
    )
    loaded = set(json.loads(done.stdout))
    modules = {f"evalrunner.traces.formats.{module}" for _, module, _ in TABLE}
    assert modules & loaded == {
        "evalrunner.traces.formats.native",
        "evalrunner.traces.formats.otel",
    }
