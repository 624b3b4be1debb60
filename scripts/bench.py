"""The benchmark: evalrun against the floor and its peers, side by side, in one run.

    python scripts/bench.py                  # 1M calls: floor, evalrun --jobs 1/2, peers, on
                                             # a distinct-run corpus, then a repeating one
    python scripts/bench.py --corpora distinct   # only the corpus where no run repeats another
    python scripts/bench.py --calls 200000   # a smaller corpus
    python scripts/bench.py --memory         # peak RSS at 1M vs 5M calls (table and jsonl)
    python scripts/bench.py --profile        # where evalrun's time goes (cProfile, one process)

`make bench` runs the first one in a virtualenv with the `bench` extra (the peers) installed.

The corpus is generated, deterministically, under bench-corpus/ (gitignored): runs are synthesized
from a tools/cases directory (the repository's example corpus when it is there, else a built-in tool
surface) by sampling cases and mutating their canonical call sequences into every shape evalrun
explains: encoding variants, reordered lists, restated defaults, alternate sequences, errored
attempts, loops, rejected calls, failed effects, real mismatches, malformed arguments, and a few
unscoreable lines. Each variant is checked against the parameter's own rule, so an "encoding
variant" really is equivalent. Two corpora: a distinct-run one (no run makes the same calls as an
earlier run of its case, so the grader's memo serves none) and a repeating one (as often as in
the example corpus at its size, more as it grows); each report says its corpus's repeat share.

Every measurement runs in its own process, so each has its own peak RSS. evalrun is timed end to
end (process start to exit, as a user sees it); the floor and the peers are timed around their
loop only, with the conversion to each peer's input format outside the timed region: every ratio
is therefore conservative for evalrun.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

# the corpus generator lives in bench_corpus.py (tests import it too); `generate` stays reachable
# here for the scripts that load this file (bench_dask.py, bench_honest_rules.py)
from bench_corpus import CALLS_PER_CASE, ROOT, ensure_corpus, generate  # noqa: F401

from evalrunner.model import MISSING
from evalrunner.read.cases import load_cases
from evalrunner.read.tools import load_tools

# ================================================================================ measurement


@dataclass
class Measured:
    name: str
    seconds: float
    """Wall time: the whole process for evalrun and the floor, the timed loop for the peers."""
    calls: int
    cpu: float = 0.0
    """User + system time of the process and its workers."""
    max_rss_kb: int = 0
    """The largest resident set of any one process (the parent's or a worker's)."""
    tree_rss_kb: int = 0
    """The peak of the resident sets of the process and its workers together (sampled)."""
    note: str = ""
    error: str = ""

    @property
    def rate(self) -> float:
        return self.calls / self.seconds if self.seconds else 0.0


def _tree_rss_kb(pid: int) -> int:
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        try:
            status = Path(f"/proc/{p}/status").read_text()
            for task in Path(f"/proc/{p}/task").iterdir():
                stack.extend(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
        m = re.search(r"VmRSS:\s+(\d+)", status)
        total += int(m.group(1)) if m else 0
    return total


def run_measured(
    cmd: list[str], name: str, calls: int, ok: tuple[int, ...] = (0, 1)
) -> tuple[Measured, bytes]:
    """Run `cmd`, timing it from start to exit, with its (and its workers') CPU time and RSS.
    An exit code outside `ok` is an error, said in the table rather than timed as a result."""
    with open(os.devnull, "wb") as devnull, _tempfile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, stdin=devnull)
        peak = 0
        done = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, _tree_rss_kb(proc.pid))
                done.wait(0.02)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        out = proc.stdout.read() if proc.stdout else b""
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        done.set()
        sampler.join()
        m = Measured(
            name,
            seconds,
            calls,
            cpu=usage.ru_utime + usage.ru_stime,
            max_rss_kb=usage.ru_maxrss,
            tree_rss_kb=max(peak, usage.ru_maxrss),
        )
        if proc.returncode not in ok:
            err.seek(0)
            m.error = f"exit {proc.returncode}: {err.read().decode(errors='replace')[-400:]}"
    return m, out


def _tempfile():
    import tempfile

    return tempfile.TemporaryFile()


def best_of(
    repeat: int, cmd: list[str], name: str, calls: int, ok: tuple[int, ...] = (0, 1)
) -> Measured:
    best: Measured | None = None
    for _ in range(repeat):
        m, _ = run_measured(cmd, name, calls, ok)
        if m.error:
            return m
        if best is None or m.seconds < best.seconds:
            best = m
    assert best is not None
    return best


def evalrun_cmd(corpus: Path, fmt: str, jobs: int, *, empty: bool = False) -> list[str]:
    exe = Path(sys.executable).with_name("evalrun")
    base = [str(exe)] if exe.exists() else [sys.executable, "-m", "evalrunner"]
    traces = corpus / ("empty.jsonl" if empty else "traces")
    if empty:
        traces.write_bytes(b"")
    return [
        *base,
        "score",
        str(traces),
        "--tools",
        str(corpus / "tools"),
        "--cases",
        str(corpus / "cases"),
        "--format",
        fmt,
        "--output",
        os.devnull,
        "--jobs",
        str(jobs),
    ]


OTHER_COMMANDS = ("suggest", "audit sample", "diff", "score --format html", "lint --traces")
"""The commands `--commands` measures beside `score`, each as a ratio to `score` (table, one job)
on the same corpus (issue 31)."""


def other_cmd(corpus: Path, command: str) -> list[str]:
    """`command` on the corpus, its output thrown away."""
    score = evalrun_cmd(corpus, "table", 1)
    base = score[: score.index("score")]
    traces, dirs = str(corpus / "traces"), ["--tools", str(corpus / "tools")]
    dirs += ["--cases", str(corpus / "cases")]
    if command == "suggest":
        return [*base, "suggest", traces, *dirs]
    if command == "audit sample":
        sample = ["--failures", "100", "--passes", "100", "--seed", "1", "--output", os.devnull]
        return [*base, "audit", "sample", traces, *dirs, *sample]
    if command == "diff":  # two trace sets, each scored: the corpus against itself
        return [*base, "diff", traces, traces, *dirs]
    if command == "score --format html":
        return [*base, "score", traces, *dirs, "--format", "html", "--output", os.devnull]
    if command == "lint --traces":
        return [*base, "lint", *dirs, "--traces", traces]
    raise ValueError(command)


def measure_commands(args: argparse.Namespace, corpus: Path, calls: int, score: Measured) -> None:
    """Each other command's time and CPU as a ratio to `score`'s on the same corpus."""
    print("\nother commands, same corpus, as a ratio to `score --jobs 1 --format table`:\n")
    print(
        "| command | s | CPU s | ÷ score (s) | ÷ score (CPU) | max RSS |\n|---|---|---|---|---|---|"
    )
    for command in OTHER_COMMANDS:
        m = best_of(args.repeat, other_cmd(corpus, command), f"evalrun {command}", calls, (0, 1))
        if m.error:
            print(f"| evalrun {command} | {m.error} | | | | |")
            continue
        print(
            f"| evalrun {command} | {m.seconds:.2f} | {m.cpu:.2f} | "
            f"{m.seconds / score.seconds:.2f} | {m.cpu / score.cpu:.2f} | {_mb(m.max_rss_kb)} |"
        )
        sys.stdout.flush()


def helper_cmd(*args: str) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), *args]


# ------------------------------------------------------------------------------------- floor


def floor(traces: Path) -> dict:
    """Read and orjson-parse every line and iterate its calls: what any scorer must do.

    Kept minimal on purpose (an `args` string is not decoded), so the floor is a hard target.
    """
    calls = 0
    t0 = time.perf_counter()
    for f in sorted(traces.rglob("*.jsonl")):
        with open(f, "rb") as stream:
            for line in stream:
                if not line.strip():
                    continue
                try:
                    record = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                if type(record) is dict and type(record.get("calls")) is list:
                    for call in record["calls"]:
                        if type(call) is dict and (call.get("tool") or call.get("name")):
                            calls += 1
    return {"seconds": time.perf_counter() - t0, "calls": calls}


def measure_floor(corpus: Path, repeat: int) -> Measured:
    """The floor in a process of its own (Python and orjson only), timed around its loop."""
    program = "\n".join(
        [
            "import json, sys, time",
            "from pathlib import Path",
            "import orjson",
            inspect.getsource(floor),
            "print(json.dumps(floor(Path(sys.argv[1]))))",
        ]
    )
    best: Measured | None = None
    for _ in range(repeat):
        m, out = run_measured([sys.executable, "-c", program, str(corpus / "traces")], "", 0)
        got = json.loads(out)
        m.seconds, m.calls = got["seconds"], got["calls"]
        if best is None or m.seconds < best.seconds:
            best = m
    assert best is not None
    best.name = "floor: read + orjson.loads + iterate calls"
    return best


# ------------------------------------------------------------------------------------- peers

PEER_BATCH_RUNS = 20_000


def _records(corpus: Path, cases: dict):
    """(record, case) for every scoreable native run of the corpus, in order."""
    for f in sorted((corpus / "traces").rglob("*.jsonl")):
        with open(f, "rb") as stream:
            for line in stream:
                try:
                    record = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                if type(record) is dict and record.get("case_id") in cases:
                    yield record, cases[record["case_id"]]


def _call_parts(call: dict) -> tuple[str, Any]:
    name = call.get("tool", call.get("name"))
    args = call["args"] if "args" in call else call.get("arguments", {})
    return name, args


def _batches(it, n: int):
    batch = []
    for x in it:
        batch.append(x)
        if len(batch) == n:
            yield batch
            batch = []
    if batch:
        yield batch


def peer_agentevals(corpus: Path) -> dict:
    """LangChain agentevals' trajectory match, strict mode: each run's calls as OpenAI messages
    against the case's canonical sequence as the reference trajectory."""
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="strict")
    cases = load_cases(corpus / "cases")

    def messages(task: str, calls: list[tuple[str, Any, Any]]) -> list[dict]:
        out: list[dict] = [{"role": "user", "content": task}]
        for i, (name, args, result) in enumerate(calls):
            arguments = args if type(args) is str else orjson.dumps(args).decode()
            call_id = f"call_{i}"
            out.append(
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": arguments},
                        }
                    ],
                }
            )
            content = "" if result is MISSING else orjson.dumps(result).decode()
            out.append({"role": "tool", "content": content, "tool_call_id": call_id})
        out.append({"role": "assistant", "content": "done"})
        return out

    seconds, calls, runs, passed, crashed = 0.0, 0, 0, 0, 0
    for batch in _batches(_records(corpus, cases), PEER_BATCH_RUNS):
        prepared = []
        for record, case in batch:
            run_calls = [(*_call_parts(c), c.get("result", MISSING)) for c in record["calls"]]
            reference = [(s.tool, dict(s.args), MISSING) for s in case.accept[0]]
            prepared.append((messages(case.input, run_calls), messages(case.input, reference)))
            calls += len(run_calls)
        t0 = time.perf_counter()
        for outputs, reference in prepared:
            try:
                passed += evaluator(outputs=outputs, reference_outputs=reference)["score"] is True
            except Exception:
                crashed += 1  # an `arguments` string that is not JSON: agentevals raises
        seconds += time.perf_counter() - t0
        runs += len(prepared)
    return {"seconds": seconds, "calls": calls, "runs": runs, "passed": passed, "crashed": crashed}


