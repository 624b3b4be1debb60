"""The native run record (SPEC "Traces"): every trace format is read into it, and read from it
by these rules, so errored attempts, malformed arguments and unreadable calls follow one rule, in
one place.

A record that cannot be read becomes a `TraceError` with its `file:line` and the reason; it never
stops the stream. A call whose arguments are unusable is the agent's failure, not the trace's: the
run is read and the call is marked `malformed`.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from ..jsonvalue import (
    RECORD_DEPTH,
    json_kind,
    loads,
    loads_exact,
    scan_json,
    too_deep,
)
from ..jsonvalue import dumps as json_dumps
from ..model import MISSING, Call, Run, TraceError
from .limits import too_deep_message


def decode(line: bytes, source: str) -> Any:
    """A trace line's JSON value, read exactly; a TraceError when it cannot be scored.

    orjson reads an integer beyond 64 bits as a float (18446744073709551616 and ...617 become
    equal), so a line that may hold one is read with a parser that keeps big integers. A value
    nested deeper than `RECORD_DEPTH` is refused: nothing downstream (keys, comparisons, output)
    could handle it, and one such line must not stop the run.
    """
    # One pass over the bytes (`jsonvalue.scan_json`) tells whether the line may hold what orjson
    # reads wrongly (an integer beyond 64 bits) or what is too deep to handle (RECORD_DEPTH
    # opening brackets may be a value nested too deep).
    big, opens = scan_json(line)
    try:
        value = loads_exact(line) if big else orjson.loads(line)
    except ValueError as e:  # orjson's JSONDecodeError is one
        if "depth" in str(e):
            return _too_deep(source)
        return not_json(line, source)
    if opens > RECORD_DEPTH and too_deep(value, RECORD_DEPTH):
        return _too_deep(source)
    return value


def _too_deep(source: str) -> TraceError:
    return TraceError(source, too_deep_message())


def parse_line(line: bytes, source: str) -> Run | TraceError:
    record = decode(line, source)
    return record if isinstance(record, TraceError) else parse_record(record, source)


def not_json(line: bytes | str, source: str) -> TraceError:
    """The error record for a line that is not JSON, its position counted within the line.

    (Parsed with its newline, a line cut short would be reported at "line 2 column 1".)
    """
    try:
        orjson.loads(line.rstrip(b"\r\n") if isinstance(line, bytes) else line.rstrip("\r\n"))
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
        if isinstance(call, str):
            return TraceError(source, call)
        calls.append(call)
    case_id = _id(record, "case_id")
    if case_id is not None and type(case_id) is not str:
        return TraceError(
            source,
            f"case_id {_text(case_id)} is {json_kind(case_id)}; case ids are strings "
            f"(write {json.dumps(_text(case_id))})",
        )
    world = record.get("world", MISSING)
    meta = record.get("meta")
    return Run(
        run_id=run_id_of(record, source),
        case_id=case_id,
        calls=tuple(calls),
        world=MISSING if world is None else world,
        meta=meta if type(meta) is dict else {},
        source=source,
    )


def run_id_of(record: dict[str, Any], source: str) -> str:
    """A record's run id: its `run_id` as text, or its `file:line` when it has none."""
    run_id = _id(record, "run_id")
    return run_id if type(run_id) is str else (source if run_id is None else _text(run_id))


def _id(record: dict[str, Any], key: str) -> Any:
    """A record's `key` at its top level, else in its `metadata` object (docs/trace-formats.md)."""
    value = record.get(key)
    if value is None:
        metadata = record.get("metadata")
        if type(metadata) is dict:
            value = metadata.get(key)
    return value


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
            parsed = loads(args)
        except ValueError as e:
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
    return value if isinstance(value, str) else json_dumps(value).decode()
