"""The Dask integration on a local cluster: the merged summary equals the single-process one."""

from __future__ import annotations

import gzip
import io
import pickle
import shutil
import threading
from itertools import pairwise
from pathlib import Path

import pytest

pytest.importorskip("dask.bag")
distributed = pytest.importorskip("distributed")

from evalrunner.dask import score_bag, summary_of, trace_bag  # noqa: E402
from evalrunner.model import InputError  # noqa: E402
from evalrunner.scoring import graded, load_config, score  # noqa: E402
from evalrunner.traces import Reading, TraceInput  # noqa: E402
from evalrunner.write.jsonl import JsonlWriter  # noqa: E402
from scripts.bench_corpus import generate  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """The benchmark generator's corpus, one of its files gzipped, and a blank-only file."""
    target = tmp_path_factory.mktemp("dask") / "c"
    generate(3000, target, None)
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


# ------------------------------------------------------------------ a corpus large enough to race


@pytest.fixture(scope="module")
def large(tmp_path_factory) -> Path:
    """40,000 calls in 8 files (one of 3.7 MB): with small byte ranges, dozens of tasks grade
    while the config is sent to the workers, as on the corpus that hung."""
    target = tmp_path_factory.mktemp("dask-large") / "c"
    generate(40000, target, None)
    return target


def test_byte_ranges_give_the_same_summary_and_jsonl(large, client):
    """Large files split on line boundaries, a real two-process cluster: the summary and the
    per-run JSON Lines are `evalrun score`'s, byte for byte, line numbers included."""
    config = load_config(large / "tools", large / "cases")
    want = io.BytesIO()
    expected = score(config, [large / "traces"], writer=JsonlWriter(want))
    bag = trace_bag(large / "traces", split_bytes=256 * 1024, files_per_partition=2)
    assert bag.npartitions > 10  # the big file alone is 15 ranges
    got = io.BytesIO()
    summary = score_bag(bag, config, writer=JsonlWriter(got))
    assert summary.to_json() == expected.to_json()
    assert summary.warnings == expected.warnings and summary.files == expected.files == 8
    assert got.getvalue() == want.getvalue()
    assert got.getvalue().count(b"\n") == expected.runs + 1  # a line a run, then the summary


def test_ranges_cut_on_line_boundaries(tmp_path):
    """Every range starts at a line start; lines (blank ones too) are counted once each, so the
    offsets number the lines as one reading of the whole file does."""
    from evalrunner.dask import _count_partition, _offsets_of, _range

    text = b'{"a": 1}\n\n  \n{"b": 22}\n{"c": 333}\n\n{"d": 4}'
    f = tmp_path / "t.jsonl"
    f.write_bytes(text)
    for size in range(1, len(text) + 2):
        cuts = [*range(0, len(text), size), len(text)]
        items = [(0, str(f), a, b) for a, b in pairwise(cuts)]
        joined = b"".join(_range(str(f), {}, a, b) for _, _, a, b in items)
        assert joined == text
        offsets = _offsets_of(_count_partition(items, {}))[0]
        assert offsets is not None
        for _, _, a, end in items:
            at = 0 if a == 0 else (text.find(b"\n", a - 1) + 1 or len(text))  # its first line
            assert text.startswith(_range(str(f), {}, a, end), at)
            records = sum(1 for line in text[:at].split(b"\n") if line.strip())
            assert offsets[a] == (text[:at].count(b"\n") + 1, records)


def test_a_pretty_printed_file_is_not_split(tmp_path, client):
    (tmp_path / "t").mkdir()
    shutil.copytree(ROOT / "tools", tmp_path / "tools")
    shutil.copytree(ROOT / "cases", tmp_path / "cases")
    record = b'{\n  "case_id": "x",\n  "calls": []\n}\n'
    (tmp_path / "t" / "p.jsonl").write_bytes(record * 50)
    config = load_config(tmp_path / "tools", tmp_path / "cases")
    expected = score(config, [tmp_path / "t"])
    got = score_bag(trace_bag(tmp_path / "t", split_bytes=100), config)
    assert got.to_json() == expected.to_json()


def test_a_config_pickles_without_caches_while_it_grades(large):
    """The race that hung the cluster: pickling the config while another thread of the process
    grades with it (a worker sending it to another) mutated the caches mid-pickle."""
    config = load_config(large / "tools", large / "cases")
    errors: list[BaseException] = []
    stop = threading.Event()

    def grade() -> None:
        try:
            reader = Reading().reader()
            for path in sorted((large / "traces").glob("*.jsonl")):
                for _ in graded(config, reader, TraceInput(str(path)).lines()):
                    if stop.is_set():
                        return
        except BaseException as e:  # pragma: no cover - the failure being tested for
            errors.append(e)

    worker = threading.Thread(target=grade)
    worker.start()
    try:
        for _ in range(30):
            copy = pickle.loads(pickle.dumps(config))
            assert not copy.grader._memo and not copy.grader._calls  # a fresh grader
    finally:
        stop.set()
        worker.join()
    assert not errors
    assert config.grader._memo  # the original kept grading, with its caches


def test_a_split_file_of_spans_is_an_error_that_says_what_to_do(tmp_path):
    """OpenTelemetry spans' runs span lines: byte ranges cannot hold them. Whole, they score as
    `score` scores them; split, the error names the file and the setting."""
    from .formats.test_otel import corpus as span_corpus
    from .formats.test_otel import project

    _, spans = span_corpus("root_last")
    path = project(tmp_path, "spans.jsonl", spans)
    config = load_config(tmp_path / "tools", tmp_path / "cases")
    expected = score(config, [path])
    whole = score_bag(trace_bag(path, split_bytes=None), config)
    assert whole.to_json() == expected.to_json() and whole.runs > 0
    with pytest.raises(InputError, match=r"spans\.jsonl.*split_bytes=None"):
        score_bag(trace_bag(path, split_bytes=path.stat().st_size // 3), config)


def test_a_bag_made_elsewhere_counts_its_files(corpus):
    """A bag of the same items not made by `trace_bag` (rebuilt from them) still says how many
    files it read."""
    import dask.bag as db

    config = load_config(corpus / "tools", corpus / "cases")
    items = trace_bag(corpus / "traces", split_bytes=50_000).compute()
    assert len(items) > 9  # some files in several ranges
    got = score_bag(db.from_sequence(items, npartitions=4), config)
    expected = score(config, [corpus / "traces"])
    assert got.to_json() == expected.to_json() and got.files == expected.files == 9
