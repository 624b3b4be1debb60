"""The example corpus `make run` scores: generated deterministically, committed as generated, and
scored the way its generator built it."""

from __future__ import annotations

import gzip
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app
from evalrunner.model import VERDICTS
from evalrunner.shapes import FALSE_FAILURE_SHAPES, FALSE_PASS_SHAPES

ROOT = Path(__file__).resolve().parent.parent
CORPUS_DIRS = ("tools", "cases", "traces")


@pytest.fixture(scope="module")
def gen() -> Any:
    """scripts/gen_corpus.py as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("gen_corpus", ROOT / "scripts" / "gen_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


@pytest.fixture(scope="module")
def generated(gen: Any) -> tuple[dict[str, bytes], dict[str, str]]:
    """Every corpus file by relative path, and each run's scenario by run id."""
    return gen.build(gen.random.Random(gen.SEED))


def invoke(*args: str) -> Any:
    """The CLI, run from the repository root as `make run` runs it."""
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def scored() -> dict[str, Any]:
    """The committed corpus scored by the CLI."""
    result = invoke("score", "traces", "--tools", "tools", "--cases", "cases", "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def committed_files() -> dict[str, Path]:
    return {
        f"{d}/{f.name}": f for d in CORPUS_DIRS for f in sorted((ROOT / d).iterdir()) if f.is_file()
    }


def content(rel: str, data: bytes) -> bytes:
    # Compare gzip files by what they hold: the compressed bytes depend on the zlib build, and a
    # different but equally valid stream is not a change to the corpus.
    return gzip.decompress(data) if rel.endswith(".gz") else data


def test_the_committed_corpus_is_the_generators_output(generated, tmp_path, gen):
    files, _ = generated
    assert sorted(files) == sorted(committed_files()), "run: python scripts/gen_corpus.py"
    for rel, path in committed_files().items():
        assert content(rel, path.read_bytes()) == content(rel, files[rel]), (
            f"{rel} differs from the generator's output; run: python scripts/gen_corpus.py"
        )
    # The script's own entry point writes the same files, and a second run changes nothing.
    gen.main(["--out", str(tmp_path)])
    first = {p.relative_to(tmp_path).as_posix(): p.read_bytes() for p in tmp_path.rglob("*.*")}
    gen.main(["--out", str(tmp_path)])
    second = {p.relative_to(tmp_path).as_posix(): p.read_bytes() for p in tmp_path.rglob("*.*")}
    assert first == second == files


def test_generator_removes_files_an_older_layout_left_behind(gen, tmp_path):
    (tmp_path / "traces").mkdir()
    stale = tmp_path / "traces" / "2025-old.jsonl"
    stale.write_text("{}\n")
    keep = tmp_path / "traces" / "README.md"
    keep.write_text("not a corpus file\n")
    gen.main(["--out", str(tmp_path)])
    assert not stale.exists()
    assert keep.exists()


def trace_lines() -> list[tuple[str, int]]:
    """(file, line number) of every non-blank line of the committed traces."""
    out = []
    for path in sorted((ROOT / "traces").iterdir()):
        data = path.read_bytes()
        if path.name.endswith(".gz"):
            data = gzip.decompress(data)
        for number, line in enumerate(data.splitlines(), start=1):
            if line.strip():
                out.append((f"traces/{path.name}", number))
    return out


def test_every_line_read_is_scored_or_listed_as_unscoreable(scored):
    summary = scored["summary"]
    assert summary["runs"] + summary["unscoreable"] == len(trace_lines())
    assert summary["runs"] == len(scored["runs"])
    assert summary["unscoreable"] == len(scored["errors"]) == 2
    sources = {e["source"] for e in scored["errors"]}
    assert sources <= {f"{f}:{n}" for f, n in trace_lines()}
    reasons = " ".join(e["error"] for e in scored["errors"])
    assert "not valid JSON" in reasons and "unknown case" in reasons


def test_the_table_shows_every_verdict_and_shape(scored):
    summary = scored["summary"]
    verdicts = summary["verdicts"]
    assert all(verdicts[v] > 0 for v in VERDICTS), verdicts
    assert all(summary["false_failures"][s] > 0 for s in FALSE_FAILURE_SHAPES)
    assert all(summary["false_passes"][s] > 0 for s in FALSE_PASS_SHAPES)
    assert sum(summary["false_failures"].values()) == verdicts["false_failure"]
    assert sum(summary["false_passes"].values()) == verdicts["false_pass"]
    reported, true = summary["reported"], summary["true"]
    assert reported["failed_runs"] == verdicts["fail"] + verdicts["false_failure"]
    assert true["failed_runs"] == verdicts["fail"] + verdicts["false_pass"]
    # The story the corpus tells: exact-match overstates failures and misses the loops.
    assert reported["run_failure_rate"] > true["run_failure_rate"] > 0
    effects = summary["effects"]
    assert effects["checked"] > effects["failed"] > 0 and effects["unverified"] > 0


def test_the_casefold_rule_on_a_ledger_ref_is_a_normalizer_suspect(scored):
    suspects = {
        (s["tool"], s["param"], s["norm"]) for s in scored["summary"]["normalizer_suspects"]
    }
    assert ("apply_credit", "account_ref", "casefold") in suspects


def test_the_month_time_zone_trap_is_a_real_failure(scored, gen):
    # "2026-03-01T00:40:00+01:00" says March locally; in UTC, the tool's zone, it is February.
    trapped = [
        (run, p["month"])
        for run in scored["runs"]
        for call in run["calls"]
        if (p := call.get("params", {})).get("month", {}).get("kind") == "mismatch"
        and str(p["month"]["actual"]).startswith(f"{p['month']['expected']}-01T0")
    ]
    assert trapped
    for run, month in trapped:
        assert run["verdict"] == "fail"
        assert month["actual_norm"] == gen.prev_month(month["expected"])


def test_coverage_counts_every_tool_of_the_corpus(scored, gen):
    assert scored["summary"]["coverage"]["tools"] == len(gen.TOOLS)


def test_every_run_gets_the_verdict_its_scenario_was_built_for(scored, generated, gen):
    _, scenarios = generated
    wrong = []
    for run in scored["runs"]:
        want = gen.expected_verdict(scenarios[run["run_id"]])
        shape = run["shape"] if run["verdict"] in ("false_failure", "false_pass") else None
        if (run["verdict"], shape) != want:
            wrong.append(f"{run['source']} {scenarios[run['run_id']]}: {run['verdict']} {shape}")
    assert not wrong, f"{len(wrong)} runs scored against their scenario:\n" + "\n".join(wrong[:20])
    assert len(scored["runs"]) == len(scenarios)


def test_the_corpus_lints_without_errors():
    result = invoke("lint", "--tools", "tools", "--cases", "cases", "--format", "json")
    assert result.exit_code == 0, result.output
    findings = json.loads(result.stdout)["findings"]
    assert not [f for f in findings if f["severity"] == "error"]
