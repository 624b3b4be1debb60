"""The inputs' digest: what a sheet was sampled from, so that `audit score` can say what changed.

Each of the three inputs (tools, cases, traces) is a set of files. A file's digest is the SHA-256
of the bytes evalrun reads from it (a `.gz` file's decompressed bytes, so that compressing again
changes nothing). A file is named by its path below the directory the input named (or by its own
name when the input named the file), so that the same corpus in another folder has the same
digest. An input's digest is the SHA-256 of its files' names and digests, one `name\\0digest\\n`
line each in name order; the sheet's digest is that of the three inputs' digests.

Comparing two digests names, per input, the files modified, added, removed or renamed.
"""

from __future__ import annotations

import gzip
import hashlib
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..model import InputError
from ..read.files import list_files
from ..traces import STDIN, trace_files

TOOL_SUFFIXES = (".json",)
"""What `tools.load_tools` reads."""
CASE_SUFFIXES = (".json", ".jsonl")
"""What `cases.load_cases` reads."""
STDIN_NAME = "<stdin>"
INPUTS = ("tools", "cases", "traces")
CHUNK = 1 << 20


@dataclass(frozen=True)
class InputDigest:
    """One input's digest, and each of its files'."""

    sha256: str
    files: Mapping[str, str] = field(default_factory=dict)
    """File name -> the SHA-256 of its bytes."""

    @classmethod
    def of(cls, files: Mapping[str, str]) -> InputDigest:
        h = hashlib.sha256()
        for name in sorted(files):
            h.update(f"{name}\0{files[name]}\n".encode())
        return cls(h.hexdigest(), dict(sorted(files.items())))

    def to_json(self) -> dict[str, Any]:
        return {"sha256": self.sha256, "files": dict(self.files)}

    @classmethod
    def from_json(cls, data: Any) -> InputDigest:
        if (
            type(data) is not dict
            or type(data.get("sha256")) is not str
            or type(data.get("files")) is not dict
            or not all(type(v) is str for v in data["files"].values())
        ):
            raise ValueError("an input's digest is {'sha256': HEX, 'files': {NAME: HEX}}")
        return cls(data["sha256"], data["files"])


@dataclass(frozen=True)
class Digest:
    """The digests of the tools, the cases and the traces a sheet was sampled from."""

    tools: InputDigest
    cases: InputDigest
    traces: InputDigest

    @property
    def sha256(self) -> str:
        h = hashlib.sha256()
        for name in INPUTS:
            h.update(f"{name}\0{getattr(self, name).sha256}\n".encode())
        return h.hexdigest()

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name).to_json() for name in INPUTS}

    @classmethod
    def from_json(cls, data: Any) -> Digest:
        if type(data) is not dict:
            raise ValueError("the inputs' digest is an object with tools, cases and traces")
        return cls(*(InputDigest.from_json(data.get(name)) for name in INPUTS))

    def changes(self, now: Digest) -> dict[str, Changes]:
        """What changed from this digest to `now`, per input that changed."""
        out = {}
        for name in INPUTS:
            before, after = getattr(self, name), getattr(now, name)
            if before.sha256 != after.sha256:
                out[name] = Changes.between(before.files, after.files)
        return out


@dataclass(frozen=True)
class Changes:
    """How one input's files differ from what they were."""

    modified: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    renamed: tuple[tuple[str, str], ...] = ()
    """(old name, new name): the same bytes under another name."""

    @classmethod
    def between(cls, before: Mapping[str, str], after: Mapping[str, str]) -> Changes:
        added = sorted(set(after) - set(before))
        removed = sorted(set(before) - set(after))
        renamed = []
        for old in list(removed):
            new = next((n for n in added if after[n] == before[old]), None)
            if new is not None:
                renamed.append((old, new))
                removed.remove(old)
                added.remove(new)
        modified = sorted(n for n in set(before) & set(after) if before[n] != after[n])
        return cls(tuple(modified), tuple(added), tuple(removed), tuple(renamed))

    def describe(self) -> str:
        """`a.jsonl modified, b.jsonl added`; "the same files in another order" when none."""
        parts = [f"{n} modified" for n in self.modified]
        parts += [f"{n} added" for n in self.added]
        parts += [f"{n} removed" for n in self.removed]
        parts += [f"{old} renamed {new}" for old, new in self.renamed]
        return ", ".join(parts) or "the same files, named otherwise"

    def to_json(self) -> dict[str, Any]:
        return {
            "modified": list(self.modified),
            "added": list(self.added),
            "removed": list(self.removed),
            "renamed": [{"from": old, "to": new} for old, new in self.renamed],
        }


# ---------------------------------------------------------------------------------- computing


def digest_inputs(
    tools: str | Path, cases: str | Path, traces: Iterable[str | Path], stdin: IO[bytes] | None
) -> Digest:
    """The digest of the inputs as the commands name them (`stdin`: what `-` reads, rewound after)."""
    return Digest(
        InputDigest.of(_named(tools, TOOL_SUFFIXES, "tools", "--tools")),
        InputDigest.of(_named(cases, CASE_SUFFIXES, "cases", "--cases")),
        InputDigest.of(_trace_files(traces, stdin)),
    )


def _named(path: str | Path, suffixes: tuple[str, ...], what: str, flag: str) -> dict[str, str]:
    root = Path(path)
    files = list_files(root, suffixes, what=what, flag=flag)
    return {_name(root, f): file_sha256(f) for f in files}


def _name(root: Path, file: Path) -> str:
    return file.name if root.is_file() else file.relative_to(root).as_posix()


def _trace_files(paths: Iterable[str | Path], stdin: IO[bytes] | None) -> dict[str, str]:
    named: list[tuple[str, str]] = []  # (name, the path as the traces reader lists it)
    for path in paths:
        if str(path) == STDIN:
            named.append((STDIN_NAME, STDIN))
            continue
        root = Path(path)
        named.extend((_name(root, Path(f)), f) for f in trace_files([path]))
    if len({n for n, _ in named}) < len(named):  # two inputs with a file of the same name
        named = [(f, f) for _, f in named]
    out = {}
    for name, f in named:
        if f == STDIN:
            if stdin is None:
                raise InputError("traces from standard input (-) need a seekable copy to digest")
            out[name] = _stream_sha256(stdin, gz=False)
            stdin.seek(0)
        else:
            out[name] = file_sha256(Path(f))
    return out


def file_sha256(path: Path) -> str:
    """The SHA-256 of the bytes evalrun reads from a file (decompressed for `.gz`)."""
    try:
        with open(path, "rb") as f:
            return _stream_sha256(f, gz=path.name.endswith(".gz"))
    except OSError as e:
        raise InputError(f"{path}: cannot read this file: {e.strerror or e}") from None


def _stream_sha256(stream: IO[bytes], *, gz: bool) -> str:
    h = hashlib.sha256()
    source: IO[bytes] | gzip.GzipFile = gzip.GzipFile(fileobj=stream, mode="rb") if gz else stream
    try:
        while chunk := source.read(CHUNK):
            h.update(chunk)
    except (OSError, EOFError, zlib.error):
        # A gzip file that breaks off: the traces reader reports it, line by line; here it
        # is enough that its digest is the digest of what could be read, plus a mark.
        h.update(b"\0truncated")
    return h.hexdigest()
