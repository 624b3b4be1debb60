"""Read trace lines into runs, in one format or (`auto`) in whichever format each line is in.

Every format turns its records into native run records (SPEC "Traces"), read by
`native.parse_record`, so errored attempts, malformed arguments and unreadable calls follow one
rule, in one place. Formats of one run a line are read line by line; a format whose runs span
lines (OpenTelemetry) gets a grouper, which holds its records until their run is complete.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..jsonvalue import json_kind
from ..model import MISSING, InputError, Run, TraceError
from .errors import ErrorPatterns
from .format import (
    DEFAULT_RUN_PATHS,
    AllCalls,
    Exchange,
    Grouper,
    GroupKeys,
    LastLinesOf,
    LoggedRecord,
    NativeRecord,
    RecordPath,
    TraceFormat,
)
from .formats._pairing import is_str_in
from .formats._walk import walk
from .last_lines import LastLines
from .limits import MAX_EXPANDED_BYTES, MAX_LINE_BYTES
from .native import decode, parse_record
from .own_results import is_results_record, is_results_run
from .pretty import Parsed
from .registry import AUTO, detect, resolve, trace_formats, unknown_layout


@dataclass(frozen=True)
class Reading:
    """How to read trace lines: what `--trace-format`, `--case-key` and `--run-key` say.

    One picklable value, so that every reader (in this process, in workers, on a cluster) reads
    alike.
    """

    trace_format: str = AUTO
    case_key: str | None = None
    """Where each record keeps its case id, as a dotted path; None for each format's default."""
    run_key: str | None = None
    """Where each record keeps its run id, as `case_key`."""
    max_line_bytes: int = MAX_LINE_BYTES
    """The longest line read; a longer one is reported in its place, never held in memory."""
    max_expanded_bytes: int = MAX_EXPANDED_BYTES
    """The most a `.gz` trace file may expand to; past it the file is reported where it stops."""
    error_patterns: Sequence[str] = ()
    """`--error-pattern`: regular expressions; a tool reply whose text matches one makes its
    call an errored attempt, in every format (`errors.py`)."""
    case_id: str | None = None
    """`--case-id`: the case of every run read, whatever the records say."""

    def reader(self, **options: Any) -> TraceReader:
        """A new reader (one per scoring: it remembers which grouped runs it has finished)."""
        return TraceReader(
            self.trace_format,
            case_key=self.case_key,
            run_key=self.run_key,
            error_patterns=self.error_patterns,
            case_id=self.case_id,
            **options,
        )


RESULTS_RECORD = (
    "an evalrun results record (the output of evalrun score), not a run: not scored; keep "
    "results out of the traces"
)


def bare_list(key: str) -> str:
    """Why a bare list of messages (or of Responses items, under `key` "input") is not scored."""
    what = "Responses items" if key == "input" else "messages"
    return (
        f"the line is a bare list of {what} (a run with no case id): write each run as one line "
        f'{{"case_id": ..., "{key}": [...]}} (in Python: json.dumps({{"case_id": case["id"], '
        f'"{key}": {key}}})), or give --case-id ID when the whole file is one case'
    )


def _bare_key(items: list[dict[str, Any]]) -> str:
    """Where a bare list goes in a record: OpenAI Responses items (`to_input_list()`, typed
    `function_call`, `function_call_output`, ...) under `input`, messages under `messages`."""
    from .formats.openai_responses import ITEM_TYPES  # imported where a bare list is read

    # a Responses "message" item is the one Chat-like
    responses = any(
        is_str_in(item.get("type"), ITEM_TYPES) and item["type"] != "message" for item in items
    )
    return "input" if responses else "messages"


SPANS_ON_ONE_LINE = (
    "the line is a JSON array of {} {} records on one line: a trace ends on its last span's "
    "line, so write one span (or one OTLP batch) a line, or pretty-print the array"
)


class GroupingSeen(Exception):
    """A line of a format whose runs span lines, met by a reader told not to group (a worker of
    `--jobs`, which reads lines out of order): the caller reads that file itself."""


