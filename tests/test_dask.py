"""The Dask integration on a local cluster: the merged summary equals the single-process one."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

pytest.importorskip("dask.bag")
distributed = pytest.importorskip("distributed")

from evalrunner.dask import score_bag, summary_of, trace_bag  # noqa: E402
from evalrunner.scoring import load_config, score  # noqa: E402
from evalrunner.traces import Reading  # noqa: E402

from .test_parallel import _bench  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """The benchmark generator's corpus, one of its files gzipped, and a blank-only file."""
    target = tmp_path_factory.mktemp("dask") / "c"
    _bench().generate(3000, target, None)
    part = target / "traces" / "part-03.jsonl"
    (target / "traces" / "part-03.jsonl.gz").write_bytes(gzip.compress(part.read_bytes()))
    part.unlink()
    (target / "traces" / "part-08.jsonl").write_bytes(b"\n\n")
    return target


@pytest.fixture(scope="module")
def client():
    # Worker processes, as on a real cluster: the config and the summaries cross a process
    # boundary (pickled) both ways.
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",  # a free port: another cluster on the machine may hold 8787
            silence_logs=40,
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


@pytest.mark.parametrize("files_per_partition", [1, 3])
def test_merged_summary_equals_single_process(corpus, client, files_per_partition):
    config = load_config(corpus / "tools", corpus / "cases")
    expected = score(config, [corpus / "traces"])
    bag = trace_bag(corpus / "traces", files_per_partition=files_per_partition)
    assert bag.npartitions == -(-9 // files_per_partition)
    got = score_bag(bag, config, split_every=2)
    assert got.to_json() == expected.to_json()
    assert got.errors == expected.errors  # the same earliest lines, with their order keys
    assert {k: v[0] for k, v in got.examples.items()} == {
        k: v[0] for k, v in expected.examples.items()
    }
    assert got.unscoreable > 0 and got.runs > 1000


def test_the_example_corpus(client):
    if not any((ROOT / "traces").glob("*.jsonl*")):
        pytest.skip("the example corpus is not in the repository yet")
    config = load_config(ROOT / "tools", ROOT / "cases")
    expected = score(config, [ROOT / "traces"])
    got = score_bag(trace_bag(ROOT / "traces"), config)
    assert got.to_json() == expected.to_json()


def test_fsspec_urls(corpus, client, tmp_path):
    """A URL glob is listed with fsspec on the client and opened with fsspec on the workers; the
    sources name the URLs."""
    shutil.copytree(corpus / "traces", tmp_path / "traces")
    config = load_config(corpus / "tools", corpus / "cases")
    expected = score(config, [tmp_path / "traces"]).to_json()
    bag = trace_bag(f"file://{tmp_path}/traces/*.jsonl*")
    assert bag.npartitions == 9
    got = summary_of(bag, config).compute().finish().to_json()
    for doc in (got, expected):
        for ex in doc.pop("examples").values():
            assert ex["source"].removeprefix("file://").startswith(str(tmp_path))
        for rule in doc["reply_evidence"]:  # its example pair names its sources too
            for call in rule.get("example", {}).get("calls", []):
                call["source"] = call["source"].removeprefix("file://")
    assert got == expected


def test_bad_reading_options_fail_before_any_work(corpus):
    config = load_config(corpus / "tools", corpus / "cases")
    with pytest.raises(Exception, match="unknown trace format"):
        summary_of(trace_bag(corpus / "traces"), config, reading=Reading("xml"))
