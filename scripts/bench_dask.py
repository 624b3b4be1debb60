"""Time `evalrunner.dask` on a real two-process LocalCluster against `score` in one process.

    .venv/bin/python scripts/bench_dask.py [--calls 300000] [--split-mb 8] [--out DIR]

Generates the bench corpus (scripts/bench.py's generator, 8 files) unless it is there, scores it
in this process (`score`, JSON Lines to memory), then on `LocalCluster(n_workers=2,
processes=True, threads_per_worker=1)`: summary only, and with the jsonl writer, each once with
whole files and once with byte ranges of `--split-mb`. Prints wall and CPU seconds (this process
and, for the cluster, its workers' CPU as psutil sees it is not counted: wall is the figure), and
checks that every Dask output equals `score`'s, byte for byte.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("evalrun_bench", ROOT / "scripts" / "bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300_000)
    parser.add_argument("--split-mb", type=float, default=8)
    parser.add_argument("--out", type=Path, default=Path("/tmp/evalrun-bench-dask"))
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    from evalrunner.dask import score_bag, trace_bag
    from evalrunner.scoring import load_config, score
    from evalrunner.write.jsonl import JsonlWriter

    corpus = args.out / f"calls-{args.calls}"
    if not (corpus / "traces").is_dir():
        _bench().generate(args.calls, corpus, None)
    files = sorted((corpus / "traces").glob("*.jsonl"))
    size = sum(f.stat().st_size for f in files)
    print(f"corpus: {args.calls:,} calls, {len(files)} files, {size / 2**20:.1f} MB")
    config = load_config(corpus / "tools", corpus / "cases")

    def timed(label: str, fn):  # type: ignore[no-untyped-def]
        wall, cpu = time.perf_counter(), time.process_time()
        got = fn()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"{label:<44} wall {wall:7.2f} s   this process CPU {cpu:6.2f} s")
        return got

    def one_process() -> tuple[str, bytes]:
        out = io.BytesIO()
        summary = score(
            load_config(corpus / "tools", corpus / "cases"),
            [corpus / "traces"],
            writer=JsonlWriter(out),
        )
        return str(summary.to_json()), out.getvalue()

    want_summary, want_jsonl = timed("score, one process (jsonl)", one_process)
    start = time.perf_counter()
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=40,
        ) as cluster,
        Client(cluster),
    ):
        print(f"{'cluster start':<44} wall {time.perf_counter() - start:7.2f} s")
        for split in (None, int(args.split_mb * 2**20)):
            name = "whole files" if split is None else f"ranges of {args.split_mb:g} MB"
            bag = trace_bag(corpus / "traces", split_bytes=split)
            got = timed(
                f"dask, summary, {name} ({bag.npartitions} parts)",
                lambda bag=bag: score_bag(bag, config),
            )
            assert str(got.to_json()) == want_summary, "summary differs"
            out = io.BytesIO()
            timed(
                f"dask, jsonl, {name}",
                lambda bag=bag, out=out: score_bag(bag, config, writer=JsonlWriter(out)),
            )
            assert out.getvalue() == want_jsonl, "jsonl differs"
    print("every Dask output equals score's, byte for byte")


if __name__ == "__main__":
    main()
