"""What a diff reads of one scored run, built from the results-JSON layout.

A results file and a freshly scored trace set both reach the diff through these views, so both are
compared by the same code. A run is held in two parts: a `RunView`, a few fields that every run
needs (ids, verdicts, the tools it called), and its whole explanation (`RunDetail`: calls,
parameters, effects), kept compressed in the side's `RunStore` and read back only for the runs a
diff explains: a 400,000-run side then holds a few hundred bytes a run, not its JSON objects.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..jsonvalue import json_eq, loads
from ..model import MISSING, VERDICTS, InputError
from ..write.results import dumps

RESULTS_HELP = (
    "expected the output of `evalrun score --format json` (one object with "
    '"evalrun", "runs" and "summary"), of `--format jsonl` (one run a line, then a '
    '"summary" line), or a trace file (one run a line, with "calls")'
)


# ---------------------------------------------------------------------------- the explanation


@dataclass(frozen=True, slots=True)
class ParamView:
    """One parameter difference of a call, as the results JSON explains it."""

    path: str
    kind: str
    """`equivalent` (absorbed by a rule or a default) or `mismatch`."""
    shapes: tuple[str, ...]
    norm: str | None
    actual: Any = field(default=MISSING, compare=False)
    """The value the call gave (MISSING: the call left it out). Not compared: a view is equal to
    another when it explains the difference the same way."""
    expected: Any = field(default=MISSING, compare=False)
    """The value the case's step gave (MISSING: the step left it out)."""


def same_value(a: Any, b: Any) -> bool:
    """Two recorded values are the same JSON value, or both absent (MISSING)."""
    return a is b if a is MISSING or b is MISSING else json_eq(a, b)


@dataclass(frozen=True, slots=True)
class CallView:
    index: int
    tool: str
    label: str
    reported_failed: bool
    repeats: int | None
    params: tuple[ParamView, ...]

    def param(self, path: str) -> ParamView | None:
        return next((p for p in self.params if p.path == path), None)


@dataclass(frozen=True, slots=True)
class EffectView:
    at: str
    op: str
    ok: bool | None
    """True held, False failed, None unverified (no world recorded)."""
    detail: str = field(default="", compare=False)
    """What the check found, in words (`no element includes it`)."""


@dataclass(frozen=True, slots=True)
class RunDetail:
    """One scored run with its whole explanation: what a cause is read from."""

    run_id: str
    case_id: str
    source: str
    verdict: str
    shape: str | None
    reported_pass: bool
    true_pass: bool
    accepted: int | None
    aligned_to: int | None
    calls: tuple[CallView, ...]
    missing: tuple[tuple[int, str], ...]
    effects: tuple[EffectView, ...]
    suspects: tuple[tuple[str, str, str], ...]

    @classmethod
    def from_json(cls, d: Any, where: str) -> RunDetail:
        """A run in the results-JSON layout; InputError (naming `where`) when it is not one."""
        _check(d, where)
        try:
            calls = tuple(_call_view(c) for c in d.get("calls") or ())
            missing = tuple((int(m["step"]), str(m["tool"])) for m in d.get("missing") or ())
            effects = tuple(
                EffectView(
                    str(e.get("at", "")),
                    str(e.get("op", "")),
                    e.get("ok"),
                    str(e.get("detail", "")),
                )
                for e in d.get("effects") or ()
            )
            suspects = _suspects(d)
        except (TypeError, KeyError, ValueError, AttributeError) as e:
            raise _bad(
                where, f"unreadable calls, missing steps, effects or suspects: {e!r}"
            ) from None
        accepted, aligned = d["true"].get("accepted"), d["true"].get("aligned_to")
        return cls(
            run_id=d["run_id"],
            case_id=d["case_id"],
            source=str(d.get("source", "")),
            verdict=d["verdict"],
            shape=d.get("shape") if type(d.get("shape")) is str else None,
            reported_pass=d["reported"]["pass"],
            true_pass=d["true"]["pass"],
            accepted=accepted if type(accepted) is int else None,
            aligned_to=aligned if type(aligned) is int else None,
            calls=calls,
            missing=missing,
            effects=effects,
            suspects=suspects,
        )


def _call_view(c: dict[str, Any]) -> CallView:
    params = tuple(
        ParamView(
            path=str(path),
            kind=str(p.get("kind", "")),
            shapes=tuple(p.get("shapes") or ()),
            norm=p.get("norm"),
            actual=p.get("actual", MISSING),
            expected=p.get("expected", MISSING),
        )
        for path, p in sorted((c.get("params") or {}).items())
    )
    repeats = c.get("repeats")
    return CallView(
        index=int(c["index"]),
        tool=str(c["tool"]),
        label=str(c["label"]),
        reported_failed=bool(c.get("reported_failed", False)),
        repeats=repeats if type(repeats) is int else None,
        params=params,
    )


# ---------------------------------------------------------------------------------- the view


