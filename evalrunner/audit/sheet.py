"""The audit sheet: JSONL, its first line the population the runs were drawn from, then one run a
line for a reviewer to label (SPEC "`evalrun audit`").

A run's line keeps its keys in reading order, `run_id` first and `label`, `note` last, so that a
reviewer can work in a text editor, and so that the HTML page can write a labelled line by
appending the two to the line's other keys as sampled, byte for byte (`line_bytes`).

Reading a sheet checks every line and reports every problem with the sheet's `file:line`: an
unusable sheet is an `InputError` (`SheetError`), as unusable input is for `score`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._version import __version__
from ..grade.grader import PER_CALL, REPORTED_READINGS
from ..jsonvalue import dumps as json_dumps
from ..jsonvalue import loads
from ..model import InputError, TraceError
from ..traces import Reading
from .digest import Digest, InputDigest
from .population import RunKey
from .sampling import STRATA

SHEET = "evalrun_audit_sheet"
"""The key that marks a sheet's first line; its value is the sheet format's version."""
VERSION = 1
LABELS = ("correct", "wrong")
STRATUM_COUNTS = {"reported_fail": "reported_failures", "reported_pass": "reported_passes"}
"""A stratum's name in a run's line -> its name where the population and sample are counted."""
ABOUT = (
    "An evalrun audit sheet: one sampled run a line after this one. Read each run against its "
    'accepted sequences, effects and tools, set "label" to "correct" or "wrong" ("note" is '
    "free), then run: evalrun audit score SHEET"
)


class SheetError(InputError):
    """A sheet that cannot be scored, with every problem found, each naming its line."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Header:
    """A sheet's first line: the population the runs were drawn from, and how."""

    population: Mapping[str, int]
    """Runs per stratum (by `STRATA` name)."""
    drawn: Mapping[str, int]
    """Runs drawn per stratum."""
    seed: int
    show_verdict: bool
    reading: Reading
    digest: Digest
    errors: tuple[TraceError, ...] = ()
    """The trace lines that could not be scored when sampling, each with its reason."""
    evalrun: str = __version__
    reported: str = PER_CALL
    """How the reported check read the runs (`--reported`), which made the strata; written in
    the first line's `reading` only when it is not per-call, so earlier sheets read the same."""

    @property
    def runs(self) -> int:
        return sum(self.population.values())

    def to_json(self) -> dict[str, Any]:
        return {
            SHEET: VERSION,
            "about": ABOUT,
            "evalrun": self.evalrun,
            "population": {
                "runs": self.runs,
                **{STRATUM_COUNTS[s]: self.population[s] for s in STRATA},
                "unscoreable": len(self.errors),
            },
            "sample": {STRATUM_COUNTS[s]: self.drawn[s] for s in STRATA},
            "seed": self.seed,
            "blind": not self.show_verdict,
            "reading": {
                "trace_format": self.reading.trace_format,
                "case_key": self.reading.case_key,
                "run_key": self.reading.run_key,
                **({"reported": self.reported} if self.reported != PER_CALL else {}),
            },
            "digest": self.digest.sha256,
            "inputs": self.digest.to_json(),
            "errors": [{"source": e.source, "error": e.error} for e in self.errors],
        }

    @classmethod
    def from_json(cls, data: Any) -> Header:
        """A header from its JSON; ValueError saying what is wrong."""
        if type(data) is not dict or SHEET not in data:
            raise ValueError(
                "this is not the first line of an evalrun audit sheet (it records the "
                f'population, with "{SHEET}": {VERSION}); was it removed?'
            )
        if data[SHEET] != VERSION:
            raise ValueError(f"sheet format {data[SHEET]!r}: this evalrun reads version {VERSION}")
        population, sample = data.get("population"), data.get("sample")
        reading = data.get("reading") or {}
        if (
            type(population) is not dict
            or type(sample) is not dict
            or not (_counts(population) and _counts(sample) and type(reading) is dict)
        ):
            raise ValueError("the first line's population or sample is not a count per stratum")
        seed = data.get("seed")
        if type(seed) is not int:
            raise ValueError("the first line has no seed (a whole number)")
        reported = reading.get("reported", PER_CALL)
        if reported not in REPORTED_READINGS:
            raise ValueError(
                f"the first line's reading.reported is {reported!r}, not one of "
                f"{', '.join(REPORTED_READINGS)}"
            )
        digest = Digest.from_json(data.get("inputs"))
        forged = [
            name
            for name in ("tools", "cases", "traces")
            if getattr(digest, name).sha256 != InputDigest.of(getattr(digest, name).files).sha256
        ]
        if forged or data.get("digest") != digest.sha256:
            raise ValueError(
                "the first line's digest is not the digest of the files it lists "
                f"({', '.join(forged) or 'digest'}): the first line was edited; sample again"
            )
        return cls(
            population={s: population[STRATUM_COUNTS[s]] for s in STRATA},
            drawn={s: sample[STRATUM_COUNTS[s]] for s in STRATA},
            seed=seed,
            show_verdict=data.get("blind") is False,
            reading=Reading(
                reading.get("trace_format") or "auto",
                case_key=reading.get("case_key"),
                run_key=reading.get("run_key"),
            ),
            digest=digest,
            errors=tuple(
                TraceError(str(e.get("source")), str(e.get("error")))
                for e in data.get("errors") or []
                if type(e) is dict
            ),
            evalrun=str(data.get("evalrun", "")),
            reported=reported,
        )


