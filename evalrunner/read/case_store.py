"""The cases of a suite, kept compact: each case as its pickle, parsed back on demand.

A parsed `Case` takes about 2 KB (its steps' arguments as dicts, its locations, its effects); its
pickle about 550 bytes. A suite of 140,000 cases held as objects was most of what grew with the
number of cases (issue 31), while a grader needs only the cases of the runs in flight. So the
store keeps every case's pickle in a temporary file (`Pickles`), and the `LIVE_CASES` most
recently read as objects: memory for objects is bounded, what grows is each pickle's place.

A case read again after it left the live table is a new object, equal to the old one. Code that
keys a cache by a case's (or a step's) identity must hold the objects it keys (`WhatIf` does).
"""

from __future__ import annotations

import copyreg
import dataclasses
import io
import os
import pickle
import tempfile
import threading
from collections import ChainMap
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain, islice
from typing import IO, Any, Final

from .. import model
from ..model import Case

STORE_FROM: Final = 50_000
"""Suites of fewer cases stay a dict (up to about 110 MB of objects). A store costs CPU: a case
read back from its pickle for each case plan a grader compiles, and pickling at load; on runs
that visit their cases in random order, `score` took 15-17% more CPU as a store, for 10 MB less
at 27,300 cases (not worth it) and 160 MB less at 140,000 (503 MB max RSS as objects, 342 MB
as a store)."""

LIVE_CASES: Final = 512
"""Cases kept as objects by the store; the older half is dropped when the table is full. Small:
a grader keeps the case of each plan it holds (`Grader._case`), this is for the other readers."""


class Pickles(Mapping[str, bytes]):
    """The store's pickles by case id, written to an unlinked temporary file as they come: only
    each one's place is held (about 150 bytes a case with its id, against 600 for the pickle
    in memory), and each is read back with one `pread`. The file is the operating system's to
    cache; it goes when the store does (or the process ends). Read-only once `seal`ed, so
    threads and forked workers read it at once; pickled, it ships its bytes. Made by
    `pickles`, which keeps them in a dict where no temporary file can be made."""

    __slots__ = ("_at", "_file", "_size")

    def __init__(self) -> None:
        """Raises OSError where no temporary file can be made."""
        # closed by __del__: the store's lifetime is the file's
        self._file: IO[bytes] = tempfile.TemporaryFile(prefix="evalrun-cases-")  # noqa: SIM115
        self._at: dict[str, int] = {}
        """Each pickle's offset and length, as `offset << 32 | length`."""
        self._size = 0

    def __del__(self) -> None:
        if hasattr(self, "_file"):  # not when __init__ could make none
            self._file.close()

    def add(self, key: str, blob: bytes) -> None:
        self._file.write(blob)
        self._at[key] = self._size << 32 | len(blob)
        self._size += len(blob)

    def seal(self) -> Pickles:
        """Done adding: what was written is readable."""
        self._file.flush()
        return self

    def get(self, key: str, default: Any = None) -> Any:
        at = self._at.get(key)
        if at is None:
            return default
        return _read_at(self._file, at >> 32, at & 0xFFFFFFFF)

    def __getitem__(self, key: str) -> bytes:
        found: bytes | None = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return key in self._at

    def __iter__(self) -> Iterator[str]:
        return iter(self._at)

    def __len__(self) -> int:
        return len(self._at)

    def __reduce__(self) -> tuple[Any, ...]:
        return (pickles, ([(key, self[key]) for key in self],))


def pickles(items: Iterable[tuple[str, bytes]]) -> Mapping[str, bytes]:
    """The (case id, pickle) pairs of `items`, in order: in a temporary file (`Pickles`), or in
    a dict where none can be made."""
    try:
        found = Pickles()
    except OSError:
        return dict(items)
    for key, blob in items:
        found.add(key, blob)
    return found.seal()


if hasattr(os, "pread"):

    def _read_at(file: IO[bytes], offset: int, length: int) -> bytes:
        return os.pread(file.fileno(), length, offset)  # no shared position: safe in threads

else:  # pragma: no cover - Windows
    _READ_LOCK = threading.Lock()

    def _read_at(file: IO[bytes], offset: int, length: int) -> bytes:
        with _READ_LOCK:
            file.seek(offset)
            return file.read(length)


