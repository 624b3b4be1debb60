#!/usr/bin/env python3
"""What issue 25's checks cost `evalrun score`: schema validity before any rule, reply evidence,
and the count of failing calls a built-in rule would absorb. Scores the bench corpus (made by
scripts/bench.py) with all three on and with them switched off in-process, both once a round in a
shuffled order, and prints the median of the rounds' ratios and the best against the best (CPU;
`--wall`: wall clock).

    python scripts/bench_honest_rules.py [--calls 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OFF = """
import evalrunner.grade.compare as compare
import evalrunner.grade.grader as grader
class _NoChecks:
    @classmethod
    def of(cls, param):
        return None
compare.Validity = _NoChecks
_init = grader.ReplyPlan.__init__
def _no_replies(self, tools, registry):
    _init(self, {}, registry)
grader.ReplyPlan.__init__ = _no_replies
grader.Absorber.absorbs = lambda self, plan, a, e: False
"""
RUN = """
import sys
from evalrunner.cli import main
sys.argv = ["evalrun", *{args!r}]
main()  # the console script's own entry, its collector threshold included
"""


CPU = True
"""Time the child's CPU (user + system), which other work on the machine disturbs less than
the wall clock; `--wall` for the wall clock."""


def timed(corpus: Path, off: bool) -> float:
    args = [
        "score",
        str(corpus / "traces"),
        "--tools",
        str(corpus / "tools"),
        "--cases",
        str(corpus / "cases"),
        "--jobs",
        "1",
        "--format",
        "json",
        "--output",
        "/dev/null",
    ]
    code = (OFF if off else "") + RUN.format(args=args)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu if CPU else wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--wall", action="store_true", help="time the wall clock, not CPU")
    args = parser.parse_args()
    global CPU
    CPU = not args.wall
    sys.path.insert(0, str(ROOT / "scripts"))
    import bench

    corpus = bench.ensure_corpus(args.calls, ROOT / "bench-corpus", None)
    # Each round runs both, in a shuffled order: the machine drifts by more than the cost over
    # a few minutes, and a fixed order charges the drift to one side. The cost is read as the
    # median of the rounds' ratios, the best against the best beside it.
    shuffle = random.Random(1).shuffle
    on: list[float] = []
    off: list[float] = []
    for _ in range(args.repeat):
        order = [False, True]
        shuffle(order)
        for switched_off in order:
            (off if switched_off else on).append(timed(corpus, off=switched_off))
    best_on, best_off = min(on), min(off)
    ratio = statistics.median(a / b for a, b in zip(on, off))
    print(f"corpus: {corpus} ({'wall clock' if args.wall else 'CPU'} seconds)")
    print(f"with the checks:    median {statistics.median(on):.2f} s of {_list(on)}")
    print(f"without the checks: median {statistics.median(off):.2f} s of {_list(off)}")
    print(
        f"cost: median of the rounds' ratios {100 * (ratio - 1):+.1f}%, "
        f"best against best {100 * (best_on / best_off - 1):+.1f}%"
    )


def _list(times: list[float]) -> str:
    return ", ".join(f"{t:.2f}" for t in times)


if __name__ == "__main__":
    main()
