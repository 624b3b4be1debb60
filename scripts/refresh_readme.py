#!/usr/bin/env python3
"""Refresh the output shown in README.md's `console` blocks after the example corpus or the
table changed: each command is run as tests/test_docs.py runs it (in a copy of the corpus, 80
columns, no colour), and each shown line is replaced by the output line most like it, in order.
Lines shown as "…" stay elided. Review the diff: a line that changed its meaning is not a line
that changed its numbers.

    python scripts/refresh_readme.py [--check]
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BLOCK = re.compile(r"^```console\n(.*?)^```$", re.M | re.S)


def run(command: str, cwd: Path) -> list[str]:
    env = {
        **os.environ,
        "COLUMNS": "80",
        "NO_COLOR": "1",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    done = subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True, text=True)
    return [line.rstrip() for line in (done.stdout + done.stderr).splitlines()]


def refresh(block: str, cwd: Path) -> str:
    out: list[str] = []
    lines = block.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not line.startswith("$ "):
            continue
        shown = []
        while i < len(lines) and not lines[i].startswith("$ "):
            shown.append(lines[i])
            i += 1
        got, at = run(line[2:], cwd), 0
        for text in shown:
            if text == "…" or not text.strip():
                out.append(text)
                continue
            candidates = got[at:]
            best = max(
                range(len(candidates)),
                key=lambda k: (difflib.SequenceMatcher(None, text, candidates[k]).ratio(), -k),
                default=None,
            )
            if best is None:
                out.append(text)
                continue
            out.append(candidates[best])
            at += best + 1
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if README.md would change")
    args = ap.parse_args()
    text = README.read_text()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp)
        for name in ("tools", "cases", "traces"):
            shutil.copytree(ROOT / name, corpus / name)
        new = BLOCK.sub(lambda m: "```console\n" + refresh(m.group(1), corpus) + "```", text)
    if args.check:
        return int(new != text)
    README.write_text(new)
    print("README.md refreshed" if new != text else "README.md unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
