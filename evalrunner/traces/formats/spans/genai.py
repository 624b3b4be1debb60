"""GenAI tool spans (`gen_ai.operation.name = "execute_tool"`): the OpenTelemetry semantic
conventions, pydantic-ai's spans (version 3 and later write the conventions' attributes; version
2 writes `tool_arguments` and `tool_response`; releases older than `gen_ai.operation.name`
write the same in spans named `running tool`, which are read too), and OpenLLMetry's
(Traceloop's) LangChain tool spans, whose arguments are LangChain's callback inputs wrapped as
`{"input_str", "inputs": {...}, "kwargs", ...}` and unwrapped here."""

from __future__ import annotations

import ast
from typing import Any

from .._walk import json_value
from ._span import Span, SpanConvention, SpanRead

ARGUMENTS = ("gen_ai.tool.call.arguments", "tool_arguments", "gcp.vertex.agent.tool_call_args")
RESULTS = ("gen_ai.tool.call.result", "tool_response", "gcp.vertex.agent.tool_response")
ADK_PREFIX = "gcp.vertex.agent."
ADK_MERGED = "(merged tools)"
"""Google ADK's own attributes: its legacy spans keep a tool's arguments and reply there, and a
reply `{"status": "error", "error_message"}` is ADK's documented way for a tool to fail."""


# Instrumentations whose tool spans never record the arguments, whatever is turned on: what to
# export instead (by gen_ai.system).
NEVER_RECORDED = {
    "autogen": "AutoGen's own instrumentation never records a tool's arguments: export "
    "TaskResult.messages (or the agent's save_state()) instead, one run a line with its case id",
}


# gen_ai.operation.name of a model call, whose span may carry the calls the model asked for.
MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})

# pydantic-ai's tool span before it wrote gen_ai.operation.name: its name is its own.
PYDANTIC_AI_TOOL_SPAN = "running tool"


def read(span: Span) -> SpanRead | None:
    attrs = span.attrs
    if attrs.get("gen_ai.operation.name") != "execute_tool" and not _old_pydantic_ai(span):
        if "gen_ai.tool.name" in attrs and "gen_ai.operation.name" not in attrs:
            return SpanRead(
                note=f'span "{span.name}" has gen_ai.tool.name but no gen_ai.operation.name '
                '"execute_tool"'
            )
        return None
    name = attrs.get("gen_ai.tool.name")
    if type(name) is not str or not name:
        return SpanRead(note=f'execute_tool span "{span.name}" has no gen_ai.tool.name')
    if name == ADK_MERGED:
        return SpanRead()  # ADK's summary of parallel calls, each of which has its own span
    call: dict[str, Any] = {"tool": name}
    for key in ARGUMENTS:
        if key in attrs:
            call["args"] = _unwrap(attrs[key])
            break
    else:
        _from_events(span, call)
        if "args" not in call:
            never = NEVER_RECORDED.get(str(attrs.get("gen_ai.system")))
            if never is not None:
                call["args_never"] = never
    for key in RESULTS:
        if key in attrs:
            call["result"], error = _unwrap_result(attrs[key])
            if error:
                call["error"] = True
            break
    if "result" in call and any(k.startswith(ADK_PREFIX) for k in attrs):
        reply = json_value(call["result"])
        if type(reply) is dict and reply.get("status") == "error":
            message = reply.get("error_message")
            call["error"] = message if type(message) is str and message else True
    if attrs.get("gen_ai.tool.status") == "error" and not span.error:
        call["error"] = True  # Strands' own status of the tool's run
    if span.error:
        call["error"] = attrs.get("error.type") or span.message or True
    return SpanRead(tool=call, tool_id=attrs.get("gen_ai.tool.call.id"))


def _from_events(span: Span, call: dict[str, Any]) -> None:
    """The GenAI event convention (Strands Agents' default): the arguments in the span's
    `gen_ai.tool.message` event (`content`), the reply in its `gen_ai.choice` event
    (`message`)."""
    for name, fields in span.events:
        if name == "gen_ai.tool.message" and "content" in fields and "args" not in call:
            call["args"] = fields["content"]
        elif name == "gen_ai.choice" and "message" in fields and "result" not in call:
            call["result"] = _event_reply(fields["message"])


def _event_reply(message: Any) -> Any:
    """A tool's reply as a `gen_ai.choice` event holds it: JSON text of content blocks
    (`[{"text": ...}]`), read as the text they hold."""
    value = json_value(message)
    if type(value) is list and value and all(type(b) is dict and "text" in b for b in value):
        texts = [b["text"] for b in value]
        if all(type(t) is str for t in texts):
            return "".join(texts)
    return value


def _old_pydantic_ai(span: Span) -> bool:
    """A pydantic-ai tool span from before gen_ai.operation.name: named `running tool`, with the
    tool's name and nothing that says it is something else."""
    return (
        span.name == PYDANTIC_AI_TOOL_SPAN
        and "gen_ai.operation.name" not in span.attrs
        and type(span.attrs.get("gen_ai.tool.name")) is str
    )


def _unwrap(args: Any) -> Any:
    """OpenLLMetry's wrapped LangChain arguments as the arguments: `inputs` (an object), else
    `input_str` (JSON, or the Python literal LangChain prints); anything else as it is."""
    value = json_value(args)
    if type(value) is not dict or "input_str" not in value:
        return args
    if not ({"inputs", "kwargs", "tags", "metadata"} & value.keys()):
        return args
    inputs = value.get("inputs")
    if type(inputs) is dict:
        return inputs
    text = value["input_str"]
    if type(text) is str:
        parsed = json_value(text)
        if type(parsed) is dict:
            return parsed
        try:
            literal = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return text
        if type(literal) is dict:
            return literal
    return text


def _unwrap_result(result: Any) -> tuple[Any, bool]:
    """OpenLLMetry's wrapped result (`{"output": <a LangChain ToolMessage>}`) as its content, and
    whether the message says the tool failed (`status: "error"`)."""
    value = json_value(result)
    if type(value) is dict and type(value.get("output")) is dict:
        message = value["output"]
        fields = message.get("kwargs") if type(message.get("kwargs")) is dict else message
        if type(fields) is dict and "content" in fields:
            return fields["content"], fields.get("status") == "error"
    return result, False


CONVENTION = SpanConvention(
    name="GenAI tool spans (OpenTelemetry conventions, pydantic-ai, OpenLLMetry)",
    summary='`gen_ai.operation.name` "execute_tool" (older pydantic-ai: spans named '
    "`running tool`): `gen_ai.tool.name`, "
    "`gen_ai.tool.call.arguments` (pydantic-ai v2: `tool_arguments`; OpenLLMetry's wrapped "
    "LangChain inputs unwrapped), `gen_ai.tool.call.result` (`tool_response`), the span status",
    read=read,
    case_keys=("traceloop.association.properties.case_id",),
    marker="gen_ai.operation.name",
    model_kinds=MODEL_OPERATIONS,
)