class TraceReader:
    """Read trace lines into runs: in one format, or (`auto`) in whichever format each line is in.

    One reader serves one scoring: it remembers which grouped (OpenTelemetry) traces it has
    finished across files. `case_key` and `run_key` say where a run's ids live instead of the
    defaults: a dotted path into the record (`request.metadata.task`), or for a grouping format
    what that format makes of it (an OpenTelemetry span attribute's name). `grouping=False` makes
    a line of a grouping format raise `GroupingSeen`; other keywords go to the groupers.
    """

    def __init__(
        self,
        trace_format: str = AUTO,
        *,
        case_key: str | None = None,
        run_key: str | None = None,
        error_patterns: Sequence[str] = (),
        case_id: str | None = None,
        group_key: str | None = None,
        grouping: bool = True,
        **group_options: Any,
    ) -> None:
        fmt = resolve(trace_format)
        for flag, key in (("--case-key", case_key), ("--run-key", run_key)):
            if key is not None and (not key or any(not part for part in key.split("."))):
                raise InputError(f"{flag} {key!r}: give a dotted path like metadata.case_id")
        if case_id is not None and (case_key is not None or not case_id):
            raise InputError(
                "--case-id names the case of every run: give a case id, and no --case-key"
            )
        self.errors = ErrorPatterns(error_patterns)
        self.case_id = case_id
        self.format: TraceFormat | None = fmt
        """The forced format; None to detect each line's."""
        self.formats = trace_formats()
        self.case_key = case_key
        self.run_key = run_key
        self._case_paths = None if case_key is None else (tuple(case_key.split(".")),)
        self._run_paths = None if run_key is None else (tuple(run_key.split(".")),)
        keyed = case_key is not None or run_key is not None or case_id is not None
        self._native_first = (fmt is None or fmt.name == "native") and not keyed
        """Whether a native run is taken as it stands, before any detection (the hot path)."""
        self._grouping = grouping
        self.group_key = group_key
        """`--group-by`: told to the groupers (a span attribute's value is kept for it)."""
        self._group_options = group_options
        self._groupers: dict[str, Grouper] = {}
        self._last_lines: LastLinesOf | None = None

    def read(
        self, lines: Iterable[tuple[str, Any]], *, last_lines: LastLinesOf | None = None
    ) -> Iterator[Run | TraceError]:
        """Runs (or unscoreable records) from (`file:line`, bytes) pairs, as `iter_lines` gives.

        Grouped runs still open when the lines end are flushed then: call once per file.
        `last_lines` finds where each trace ends in the file (`lines.TraceInput.last_lines`), so
        that its spans may come in any order; without it, a trace ends with its root span.
        """
        for item in self.records(lines, last_lines=last_lines):
            yield item if isinstance(item, TraceError) else parse_record(item.record, item.source)

    def records(
        self, lines: Iterable[tuple[str, Any]], *, last_lines: LastLinesOf | None = None
    ) -> Iterator[NativeRecord | TraceError]:
        """`read`, stopping short of parsing: native run records, as the grader's memo takes them
        (`Grader.grade_record`)."""
        self._last_lines = last_lines
        for grouper in self._groupers.values():
            _start_file(grouper, last_lines)
        native_first = self._native_first
        for source, line in lines:
            if type(line) is bytes:
                record = decode(line, source)
                if type(record) is TraceError:
                    yield record
                    continue
            elif type(line) is Parsed:
                record = line.value
            else:
                yield line  # a TraceError in the line's place: a line too long, a broken file
                continue
            # The hot path: a native run, told apart by one lookup before any detection.
            if native_first and _plain_native(record):
                if self.errors.user:
                    self.errors.mark(record["calls"], builtin=False, source=source)
                yield NativeRecord(record, source)
            else:
                yield from self.read_record(record, source)
        yield from self.flush()

    def flush(self) -> Iterator[NativeRecord | TraceError]:
        """The grouped runs still open, at the end of a file."""
        for grouper in self._groupers.values():
            yield from map(self._grouped, grouper.flush())

    def _grouped(self, item: NativeRecord | TraceError) -> NativeRecord | TraceError:
        """A run a grouper made: the error texts read, the case id given applied."""
        if isinstance(item, TraceError):
            return item
        self.errors.mark(item.record.get("calls"), builtin=True, source=item.source)
        if self.case_id is not None:
            item.record["case_id"] = self.case_id
        return item

    def read_record(self, record: Any, source: str) -> Iterator[NativeRecord | TraceError]:
        """The run(s) one decoded line holds: none yet for a record whose run is still open."""
        if is_results_record(record):
            yield TraceError(source, RESULTS_RECORD)
            return
        if type(record) is list and record and all(type(m) is dict for m in record):
            kinds = self._records(record)
            if kinds is not None:
                yield from self._read_list(record, kinds, source)
                return
            key = _bare_key(record)
            if self.case_id is None:
                yield TraceError(source, bare_list(key))
                return
            record = {key: record}  # a run's messages (or items) as they come, of the case given
        # A logged exchange is read as the conversation it holds; ids, world and meta stay where
        # the record keeps them (`--case-key request.metadata.task` names the record's own path).
        view = exchange(record) if type(record) is dict else None
        if view is None:
            view = record
        fmt = self.format if self.format is not None else detect(view, self.formats)
        if fmt is None:
            yield TraceError(source, self._unknown(record))
            return
        if fmt.group is not None:
            yield from map(self._grouped, self._grouper(fmt).add(record, source))
            return
        if type(record) is not dict:
            yield TraceError(source, f"{fmt.name}: the line is {json_kind(record)}, not an object")
            return
        if fmt.runs is not None:
            runs = fmt.runs(view)
            if isinstance(runs, str):
                yield TraceError(source, f"{fmt.name}: {runs}")
                return
            for run in runs:
                yield from self._read_one(fmt, run, run, source)
            return
        yield from self._read_one(fmt, record, view, source)

    def _read_one(
        self, fmt: TraceFormat, record: dict[str, Any], view: Any, source: str
    ) -> Iterator[NativeRecord | TraceError]:
        """One run's record in a format of one run a record: its calls and ids."""
        assert fmt.calls is not None
        if fmt.name == "native":
            calls: Any = fmt.calls(view)
            if self.errors.user:
                self.errors.mark(calls, builtin=False, source=source)
        else:
            calls = self._calls(fmt, record, view)
            if type(calls) is str:
                yield TraceError(source, f"{fmt.name}: {calls}")
                return
            self.errors.mark(calls, builtin=True, source=source)
        ids = self._ids(fmt, record)
        if isinstance(ids, str):
            yield TraceError(source, ids)
            return
        case_id, run_id = ids
        native = {
            "case_id": None if case_id is MISSING else case_id,
            "run_id": None if run_id is MISSING else run_id,
            "calls": calls,
            "world": record.get("world"),
            "meta": record.get("meta"),
        }
        yield LoggedRecord(native, source, record)

    def _read_list(
        self, items: list[dict[str, Any]], kinds: list[TraceFormat], source: str
    ) -> Iterator[NativeRecord | TraceError]:
        """One line that holds a JSON array of records (`_records`)."""
        grouped = next((f for f in kinds if f.group is not None), None)
        if grouped is not None:
            # A grouper knows where a trace ends by its spans' lines: all on one, the first span
            # would end its trace.
            yield TraceError(source, SPANS_ON_ONE_LINE.format(len(items), grouped.name))
            return
        # Read as the same array pretty-printed is: record by record, each at the line's place,
        # and each a run id of its own when it names none (`file:line#k`, the k-th record).
        for k, item in enumerate(items, start=1):
            if _first(item, DEFAULT_RUN_PATHS) is MISSING:
                item = {**item, "run_id": f"{source}#{k}"}
            if self._native_first and _plain_native(item):
                if self.errors.user:
                    self.errors.mark(item["calls"], builtin=False, source=source)
                yield NativeRecord(item, source)
            else:
                yield from self.read_record(item, source)

    def _unknown(self, record: Any) -> str:
        """Why a record no format reads is unscoreable: what it holds, in a few words."""
        if type(record) is dict and ("request" in record or "response" in record):
            return UNREAD_EXCHANGE
        if type(record) is dict:
            keys = ", ".join(list(record)[:8]) or "none"
            return f"{unknown_layout(self.formats)}; its keys: {keys}"
        return f"{unknown_layout(self.formats)}; the line is {json_kind(record)}"

    def _calls(self, fmt: TraceFormat, record: dict[str, Any], view: Any) -> Any:
        """The calls of a record in a format other than native, or a string that says why it
        has none to read: a format named by --trace-format that does not fit it, or calls
        found only in another format's shapes."""
        assert fmt.calls is not None
        calls: Any = fmt.calls(view)
        if not calls and self.format is not None:
            calls = self._not_elsewhere(view, fmt) or calls
        if not calls and self.format is not None and not fmt.detect(view):
            other = detect(view, self.formats)
            hint = f"; it looks like {other.name}" if other is not None else ""
            calls = f"nothing in the record has its shape ({fmt.looks_like}){hint}"
        if type(calls) is AllCalls:
            return list(calls)
        if not calls:
            return _call_like(record) or calls
        return calls

    def _ids(self, fmt: TraceFormat, record: dict[str, Any]) -> tuple[Any, Any] | str:
        """The record's case id and run id (MISSING where it names none), or why it cannot be
        scored: the path --case-key or --run-key names is not there, or a format that keeps
        ids elsewhere gives no case id."""
        if self.case_id is not None:
            case_id: Any = self.case_id
        else:
            case_id = _first(record, self._case_paths or fmt.case_paths)
        if case_id is MISSING and self.case_key is not None:
            return f'{fmt.name}: no case id at "{self.case_key}" (--case-key)'
        if case_id is MISSING and fmt.name != "native":
            looked = ", ".join(f'"{".".join(p)}"' for p in fmt.case_paths)
            return (
                f"{fmt.name}: no case id (looked at {looked}); say where the record keeps it "
                "with --case-key PATH, or give --case-id ID for a file of one case"
            )
        run_id = _first(record, self._run_paths or fmt.run_paths)
        if run_id is MISSING and self.run_key is not None:
            return f'{fmt.name}: no run id at "{self.run_key}" (--run-key)'
        return case_id, run_id

    def _records(self, items: list[dict[str, Any]]) -> list[TraceFormat] | None:
        """The formats of a list that is a list of records (some of them recognised by a
        format; the others are read, and reported, one by one), not a run's messages; None for
        a list of messages. A message has a "role", and an Anthropic Message, which is also a
        record of its own, is one: a list of them is a conversation (`bare_list`)."""
        if any("role" in item for item in items):
            return None
        kinds = [fmt for fmt in (detect(item, self.formats) for item in items) if fmt is not None]
        return kinds or None

    def _grouper(self, fmt: TraceFormat) -> Grouper:
        found = self._groupers.get(fmt.name)
        if found is None:
            if not self._grouping:
                raise GroupingSeen(fmt.name)
            assert fmt.group is not None
            keys = GroupKeys(self.case_key, self.run_key, self.group_key)
            found = self._groupers[fmt.name] = fmt.group(keys, **self._group_options)
            _start_file(found, self._last_lines)
        return found

    def _not_elsewhere(self, record: dict[str, Any], fmt: TraceFormat) -> str | None:
        """Why a record read as `fmt` with no calls is not a run without calls: its calls are in
        another format's shapes (a forced format must not score a Chat log as an empty Anthropic
        run)."""
        other = detect(record, self.formats)
        if other is None or other is fmt or other.calls is None or other.name == "native":
            return None
        found = other.calls(record)
        if type(found) is list and found:
            return f"no {fmt.name} tool calls, but {len(found)} in {other.name} shapes"
        return None


