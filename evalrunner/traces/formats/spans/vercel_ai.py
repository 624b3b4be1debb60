"""The Vercel AI SDK's telemetry spans (`experimental_telemetry: {isEnabled: true}`): each tool
the SDK ran is an `ai.toolCall` span (`ai.operationId` `ai.toolCall`), the tool
`ai.toolCall.name`, its call id `ai.toolCall.id`, its arguments `ai.toolCall.args` (JSON text,
recorded unless `recordInputs: false`), its reply `ai.toolCall.result` (JSON text, unless
`recordOutputs: false`); a tool that threw is a span of status ERROR (with an exception event),
its status message the error. The case id is the call's telemetry metadata,
`ai.telemetry.metadata.case_id`, on the SDK's `ai.generateText` / `ai.streamText` spans and
their steps.

A step span (`ai.generateText.doGenerate`, `ai.streamText.doStream`) is a model call: the calls
it asked for are its `ai.response.toolCalls` (JSON text, `[{toolCallId, toolName, input}]`; AI
SDK 4's `args`), read when the tool spans cannot be (`recordInputs: false`), each with the error
of the `ai.toolCall` span that ran it. A step that finished with `tool-calls` but records none
(`recordOutputs: false`) is not recorded.

The SDK is an npm package: this module follows its documented span attributes (AI SDK 5's
telemetry page), not spans the SDK wrote here.
"""

from __future__ import annotations

from typing import Any

from .._walk import json_value
from ._span import Span, SpanConvention, SpanRead, put_args

OPERATION = "ai.operationId"
TOOL_SPAN = "ai.toolCall"
NAME = "ai.toolCall.name"
ID = "ai.toolCall.id"
ARGS = "ai.toolCall.args"
RESULT = "ai.toolCall.result"
METADATA = "ai.telemetry.metadata."
MODEL_OPERATIONS = frozenset(
    {
        "ai.generateText.doGenerate",
        "ai.streamText.doStream",
        "ai.generateObject.doGenerate",
        "ai.streamObject.doStream",
    }
)
"""The step spans: one model call each."""
HIDDEN = "experimental_telemetry recordInputs: false"
TOOL_CALLS = "ai.response.toolCalls"
FINISH = "ai.response.finishReason"
MAX_CALLS = 10_000


def read(span: Span) -> SpanRead | None:
    attrs = span.attrs
    operation = attrs.get(OPERATION)
    if operation in MODEL_OPERATIONS:
        return _step(span)
    if operation != TOOL_SPAN and not (operation is None and span.name == TOOL_SPAN):
        if operation is None and NAME in attrs:
            return SpanRead(note=f'span "{span.name}" has {NAME} but no {OPERATION} "{TOOL_SPAN}"')
        return None
    name = attrs.get(NAME)
    if type(name) is not str or not name:
        return SpanRead(note=f"an {TOOL_SPAN} span has no {NAME}")
    call: dict[str, Any] = {"tool": name}
    if ARGS in attrs:
        put_args(call, attrs[ARGS], json_value(attrs[ARGS]))
    else:
        call["args_hidden"] = HIDDEN
    if RESULT in attrs:
        call["result"] = json_value(attrs[RESULT])
    if span.error:
        call["error"] = span.message or True
    return SpanRead(tool=call, tool_id=attrs.get(ID))


def _step(span: Span) -> SpanRead:
    attrs = span.attrs
    found = SpanRead()
    if TOOL_CALLS not in attrs:
        if attrs.get(FINISH) == "tool-calls":
            found.unrecorded = (
                f'step span "{span.name}" finished with {FINISH} "tool-calls" but records no '
                f"{TOOL_CALLS} (experimental_telemetry recordOutputs: false)"
            )
        return found
    value = json_value(attrs[TOOL_CALLS])
    if type(value) is not list:
        found.note = f'step span "{span.name}" has {TOOL_CALLS} that is not a JSON list'
        return found
    for tc in value[:MAX_CALLS]:
        name = tc.get("toolName") if type(tc) is dict else None
        if type(name) is not str or not name:
            found.note = f'step span "{span.name}" has a tool call without a toolName'
            continue
        call: dict[str, Any] = {"tool": name}
        args = tc.get("input", tc.get("args", _MISSING))
        if args is not _MISSING:
            call["args"] = args
        found.requested.append((tc.get("toolCallId"), call))
    return found


_MISSING = object()


CONVENTION = SpanConvention(
    name="Vercel AI SDK telemetry",
    summary="`ai.toolCall` spans (`ai.operationId` `ai.toolCall`): `ai.toolCall.name`, "
    "`ai.toolCall.args` and `ai.toolCall.result` (JSON text), `ai.toolCall.id`, the span status; "
    "step spans (`ai.generateText.doGenerate`, `ai.streamText.doStream`): the calls in "
    "`ai.response.toolCalls`",
    read=read,
    case_keys=(f"{METADATA}case_id",),
    marker=OPERATION,
    model_kinds=MODEL_OPERATIONS,
)
