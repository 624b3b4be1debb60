"""The one pass over the traces: every run graded as `score` grades it, and what suggest needs
kept on the side.

The pass *is* `scoring.score`: the same reader, errors, line accounting, progress and `--jobs`.
Suggest only swaps in a grader that remembers the records it graded (`Observer`) and a writer
whose encoder (run where the batch was graded: a worker process under `--jobs`) turns them into
a compact `Batch`: runs grouped by their case and calls, since runs that make the same calls get
the same grade, and a census of the encodings each parameter received. The writer merges the
batches in input order, so examples are the earliest runs whatever the number of workers.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from ..model import MISSING, Call, Case, Tool, TraceError
from ..score import Grader, RunResult
from ..scoring import Config, score
from ..summary import Summary
from ..traces import Reading, call_args, call_tool, is_errored, parse_args, parse_record
from .encodings import census_of
from .params import Steps

EXAMPLES = 3
"""Runs kept per group as examples (the earliest)."""
CENSUS_CACHE = 16_384
"""Distinct calls whose encodings are kept, per process; the older half is dropped when full."""

GroupKey = tuple[str, tuple[tuple[str, Any, bool], ...]]
CensusKey = tuple[str, Steps, str]
"""(tool, parameter, encoding)."""


def calls_ok(result: RunResult) -> bool:
    """The run's calls pass the true check (rules 1 and 2): matched, and nothing redundant."""
    return result.accepted is not None and not any(c.label == "redundant" for c in result.calls)


def effect_status(result: RunResult) -> str:
    """`none` (the case asserts nothing), `failed`, `unverified` (no world), or `checked`."""
    if not result.effects:
        return "none"
    if any(e.ok is False for e in result.effects):
        return "failed"
    if any(e.ok is None for e in result.effects):
        return "unverified"
    return "checked"


@dataclass(slots=True)
class Group:
    """The runs of one case that made the same calls (tools, arguments, errored or not)."""

    case_id: str
    calls: tuple[Call, ...]
    result: RunResult
    """The first run's grade: every run of the group has the same labels and explanations."""
    calls_ok: bool
    runs: int = 0
    effects_failed: int = 0
    """Runs whose world fails an effect assertion of the case."""
    unverified: int = 0
    """Runs of a case with effect assertions that recorded no world."""
    checked: int = 0
    """Runs whose world was checked and held every effect assertion."""
    examples: list[tuple[str, str]] = field(default_factory=list)
    """(run_id, source) of the earliest runs."""
    checked_examples: list[tuple[str, str]] = field(default_factory=list)
    """The same, among runs whose world was checked and held."""

    def count(self, status: str, run_id: str, source: str) -> None:
        self.runs += 1
        if len(self.examples) < EXAMPLES:
            self.examples.append((run_id, source))
        if status == "failed":
            self.effects_failed += 1
        elif status == "unverified":
            self.unverified += 1
        elif status == "checked":
            self.checked += 1
            if len(self.checked_examples) < EXAMPLES:
                self.checked_examples.append((run_id, source))

    def merge(self, other: Group) -> None:
        """Add the runs of `other` (a later batch's part of this group)."""
        self.runs += other.runs
        self.effects_failed += other.effects_failed
        self.unverified += other.unverified
        self.checked += other.checked
        self.examples.extend(other.examples[: EXAMPLES - len(self.examples)])
        room = EXAMPLES - len(self.checked_examples)
        self.checked_examples.extend(other.checked_examples[:room])

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

    def merge(self, other: Batch) -> None:
        for key, group in other.groups.items():
            mine = self.groups.get(key)
            if mine is None:
                self.groups[key] = group
            else:
                mine.merge(group)
        self.census.update(other.census)
        self.errors.extend(other.errors)


class Observer(Grader):
    """The config's grader, remembering each record it grades until the writer's encoder asks."""

    def __init__(self, config: Config) -> None:
        super().__init__(config.tools, config.cases, registry=config.registry)
        self._seen: list[tuple[dict[str, Any], RunResult]] = []
        self._census: dict[tuple[str, Any], tuple[tuple[Steps, str], ...]] = {}

    def grade_record(self, record: Any, source: str) -> RunResult | TraceError:
        result = super().grade_record(record, source)
        if type(result) is RunResult:
            self._seen.append((record, result))
        return result

    def drain(self, items: list[RunResult | TraceError]) -> Batch:
        """The batch `items` (the results graded since the last call, in order), summarized.

        Used as the writer's encoder, so it runs where the batch was graded. Only records whose
        result is among `items` count: a worker that gives a batch back half graded (it met a
        span of a grouping format) leaves records behind that are not this batch's.
        """
        batch = Batch()
        ids = {id(item) for item in items}
        seen, self._seen = self._seen, []
        for record, result in seen:
            if id(result) in ids:
                self._add(batch, record, result)
        batch.errors = [(e.source, e.error) for e in items if type(e) is TraceError]
        return batch

    def _add(self, batch: Batch, record: dict[str, Any], result: RunResult) -> None:
        raw_calls = record["calls"]
        parts: list[tuple[str, Any, bool]] = []
        live_tools: list[str] = []
        for raw in raw_calls:
            tool = call_tool(raw)
            assert tool is not None, "a graded run's calls all have a tool name"
            args = call_args(raw)
            text = args if type(args) is str else _dumps(args)
            errored = is_errored(raw, raw.get("result", MISSING))
            parts.append((tool, text, errored))
            if not errored:
                live_tools.append(tool)
                self._count(batch.census, tool, text, args)
        ok = calls_ok(result)
        if ok and len(set(live_tools)) == len(live_tools):
            return  # passes, and calls no tool twice: no rule can change its verdict
        key: GroupKey = (result.case_id, tuple(parts))
        group = batch.groups.get(key)
        if group is None:
            run = parse_record(record, result.source)
            if isinstance(run, TraceError):  # pragma: no cover (it was graded: it parses)
                raise AssertionError(run.error)
            calls = tuple(c._replace(result=MISSING) for c in run.calls)
            group = batch.groups[key] = Group(result.case_id, calls, result, ok)
        group.count(effect_status(result), result.run_id, result.source)

    def _count(self, census: Counter[CensusKey], tool: str, text: Any, args: Any) -> None:
        """Add the encodings of one call's parameters to the census."""
        plan = self.plans.get(tool)
        if plan is None or plan.tool is None:
            return
        found = self._census.get((tool, text))
        if found is None:
            parsed, malformed = parse_args(args)
            found = () if malformed is not None else census_of(plan.tool.params, parsed)
            if len(self._census) >= CENSUS_CACHE:
                self._census = dict(list(self._census.items())[CENSUS_CACHE // 2 :])
            self._census[(tool, text)] = found
        for steps, encoding in found:
            census[(tool, steps, encoding)] += 1


def _dumps(args: Any) -> Any:
    try:
        return orjson.dumps(args, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # not JSON (a library caller's objects): a key of its own
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
    cases: dict[str, Case]


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
    )