def read_lines(
    lines: Iterable[tuple[str, Any]], trace_format: str = AUTO, **keys: Any
) -> list[Run | TraceError]:
    """Every run in (`file:line`, bytes) pairs of one file, read by a fresh reader (tests,
    notebooks); grouped records may come in any order, as in a file."""
    pairs = list(lines)
    last = LastLines.of_lines(pairs)
    return list(TraceReader(trace_format, **keys).read(pairs, last_lines=lambda: last))


UNREAD_EXCHANGE = (
    "a request/response record whose response is in no shape evalrun reads (read: Chat "
    "Completions choices, an Anthropic Message, a message, Bedrock output.message, Gemini "
    "candidates, Responses output; not streamed chunks, text or an error body): log the "
    "response whole, or convert the run to the native format"
)
EXCHANGE_KEYS = frozenset({"messages", "input", "output", "choices", "contents", "calls"})


def exchange(record: dict[str, Any]) -> dict[str, Any] | None:
    """A logged request/response pair (`{"request": {...}, "response": {...}}`, as gateways and
    loggers write one model call) as the conversation it holds, in the shape its provider's
    format reads: the first format, in detection order, whose `TraceFormat.exchange` knows the
    response (Chat Completions' `choices`, an Anthropic Message, a `message` as Ollama writes it,
    Bedrock Converse's `output.message`, Gemini's candidates, Responses `output`). None for a
    record that is no such pair, that holds a conversation of its own, or whose response is in
    none of these shapes (streamed chunks, an error body)."""
    request, response = record.get("request"), record.get("response")
    if type(request) is not dict and type(response) is not dict:
        return None
    if any(k in record for k in EXCHANGE_KEYS):
        return None
    request = request if type(request) is dict else {}
    response = response if type(response) is dict else {}
    rest = {k: v for k, v in record.items() if k not in ("request", "response")}
    for read in _markers().exchanges:
        found = read(request, response, rest)
        if found is not None:
            return found
    # A response in no shape read here (streamed text, an error body, a failed response without
    # output): not a conversation to score as one without calls.
    return None


