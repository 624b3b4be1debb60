"""MLflow Tracing: a trace as `Trace.to_json()` writes it (`{"info": {...}, "data": {"spans":
[...]}}`, one a line or pretty-printed one after another, as `mlflow traces get` prints it), or a
file store's `traces.json` (`{"spans": [...]}`, the spans alone). A trace is a run.

Calls are the spans whose `mlflow.spanType` is `TOOL`, in start order: the tool is the span's
name (MLflow 2's de-duplicated `get_customer_1` read back as the traced function's name), its
arguments `mlflow.spanInputs` (an object), its reply `mlflow.spanOutputs`; a span whose status is
ERROR is an errored attempt (its status message the error). MLflow keeps every attribute as JSON
text (`"\\"TOOL\\""`): each is decoded. Both span schemas are read: MLflow 3's
(`start_time_unix_nano`, `status.code`) and MLflow 2's (`context`, `start_time`,
`status_code`).

The case id is a tag of the trace (`mlflow.update_current_trace(tags={"case_id": ...})`: the
record's `info.tags.case_id`) or its metadata (`info.trace_metadata`; MLflow 2's
`info.request_metadata`); the run id is the trace id. A file store's `traces.json` keeps neither
(the store writes the tags in files beside it): give `--case-id` for such a file.

A trace with no TOOL span whose model spans' outputs hold tool calls ran its tools untraced: it
is unscoreable, never a run of no calls.
"""

from __future__ import annotations

import re
from typing import Any

from ...jsonvalue import decoded
from ..format import DEFAULT_CASE_PATHS, DEFAULT_RUN_PATHS, TraceFormat

SPAN_TYPE = "mlflow.spanType"
INPUTS = "mlflow.spanInputs"
OUTPUTS = "mlflow.spanOutputs"
FUNCTION = "mlflow.spanFunctionName"
REQUEST_ID = "mlflow.traceRequestId"
TOOL = "TOOL"
ERROR_CODES = frozenset({"STATUS_CODE_ERROR", "ERROR"})
DEDUPLICATED = re.compile(r"\A(.+)_[0-9]+\Z")
"""MLflow 2 renamed spans of one name in a trace `name_1`, `name_2`..."""
CALL_SCAN = 2_000
"""How many values of a model span's outputs are searched for tool calls."""


def _spans(record: dict[str, Any]) -> Any:
    data = record.get("data")
    if type(data) is dict and "spans" in data:
        return data.get("spans")
    return record.get("spans")


def _attr(attrs: dict[str, Any], key: str) -> Any:
    """An attribute as MLflow means it: JSON text decoded (a value that is not JSON as it is)."""
    return decoded(attrs.get(key))


def _start(span: dict[str, Any]) -> int | None:
    value = span.get("start_time_unix_nano", span.get("start_time"))
    if type(value) is int:
        return value
    if type(value) is str and value.isdigit():
        return int(value)
    return None


def _failed(span: dict[str, Any]) -> tuple[bool, str | None]:
    """Whether the span's status is ERROR, and its message (MLflow 3 `status`, MLflow 2
    `status_code` / `status_message`)."""
    status = span.get("status")
    if type(status) is dict:
        code, message = status.get("code", status.get("status_code")), status.get("message")
    else:
        code, message = span.get("status_code"), span.get("status_message")
    if code not in ERROR_CODES:
        return False, None
    return True, message if type(message) is str and message else None


def _tool_name(span: dict[str, Any], attrs: dict[str, Any]) -> Any:
    name = span.get("name")
    function = _attr(attrs, FUNCTION)
    if type(name) is str and type(function) is str:
        cut = DEDUPLICATED.match(name)
        if cut is not None and cut.group(1) == function:
            return function
    return name


