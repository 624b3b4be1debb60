"""What a trace format declares about itself, once: its name, how a line in it is recognised, and
how its records become native runs.

Each format is one module in `evalrunner/traces/formats/` that defines `FORMAT = TraceFormat(...)`,
listed in `formats/__init__.py`'s `TABLE`; the registry (`registry.py`) orders them and imports
each when it is first asked for, and plugins join through the `evalrunner.trace_formats`
entry-point group. What generic code would otherwise know by a format's name is declared here,
on the format: how it claims a `messages` list (`claims_message`), the shape of a logged
request/response pair in its provider's API (`exchange`), the markers of a call for the
never-a-silent-zero guard (`call_types`, `call_keys`), and its case and run id keys. The CLI's
`--trace-format` choices, the detection order, the "no known format" message and the docs' list
of formats all come from the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from ..model import TraceError

if TYPE_CHECKING:
    from .last_lines import LastLines

RecordPath = tuple[str, ...]
"""A dotted path into a record, split: `("metadata", "case_id")`."""

DEFAULT_CASE_PATHS: tuple[RecordPath, ...] = (("case_id",), ("metadata", "case_id"))
DEFAULT_RUN_PATHS: tuple[RecordPath, ...] = (("run_id",), ("metadata", "run_id"))


class NativeRecord(NamedTuple):
    """A run record in the native format (SPEC "Traces"), and the `file:line` it was read from."""

    record: dict[str, Any]
    source: str


class LoggedRecord(NativeRecord):
    """A native run record read from another format, with the record as it was logged (or, for
    a format whose runs span lines, the values found at `GroupKeys.group_key`): where
    `--group-by` looks first (`summary.groups.record_value`). Still a pair: `record, source =
    item` holds for every record a reader yields."""

    logged: Any

    def __new__(cls, record: dict[str, Any], source: str, logged: Any = None) -> LoggedRecord:
        self = super().__new__(cls, record, source)
        self.logged = logged
        return self


def logged_of(item: NativeRecord) -> Any:
    """The record as logged behind a native record; None when it is the native record itself."""
    return getattr(item, "logged", None)  # None for a plain NativeRecord


class Grouper(Protocol):
    """Groups the records of a format whose runs span several lines (OpenTelemetry spans)."""

    def add(self, record: Any, source: str) -> Iterator[NativeRecord | TraceError]:
        """Take one decoded line; yield the runs it completes (or why they cannot be scored)."""
        ...

    def flush(self) -> Iterator[NativeRecord | TraceError]:
        """Yield the runs still open (at the end of a file)."""
        ...


LastLinesOf = Callable[[], "LastLines | None"]
"""Where each trace ends in the input being read (`lines.LastLines`), found on first call;
None when no pre-pass can be had. A grouper with a `start_file(last_lines)` method is told at
the start of each input (`_grouping.TraceGrouper` has one)."""


@dataclass(frozen=True)
class GroupKeys:
    """Where a grouping format finds a run's ids: `--case-key`/`--run-key`, or None for its own
    defaults."""

    case_key: str | None = None
    run_key: str | None = None
    group_key: str | None = None
    """`--group-by`: a span attribute (dotted) whose value, on any span, is kept as the run's
    `NativeRecord.logged` `{group_key: value}`."""


Calls = Callable[[dict[str, Any]], "list[dict[str, Any]] | str"]
Exchange = Callable[[dict[str, Any], dict[str, Any], dict[str, Any]], "dict[str, Any] | None"]


class AllCalls(list[dict[str, Any]]):
    """Calls a format read knowing every call-like thing in the record: when it is empty, the
    record holds calls only of tools outside the tool surface (pydantic-ai's output tool), and
    the run made no call; it is not a shape the format missed."""


"""A record (a decoded line, an object) -> its native calls, or (a string) why it cannot."""


@dataclass(frozen=True)
class TraceFormat:
    """A trace format: one run a line (`calls`), or runs grouped across lines (`group`)."""

    name: str
    """What `--trace-format` takes, and what messages call it: `openai-chat`."""
    summary: str
    """One line for `--help` and the docs: what the format is and who writes it."""
    looks_like: str
    """How a record in it is recognised, for the "no known trace format" message."""
    detect: Callable[[Any], bool]
    """Whether a decoded line is in this format (`--trace-format auto`)."""
    order: int
    """Detection order: lower is tried first. A format whose records also fit a more general
    format's test must come before it."""
    calls: Calls | None = None
    """For a format of one run a line: its record's native calls."""
    group: Callable[..., Grouper] | None = None
    """For a format whose runs span lines: `group(keys, **options)` makes a new grouper, one per
    reading (`options` are the reader's extra keywords; a grouper takes those it knows)."""
    runs: Callable[[dict[str, Any]], list[dict[str, Any]] | str] | None = None
    """For a format of one record holding several runs (ADK's eval-set result, one run per eval
    case): the runs' records, each read by `calls` and its ids found by `case_paths` and
    `run_paths` (and `--case-key`, `--run-key`) in it; a string says why none can be read."""
    case_paths: tuple[RecordPath, ...] = DEFAULT_CASE_PATHS
    """Where a record keeps its case id, the first present wins (`--case-key` replaces them)."""
    run_paths: tuple[RecordPath, ...] = DEFAULT_RUN_PATHS
    """Where a record keeps its run id (`--run-key` replaces them); else its `file:line`."""

    claims_message: Callable[[Any], bool] | None = None
    """For a format read from a `messages` list: whether one message (in order, the first tool
    activity decides) is this format's (`_pairing.messages_kind`)."""
    plain_messages: bool = False
    """Whether a `messages` list with no tool activity at all is read as this format (one
    format says so: the Chat Completions one)."""
    exchange: Exchange | None = None
    """For a format of a provider's API: a logged `{"request", "response"}` pair as the
    conversation it holds, in this format's shape, or None when the response is not in it
    (`exchange(request, response, rest)`, `rest` the record's other keys)."""
    call_types: frozenset[str] = frozenset()
    """Values of a `type` (or `part_kind`) key that mark a call in this format's records: the
    guard that tells a run read with no calls from one whose calls were not read."""
    call_keys: tuple[str, ...] = ()
    """Keys whose object (with a name, and arguments or an id) is a call in this format."""

    def __post_init__(self) -> None:
        if (self.calls is None) == (self.group is None):
            raise ValueError(f"trace format {self.name!r}: give exactly one of calls and group")
