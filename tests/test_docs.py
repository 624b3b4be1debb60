"""The docs are executed: README's console examples print what they show, its trace-format
examples score as it says, its library example runs, and every command explains itself."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()
BIN = str(Path(sys.executable).parent)
ENV = {
    **os.environ,
    "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    "COLUMNS": "80",
    "NO_COLOR": "1",
}


def console_examples() -> list[tuple[str, list[str]]]:
    """(command, the output lines shown after it) for each `$ ` line of a console block."""
    examples = []
    for block in re.findall(r"```console\n(.*?)```", README, re.S):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, *shown = chunk.rstrip("\n").split("\n")
            examples.append((command, shown))
    return examples


@pytest.fixture
def corpus(tmp_path):
    """A working directory holding the example corpus, so examples may write files."""
    for name in ("tools", "cases", "traces"):
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


@pytest.mark.parametrize(
    ("command", "shown"), console_examples(), ids=lambda x: x if isinstance(x, str) else ""
)
def test_console_example(corpus, command, shown):
    done = subprocess.run(command, shell=True, cwd=corpus, env=ENV, capture_output=True, text=True)
    out = (done.stdout + done.stderr).splitlines()
    assert done.returncode in (0, 1), done.stderr  # 1: the --fail-above example
    # Each shown line appears in the output, in order; "…" stands for lines left out.
    at = 0
    for line in shown:
        if line == "…":
            continue
        while at < len(out) and out[at].rstrip() != line.rstrip():
            at += 1
        assert at < len(out), f"{command!r} did not print {line!r}"
        at += 1


def test_there_are_console_examples():
    commands = [c for c, _ in console_examples()]
    assert "evalrun score traces/" in commands and len(commands) >= 5


def test_the_trace_format_examples_score_as_the_readme_says(tmp_path):
    section = README[README.index("## Traces in other formats") : README.index("## Scale")]
    examples = re.findall(
        r"```json\n(.*?)```\n\n    (evalrun score \S+ --trace-format \S+)", section, re.S
    )
    assert len(examples) == 5
    (tmp_path / "tools").mkdir()
    (tmp_path / "cases").mkdir()
    (tmp_path / "tools" / "t.json").write_text(
        json.dumps(
            {
                "name": "get_customer",
                "input_schema": {
                    "type": "object",
                    "properties": {"customer_id": {"type": "string"}},
                },
            }
        )
    )
    (tmp_path / "cases" / "c.json").write_text(
        json.dumps(
            {"id": "lookup", "accept": [[{"tool": "get_customer", "args": {"customer_id": "C-1"}}]]}
        )
    )
    for body, command in examples:
        try:
            records = [json.loads(body)]  # one record shown folded
        except json.JSONDecodeError:
            records = [json.loads(line) for line in body.strip().splitlines()]  # one a line
        trace = tmp_path / command.split()[2]
        trace.write_text("".join(json.dumps(r) + "\n" for r in records))
        done = subprocess.run(
            [*command.split(), "-f", "json"], cwd=tmp_path, env=ENV, capture_output=True, text=True
        )
        doc = json.loads(done.stdout)
        assert doc["errors"] == [], command
        assert [(r["verdict"], r["shape"]) for r in doc["runs"]] == [
            ("false_failure", "errored_attempt")
        ], command


def _library_examples() -> list[str]:
    section = README[README.index("## Library") : README.index("## How the code is laid out")]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def _run_python(code: str, corpus: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], cwd=corpus, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_library_examples_run(corpus):
    scoring, grading = _library_examples()
    # the one scoring call: the true run failure rate, then three results
    lines = _run_python(scoring, corpus)
    assert lines[0] == "0.1217" and len(lines) == 4
    # one run at a time: 4,042 runs, a line that is not JSON, a run of an unknown case
    lines = _run_python(grading, corpus)
    assert len(lines) == 4044
    assert "r-000011 false_pass ('redundant_call',)" in lines
    assert any(
        line.endswith("unknown case 'refund-legacy-2025' (not in the cases directory)")
        for line in lines
    )


@pytest.mark.parametrize("command", [c.name for c in app.registered_commands])
def test_every_command_has_help(command):
    result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0
    assert "Usage: evalrun " + command in result.output
    assert len(result.output.splitlines()) > 8  # options described, not just a usage line


def test_the_readme_names_the_two_set_up_commands():
    assert "make run" in README and "make test" in README
    makefile = (ROOT / "Makefile").read_text()
    assert "\nrun:" in makefile and "\ntest:" in makefile