BFCL_TYPES = {
    "string": "string",
    "integer": "integer",
    "number": "float",
    "boolean": "boolean",
    "array": "array",
    "object": "dict",
}


def _bfcl_type(param: Any) -> str:
    for t in param.types:
        if t in BFCL_TYPES:
            return BFCL_TYPES[t]
    return "any"


def _bfcl_function(tool: Any) -> dict:
    properties = {}
    for name, p in tool.params.properties.items():
        entry: dict[str, Any] = {"type": _bfcl_type(p), "description": name}
        if entry["type"] == "array":
            entry["items"] = {"type": _bfcl_type(p.items) if p.items is not None else "any"}
        properties[name] = entry
    required = tool.params.schema.get("required", [])
    return {
        "name": tool.name,
        "description": tool.description,
        "parameters": {"type": "dict", "properties": properties, "required": list(required)},
    }


def _bfcl_answer(value: Any) -> list:
    """BFCL's possible answers: a list of acceptable values; a dict's own values are lists."""
    if type(value) is dict:
        return [{k: _bfcl_answer(v) for k, v in value.items()}]
    if type(value) is list and value and all(type(x) is dict for x in value):
        return [[{k: _bfcl_answer(v) for k, v in x.items()} for x in value]]
    return [value]


def peer_bfcl(corpus: Path) -> dict:
    """The Berkeley Function Calling Leaderboard's AST checker: each decoded call against the
    canonical step at its position (the last step past the end), as a `simple` entry."""
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    tools = load_tools(corpus / "tools")
    cases = load_cases(corpus / "cases")
    functions = {name: _bfcl_function(t) for name, t in tools.items()}
    seconds, calls, skipped, valid, crashed = 0.0, 0, 0, 0, 0
    for batch in _batches(_records(corpus, cases), PEER_BATCH_RUNS):
        prepared = []
        for record, case in batch:
            steps = case.accept[0]
            for i, call in enumerate(record["calls"]):
                name, args = _call_parts(call)
                if type(args) is str:
                    try:
                        args = orjson.loads(args) if args else {}
                    except orjson.JSONDecodeError:
                        args = None
                if type(args) is not dict or not steps:
                    skipped += 1  # malformed arguments: nothing for an AST checker to read
                    continue
                step = steps[min(i, len(steps) - 1)]
                fn = functions.get(step.tool)
                if fn is None:
                    skipped += 1
                    continue
                answer = {k: _bfcl_answer(v) for k, v in step.args.items()}
                for k in fn["parameters"]["properties"]:
                    answer.setdefault(k, [""])  # optional: may be omitted
                prepared.append(([fn], [{name: args}], [{step.tool: answer}]))
        t0 = time.perf_counter()
        for fns, output, answer in prepared:
            try:
                result = ast_checker(fns, output, answer, Language.PYTHON, "simple", "bench")
                valid += result["valid"] is True
            except Exception:
                crashed += 1
        seconds += time.perf_counter() - t0
        calls += len(prepared)
    return {
        "seconds": seconds,
        "calls": calls,
        "skipped": skipped,
        "valid": valid,
        "crashed": crashed,
    }


