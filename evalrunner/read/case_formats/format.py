"""What a case format declares about itself, and what every format's reader is handed.

The case formats evalrun reads: its own, and the suites other eval harnesses keep.

Each format is one module here that defines `FORMAT = CaseFormat(...)`: its name (what
`--case-format` takes), which files it reads, how a file in it is recognised, and how its records
become cases in evalrun's own form (`read/cases.py` then reads those, so every source is checked the
same way). The CLI's choices, the detection order and the table in docs/case-formats.md all come
from `CASE_FORMATS`.

A source that holds what evalrun cannot express (a model-graded assertion, a response-match
criterion) says so: the module calls `Source.warn` with the file and the field, and the warning is
shown wherever the cases are read (never a silent drop).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, overload

import orjson

from ...jsonvalue import dumps, loads
from ...model import InputError

AUTO: Final = "auto"
"""`--case-format auto`: each file in whichever format it is in."""


@dataclass(frozen=True)
class CaseWarning:
    """Something a source holds that evalrun cannot express: where it is, and what was done."""

    file: str
    field: str
    """Where in the file: `eval_cases[0].conversation[1].final_response`, `tests[2].assert[0]`."""
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.field}: {self.message}"


@dataclass
class Source:
    """One decoded case file, handed to a format's `read`."""

    file: Path
    data: Any
    """The file's content: a JSON value, a YAML document, or (JSONL) its `Records`."""
    lines: tuple[int, ...] | None = None
    """For JSONL: each record's line number."""
    siblings: Mapping[str, Any] = field(default_factory=dict)
    """Decoded files beside this one that a format reads as its configuration (ADK's
    `test_config.json`), by name."""
    warnings: list[CaseWarning] = field(default_factory=list)

    def warn(self, at: str, message: str) -> None:
        self.warnings.append(CaseWarning(str(self.file), at, message))

    def where(self, i: int) -> str:
        """How messages name record `i`: `file:line` in JSONL, `file #i` in a list."""
        if self.lines is not None:
            return f"{self.file}:{self.lines[i]}"
        return f"{self.file} #{i}"


class Records(Sequence[Any]):
    """A JSONL file's records, each parsed when it is read (again if read again), never held
    all at once: parsed whole, a file of 112,700 cases (35 MB) took 250 MB as objects, the peak
    of loading a large suite (issue 31). `decode` parsed every line once, so reading one does
    not fail; `drop` lets a line go once its reader is done with it."""

    __slots__ = ("_lines",)

    def __init__(self, lines: list[bytes | None]) -> None:
        self._lines = lines

    def __len__(self) -> int:
        return len(self._lines)

    @overload
    def __getitem__(self, i: int) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> list[Any]: ...
    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self._lines)))]
        line = self._lines[i]
        return None if line is None else loads(line)

    def __iter__(self) -> Iterator[Any]:
        for line in self._lines:
            yield None if line is None else loads(line)

    def drop(self, i: int) -> None:
        """Let record `i`'s line go (it reads as None from then on)."""
        self._lines[i] = None


Native = tuple[dict[str, Any], str]
"""A case in evalrun's own form, and where its record is (`file:line`, `file #3`)."""


@dataclass(frozen=True)
class CaseFormat:
    name: str
    """What `--case-format` takes: `adk`, `bfcl`."""
    summary: str
    """One line for the docs: the harness, and what becomes the case."""
    looks_like: str
    """How a file in it is recognised, for the "no known case format" message and the docs."""
    version: str
    """The version of the harness whose format this reads (docs/case-formats.md names it)."""
    suffixes: tuple[str, ...]
    """The file names it reads (`.json`, `.jsonl`, `.yaml`)."""
    detect: Callable[[Source], bool]
    read: Callable[[Source], list[Native]] | None
    """The cases of a file, in evalrun's form; None for evalrun's own format (read as written)."""
    order: int
    """Detection order: lower is tried first; evalrun's own format comes last, as the fallback for
    `.json` and `.jsonl` (so its messages, for a broken case, stay its own)."""
    config_files: tuple[str, ...] = ()
    """File names that may be this format's configuration, not cases (ADK's `test_config.json`),
    read beside the format's files."""
    is_config: Callable[[Source], bool] | None = None
    """Whether a file so named is that configuration (else it is read as cases, like any file)."""


def decode(file: Path) -> Source:
    """A case file read and parsed (JSON, JSONL or YAML); InputError naming the file when not."""
    try:
        raw = file.read_bytes()
    except OSError as e:
        raise InputError(f"{file}: cannot read this case file: {e.strerror or e}") from None
    name = file.name
    if name.endswith((".yaml", ".yml")):
        return Source(file, _yaml(raw, file))
    if name.endswith(".jsonl"):
        kept: list[bytes | None] = []
        lines = []
        for number, line in enumerate(raw.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                loads(line)  # every line checked before any is read, and let go
            except ValueError as e:
                raise InputError(
                    f"{file}:{number}: this case line is not valid JSON ({e})"
                ) from None
            kept.append(line)
            lines.append(number)
        return Source(file, Records(kept), tuple(lines))
    try:
        return Source(file, loads(raw))
    except ValueError as e:
        error = e
    # BFCL writes JSON lines under a .json name: read as such when every line is a JSON value
    numbered = [(n, x) for n, x in enumerate(raw.splitlines(), start=1) if x.strip()]
    try:
        for _, line in numbered:
            loads(line)
    except ValueError:
        numbered = []
    if len(numbered) > 1:
        return Source(file, Records([x for _, x in numbered]), tuple(n for n, _ in numbered))
    raise InputError(
        f"{file}: this case file is not valid JSON ({error}); fix or remove it"
    ) from None


def _yaml(raw: bytes, file: Path) -> Any:
    # PyYAML's safe loader only: a YAML tag never builds an object (case files are data).
    import yaml

    try:
        return yaml.safe_load(raw)
    except yaml.YAMLError as e:
        raise InputError(f"{file}: this case file is not valid YAML ({e})") from None


def stable_id(prefix: str, value: Any) -> str:
    """An id for a record that has none: the same content gives the same id on every read, and
    moving records around in the file does not change it."""
    import hashlib  # for the formats whose records may have no id (OpenSSL's set-up: about 3 ms)

    digest = hashlib.sha256(dumps(value, orjson.OPT_SORT_KEYS)).hexdigest()[:12]
    return f"{prefix}-{digest}"


def records(source: Source) -> Iterator[tuple[int, Any]]:
    """The records of a file that holds a list of them (or one)."""
    data = source.data
    if isinstance(data, (list, Records)):
        yield from enumerate(data)
    elif data is not None:
        yield 0, data


def every(source: Source, holds: Callable[[Any], bool]) -> bool:
    """Whether the file holds records and each one `holds`: a format's `detect`, reading one
    record at a time and stopping at the first that does not."""
    found = False
    for _, record in records(source):
        if not holds(record):
            return False
        found = True
    return found