@dataclass(frozen=True)
class _Markers:
    """What the formats declare that generic reading asks of all of them at once."""

    exchanges: tuple[Exchange, ...]
    call_types: frozenset[str]
    call_keys: tuple[str, ...]


@cache
def _markers() -> _Markers:
    formats = trace_formats().values()
    keys: list[str] = []
    for f in formats:
        keys.extend(k for k in f.call_keys if k not in keys)
    return _Markers(
        exchanges=tuple(f.exchange for f in formats if f.exchange is not None),
        call_types=frozenset(t for f in formats for t in f.call_types),
        call_keys=tuple(keys),
    )


def _plain_native(record: Any) -> bool:
    """Whether a decoded line is a native run as it stands: a "calls" list, and not a results
    record (a run's own "verdict" key, in its data, does not make it one)."""
    return (
        type(record) is dict
        and type(record.get("calls")) is list
        and not ("verdict" in record and is_results_run(record))
    )


def _start_file(grouper: Grouper, last_lines: LastLinesOf | None) -> None:
    start = getattr(grouper, "start_file", None)
    if start is not None:
        start(last_lines)


def _first(record: dict[str, Any], paths: tuple[RecordPath, ...]) -> Any:
    """The value at the first of `paths` that leads to one (not null), else MISSING. A string
    that holds a JSON object on the way is read as JSON (`metadata.case_id` where `metadata` is
    JSON text)."""
    for path in paths:
        value = walk(record, path)
        if value is not None:
            return value
    return MISSING


