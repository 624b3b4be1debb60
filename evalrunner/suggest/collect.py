"""The one pass over the traces: every run graded as `score` grades it, and what suggest needs
kept on the side.

The pass *is* `scoring.score`: the same reader, errors, line accounting, progress and `--jobs`.
Suggest only swaps in a grader that notes what it needs of each run it grades (`Observer`) and a
writer whose encoder (run where the batch was graded: a worker process under `--jobs`) turns the
notes into a compact `Batch`: the runs a what-if can move, grouped by their case and calls (runs
that make the same calls get the same grade), and a census of the encodings each parameter
received. The writer merges the batches in input order, so examples are the earliest runs
whatever the number of workers.
"""

from __future__ import annotations

import dataclasses
import gc
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from ..grade.grader import Grader, RunResult
from ..grade.replies import digest
from ..jsonvalue import dumps as json_dumps
from ..jsonvalue import loads
from ..model import Call, Case, Tool, TraceError
from ..scoring import Config, score
from ..summary import Summary
from ..traces import Reading, call_args, parse_args
from .encodings import CensusPlan, census_of, census_plan
from .params import Steps
from .sample import ReplySample

EXAMPLES = 3
"""Runs kept per group as examples (the earliest)."""
CENSUS_CACHE = 16_384
"""Distinct calls per tool whose encodings are kept, per process; the older half is dropped when
full."""

GroupKey = tuple[str, tuple[tuple[str, Any, bool], ...]]
CensusKey = tuple[str, Steps, str]
"""(tool, parameter, encoding)."""


def calls_ok(result: RunResult) -> bool:
    """The run's calls pass the true check (rules 1 and 2): matched, and nothing redundant."""
    if result.accepted is None:
        return False
    for c in result.calls:
        if c.label == "redundant":
            return False
    return True


def effect_status(result: RunResult) -> str:
    """`none` (the case asserts nothing), `failed`, `unverified` (no world), or `checked`."""
    if not result.effects:
        return "none"
    status = "checked"
    for e in result.effects:
        if e.ok is False:
            return "failed"
        if e.ok is None:
            status = "unverified"
    return status


