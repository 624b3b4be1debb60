"""OpenInference spans (Arize Phoenix's instrumentations of the OpenAI Agents SDK, LangChain,
the OpenAI client...): TOOL spans (`tool.name`, `input.value`, `output.value`), and LLM spans
whose flattened messages hold the calls a model asked for
(`llm.output_messages.N.message.tool_calls.M.tool_call.function.{name,arguments}`) and the
replies it was sent (`llm.input_messages.N.message.role = "tool"`).

Hidden content (OPENINFERENCE_HIDE_INPUTS and the like write `__REDACTED__`) is not recorded:
a TOOL span whose input is hidden, or an LLM span whose output is hidden (or whose
`llm.finish_reason` asks for tools) with no tool call in its messages, makes the run unscoreable
unless its calls are read whole elsewhere."""

from __future__ import annotations

from typing import Any

from .._walk import json_value
from ._span import (
    REDACTED,
    Span,
    SpanConvention,
    SpanRead,
    asks_for_tools,
    bound_arguments,
    indexed,
    put_args,
)

KIND = "openinference.span.kind"
FINAL_ANSWER_SPAN = "FinalAnswerTool"
"""smolagents' final answer, a TOOL span of its own (left out: it ends the run)."""


def read(span: Span) -> SpanRead | None:
    attrs = span.attrs
    kind = attrs.get(KIND)
    if kind == "TOOL":
        name = attrs.get("tool.name")
        if type(name) is not str or not name:
            return SpanRead(note=f'TOOL span "{span.name}" has no tool.name')
        if name == "final_answer" and span.name == FINAL_ANSWER_SPAN:
            return SpanRead()  # smolagents' way of ending a run, not a call to a tool
        call: dict[str, Any] = {"tool": name}
        text = attrs.get("input.value")
        if text == REDACTED:
            call["args_hidden"] = f"input.value {REDACTED}"
        elif "input.value" in attrs:
            put_args(call, text, bound_arguments(json_value(text)))
        if attrs.get("output.value", REDACTED) != REDACTED:
            call["result"] = _tool_output(attrs["output.value"])
            if _failed(attrs["output.value"]):
                call["error"] = True
        if span.error:
            call["error"] = span.message or True
        return SpanRead(tool=call)
    if kind != "LLM":
        return None
    read = SpanRead()
    for fields in indexed(attrs, "llm.output_messages.").values():
        for tc in indexed(fields, "message.tool_calls.").values():
            name = tc.get("tool_call.function.name")
            if type(name) is not str or not name:
                read.note = f'LLM span "{span.name}" has a tool call without a function name'
                continue
            requested: dict[str, Any] = {"tool": name}
            if "tool_call.function.arguments" in tc:
                requested["args"] = tc["tool_call.function.arguments"]
            read.requested.append((tc.get("tool_call.id"), requested))
    for fields in indexed(attrs, "llm.input_messages.").values():
        if fields.get("message.role") == "tool":
            reply = {"result": json_value(fields.get("message.content"))}
            read.replies.append((fields.get("message.tool_call_id"), reply))
    if not read.requested:
        reason = attrs.get("llm.finish_reason")
        if asks_for_tools(reason):
            read.unrecorded = (
                f'LLM span "{span.name}" finished with llm.finish_reason {reason!r} but records no '
                "tool call (its output messages are hidden or not captured)"
            )
        elif attrs.get("output.value") == REDACTED and reason is None:
            read.unrecorded = f'LLM span "{span.name}" hides its output ({REDACTED})'
    return read


def _tool_output(value: Any) -> Any:
    """A TOOL span's output: LangChain's tracer writes the ToolMessage, keep its content."""
    parsed = json_value(value)
    if type(parsed) is dict and type(parsed.get("data")) is dict and parsed.get("type") == "tool":
        return parsed["data"].get("content")
    return value


def _failed(value: Any) -> bool:
    parsed = json_value(value)
    return (
        type(parsed) is dict
        and type(parsed.get("data")) is dict
        and parsed["data"].get("status") == "error"
    )


CONVENTION = SpanConvention(
    name="OpenInference (Arize Phoenix)",
    summary="TOOL spans (`tool.name`, `input.value`, `output.value`, the span status); LLM spans' "
    "`llm.output_messages.*.message.tool_calls.*` and tool replies in `llm.input_messages.*`",
    read=read,
    marker=KIND,
    model_kinds=frozenset({"LLM"}),
)