TOOL_ROLES = frozenset(
    {"tool", "function", "ipython", "tool_result", "tool-result", "tool-call", "tool-response"}
)
"""Message roles that are a tool's reply: a reply means a call was made."""
CALL_FINISHES = frozenset({"tool_calls", "function_call", "tool_use", "TOOL_CALLS"})
"""`finish_reason` / `stop_reason` values that say the model asked for a call."""
TEXT_CONVENTIONS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (
        # `\s*\n?\s*` is `\s*` (a newline is a space) split three ways: quadratic over a
        # long run of spaces (0.9 s for 20,000 of them, once per string of a record)
        re.compile(r"Calling tools:\s*\["),
        'smolagents\' "Calling tools:" text',
        "export agent.memory.get_full_steps() (or RunResult.steps), whose tool_calls evalrun reads",
    ),
    (
        # `^\s*` would start at every blank line and run to the text's end (0.9 s for 20,000
        # newlines); a match after blank lines also starts at the last of them
        re.compile(r"(?m)^[^\S\n]*Action\s*:.*\n\s*Action\s*Input\s*:"),
        "ReAct text (Action: / Action Input:)",
        "export the framework's structured steps or its OpenTelemetry spans, or convert the "
        "run to the native format",
    ),
    (
        re.compile(r"<(?:tool_call|function_call|function=)"),
        "tool calls written as tags in the model's text (<tool_call>)",
        "export the parsed tool calls (the framework's messages or spans), or convert the run "
        "to the native format",
    ),
)
"""Call conventions written in text, which evalrun does not parse: a record read with no call
that holds one is unscoreable (never a silent zero), with what to export instead."""
TEXT_SCAN = 20_000
"""How much of each string the guard searches for a text convention."""


