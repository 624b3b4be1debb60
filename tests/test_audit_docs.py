"""docs/audit.md is executed: its example output is what `audit score` prints, its sample-size
tables come from the formulas in `evalrunner.audit.stats`, and README lists the command."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from typer.testing import CliRunner

from evalrunner.audit.stats import half_width_of_rate, runs_for_rate, runs_for_share
from evalrunner.cli import app

ROOT = Path(__file__).parent.parent
DOC = (ROOT / "docs" / "audit.md").read_text()
README = (ROOT / "README.md").read_text()
DATA = Path(__file__).parent / "data" / "cli"
POST = [(0.22, 0.5), (0.78, 0.09)]
"""The post's shape as docs/audit.md states it: 22% reported failures, about half wrong; 78%
reported passes, about 9% wrong."""


def table_after(heading: str) -> list[list[str]]:
    """The rows of the first Markdown table after the paragraph that starts with `heading`."""
    rest = DOC[DOC.index(heading) :]
    rows = re.search(r"\n(\|.*\|\n)+", rest)
    assert rows is not None
    lines = [line for line in rows.group(0).strip().splitlines()]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]


def test_the_share_table_is_the_formula():
    widths = [0.10, 0.05, 0.03, 0.02]
    rows = table_after("**One share**")
    assert [row[0] for row in rows] == ["5%", "10%", "20%", "50%"]
    for row in rows:
        share = int(row[0].rstrip("%")) / 100
        assert [int(x) for x in row[1:]] == [runs_for_share(share, w) for w in widths]


def test_the_rate_table_is_the_formula():
    rows = table_after("**The rate** over both strata")
    for row in rows:
        width = int(re.match(r"±(\d+)", row[0]).group(1)) / 100
        per_stratum = runs_for_rate(POST, width)
        assert [int(x) for x in row[1:]] == [*per_stratum, sum(per_stratum)]


def test_the_posts_sample_width_is_as_stated():
    # 883 of 4,000 reported failures, 53% wrong, 100 read; 3,117 reported passes, 9.2%, 120 read
    width = half_width_of_rate([(883 / 4000, 0.53, 100), (3117 / 4000, 0.092, 120)])
    assert f"±{100 * width:.1f} points" in DOC


def test_the_example_output_is_what_audit_score_prints(tmp_path, monkeypatch):
    for name in ("tools", "cases", "traces"):
        shutil.copytree(DATA / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    env = {"COLUMNS": "100", "NO_COLOR": "1"}
    args = ["--failures", "4", "--passes", "3", "--seed", "1", "--output", "sheet.jsonl"]
    result = CliRunner().invoke(app, ["audit", "sample", *args], env=env)
    assert result.exit_code == 0, result.output
    labels = {
        "r1": ("correct", ""),
        "r2": ("wrong", "the month is not March"),
        "r3": ("correct", "March 1st, 00:40 in Berlin is March"),
        "r4": ("correct", ""),
        "r5": ("wrong", ""),
        "r6": ("wrong", ""),
        "r8": ("wrong", ""),
    }
    lines = Path("sheet.jsonl").read_text().splitlines()
    out = [lines[0]]
    for line in lines[1:]:
        run = json.loads(line)
        run["label"], run["note"] = labels[run["run_id"]]
        out.append(json.dumps(run))
    Path("sheet.jsonl").write_text("\n".join(out) + "\n")
    result = CliRunner().invoke(app, ["audit", "score", "sheet.jsonl"], env=env)
    assert result.exit_code == 0, result.output
    printed = [line.rstrip() for line in result.stdout.splitlines()]
    shown = re.search(r"```text\n(evalrun audit .*?)```", DOC, re.S).group(1).splitlines()
    # Each shown line appears in the output, in order; "…" stands for lines left out.
    at = 0
    for line in shown:
        if line == "…":
            continue
        while at < len(printed) and printed[at] != line.rstrip():
            at += 1
        assert at < len(printed), f"audit score did not print {line!r}"
        at += 1


def test_the_readme_lists_the_audit_commands():
    assert "| `evalrun audit sample`, `evalrun audit score` |" in README
    assert "[docs/audit.md](docs/audit.md)" in README


def test_the_library_example_runs(tmp_path, monkeypatch):
    for name in ("tools", "cases", "traces"):
        shutil.copytree(DATA / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    code = re.search(r"## Library\n\n```python\n(.*?)```", DOC, re.S).group(1)
    code = code.replace("failures=100, passes=120", "failures=2, passes=2")
    exec(compile(code, "docs/audit.md", "exec"), {})  # an unlabelled sheet scores, empty
    assert Path("audit.jsonl").read_text().count("\n") == 5