class CaseStore(Mapping[str, Case]):
    """Cases by id, in the order they were added. Read-only once built (`of`)."""

    __slots__ = ("_base", "_blobs", "_changed", "_judged", "_live")

    def __init__(
        self,
        blobs: Mapping[str, bytes],
        judged: tuple[str, ...],
        base: CaseStore | None = None,
        changed: Mapping[str, Case] | None = None,
    ) -> None:
        self._blobs = blobs
        """Each case's pickle (sealed: never written again, so a store pickles while it is
        read)."""
        self._judged = judged
        """The ids of the cases with a judged step, in order (`judged`)."""
        self._base = base
        """The store this one reads through (`with_cases`): its live objects are shared, so a
        case read through both is the same object while it is live."""
        self._changed = dict(changed or {})
        self._live: dict[str, Case] = {}

    @classmethod
    def of(cls, cases: Iterable[Case]) -> CaseStore:
        """A store of `cases` (ids unique: the reader checks), each pickled as it comes, so the
        objects of a whole suite never live at once."""
        judged: list[str] = []

        def each() -> Iterator[tuple[str, bytes]]:
            for case in cases:
                if _judges(case):
                    judged.append(case.id)
                yield case.id, _dumps(case)

        blobs = pickles(each())
        return cls(blobs, tuple(judged))

    def with_cases(self, changed: Mapping[str, Case]) -> CaseStore:
        """This store with the cases in `changed` in place of (or beside) its own: a what-if's
        cases, without reading the others."""
        base = self if self._base is None else self._base
        merged = {**self._changed, **changed}
        return CaseStore(self._blobs, judged_after(self._judged, changed), base, merged)

    def get(self, key: str, default: Any = None) -> Any:
        found = self._changed.get(key) if self._changed else None
        if found is not None:
            return found
        if self._base is not None:
            return self._base.get(key, default)
        found = self._live.get(key)
        if found is not None:
            return found
        blob = self._blobs.get(key)
        if blob is None:
            return default
        case: Case = pickle.loads(blob)
        if len(self._live) >= LIVE_CASES:
            self._live = dict(islice(self._live.items(), len(self._live) // 2, None))
        self._live[key] = case
        return case

    def __getitem__(self, key: str) -> Case:
        found: Case | None = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return key in self._changed or key in self._blobs

    def __iter__(self) -> Iterator[str]:
        yield from self._blobs
        yield from (i for i in self._changed if i not in self._blobs)

    def __len__(self) -> int:
        return len(self._blobs) + sum(1 for i in self._changed if i not in self._blobs)

    def copy(self) -> CaseStore:
        """The same cases, with a live table of its own (the pickles are shared: read-only)."""
        if self._base is None:
            return CaseStore(self._blobs, self._judged)
        return CaseStore(self._blobs, self._judged, self._base.copy(), self._changed)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles as its pickles (and changes), never its live objects."""
        if self._base is None:
            return (CaseStore, (self._blobs, self._judged))
        return (CaseStore, (self._blobs, self._judged, self._base.copy(), self._changed))

    def __repr__(self) -> str:
        return f"CaseStore({len(self)} cases)"


def _judges(case: Case) -> bool:
    return any(step.judge for seq in case.accept for step in seq)


def judged_ids(cases: Mapping[str, Case]) -> tuple[str, ...]:
    """The ids of the cases with a judged step, in order: a store knows them, a dict is read."""
    if isinstance(cases, CaseStore):
        return cases._judged
    return tuple(case_id for case_id, case in cases.items() if _judges(case))


def judged_after(judged: tuple[str, ...], changed: Mapping[str, Case]) -> tuple[str, ...]:
    """`judged_ids` of a suite whose judged cases were `judged`, with the cases in `changed` in
    place of (or beside) its own, without reading the others. In the order a dict would hold
    them: a case replaced keeps its place, a new one comes last (a replaced case that gains its
    first judge comes last too: the order only says which of several input errors a grader made
    of these cases raises first)."""
    kept = [i for i in judged if i not in changed or _judges(changed[i])]
    known = set(kept)
    return (*kept, *(i for i, case in changed.items() if i not in known and _judges(case)))


def with_cases(cases: Mapping[str, Case], changed: Mapping[str, Case]) -> Mapping[str, Case]:
    """`cases` with those in `changed` in place of (or beside) its own, in a dict's order (a
    case replaced keeps its place, a new one comes last): an overlay of a store (no case read
    that the change leaves alone), a `ChainMap` over a dict (a what-if's grader copied a suite
    of 9,100 cases twice for each of 1,300 what-ifs). Neither is written to."""
    if isinstance(cases, CaseStore):
        return cases.with_cases(changed) if changed else cases
    if not changed:
        return cases
    return ChainMap(dict(changed), cases if isinstance(cases, dict) else dict(cases))


def keep(cases: Iterable[Case]) -> Mapping[str, Case]:
    """The cases by id: a dict for a suite of up to `STORE_FROM` cases, a `CaseStore` past it
    (the first ones, held until then, go into it with the rest)."""
    found: dict[str, Case] = {}
    it = iter(cases)
    for case in it:
        found[case.id] = case
        if len(found) >= STORE_FROM:
            return CaseStore.of(chain(found.values(), it))
    return found


def _by_init(cls: type) -> Any:
    names = tuple(f.name for f in dataclasses.fields(cls))
    return lambda obj: (cls, tuple(getattr(obj, n) for n in names))


_BY_INIT: Final = ChainMap(
    {
        cls: _by_init(cls)
        for cls in vars(model).values()
        if isinstance(cls, type)
        and dataclasses.is_dataclass(cls)
        and cls.__module__ == model.__name__
        and all(f.init for f in dataclasses.fields(cls))
    },
    copyreg.dispatch_table,
)
"""The model's dataclasses pickled as a call of the class with their fields: read back through
`__init__`, twice as fast as `dataclasses`' own setstate for slotted classes (5.9 µs a case
against 12.4), which a grader pays for each case plan it compiles from a store."""


def _dumps(case: Case) -> bytes:
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _BY_INIT
    pickler.dump(case)
    return buffer.getvalue()