def _a_call(value: Any) -> bool:
    """An object that is a call, not a setting of the same name (Chat's request parameter
    `"function_call": {"name": ...}` forces a function; `{"toolUse": {"enabled": true}}`): a
    name, and arguments or an id."""
    return (
        type(value) is dict
        and type(value.get("name")) is str
        and any(k in value for k in ("args", "arguments", "input", "id", "toolUseId"))
    )


def _call_like(record: Any, limit: int = 10_000) -> str | None:
    """What in a record with no call read looks like a call, and where: a `tool_calls` list, a
    tool-call part or block (the formats' `call_types` and `call_keys`), a tool's reply (a
    tool-role message), a `finish_reason` of `tool_calls`, or text in a call convention evalrun
    does not parse (`TEXT_CONVENTIONS`). The guard that no run is scored as having made no call
    while it holds one in a shape evalrun does not read, whatever the format."""
    stack: list[tuple[Any, str]] = [(record, "")]
    seen = 0
    markers = _markers()
    texts: list[tuple[str, str]] = []
    weaker: str | None = None
    while stack and seen < limit:
        value, where = stack.pop()
        seen += 1
        if type(value) is dict:
            tool_calls = value.get("tool_calls")
            # custom (free-text) tools are not the tool surface cases describe: not read, rightly
            if type(tool_calls) is list and any(
                type(tc) is not dict or tc.get("type", "function") != "custom" for tc in tool_calls
            ):
                return _seen(f"a tool_calls list of {len(tool_calls)}", f"{where}.tool_calls")
            for key in ("type", "part_kind"):
                if is_str_in(value.get(key), markers.call_types):
                    return _seen(f'a {key} "{value[key]}"', where)
            for key in markers.call_keys:
                if _a_call(value.get(key)):
                    return _seen(f"a {key} object", f"{where}.{key}")
            if weaker is None:
                if is_str_in(value.get("role"), TOOL_ROLES):
                    weaker = _seen(f'a tool\'s reply (role "{value["role"]}")', where)
                for key in ("finish_reason", "stop_reason", "finishReason"):
                    if is_str_in(value.get(key), CALL_FINISHES):
                        weaker = _seen(f'a {key} of "{value[key]}"', f"{where}.{key}")
            for k, v in value.items():
                if type(v) in (dict, list):
                    stack.append((v, f"{where}.{k}"))
                elif type(v) is str and len(texts) < limit:
                    texts.append((v, f"{where}.{k}"))
        elif type(value) is list:
            for i, v in enumerate(value):
                if type(v) in (dict, list):
                    stack.append((v, f"{where}[{i}]"))
                elif type(v) is str and len(texts) < limit:
                    texts.append((v, f"{where}[{i}]"))
    # a call convention in text says what to export instead: it comes before a bare tool reply
    for text, where in texts:
        for pattern, what, instead in TEXT_CONVENTIONS:
            if pattern.search(text, 0, TEXT_SCAN):
                return (
                    f"no tool call read, but the record holds {what} at "
                    f"{where.lstrip('.') or 'its top'}: a call convention evalrun does not "
                    f"parse; {instead} (see docs/trace-formats.md)"
                )
    return weaker


def _seen(what: str, where: str) -> str:
    return (
        f"no tool call read, but the record holds {what} at {where.lstrip('.') or 'its top'}: "
        "in a shape evalrun does not read, or not a call to a tool the cases describe. See "
        "docs/trace-formats.md for the shapes read (or convert the record to the native format)"
    )
