"""What the formats whose runs span lines share: traces held until they end, within bounds.

A trace (one run) is the records that share a trace id. It ends after the last line of its file
that names it, as the pre-pass over the file found it (`lines.LastLines`), so its spans may come
in any order: root first (as back-ends export a whole trace, or spans sorted by start time), root
last (as spans are written when they end), or interleaved with other traces. Where no pre-pass is
to be had (lines handed over one by one, standard input that did not start with spans) or it
does not know the trace, a trace ends when a record that ends it arrives (the format says which:
OpenTelemetry's root span), or with the file.

Memory is bounded (`GroupLimits`): a trace that would pass a bound is dropped and reported, never
scored half-read, and a record that arrives after its trace ended is reported on its own line.
"""

from __future__ import annotations

import heapq
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ...model import TraceError
from ..format import NativeRecord
from ..last_lines import LastLines, line_number


@dataclass(frozen=True)
class GroupLimits:
    """How much a grouping reader may buffer while it waits for traces to end.

    Only what scoring needs is held (per tool call its name, arguments, result and start time);
    any other record costs a counter. When more traces are open than `max_open_traces`, or the
    calls held take more than `max_bytes` (counted as JSON text: held as the JSON strings
    exporters write, they take about 1.6 times that in memory, a few times that when written as
    OTLP key/value lists), the least recently extended trace is dropped and reported as
    unscoreable. `max_closed_traces` ids of finished traces are remembered, so that a record
    arriving after its trace was scored is reported rather than scored as a second, partial run.
    """

    max_open_traces: int = 1000
    max_bytes: int = 32 * 2**20
    max_closed_traces: int = 20_000


@dataclass(slots=True, eq=False)
class Trace:
    """A trace being read: what every grouping format keeps; formats add their own fields."""

    trace_id: str
    source: str
    """`file:line` of the trace's first record: the run's source."""
    seq: int
    spans: int = 0
    """How many spans (records of the trace) were read."""
    size: int = 0
    """Bytes held for it."""
    end: int | None = None
    """The line after which it ends (the pre-pass); None to wait for a record that ends it."""


S = TypeVar("S")
T = TypeVar("T", bound=Trace)