PEERS = {
    "agentevals": ("agentevals trajectory match (strict)", peer_agentevals),
    "bfcl": ("BFCL ast_checker", peer_bfcl),
}


def measure_peer(key: str, corpus: Path) -> Measured:
    label = PEERS[key][0]
    m, out = run_measured(helper_cmd("_peer", key, str(corpus)), label, 0)
    if m.error:
        return m
    got = json.loads(out)
    if "error" in got:
        return Measured(label, 0.0, 0, error=got["error"])
    m.seconds, m.calls = got["seconds"], got["calls"]
    notes = []
    if got.get("crashed"):
        notes.append(f"{got['crashed']:,} raised")
    if got.get("skipped"):
        notes.append(f"{got['skipped']:,} malformed calls not checkable")
    m.note = "; ".join(notes)
    return m


# ------------------------------------------------------------------------------------ report


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (
        f"{cpu}, {os.cpu_count()} CPUs, {mem:.0f} GiB; {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}; load average {os.getloadavg()[0]:.2f}"
    )


def _mb(kb: int) -> str:
    return f"{kb / 1024:,.0f} MB" if kb else "-"


def table(rows: list[Measured], floor_m: Measured, peers: dict[str, Measured]) -> str:
    peer_cols = [(k, m) for k, m in peers.items() if not m.error and m.rate]
    head = ["", "calls/s", "time ÷ floor"] + [f"× {k}" for k, _ in peer_cols]
    head += ["s", "CPU s", "max RSS (one process)", "peak RSS (all processes)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for m in rows:
        if m.error:
            lines.append(f"| {m.name} | {m.error} |" + " |" * (len(head) - 2))
            continue
        cells = [m.name, f"{m.rate:,.0f}", f"{floor_m.rate / m.rate:.2f}" if m.rate else "-"]
        cells += [f"{m.rate / p.rate:,.1f}" for _, p in peer_cols]
        timed_loop = not m.name.startswith("evalrun")  # the floor and peers: CPU is the process's
        cells += [f"{m.seconds:.2f}", "-" if timed_loop else f"{m.cpu:.2f}"]
        cells += [_mb(m.max_rss_kb), _mb(m.tree_rss_kb)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def evalrun_version() -> str:
    """What `evalrun --version` says, the core it runs on included: a bench environment without
    the native extension measures the Python core, and the figures must say so."""
    cmd = evalrun_cmd(Path("."), "table", 1)
    cmd = [*cmd[: cmd.index("score")], "--version"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return done.stdout.strip() or done.stderr.strip()


def bench(args: argparse.Namespace) -> None:
    print(f"machine: {machine()}")
    print(f"measured: {evalrun_version()}")
    for n, kind in enumerate(args.corpora):
        if n:
            print("\n")
        bench_corpus(args, kind)


CORPORA = {
    "distinct": "distinct runs (no run repeats another)",
    "many-cases": "distinct runs, many small cases (each case copied: about "
    f"{CALLS_PER_CASE} calls a case)",
    "repeating": "repeating runs",
}
"""The corpora `--corpora` names, as each report calls them."""


def corpus_of(args: argparse.Namespace, kind: str, calls: int | None = None) -> Path:
    return ensure_corpus(
        args.calls if calls is None else calls,
        args.corpus_dir,
        args.source,
        distinct=kind == "distinct",
        many_cases=kind == "many-cases",
    )


def bench_corpus(args: argparse.Namespace, kind: str) -> None:
    corpus = corpus_of(args, kind)
    info = json.loads((corpus / "corpus.json").read_text())
    calls = info["calls"]
    cases = f", {info['cases']:,} cases" if "cases" in info else ""
    print(
        f"corpus, {CORPORA[kind]}: {corpus} ({info['runs']:,} runs, {calls:,} calls{cases}, "
        f"{info['bytes'] / 1e6:.0f} MB in 8 files, one holding half; synthesized from "
        f"{info['surface']})"
    )
    print(
        f"repeat share: {info['repeats'] / info['runs']:.0%} of the runs make the same calls as an "
        "earlier run of their case (with the same world, where it is asserted); 52% in the "
        "example corpus, and in the repeating generator's at its size (4,000 runs)"
    )
    print(f"evalrun and the floor: best of {args.repeat}; peers: once, on the same calls\n")
    sys.stdout.flush()

    floor_m = measure_floor(corpus, args.repeat)
    # An empty input scores no run, which evalrun reports with exit 2: start-up is what is timed.
    startup = best_of(args.repeat, evalrun_cmd(corpus, "table", 1, empty=True), "", 0, ok=(2,))
    rows = [floor_m]
    for jobs in args.jobs:
        for fmt in ("table", "jsonl"):
            name = f"evalrun score --jobs {jobs} --format {fmt}"
            rows.append(best_of(args.repeat, evalrun_cmd(corpus, fmt, jobs), name, calls))
            print(f"  {name}: {rows[-1].rate:,.0f} calls/s", file=sys.stderr)
    peers: dict[str, Measured] = {}
    for key in args.peers:
        peers[key] = measure_peer(key, corpus)
        p = peers[key]
        print(f"  {p.name}: {p.error or f'{p.rate:,.0f} calls/s'}", file=sys.stderr)
    rows += list(peers.values())
    print(table(rows, floor_m, peers))
    print()
    print(
        f"- evalrun's wall times include its start-up: {startup.seconds:.2f}s on an empty input "
        "(imports, reading tools and cases); the floor and the peers are timed around their loop."
    )
    for m in rows:
        if m.note:
            print(f"- {m.name}: {m.note}")
    if args.commands:
        one = next((m for m in rows if m.name == "evalrun score --jobs 1 --format table"), None)
        if one is not None and not one.error:
            measure_commands(args, corpus, calls, one)
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    summarize_targets(rows, floor_m, peers)


def summarize_targets(rows: list[Measured], floor_m: Measured, peers: dict[str, Measured]) -> None:
    by = {m.name: m for m in rows}
    print("\ntargets (issue 8):")
    for fmt in ("table", "jsonl"):
        one = by.get(f"evalrun score --jobs 1 --format {fmt}")
        if one is None or one.error:
            continue
        ok = "met" if one.rate >= 250_000 else "missed"
        print(f"- ≥ 250,000 calls/s, one process, {fmt}: {one.rate:,.0f} ({ok})")
        ratio = floor_m.rate / one.rate
        print(
            f"- within 5× of the floor, {fmt}: {ratio:.1f}× ({'met' if ratio <= 5 else 'missed'})"
        )
        two = by.get(f"evalrun score --jobs 2 --format {fmt}")
        if two is not None and not two.error:
            print(f"- --jobs 2 speed-up, {fmt}: {two.rate / one.rate:.2f}×")
        for key, need in (("agentevals", 50.0), ("bfcl", 1.0)):
            p = peers.get(key)
            if p is None:
                continue
            if p.error or not p.rate:
                print(f"- vs {p.name}: not measured ({p.error})")
                continue
            x = one.rate / p.rate
            want = f"≥ {need:g}×" if need > 1 else "ahead"
            print(
                f"- vs {p.name}, {fmt}: {x:,.1f}× (target {want}: {'met' if x >= need else 'missed'})"
            )


def memory(args: argparse.Namespace) -> None:
    """Peak RSS at two corpus sizes of the first of `--corpora` (distinct by default: the memo
    and the case plans are bounded, and only a corpus that fills them shows it): flat in trace
    size means the same peak at both."""
    sizes = args.memory_calls
    print(f"machine: {machine()}\n")
    print(f"corpus: {CORPORA[args.corpora[0]]}\n")
    rows = []
    for calls in sizes:
        corpus = corpus_of(args, args.corpora[0], calls)
        for jobs in args.jobs:
            for fmt in ("table", "jsonl"):
                name = f"{calls:,} calls, --jobs {jobs} --format {fmt}"
                m, _ = run_measured(evalrun_cmd(corpus, fmt, jobs), name, calls)
                rows.append((calls, jobs, fmt, m))
                print(f"  {name}: {_mb(m.max_rss_kb)}", file=sys.stderr)
    head = "| calls | jobs | format | calls/s | max RSS (one process) | peak RSS (all processes) |"
    print(head + "\n|---|---|---|---|---|---|")
    for calls, jobs, fmt, m in rows:
        print(
            f"| {calls:,} | {jobs} | {fmt} | {m.rate:,.0f} | {_mb(m.max_rss_kb)} | "
            f"{_mb(m.tree_rss_kb)} |"
        )
    print()
    small, large = sizes[0], sizes[-1]
    for jobs in args.jobs:
        for fmt in ("table", "jsonl"):
            a = next(m for c, j, f, m in rows if (c, j, f) == (small, jobs, fmt))
            b = next(m for c, j, f, m in rows if (c, j, f) == (large, jobs, fmt))
            growth = b.max_rss_kb / a.max_rss_kb - 1
            verdict = "flat (within 20%)" if abs(growth) <= 0.2 else "NOT flat"
            print(
                f"- --jobs {jobs} {fmt}: {_mb(a.max_rss_kb)} at {small:,} calls, "
                f"{_mb(b.max_rss_kb)} at {large:,}: {growth:+.0%}, {verdict}"
            )


def profile(args: argparse.Namespace) -> None:
    """Where one process's time goes, scoring the corpus to JSONL: sampled with py-spy (the bench
    extra has it), else measured with cProfile (which slows pure-Python code about 2x). The corpus
    is the first of `--corpora` (distinct by default: a repeating one hides the grading behind
    the memo)."""
    corpus = corpus_of(args, args.corpora[0])
    score_args = evalrun_cmd(corpus, "jsonl", 1)
    score_args = score_args[score_args.index("score") :]
    spy = shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))
    if spy:
        out = args.corpus_dir / f"profile-{args.calls}.txt"
        cmd = [spy, "record", "--format", "raw", "--rate", "250", "--output", str(out), "--"]
        cmd += [sys.executable, "-m", "evalrunner", *score_args]
        subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL, capture_output=True)
        print(f"py-spy, 250 samples/s, `evalrun score --format jsonl` on {args.calls:,} calls\n")
        print_stacks(out.read_text(), args.top)
        return
    import pstats

    out = args.corpus_dir / f"profile-{args.calls}.pstats"
    cmd = [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "evalrunner", *score_args]
    subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL)
    stats = pstats.Stats(str(out))
    print(f"cProfile (no py-spy), `evalrun score --format jsonl` on {args.calls:,} calls\n")
    stats.sort_stats("tottime").print_stats(args.top)
    stats.sort_stats("cumulative").print_stats(r"evalrunner", args.top)


