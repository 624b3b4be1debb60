"""Peak memory of `evalrun score --group-by` as groups and tools grow (issue 28, item 7).

Writes a synthetic corpus to a temporary folder: TOOLS tools, GROUPS groups (`meta.g`), each
group's runs together calling every tool once (so the summary holds groups × tools per-tool
figures), then runs `evalrun score --group-by meta.g` in a process of its own and reports its
wall time and peak RSS.

    python scripts/group_memory.py --groups 2000 --tools 500
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import tempfile
import time
from pathlib import Path

from other_code import interpreter, which

CALLS_PER_RUN = 50


def corpus(root: Path, groups: int, tools: int) -> None:
    (root / "tools").mkdir()
    (root / "cases").mkdir()
    (root / "traces").mkdir()
    defs = [
        {"name": f"t{i}", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}
        for i in range(tools)
    ]
    (root / "tools" / "tools.json").write_text(json.dumps(defs))
    case = {"id": "c", "accept": [[{"tool": "t0", "args": {"q": "a"}}]]}
    (root / "cases" / "cases.json").write_text(json.dumps([case]))
    with open(root / "traces" / "runs.jsonl", "w") as f:
        n = 0
        for g in range(groups):
            for start in range(0, tools, CALLS_PER_RUN):
                calls = [
                    {"tool": f"t{i}", "args": {"q": "a" if i == 0 else "b"}}
                    for i in range(start, min(tools, start + CALLS_PER_RUN))
                ]
                run = {"run_id": f"r{n}", "case_id": "c", "calls": calls, "meta": {"g": f"g{g}"}}
                f.write(json.dumps(run) + "\n")
                n += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=2000)
    parser.add_argument("--tools", type=int, default=500)
    parser.add_argument("--format", default="table")
    parser.add_argument(
        "--code",
        help="a folder holding another version's evalrunner package (git archive REV | tar -x), "
        "to measure it instead of this one",
    )
    args = parser.parse_args()
    python, env = interpreter(args.code)
    print(f"measuring {which(python, env)}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        corpus(root, args.groups, args.tools)
        start = time.monotonic()
        command = [*python, "-m", "evalrunner", "score", "traces", "--group-by", "meta.g"]
        done = subprocess.run(
            [*command, "--format", args.format],
            cwd=root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        wall = time.monotonic() - start
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        calls = args.groups * args.tools
        print(
            f"{args.groups:,} groups x {args.tools:,} tools ({calls:,} calls): exit "
            f"{done.returncode}, {wall:.1f} s, peak RSS {peak:,.0f} MB"
        )
        for line in done.stderr.splitlines()[:3]:
            print("  stderr:", line[:200])


if __name__ == "__main__":
    main()
