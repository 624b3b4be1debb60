"""Read recorded runs as a stream: one `Run` (or one `TraceError`) per non-blank line.

Inputs are `.jsonl` files, `.jsonl.gz` files, directories of them (recursive, sorted), or `-` for
standard input. Nothing is held beyond the current line, so memory does not grow with the traces.
A line that cannot be read becomes a `TraceError` with its `file:line` and the reason; it never
stops the stream. A call whose arguments are unusable is the agent's failure, not the trace's: the
run is read and the call is marked `malformed`.
"""

from __future__ import annotations

import gzip
import sys
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import orjson

from ._files import list_files
from .jsonvalue import json_kind
from .model import MISSING, Call, InputError, Run, TraceError

if TYPE_CHECKING:
    from .adapters import TraceReader

TRACE_SUFFIXES = (".jsonl", ".jsonl.gz")
STDIN = "-"


def trace_files(paths: Iterable[str | Path]) -> list[str]:
    """The trace inputs named by `paths`, directories expanded (recursive, sorted); `-` is stdin."""
    found: list[str] = []
    for path in paths:
        if str(path) == STDIN:
            found.append(STDIN)
        else:
            found.extend(
                str(f)
                for f in list_files(
                    path, TRACE_SUFFIXES, what="traces", hint="name a trace file or directory"
                )
            )
    return found


def read_runs(
    paths: Iterable[str | Path],
    *,
    stdin: BinaryIO | None = None,
    reader: TraceReader | None = None,
) -> Iterator[Run | TraceError]:
    """Every run in the trace inputs, in order: files sorted, lines in file order."""
    for name in trace_files(paths):
        yield from read_file(name, stdin=stdin, reader=reader)


def read_file(
    name: str, *, stdin: BinaryIO | None = None, reader: TraceReader | None = None
) -> Iterator[Run | TraceError]:
    """The runs of one trace file (`-` for standard input).

    Without a `reader` every line must be a native run; an `adapters.TraceReader` also reads the
    OpenAI, Anthropic, MCP and OpenTelemetry formats (native lines still go straight through).
    """
    if reader is not None:
        yield from reader.read(iter_lines(name, stdin=stdin))
        return
    for source, line in iter_lines(name, stdin=stdin):
        if isinstance(line, TraceError):
            yield line
        else:
            yield parse_line(line, source)


def iter_lines(name: str, *, stdin: BinaryIO | None = None) -> Iterator[tuple[str, Any]]:
    """(`file:line`, raw bytes) for each non-blank line; a TraceError if the file breaks off."""
    with _open(name, stdin) as stream:
        yield from stream_lines("<stdin>" if name == STDIN else name, stream)


def stream_lines(label: str, stream: Iterable[bytes]) -> Iterator[tuple[str, Any]]:
    """`iter_lines` for a stream already open: (`label:line`, bytes), blank lines skipped, and
    a TraceError where the stream breaks off (a truncated gzip, a dropped connection)."""
    number = 0
    try:
        for number, line in enumerate(stream, start=1):
            if line.strip():
                yield f"{label}:{number}", line
    except (OSError, EOFError, zlib.error) as e:
        where = f"{label}:{number + 1}"
        yield where, TraceError(where, f"the file cannot be read past this point: {e}")


def _open(name: str, stdin: BinaryIO | None) -> BinaryIO:
    if name == STDIN:
        stream = stdin if stdin is not None else sys.stdin.buffer
        return _NoClose(stream)
    try:
        if name.endswith(".gz"):
            return gzip.open(name, "rb")  # type: ignore[return-value]
        return open(name, "rb")
    except OSError as e:
        raise InputError(f"{name}: cannot open this trace file: {e.strerror or e}") from None


