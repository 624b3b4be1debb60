"""The types span conventions share (see `__init__`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Span:
    """One span, as the conventions see it."""

    name: str
    attrs: dict[str, Any]
    error: bool
    """The span's status is ERROR (or it has `error.type`)."""
    message: str | None = None
    """The status description, when the span failed."""
    events: tuple[tuple[str, dict[str, Any]], ...] = ()
    """Its GenAI events (`gen_ai.tool.message`, `gen_ai.choice`...), as (name, attributes)."""


@dataclass(slots=True)
class SpanRead:
    """What one convention found in one span."""

    tool: dict[str, Any] | None = None
    """A call a tool ran, as a native call; without "args" when the span did not record them
    ("args_hidden" says where they were hidden), "args_unusable" when it recorded something
    else."""
    tool_id: Any = None
    """The id of the call the tool span ran (`gen_ai.tool.call.id`), when the span keeps it."""
    requested: list[tuple[Any, dict[str, Any]]] = field(default_factory=list)
    """(call id, native call) of each call a model asked for in its output."""
    replies: list[tuple[Any, dict[str, Any]]] = field(default_factory=list)
    """(call id, fields to add to the call: result, error) of each reply a model was sent."""
    note: str | None = None
    """Why a span that looks like a tool call gives none."""
    renames: dict[str, str] = field(default_factory=dict)
    """Tool names that, anywhere in the span's trace, name another tool (Semantic Kernel's
    plugin-qualified `Billing-get_customer`: `get_customer`)."""
    unrecorded: str | None = None
    """Why a model span shows it asked for tools it does not list (content capture off, or
    hidden): the run is unscoreable unless its calls are read whole from its tool spans."""
    unrecorded_fix: str | None = None
    """What to do about `unrecorded`, when it is not turning on the instrumentation's content
    capture (Haystack's ToolInvoker that raised: run the Agent without raising)."""


@dataclass(frozen=True)
class SpanConvention:
    name: str
    """Who writes it, in the docs."""
    summary: str
    """What evalrun reads from it, one line, for the docs."""
    read: Callable[[Span], SpanRead | None]
    """What the span holds in this convention; None when nothing."""
    case_keys: tuple[str, ...] = ()
    """Attributes (dotted paths, into a JSON string too) where it keeps a case id."""
    marker: str | None = None
    """The attribute that makes a span this convention's, its value the span's kind: a trace
    with such a span is an agent run (one that made no call, too), not spans of an unknown
    convention."""
    model_kinds: frozenset[str] = frozenset()
    """The values of `marker` that make a span a model (LLM or chat) call."""
    json_ids: tuple[str, ...] = ()
    """Attribute prefixes whose values are JSON text (Langfuse's `langfuse.trace.metadata.*`:
    `"\"retry\""`): an id, a world or a `--group-by` value read there is decoded."""


TOOL_FINISH_REASONS = frozenset({"tool_calls", "tool_call", "tool_use", "function_call"})
"""Finish reasons that say a model asked for tools (OpenAI's, OpenLLMetry's, Anthropic's)."""

REDACTED = "__REDACTED__"
"""What OpenInference writes in place of hidden content (OPENINFERENCE_HIDE_*)."""


def asks_for_tools(reasons: Any) -> bool:
    """A finish reason, or a list of them, says the model asked for tools."""
    if type(reasons) is str:
        return reasons in TOOL_FINISH_REASONS
    return type(reasons) is list and any(
        type(r) is str and r in TOOL_FINISH_REASONS for r in reasons
    )


BOUND = frozenset({"args", "kwargs", "sanitize_inputs_outputs"})


def put_args(call: dict[str, Any], raw: Any, args: Any) -> None:
    """A tool span's arguments into `call`: `args` (its attribute `raw`, decoded, unwrapped) when
    an object; `raw` itself when it is JSON text gone wrong (read as a malformed call, as
    elsewhere); else `args_unusable`, the span recorded something other than the arguments
    (LangChain's tracer records a tool's input string, "C-9")."""
    if type(args) is dict:
        call["args"] = args
    elif type(raw) is str and raw.lstrip()[:1] == "{":
        call["args"] = raw
    else:
        call["args_unusable"] = raw


def bound_arguments(value: Any) -> Any:
    """A tool's bound arguments, as instrumentations that record a Python call write them
    (`{"kwargs": {...}}`, `{"args": [], "kwargs": {...}}`, smolagents' `sanitize_inputs_outputs`),
    as the arguments object; anything else as it is. Positional arguments cannot be named here:
    a wrapper with them is kept whole."""
    if type(value) is not dict or type(value.get("kwargs")) is not dict:
        return value
    if not value.keys() <= BOUND or value.get("args") not in (None, []):
        return value
    return value["kwargs"]


def indexed(attrs: dict[str, Any], prefix: str) -> dict[int, dict[str, Any]]:
    """Flattened list attributes (`prefix.0.message.role`) as {index: {rest of the key: value}}."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if not key.startswith(prefix):
            continue
        head, _, rest = key[len(prefix) :].partition(".")
        if head.isdigit() and rest:
            found.setdefault(int(head), {})[rest] = value
    return dict(sorted(found.items()))
