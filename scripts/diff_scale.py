"""How `evalrun diff` scales: time and peak RSS on two 400,000-run results files.

    python scripts/diff_scale.py                  # 400k runs a side, both pairings
    python scripts/diff_scale.py --copies 10      # 40k runs a side
    python scripts/diff_scale.py --code /elsewhere       # measure another checkout's code

A measurement, not a test. The inputs are real results, not invented ones: the example corpus
(tools/, cases/, traces/: 4,000 runs) is scored twice, as it is and with every `month` rule
removed (so a few hundred runs flip, with causes, suspects and a paired test to compute), and each
scoring is repeated `--copies` times with the run ids made unique (`r-000001~7`). Written as JSONL
results files, under a temporary directory that is deleted afterwards. Then, each in a process of
its own, timed from start to exit with its peak RSS from `wait4`:

- run pairing: OLD and NEW hold the same run ids (a rule change);
- case pairing: NEW's run ids are renamed, so the sides hold different runs and pair by case
  (each of the corpus's cases then has `--copies` times its trials a side);
- the paired test alone on 200,000 improved against 199,000 regressed runs (the corpus's flips
  all go one way, which the test settles at once).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import orjson
from other_code import interpreter, which

ROOT = Path(__file__).resolve().parent.parent


def score(corpus: Path, out: Path) -> None:
    subprocess.run(
        [*PYTHON, "-m", "evalrunner", "score", "-f", "jsonl", "-o", str(out)],
        cwd=corpus,
        env=ENV,
        check=True,
        stderr=subprocess.DEVNULL,
    )


def replicate(src: Path, dest: Path, copies: int, prefix: str = "") -> int:
    """`src`'s run lines `copies` times with unique run ids, then a summary line for them all."""
    lines = src.read_bytes().splitlines()
    runs, summary = lines[:-1], orjson.loads(lines[-1])["summary"]
    n = 0
    with open(dest, "wb") as f:
        for k in range(copies):
            for line in runs:
                run = orjson.loads(line)
                run["run_id"] = f"{prefix}{run['run_id']}~{k}"
                f.write(orjson.dumps(run) + b"\n")
                n += 1
        for key in ("runs", "calls", "lines", "unscoreable"):
            summary[key] = summary.get(key, 0) * copies
        for check in ("reported", "true"):
            for key in ("failed_runs", "failed_calls"):
                summary[check][key] *= copies
        f.write(orjson.dumps({"errors": [], "summary": summary}) + b"\n")
    return n


def document(src: Path, dest: Path) -> None:
    """A JSONL results file as the one document `evalrun score --format json` writes."""
    lines = src.read_bytes().splitlines()
    with open(dest, "wb") as f:
        f.write(b'{"errors":[],"evalrun":"0.1.0","runs":[')
        f.write(b",".join(lines[:-1]))
        f.write(b'],"summary":' + orjson.dumps(orjson.loads(lines[-1])["summary"]) + b"}\n")


PYTHON, ENV = interpreter(None)
"""How the measured processes start, and their environment (`--code`: another checkout's)."""


def measure(args: list[str], cwd: Path) -> tuple[float, float, float, int]:
    """Seconds from start to exit, CPU seconds, peak RSS in MB, exit code of `python ARGS`."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*PYTHON, *args], cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, cpu, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=100, help="how many times the corpus")
    parser.add_argument("--code", help="a folder holding another version's evalrunner package")
    options = parser.parse_args()
    global PYTHON, ENV
    PYTHON, ENV = interpreter(options.code)
    with tempfile.TemporaryDirectory(prefix="evalrun-diff-scale-") as tmp:
        work = Path(tmp)
        for name in ("tools", "cases", "traces"):
            shutil.copytree(ROOT / name, work / name)
        score(work, work / "old-4k.jsonl")
        for f in (work / "tools").glob("*.json"):
            f.write_text(re.sub(r',?\s*"x-eval-norm":\s*"month"', "", f.read_text()))
        score(work, work / "new-4k.jsonl")
        n = replicate(work / "old-4k.jsonl", work / "old.jsonl", options.copies)
        replicate(work / "new-4k.jsonl", work / "new.jsonl", options.copies)
        replicate(work / "new-4k.jsonl", work / "new-rerecorded.jsonl", options.copies, "x")
        size = (work / "old.jsonl").stat().st_size / 1e6
        code = which(PYTHON, ENV, "evalrunner.diff")
        print(f"{n:,} runs a side ({size:.0f} MB of JSONL each); code: {code}")
        document(work / "old.jsonl", work / "old.json")
        document(work / "new.jsonl", work / "new.json")
        for label, args in (
            ("run pairing, jsonl", ["old.jsonl", "new.jsonl"]),
            ("run pairing, json", ["old.json", "new.json"]),
            ("case pairing, jsonl", ["old.jsonl", "new-rerecorded.jsonl"]),
        ):
            diff = ["-m", "evalrunner", "diff", *args, "-f", "json", "-o", "out.json"]
            seconds, cpu, rss, code = measure(diff, work)
            out = orjson.loads((work / "out.json").read_bytes()) if code == 0 else {}
            test = out.get("test", {})
            print(
                f"{label}: {seconds:.1f} s ({cpu:.1f} s CPU), peak RSS {rss:.0f} MB, exit {code}; "
                f"{len(out.get('flips', ())):,} flips, {test.get('improved')} improved, "
                f"{test.get('regressed')} regressed"
            )
        test = (
            "from evalrunner.diff import mcnemar_exact; print(float(mcnemar_exact(200000, 199000)))"
        )
        seconds, cpu, rss, code = measure(["-c", test], work)
        print(
            f"the test alone, 200,000 improved, 199,000 regressed: {seconds:.1f} s "
            f"({cpu:.1f} s CPU), exit {code}"
        )


if __name__ == "__main__":
    main()