@contextmanager
def _gc_paused() -> Iterator[None]:
    """The cyclic garbage collector held off for a moment: summarizing a batch allocates many
    small tuples and no cycles, and each collection it would trigger walks every object the
    process keeps (the grader's tables, the groups)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass(slots=True)
class Group:
    """The runs of one case that made the same calls (tools, arguments, errored or not).

    Everything in it is strings, numbers and tuples of them, so that the garbage collector,
    which would otherwise walk every kept call's arguments on each full collection, leaves it
    alone: the calls are kept as their JSON text and read back when a what-if needs them.
    """

    case_id: str
    recorded: tuple[tuple[str, Any, bool], ...]
    """Each call as (tool, its arguments as recorded or as JSON bytes, errored)."""
    calls_ok: bool
    aligned_to: int
    """The accepted sequence the calls are labelled against."""
    mismatched: tuple[tuple[int, int], ...]
    """(call, step) for each call labelled `mismatch`, with the step it was held against."""
    runs: int = 0
    effects_failed: int = 0
    """Runs whose world fails an effect assertion of the case."""
    unverified: int = 0
    """Runs of a case with effect assertions that recorded no world."""
    checked: int = 0
    """Runs whose world was checked and held every effect assertion."""
    examples: tuple[tuple[str, str], ...] = ()
    """(run_id, source) of the earliest runs."""
    checked_examples: tuple[tuple[str, str], ...] = ()
    """The same, among runs whose world was checked and held."""
    replies_change: int = 0
    """Runs with a loop whose every repeated call stopped once its reply changed (a state being
    polled, not a loop: `case_keys` proposes `repeatable`)."""
    replies_same: int = 0
    """Runs with a loop where some repeated call went on after its reply stayed the same (or a
    reply was not recorded)."""
    _calls: tuple[Call, ...] | None = field(default=None, repr=False, compare=False)

    @property
    def calls(self) -> tuple[Call, ...]:
        """The calls, read back as the trace reader reads them."""
        if self._calls is None:
            out = []
            for tool, text, errored in self.recorded:
                args, malformed = parse_args(text if type(text) is str else loads(text))
                out.append(Call(tool, args, errored, malformed))
            self._calls = tuple(out)
        return self._calls

    def count(self, status: str, run_id: str, source: str, replies: str = "") -> None:
        self.runs += 1
        if replies == "change":
            self.replies_change += 1
        elif replies == "same":
            self.replies_same += 1
        if len(self.examples) < EXAMPLES:
            self.examples += ((run_id, source),)
        if status == "failed":
            self.effects_failed += 1
        elif status == "unverified":
            self.unverified += 1
        elif status == "checked":
            self.checked += 1
            if len(self.checked_examples) < EXAMPLES:
                self.checked_examples += ((run_id, source),)

    def merge(self, other: Group) -> None:
        """Add the runs of `other` (a later batch's part of this group)."""
        self.runs += other.runs
        self.effects_failed += other.effects_failed
        self.unverified += other.unverified
        self.checked += other.checked
        self.replies_change += other.replies_change
        self.replies_same += other.replies_same
        self.examples = (self.examples + other.examples)[:EXAMPLES]
        self.checked_examples = (self.checked_examples + other.checked_examples)[:EXAMPLES]

    @property
    def true_passes(self) -> int:
        """Runs of the group that pass the true check as graded now."""
        return self.runs - self.effects_failed if self.calls_ok else 0


@dataclass
class Batch:
    """What one batch of graded runs leaves for suggest."""

    groups: dict[GroupKey, Group] = field(default_factory=dict)
    """The groups a what-if may change: runs whose calls fail, or that call a tool twice."""
    census: Counter[CensusKey] = field(default_factory=Counter)
    errors: list[tuple[str, str]] = field(default_factory=list)
    """Every unscoreable line, (`file:line`, reason), in input order."""
    replies: ReplySample = field(default_factory=ReplySample)
    """The calls with a recorded reply, sampled per (case, tool): evidence on each suggestion."""

    def merge(self, other: Batch) -> None:
        for key, group in other.groups.items():
            mine = self.groups.get(key)
            if mine is None:
                self.groups[key] = group
            else:
                mine.merge(group)
        self.census.update(other.census)
        self.errors.extend(other.errors)
        self.replies.merge(other.replies)


_GroupNote = tuple[GroupKey, bool, int, tuple[tuple[int, int], ...], str, str, str, str]
"""A run a what-if can move: its group's key, whether its calls pass, the sequence they are
labelled against, its mismatched (call, step) pairs, its effects' status, run id and source, and
how the replies to its loop's calls went (`_replies`)."""


class Observer(Grader):
    """The config's grader, noting what suggest needs of each run it grades until the writer's
    encoder asks for the batch.

    Per run it keeps next to nothing: for each call, a reference to the (cached) census of its
    arguments, and a note only for a run a what-if can move. Keeping whole records, or a tuple
    per call, until the batch ends made every garbage collection walk them.
    """

    def __init__(self, config: Config) -> None:
        super().__init__(config.tools, config.cases, registry=config.registry)
        self._census: dict[str, dict[Any, tuple[CensusKey, ...]]] = {}
        """Per tool, per call's arguments (as recorded, or as JSON bytes), its census keys."""
        self._census_plans: dict[str, CensusPlan] = {}
        self._found: list[tuple[CensusKey, ...]] = []
        """The census of each live call graded since the last batch, in order."""
        self._ends: list[int] = []
        """For each run graded since, the length `_found` had after its calls."""
        self._notes: list[tuple[int, _GroupNote]] = []
        """(run number since the last batch, note) for the runs a what-if can move."""
        self._replies = ReplySample()

    def grade_record(self, record: Any, source: str) -> RunResult | TraceError:
        result = super().grade_record(record, source)
        if type(result) is RunResult:
            self._observe(record["calls"], result)
        return result

    def _observe(self, raw_calls: list[Any], result: RunResult) -> None:
        labels = result.calls  # a label a recorded call, in order
        ok = calls_ok(result)
        movable = not ok or (len(labels) > 1 and _calls_a_tool_twice(labels))
        recorded: list[tuple[str, Any, bool]] | None = [] if movable else None
        found = self._found
        for i in range(len(labels)):
            c = labels[i]
            args = call_args(raw_calls[i])
            text = args if type(args) is str else _dumps(args)
            errored = c.label == "errored"
            if not errored:
                found.append(self._encodings(c.tool, text))
                raw = raw_calls[i]
                if "result" in raw and c.label != "malformed" and c.tool in self.tools:
                    self._reply(result, c.tool, args, raw["result"])
            if recorded is not None:
                recorded.append((c.tool, text, errored))
        if recorded is not None:
            mismatched = tuple(
                [(c.index, c.step) for c in labels if c.label == "mismatch" and c.step is not None]
            )
            key: GroupKey = (result.case_id, tuple(recorded))
            note = (key, ok, result.aligned_to, mismatched, effect_status(result))
            replies = _replies(raw_calls, labels)
            self._notes.append((len(self._ends), (*note, result.run_id, result.source, replies)))
        self._ends.append(len(found))

    def _reply(self, result: RunResult, tool: str, args: Any, reply: Any) -> None:
        """Sample a call with a recorded reply (its arguments parsed: the grader's table)."""
        try:
            parsed = self._intern(tool, args)
            spelling = digest(parsed.args)
        except TypeError:
            return
        if parsed.malformed is None:
            self._replies.add(
                result.case_id, tool, parsed.args, spelling, reply, result.run_id, result.source
            )

    def drain(self, items: list[RunResult | TraceError]) -> Batch:
        """The batch `items` (the results graded since the last call, in order), summarized.

        Used as the writer's encoder, so it runs where the batch was graded. Each run in
        `items` was graded here, so the batch's runs are the last ones noted: a worker that gave
        a batch back half graded (it met a span of a grouping format) left that batch's before
        them, and they are dropped.
        """
        batch = Batch()
        n = sum(1 for item in items if type(item) is RunResult)
        stale = len(self._ends) - n
        start = self._ends[stale - 1] if stale > 0 else 0
        found, notes = self._found[start:], [note for i, note in self._notes if i >= stale]
        self._found, self._ends, self._notes = [], [], []
        with _gc_paused():
            times: dict[int, list[Any]] = {}
            for entry in found:  # the same cached tuple for the same call: counted by identity
                seen = times.get(id(entry))
                if seen is None:
                    times[id(entry)] = [entry, 1]
                else:
                    seen[1] += 1
            for entry, k in times.values():
                for census_key in entry:
                    batch.census[census_key] += k
            for key, ok, aligned_to, mismatched, status, run_id, source, replies in notes:
                group = batch.groups.get(key)
                if group is None:
                    group = batch.groups[key] = Group(key[0], key[1], ok, aligned_to, mismatched)
                group.count(status, run_id, source, replies)
        batch.errors = [(e.source, e.error) for e in items if type(e) is TraceError]
        batch.replies, self._replies = self._replies, ReplySample()
        return batch

    def _encodings(self, tool: str, text: Any) -> tuple[CensusKey, ...]:
        """The census keys of one call's arguments (as recorded, or as JSON bytes), kept for the
        calls that come again."""
        by_text = self._census.get(tool)
        if by_text is None:
            by_text = self._census[tool] = {}
        found = by_text.get(text)
        if found is None:
            plan = self._census_plans.get(tool)
            if plan is None:
                known = self.tools.get(tool)
                plan = self._census_plans[tool] = census_plan(known.params if known else None)
            found = ()
            if plan:
                parsed, malformed = parse_args(text if type(text) is str else loads(text))
                if malformed is None:
                    found = tuple((tool, steps, enc) for steps, enc in census_of(plan, parsed))
            if len(by_text) >= CENSUS_CACHE:
                by_text = self._census[tool] = dict(list(by_text.items())[CENSUS_CACHE // 2 :])
            by_text[text] = found
        return found


def _replies(raw_calls: list[Any], labels: tuple[Any, ...]) -> str:
    """`change` when the run has a loop and each repeated call stopped once its reply changed:
    among the copies of the call (the one they repeat and its redundant copies, in call order),
    the last got another reply than the copy before it (`running`, `running`, `done` is a state
    polled until it changed); `same` when the last reply is the one before it (`done`, `done`:
    the agent went on after the answer, a loop) or a copy recorded none; `` without a loop."""
    copies: dict[int, set[int]] = {}
    for c in labels:
        if c.label == "redundant" and c.repeats is not None:
            copies.setdefault(c.repeats, {c.repeats}).add(c.index)
    if not copies:
        return ""
    for indices in copies.values():
        replies = []
        for i in sorted(indices):
            raw = raw_calls[i]
            if type(raw) is not dict or "result" not in raw:
                return "same"
            replies.append(_dumps_sorted(raw["result"]))
        if replies[-1] == replies[-2]:
            return "same"
    return "change"


def _dumps_sorted(value: Any) -> Any:
    try:
        return json_dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return repr(value)


def _calls_a_tool_twice(labels: tuple[Any, ...]) -> bool:
    seen = set()
    for c in labels:
        if c.label != "errored":
            if c.tool in seen:
                return True
            seen.add(c.tool)
    return False


def _dumps(args: Any) -> Any:
    """A call's arguments as JSON bytes, keys as recorded (the alternates print them so)."""
    try:
        return json_dumps(args)
    except TypeError:  # not JSON (a library caller's objects): a key of its own, no census
        return repr(args)


class Collector:
    """The writer of suggest's pass: merges the batches, in input order."""

    def __init__(self, observer: Observer) -> None:
        self.encoder: Callable[[list[RunResult | TraceError]], Any] | None = observer.drain
        self.batch = Batch()
        self.summary: Summary | None = None

    def write(self, encoded: Batch) -> None:
        self.batch.merge(encoded)

    def close(self, summary: Summary) -> None:
        self.summary = summary


@dataclass(frozen=True)
class Corpus:
    """What the pass over the traces found: the summary `score` would print, and the groups."""

    summary: Summary
    groups: tuple[Group, ...]
    census: Counter[CensusKey]
    errors: tuple[tuple[str, str], ...]
    tools: dict[str, Tool]
    cases: Mapping[str, Case]
    replies: ReplySample = field(default_factory=ReplySample)


def collect(
    config: Config,
    paths: Iterable[str | Path],
    *,
    reading: Reading | None = None,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    stdin: BinaryIO | None = None,
) -> Corpus:
    """Grade every run as `score` does, keeping what the suggestions are made from."""
    observer = Observer(config)
    collector = Collector(observer)
    # The encoder is a method of the grader the workers get with the config: pickled together
    # (or forked), they stay one object in each worker, so the encoder drains its own grader.
    observed = dataclasses.replace(config, grader=observer)
    summary = score(
        observed,
        paths,
        reading=reading,
        jobs=jobs,
        writer=collector,
        progress=progress,
        stdin=stdin,
    )
    batch = collector.batch
    return Corpus(
        summary,
        tuple(batch.groups.values()),
        batch.census,
        tuple(batch.errors),
        config.tools,
        config.cases,
        batch.replies,
    )