class RunView(NamedTuple):
    """What a diff needs of every scored run; `detail()` reads back the whole explanation.

    (A NamedTuple, like `RunResult`: built once per run, and a frozen dataclass takes four times
    as long to build.)
    """

    run_id: str
    case_id: str
    verdict: str
    shape: str | None
    reported_pass: bool
    true_pass: bool
    tools: tuple[str, ...]
    """The tools called, in order."""
    calls_key: int
    """A digest of the calls' explanation: equal on both sides when nothing about them moved."""
    suspects: tuple[tuple[str, str, str], ...]
    unverified: bool
    """Some effect assertion could not be checked (no world recorded)."""
    store: RunStore
    ref: int
    """Where `store` keeps the run's JSON."""
    group: str | tuple[str, ...] | None = None
    """`diff --group-by`: the run's group, as `score --group-by` gave it (`RunResult.group`)."""

    @property
    def fingerprint(self) -> tuple[str, tuple[str, ...]]:
        """What stays fixed when only the rules change: the case and the tools called, in order."""
        return self.case_id, self.tools

    def detail(self) -> RunDetail:
        return RunDetail.from_json(loads(self.store.get(self.ref)), f"run {self.run_id!r}")

    @classmethod
    def from_json(cls, d: Any, where: str, store: RunStore, raw: bytes | None = None) -> RunView:
        """A run in the results-JSON layout, its JSON (`raw`, when at hand) kept in `store`.

        InputError (naming `where`) when it is not a run result. The calls, effects and suspects
        are checked here; the parameters' explanations when a cause is read from them.
        """
        _check(d, where)
        calls = d.get("calls") or ()
        effects = d.get("effects")
        try:
            tools = store.tools(tuple([c["tool"] for c in calls]))
            unverified = any(e.get("ok") is None for e in effects) if effects else False
            suspects = _suspects(d) if d.get("suspects") else ()
        except (TypeError, KeyError, AttributeError) as e:
            raise _bad(where, f"unreadable calls, effects or suspects: {e!r}") from None
        if not all(type(t) is str for t in tools):
            raise _bad(where, "a call without a tool name")
        shape = d.get("shape")
        return cls(
            run_id=d["run_id"],
            case_id=store.text(d["case_id"]),
            verdict=store.text(d["verdict"]),
            shape=store.text(shape) if type(shape) is str else None,
            reported_pass=d["reported"]["pass"],
            true_pass=d["true"]["pass"],
            tools=tools,
            calls_key=hash(dumps(calls)),
            suspects=suspects,
            unverified=unverified,
            store=store,
            # results.dumps: a scored run may hold what orjson cannot write (a plugin's value)
            ref=store.add(dumps(d) if raw is None else raw),
            group=_group(d.get("group")),
        )


def _group(value: Any) -> str | tuple[str, ...] | None:
    if type(value) is str:
        return value
    if type(value) is list and all(type(v) is str for v in value):
        return tuple(value)
    return None


def _suspects(d: dict[str, Any]) -> tuple[tuple[str, str, str], ...]:
    return tuple((str(s["tool"]), str(s["param"]), str(s["norm"])) for s in d.get("suspects") or ())


def _bad(where: str, why: str) -> InputError:
    return InputError(f"{where}: not an evalrun run result ({why}); {RESULTS_HELP}")


def _check(d: Any, where: str) -> None:
    """InputError unless `d` has the fields every run result has."""
    if type(d) is not dict:
        raise _bad(where, "not a JSON object")
    for key in ("run_id", "case_id", "verdict"):
        if type(d.get(key)) is not str:
            raise _bad(where, f'no "{key}" string')
    if d["verdict"] not in VERDICTS:
        raise _bad(where, f"unknown verdict {d['verdict']!r}")
    reported, true = d.get("reported"), d.get("true")
    if type(reported) is not dict or type(reported.get("pass")) is not bool:
        raise _bad(where, 'no "reported": {"pass": true|false}')
    if type(true) is not dict or type(true.get("pass")) is not bool:
        raise _bad(where, 'no "true": {"pass": true|false}')


# --------------------------------------------------------------------------------- the store


class RunStore:
    """A side's runs as it keeps them: their JSON one after another, compressed in blocks of BLOCK
    bytes, and one object for each case id, verdict, shape and sequence of tools called (most runs
    of a case share them).

    A diff reads back only the runs it explains, so their JSON need not be held as it is: run
    results compress about sevenfold in 16 KiB blocks, and a block takes some 40 µs to read back
    (32 KiB blocks compress a little better and take half as long again).
    """

    BLOCK = 1 << 14

    def __init__(self) -> None:
        self._blocks: list[bytes] = []
        self._open: list[bytes] = []
        self._open_size = 0
        self._cached: tuple[int, bytes] = (-1, b"")
        self._texts: dict[Any, Any] = {}

    def add(self, raw: bytes) -> int:
        """Keep `raw`; the reference to read it back with."""
        at = len(self._blocks) * self.BLOCK + self._open_size
        self._open.append(raw)
        self._open_size += len(raw)
        if self._open_size >= self.BLOCK:
            data = b"".join(self._open)
            full = len(data) // self.BLOCK * self.BLOCK
            with memoryview(data) as view:
                for i in range(0, full, self.BLOCK):
                    self._blocks.append(zlib.compress(view[i : i + self.BLOCK], 1))
            self._open = [data[full:]]
            self._open_size = len(data) - full
        return at << 32 | len(raw)

    def get(self, ref: int) -> bytes:
        at, size = ref >> 32, ref & 0xFFFFFFFF
        parts = []
        while size:
            block, offset = divmod(at, self.BLOCK)
            part = self._block(block)[offset : offset + size]
            parts.append(part)
            at, size = at + len(part), size - len(part)
        return b"".join(parts)

    def tools(self, tools: tuple[str, ...]) -> tuple[str, ...]:
        """The one tuple kept for this sequence of tools."""
        kept: tuple[str, ...] = self._texts.setdefault(tools, tools)
        return kept

    def text(self, text: str) -> str:
        """The one string kept for this case id (or verdict, or shape)."""
        kept: str = self._texts.setdefault(text, text)
        return kept

    def _block(self, n: int) -> bytes:
        if n == len(self._blocks):
            return b"".join(self._open)
        if self._cached[0] != n:
            self._cached = (n, zlib.decompress(self._blocks[n]))
        return self._cached[1]