def print_stacks(raw: str, top: int) -> None:
    """Summarize py-spy's collapsed stacks: own time by module and by function, and the time
    spent inside each evalrunner function (its callees included)."""
    own_module: dict[str, int] = {}
    own_function: dict[str, int] = {}
    inside: dict[str, int] = {}
    total = 0
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        n = int(count)
        total += n
        frames = stack.split(";")
        name, file = _frame(frames[-1])
        own_module[_module(file)] = own_module.get(_module(file), 0) + n
        key = f"{name} ({file})"
        own_function[key] = own_function.get(key, 0) + n
        for f in {_frame(x) for x in frames}:
            if "evalrunner" in f[1]:
                k = f"{f[0]} ({f[1]})"
                inside[k] = inside.get(k, 0) + n
    print(f"{total:,} samples\n\nown time by module:")
    for key, n in sorted(own_module.items(), key=lambda kv: -kv[1])[:15]:
        print(f"  {n / total:6.1%}  {key}")
    print("\nown time by function (C functions count towards their Python caller):")
    for key, n in sorted(own_function.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {n / total:6.1%}  {key}")
    print("\ntime inside each evalrunner function, callees included:")
    for key, n in sorted(inside.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {n / total:6.1%}  {key}")


def _frame(frame: str) -> tuple[str, str]:
    """("Grader.grade_record", "evalrunner/score.py") from "Grader.grade_record (evalrunner/score.py:246)"."""
    name, _, where = frame.rpartition(" (")
    return name, where.rstrip(")").rsplit(":", 1)[0]


def _module(file: str) -> str:
    if "evalrunner/" in file:
        return "evalrunner/" + file.split("evalrunner/", 1)[-1]
    if file.startswith(("~", "<")):
        return "builtins (C: orjson, dict, list, ...)"
    return "other Python: " + Path(file).name


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_peer"]:
        try:
            print(json.dumps(PEERS[argv[1]][1](Path(argv[2]))))
        except ImportError as e:
            print(json.dumps({"error": f"cannot import ({e}); pip install -e '.[bench]'"}))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=1_000_000, help="corpus size in tool calls")
    ap.add_argument("--repeat", type=int, default=3, help="runs of evalrun and the floor (best)")
    ap.add_argument("--jobs", type=lambda v: [int(x) for x in v.split(",")], default=[1, 2])
    ap.add_argument(
        "--peers",
        type=lambda v: [x for x in v.split(",") if x],
        default=list(PEERS),
        help="comma-separated: agentevals,bfcl (empty for none)",
    )
    ap.add_argument(
        "--corpora",
        type=lambda v: [x for x in v.split(",") if x],
        default=["distinct", "repeating"],
        help="comma-separated, in order: distinct (no run repeats another), many-cases "
        f"(distinct, each case copied to about {CALLS_PER_CASE} calls a case), repeating",
    )
    ap.add_argument("--source", type=Path, help="a directory with tools/ and cases/ to use")
    ap.add_argument("--corpus-dir", type=Path, default=ROOT / "bench-corpus")
    ap.add_argument("--memory", action="store_true", help="peak RSS at 1M vs 5M calls")
    ap.add_argument(
        "--memory-calls",
        type=lambda v: [int(x) for x in v.split(",")],
        default=[1_000_000, 5_000_000],
    )
    ap.add_argument(
        "--commands",
        action="store_true",
        help="also time " + ", ".join(OTHER_COMMANDS) + " as ratios to score",
    )
    ap.add_argument("--profile", action="store_true", help="cProfile one process")
    ap.add_argument("--top", type=int, default=25, help="functions --profile lists")
    args = ap.parse_args(argv)
    unknown = [k for k in args.corpora if k not in CORPORA]
    if unknown or not args.corpora:
        ap.error(f"--corpora: one or more of {', '.join(CORPORA)} (not {', '.join(unknown)})")
    args.corpus_dir.mkdir(parents=True, exist_ok=True)
    if args.memory:
        memory(args)
    elif args.profile:
        profile(args)
    else:
        bench(args)


if __name__ == "__main__":
    main()