def calls(record: dict[str, Any]) -> list[dict[str, Any]] | str:
    spans = _spans(record)
    if type(spans) is not list:
        return 'no "data.spans" (or "spans") list'
    found: list[tuple[int | None, int, dict[str, Any]]] = []
    for n, span in enumerate(spans):
        if type(span) is not dict:
            return f"span {n} is not an object"
        attrs = span.get("attributes")
        if type(attrs) is not dict or _attr(attrs, SPAN_TYPE) != TOOL:
            continue
        name = _tool_name(span, attrs)
        if type(name) is not str or not name:
            return f"TOOL span {n} has no name"
        if INPUTS not in attrs:
            return (
                f'TOOL span "{name}" records no inputs ({INPUTS}): a call whose arguments are '
                "not recorded is not compared as {}"
            )
        call: dict[str, Any] = {"tool": name}
        args = _attr(attrs, INPUTS)
        if type(args) is dict:
            call["args"] = args
        elif type(args) is str and args.lstrip()[:1] == "{":
            call["args"] = args  # JSON text of the arguments: read (or found malformed) as such
        else:
            return (
                f'TOOL span "{name}" records its inputs as {attrs[INPUTS]!r}, not the arguments '
                "object: trace the tool as a function of its named arguments"
            )
        if OUTPUTS in attrs:
            call["result"] = _attr(attrs, OUTPUTS)
        failed, message = _failed(span)
        if failed:
            call["error"] = message or True
        found.append((_start(span), n, call))
    if not found:
        asked = _asked(spans)
        if asked is not None:
            return (
                f"no TOOL span, but {asked}: the tools ran without a span of their own; trace "
                'each with @mlflow.trace(span_type="TOOL") (or the framework\'s autolog), or '
                "export the run's messages (see docs/trace-formats.md)"
            )
    if all(start is not None for start, _, _ in found):
        found.sort(key=lambda c: (c[0], c[1]))
    return [call for _, _, call in found]


def _asked(spans: list[Any]) -> str | None:
    """A span (not TOOL) whose outputs hold a model's tool calls: a `tool_calls` list, or a
    `tool_use` / `function_call` block."""
    for span in spans:
        attrs = span.get("attributes") if type(span) is dict else None
        if type(attrs) is not dict or OUTPUTS not in attrs:
            continue
        where = _call_in(_attr(attrs, OUTPUTS))
        if where is not None:
            kind = _attr(attrs, SPAN_TYPE)
            return f'the {kind} span "{span.get("name")}" holds {where} in its outputs'
    return None


def _call_in(value: Any) -> str | None:
    stack, seen = [value], 0
    while stack and seen < CALL_SCAN:
        value = stack.pop()
        seen += 1
        if type(value) is dict:
            tool_calls = value.get("tool_calls")
            if type(tool_calls) is list and tool_calls:
                return f"a tool_calls list of {len(tool_calls)}"
            if value.get("type") in ("tool_use", "function_call"):
                return f'a "{value["type"]}" block'
            stack.extend(v for v in value.values() if type(v) in (dict, list))
        elif type(value) is list:
            stack.extend(v for v in value if type(v) in (dict, list))
    return None


def _is_mlflow_span(span: Any) -> bool:
    attrs = span.get("attributes") if type(span) is dict else None
    return type(attrs) is dict and (REQUEST_ID in attrs or SPAN_TYPE in attrs)


def _detect(record: Any) -> bool:
    """A trace (`info` with a trace id and `data.spans`), or spans that carry MLflow's
    attributes."""
    if type(record) is not dict:
        return False
    info, data = record.get("info"), record.get("data")
    if (
        type(info) is dict
        and type(data) is dict
        and type(data.get("spans")) is list
        and ("trace_id" in info or "request_id" in info)
    ):
        return True
    spans = _spans(record)
    return type(spans) is list and any(_is_mlflow_span(s) for s in spans[:8])


FORMAT = TraceFormat(
    name="mlflow",
    summary="MLflow Tracing: Trace.to_json(), or a file store's traces.json (TOOL spans)",
    looks_like='"info" and "data.spans", or "spans" with mlflow.spanType attributes',
    detect=_detect,
    order=11,
    calls=calls,
    case_paths=(
        *DEFAULT_CASE_PATHS,
        ("info", "tags", "case_id"),
        ("info", "trace_metadata", "case_id"),
        ("info", "request_metadata", "case_id"),
    ),
    run_paths=(*DEFAULT_RUN_PATHS, ("info", "trace_id"), ("info", "request_id")),
)