class _NoClose:
    """Standard input inside a `with`, left open afterwards."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream

    def __enter__(self) -> BinaryIO:
        return self.stream

    def __exit__(self, *exc: object) -> None:
        return None


def parse_line(line: bytes | str, source: str) -> Run | TraceError:
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return not_json(line, source)
    return parse_record(record, source)


def not_json(line: bytes | str, source: str) -> TraceError:
    """The error record for a line that is not JSON, its position counted within the line.

    (Parsed with its newline, a line cut short would be reported at "line 2 column 1".)
    """
    try:
        orjson.loads(line.rstrip(b"\r\n" if isinstance(line, bytes) else "\r\n"))
    except orjson.JSONDecodeError as e:
        return TraceError(source, f"line is not valid JSON: {e}")
    return TraceError(source, "line is not valid JSON")  # pragma: no cover (it parsed: cannot be)


def parse_record(record: Any, source: str) -> Run | TraceError:
    """A native run record (SPEC "Traces") as a Run, or the reason it cannot be scored."""
    if type(record) is not dict:
        return TraceError(source, "line is not a JSON object")
    raw_calls = record.get("calls")
    if type(raw_calls) is not list:
        return TraceError(source, 'the record has no "calls" list')
    calls = []
    for i, raw in enumerate(raw_calls):
        call = parse_call(raw, i)
        if type(call) is str:
            return TraceError(source, call)
        calls.append(call)
    case_id = record.get("case_id")
    world = record.get("world", MISSING)
    meta = record.get("meta")
    return Run(
        run_id=run_id_of(record, source),
        case_id=case_id if type(case_id) is str else (None if case_id is None else _text(case_id)),
        calls=tuple(calls),
        world=MISSING if world is None else world,
        meta=meta if type(meta) is dict else {},
        source=source,
    )


def run_id_of(record: dict[str, Any], source: str) -> str:
    """A record's run id: its `run_id` as text, or its `file:line` when it has none."""
    run_id = record.get("run_id")
    return run_id if type(run_id) is str else (source if run_id is None else _text(run_id))


def parse_call(raw: Any, index: int) -> Call | str:
    """A Call, or (a string) why the record cannot be read."""
    if type(raw) is not dict:
        return f"call {index} is not an object"
    tool = call_tool(raw)
    if tool is None:
        return f"call {index} has no tool name ('tool' or 'name', a non-empty string)"
    args, malformed = parse_args(call_args(raw))
    result = raw.get("result", MISSING)
    return Call(
        tool=tool,
        args=args,
        errored=is_errored(raw, result),
        malformed=malformed,
        result=result,
    )


def call_tool(raw: dict[str, Any]) -> str | None:
    """A recorded call's tool name (`tool`, else `name`), or None when it has none."""
    tool = raw.get("tool")
    if tool is None:
        tool = raw.get("name")
    return tool if type(tool) is str and tool else None


def call_args(raw: dict[str, Any]) -> Any:
    """A recorded call's arguments as recorded (`args`, else `arguments`; `{}` without either)."""
    return raw["args"] if "args" in raw else raw.get("arguments", {})


def parse_args(args: Any) -> tuple[Any, str | None]:
    """(the arguments object, None), or (the arguments as recorded, why they are unusable).

    `args` may be an object or its JSON text (as OpenAI sends `function.arguments`); `""` is `{}`,
    as some frameworks send for a tool without parameters.
    """
    if type(args) is dict:
        return args, None
    if type(args) is str:
        if args == "":
            return {}, None
        try:
            parsed = orjson.loads(args)
        except orjson.JSONDecodeError as e:
            return args, f"args is not valid JSON: {e}"
        if type(parsed) is dict:
            return parsed, None
        return args, f"args encodes {json_kind(parsed)}, not an object"
    return args, f"args is {json_kind(args)}, not an object"


def is_errored(call: dict[str, Any], result: Any) -> bool:
    """The tool rejected the call: see SPEC "Traces" for the exact rule."""
    if _error_flag(call) or call.get("status") == "error":
        return True
    # A result's `status` is the tool's own data (an invoice's status, say), so it is not read.
    return type(result) is dict and _error_flag(result)


def _error_flag(d: dict[str, Any]) -> bool:
    error = d.get("error")
    if error is not None and error is not False:
        return True
    return d.get("is_error") is True or d.get("isError") is True


def _text(value: Any) -> str:
    return value if isinstance(value, str) else orjson.dumps(value).decode()