def _counts(value: Any) -> bool:
    return type(value) is dict and all(
        type(value.get(STRATUM_COUNTS[s])) is int and value[STRATUM_COUNTS[s]] >= 0 for s in STRATA
    )


@dataclass(frozen=True)
class Sheet:
    """A sheet as sampled: its header and each run's line (its keys but `label` and `note`)."""

    header: Header
    runs: list[dict[str, Any]] = field(default_factory=list)

    def lines(self) -> Iterator[bytes]:
        """The sheet's JSONL lines, each with its newline; the runs unlabelled."""
        yield dumps(self.header.to_json()) + b"\n"
        for run in self.runs:
            yield line_bytes(line_prefix(run), None, "") + b"\n"


def dumps(value: Any) -> bytes:
    """JSON bytes, keys in the order given (a sheet is read by people: run_id first)."""
    return json_dumps(value)


def line_prefix(run: Mapping[str, Any]) -> bytes:
    """A run's line without `label` and `note`, and without its closing brace."""
    return dumps(dict(run))[:-1]


def line_bytes(prefix: bytes, label: str | None, note: str) -> bytes:
    """A run's line: its other keys, then `label` and `note` (as the HTML page writes it)."""
    return prefix + b',"label":' + dumps(label) + b',"note":' + dumps(note) + b"}"


# ---------------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class Entry:
    """One run's line of a sheet, as read."""

    line: int
    key: RunKey
    source: str
    stratum: str
    label: str | None
    note: str
    data: dict[str, Any]
    """The whole line."""

    @property
    def run_id(self) -> str:
        return self.key[0]

    @property
    def case_id(self) -> str:
        return self.key[1]


def read_sheet(path: str | Path) -> tuple[Header, list[Entry]]:
    """A sheet's header and runs; a SheetError listing every line that cannot be used."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise InputError(f"{path}: cannot read this audit sheet: {e.strerror or e}") from None
    return parse_sheet(str(path), data.splitlines())


def parse_sheet(name: str, lines: Iterable[bytes]) -> tuple[Header, list[Entry]]:
    """`read_sheet` on the lines of a sheet (`name` for messages)."""
    problems: list[str] = []
    header: Header | None = None
    entries: list[Entry] = []
    seen: dict[RunKey, int] = {}
    first = True
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        where = f"{name}:{number}"
        try:
            value = loads(raw)
        except ValueError as e:
            problems.append(f"{where}: not valid JSON ({e})")
            first = False
            continue
        if first:
            first = False
            try:
                header = Header.from_json(value)
            except ValueError as e:
                problems.append(f"{where}: {e}")
            continue
        entry = _entry(value, number, where, problems)
        if entry is None:
            continue
        if entry.key in seen:
            problems.append(
                f"{where}: run {entry.run_id!r} (case {entry.case_id!r}) is already on line "
                f"{seen[entry.key]}; keep one of the two lines"
            )
            continue
        seen[entry.key] = number
        entries.append(entry)
    if first:
        problems.append(f"{name}: the sheet is empty")
    if problems:
        raise SheetError(problems)
    assert header is not None
    return header, entries


def _entry(value: Any, number: int, where: str, problems: list[str]) -> Entry | None:
    if type(value) is not dict:
        problems.append(f"{where}: a run's line must be a JSON object")
        return None
    run_id, case_id = value.get("run_id"), value.get("case_id")
    if type(run_id) is not str or type(case_id) is not str:
        problems.append(f"{where}: the line has no run_id and case_id (strings)")
        return None
    occurrence = value.get("occurrence", 0)
    if type(occurrence) is not int or occurrence < 0:
        problems.append(f"{where}: occurrence must be a whole number, 0 or more")
        return None
    stratum = value.get("stratum")
    if stratum not in STRATA:
        problems.append(f"{where}: stratum {stratum!r} is not one of {', '.join(STRATA)}")
        return None
    label = value.get("label")
    if label is not None and label not in LABELS:
        shown = json_dumps(label).decode()
        problems.append(
            f'{where}: label {shown} is not "correct" or "wrong" (or null, not yet read)'
        )
        return None
    note = value.get("note")
    note = "" if note is None else note if type(note) is str else json_dumps(note).decode()
    source = value.get("source")
    return Entry(
        line=number,
        key=(run_id, case_id, occurrence),
        source=source if type(source) is str else "",
        stratum=stratum,
        label=label,
        note=note,
        data=value,
    )
