"""The inputs' digest: the same bytes give the same digest wherever they are, and comparing two
names the files that changed."""

from __future__ import annotations

import gzip
import hashlib
import io
import shutil
from pathlib import Path

import pytest

from evalrunner.audit.digest import Changes, Digest, digest_inputs
from evalrunner.model import InputError

DATA = Path(__file__).parent / "data" / "cli"


@pytest.fixture
def corpus(tmp_path):
    root = tmp_path / "corpus"
    for name in ("tools", "cases", "traces"):
        shutil.copytree(DATA / name, root / name)
    return root


def digest(root: Path, traces=None) -> Digest:
    return digest_inputs(root / "tools", root / "cases", traces or [root / "traces"], None)


def test_an_input_digest_is_over_its_files_names_and_bytes(corpus):
    d = digest(corpus)
    data = (corpus / "traces" / "a.jsonl").read_bytes()
    file_sha = hashlib.sha256(data).hexdigest()
    assert d.traces.files == {"a.jsonl": file_sha}
    assert d.traces.sha256 == hashlib.sha256(f"a.jsonl\0{file_sha}\n".encode()).hexdigest()
    assert set(d.tools.files) == {"billing.json"} and set(d.cases.files) == {"c.json"}


def test_the_same_corpus_elsewhere_has_the_same_digest(corpus, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(corpus, elsewhere)
    assert digest(elsewhere) == digest(corpus)
    assert digest(elsewhere).sha256 == digest(corpus).sha256


def test_a_file_named_alone_is_named_by_its_name(corpus):
    assert digest(corpus, [corpus / "traces" / "a.jsonl"]).traces == digest(corpus).traces


def test_a_gzip_file_is_digested_as_the_lines_it_holds(corpus):
    plain = digest(corpus)
    data = (corpus / "traces" / "a.jsonl").read_bytes()
    (corpus / "traces" / "a.jsonl").unlink()
    for mtime in (0, 12345):  # compressed twice, differently: the same digest
        with gzip.GzipFile(corpus / "traces" / "a.jsonl.gz", "wb", mtime=mtime) as f:
            f.write(data)
        d = digest(corpus)
        assert d.traces.files == {"a.jsonl.gz": plain.traces.files["a.jsonl"]}


def test_standard_input_is_digested_and_rewound(corpus):
    stream = io.BytesIO((corpus / "traces" / "a.jsonl").read_bytes())
    d = digest_inputs(corpus / "tools", corpus / "cases", ["-"], stream)
    assert d.traces.files == {"<stdin>": digest(corpus).traces.files["a.jsonl"]}
    assert stream.tell() == 0


def test_changes_name_the_files_modified_added_removed_and_renamed(corpus):
    before = digest(corpus)
    traces = corpus / "traces"
    (traces / "a.jsonl").write_text((traces / "a.jsonl").read_text() + "\n{}\n")
    (traces / "b.jsonl").write_text("{}\n")
    (corpus / "tools" / "billing.json").rename(corpus / "tools" / "renamed.json")
    changes = before.changes(digest(corpus))
    assert changes == {
        "tools": Changes(renamed=(("billing.json", "renamed.json"),)),
        "traces": Changes(modified=("a.jsonl",), added=("b.jsonl",)),
    }
    assert changes["traces"].describe() == "a.jsonl modified, b.jsonl added"
    assert changes["tools"].describe() == "billing.json renamed renamed.json"
    (traces / "b.jsonl").unlink()
    (traces / "a.jsonl").unlink()
    assert before.changes(digest(corpus))["traces"] == Changes(removed=("a.jsonl",))


def test_nothing_changed_is_no_change(corpus):
    assert digest(corpus).changes(digest(corpus)) == {}


def test_a_digest_reads_back_from_its_json(corpus):
    d = digest(corpus)
    assert Digest.from_json(d.to_json()) == d
    with pytest.raises(ValueError):
        Digest.from_json({"tools": {"sha256": 1}})


def test_a_missing_input_is_unusable(corpus):
    with pytest.raises(InputError, match="does not exist"):
        digest_inputs(corpus / "nope", corpus / "cases", [corpus / "traces"], None)