class TraceGrouper(ABC, Generic[S, T]):
    """Records in, runs out: one run per trace. A format says how a line holds its spans
    (`spans`), which trace a span is of (`trace_id`), whether it ends its trace where no pre-pass
    says (`ends_trace`), what a trace keeps of it (`absorb`) and what run a trace is (`finish`).

    Every line is accounted for: a trace counts once (a run, or unscoreable), and a line that
    cannot join a trace counts once per trace it names, as unscoreable.
    """

    name = "?"
    """The format's name, in messages."""
    root_name = "root span"
    """What ends a trace where no pre-pass says, in messages."""

    def __init__(self, limits: GroupLimits) -> None:
        self.limits = limits
        self._open: OrderedDict[str, T] = OrderedDict()
        self._closed: OrderedDict[str, str] = OrderedDict()
        self._ends: list[tuple[int, int, str]] = []  # (end line, seq, trace id): a heap
        self._size = 0
        self._seq = 0
        self._plan: Callable[[], LastLines | None] | None = None
        self._last: LastLines | None = None
        self._planned = False

    # ------------------------------------------------------------------------ what a format says

    @abstractmethod
    def spans(self, record: Any) -> list[S] | str:
        """The spans one decoded line holds, or (a string) why it holds none."""

    @abstractmethod
    def trace_id(self, span: S) -> str | None:
        """The trace a span is of (None: it names none)."""

    @abstractmethod
    def new_trace(self, trace_id: str, source: str, seq: int) -> T:
        """A trace's state, as its first span arrives."""

    @abstractmethod
    def absorb(self, trace: T, span: S) -> int:
        """Keep what scoring needs of a span; return the bytes that now holds in addition."""

    @abstractmethod
    def finish(self, trace: T) -> NativeRecord | TraceError:
        """A trace that has ended, as a native run record (or why it cannot be scored)."""

    def ends_trace(self, span: S) -> bool:
        """Whether a span ends its trace when the pre-pass does not say where it ends."""
        return False

    # ------------------------------------------------------------------------ the engine

    @property
    def buffered(self) -> tuple[int, int]:
        """(open traces, bytes held)."""
        return len(self._open), self._size

    def start_file(self, last_lines: Callable[[], LastLines | None] | None) -> None:
        """A new input begins: where its traces end, found by a pre-pass run when first needed
        (None: no pre-pass; traces end by the format's own rule, or with the file)."""
        self._plan, self._last, self._planned = last_lines, None, False

    def add(self, record: Any, source: str) -> Iterator[NativeRecord | TraceError]:
        """Take one decoded line; yield the traces it completes (or why they cannot be scored)."""
        line = line_number(source) if self._plan is not None else 0
        if self._ends:
            yield from self._due(line - 1)
        spans = self.spans(record)
        if isinstance(spans, str):
            yield TraceError(source, f"{self.name}: {spans}")
            return
        if not spans:
            yield TraceError(source, f"{self.name}: the batch holds no spans")
            return
        by_trace: dict[str | None, list[S]] = {}
        for span in spans:
            by_trace.setdefault(self.trace_id(span), []).append(span)
        for trace_id, group in by_trace.items():
            if not trace_id:
                yield TraceError(source, f"{self.name}: {len(group)} span(s) without a trace id")
                continue
            closed = self._closed.get(trace_id)
            if closed is not None:
                yield TraceError(
                    source,
                    f"{self.name}: {len(group)} span(s) of trace {trace_id} arrived after the "
                    f"trace was {closed}",
                )
                continue
            trace = self._open.get(trace_id)
            if trace is None:
                self._seq += 1
                trace = self._open[trace_id] = self.new_trace(trace_id, source, self._seq)
                end = self._end_of(trace_id)
                if end is not None and end >= line:
                    trace.end = end
                    heapq.heappush(self._ends, (end, trace.seq, trace_id))
            else:
                self._open.move_to_end(trace_id)
            for span in group:
                trace.spans += 1
                held = self.absorb(trace, span)
                trace.size += held
                self._size += held
            if trace.end is None and any(self.ends_trace(span) for span in group):
                yield self._finish(trace)
        if self._ends:
            yield from self._due(line)
        yield from self._evict()

    def flush(self) -> Iterator[NativeRecord | TraceError]:
        """Every trace still open, in the order they began (at the end of a file)."""
        for trace in sorted(self._open.values(), key=lambda t: t.seq):
            yield self._finish(trace)
        self._ends.clear()

    def _end_of(self, trace_id: str) -> int | None:
        if self._plan is None:
            return None
        if not self._planned:
            self._last, self._planned = self._plan(), True
        return self._last.get(trace_id) if self._last is not None else None

    def _due(self, line: int) -> Iterator[NativeRecord | TraceError]:
        """The traces whose last line is `line` or before."""
        ends = self._ends
        while ends and ends[0][0] <= line:
            _, seq, trace_id = heapq.heappop(ends)
            trace = self._open.get(trace_id)
            if trace is not None and trace.seq == seq:
                yield self._finish(trace)

    def _evict(self) -> Iterator[TraceError]:
        limits = self.limits
        while self._open and (
            len(self._open) > limits.max_open_traces or self._size > limits.max_bytes
        ):
            trace = next(iter(self._open.values()))
            self._close(trace, "dropped unfinished (the span buffer was full)")
            waited = (
                f"its last line ({trace.end})" if trace.end is not None else f"its {self.root_name}"
            )
            yield TraceError(
                trace.source,
                f"{self.name}: trace {trace.trace_id} ({trace.spans} spans) dropped unfinished: "
                f"the span buffer was full (limits: {limits.max_open_traces:,} open traces, "
                f"{limits.max_bytes:,} bytes of tool calls) before {waited} was read",
            )

    def _close(self, trace: T, why: str) -> None:
        del self._open[trace.trace_id]
        self._size -= trace.size
        self._closed[trace.trace_id] = why
        if len(self._closed) > self.limits.max_closed_traces:
            self._closed.popitem(last=False)

    def _finish(self, trace: T) -> NativeRecord | TraceError:
        self._close(trace, f"scored (its last line, its {self.root_name}, or its file had ended)")
        return self.finish(trace)
