"""The docs that the code declares are generated from it (scripts/refresh_docs.py) and checked
here as `cog --check` would; every command and every option is documented somewhere a user
reads (the README or a page of docs/)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evalrunner.cli import COMMANDS, load_command

ROOT = Path(__file__).parent.parent
THIS = "tests/test_docs_generated.py"  # its docstrings show the citation form
SCRIPT = ROOT / "scripts" / "refresh_docs.py"
DOCS = (ROOT / "README.md").read_text() + "".join(
    p.read_text() for p in sorted((ROOT / "docs").glob("*.md"))
)


def _script() -> Any:
    spec = importlib.util.spec_from_file_location("refresh_docs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_docs_are_what_the_code_declares():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr


def test_a_part_is_replaced_inline_or_as_lines_and_must_be_there_once():
    put = _script().put
    inline = "a <!-- generated: n -->old<!-- /generated: n --> b"
    assert (
        put(inline, "n", "new", Path("f")) == "a <!-- generated: n -->new<!-- /generated: n --> b"
    )
    block = "<!-- generated: t -->\n| old |\n<!-- /generated: t -->\n"
    assert put(block, "t", "| a |\n| b |", Path("f")) == (
        "<!-- generated: t -->\n| a |\n| b |\n<!-- /generated: t -->\n"
    )
    with pytest.raises(SystemExit, match="0 '<!-- generated: x -->' parts"):
        put(inline, "x", "new", Path("f"))


def _options(command: Any, path: list[str]) -> list[tuple[str, list[str]]]:
    subs = getattr(command, "commands", None)
    if subs is not None:
        return [o for name, sub in subs.items() for o in _options(sub, [*path, name])]
    return [
        (" ".join(path), [o for o in p.opts + p.secondary_opts if o.startswith("--")])
        for p in command.params
        if p.param_type_name == "option"
    ]


OPTIONS = [o for name in COMMANDS for o in _options(load_command(name), [name])]


def test_every_command_is_in_the_readme_commands_table():
    for name in COMMANDS:
        assert f"| `evalrun {name}" in (ROOT / "README.md").read_text(), name


@pytest.mark.parametrize(("command", "names"), OPTIONS, ids=[f"{c} {n}" for c, n in OPTIONS])
def test_every_option_is_documented(command, names):
    assert names, f"{command}: an option with no long name"
    assert any(n in DOCS for n in names), f"evalrun {command} {names[0]} is documented nowhere"


def _spec_names() -> set[str]:
    """What a `SPEC "Name"` citation may name: a heading of docs/spec.md (the name a prefix of
    it, backticks aside) or a paragraph's bold lead (`**Shapes.**`)."""
    text = (ROOT / "docs" / "spec.md").read_text()
    heads = {m.group(1).replace("`", "") for m in re.finditer(r"^#+ (.+)$", text, re.M)}
    leads = {m.group(1) for m in re.finditer(r"\*\*([^*]+?)\.\*\*", text)}
    return heads | leads


def test_every_spec_citation_names_a_part_of_the_repositorys_contract():
    """The code and docs cite the contract as `SPEC "Section"`: SPEC is docs/spec.md, in the
    repository, and each citation names a heading (or bold lead) there, so a reader finds it."""
    names = _spec_names()
    cited = re.compile(r'SPEC(?:\'s)? \\?"([^"\\]+)\\?"')
    bad = []
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    for name in tracked.stdout.splitlines():
        path = ROOT / name
        if path.suffix not in (".py", ".md", ".toml") or name in ("docs/spec.md", THIS):
            continue
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for m in cited.finditer(line):
                name = m.group(1).replace("`", "")
                if not any(h == name or h.startswith(name + " ") for h in names):
                    bad.append(f"{path.relative_to(ROOT)}:{n}: SPEC {m.group(1)!r}")
    assert not bad, "\n".join(bad)
    assert "docs/spec.md" in (ROOT / "README.md").read_text()


def test_nothing_in_the_repository_points_outside_it():
    found = subprocess.run(
        [
            "git",
            "grep",
            "-n",
            "-e",
            "../shared",
            "-e",
            "/work/shared",
            "--",
            ".",
            f":!{THIS}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert found.returncode == 1 and not found.stdout, found.stdout
