"""Span conventions: how the OpenTelemetry reader finds tool calls in a span's attributes.

Instrumentations agree on OpenTelemetry (trace ids, parents, attributes, OTLP files) and differ in
where they put a call. They are conventions inside one format, not formats of their own: they
share the file shape, the grouping and the ids, and one trace mixes them (a pydantic-ai agent
span around an OpenAI client traced by OpenInference). A new convention is one module here that
defines `CONVENTION`, and its line in `CONVENTIONS`; every convention reads every span.

A span gives, through `SpanRead`: a call the agent's tool ran (a tool span), calls a model asked
for (an LLM or chat span's output) and replies to calls (a later model input), or a note when it
looks like a call that cannot be read. `otel.py` decides per trace which of them make the run.
"""

from __future__ import annotations

from . import (
    genai,
    genai_chat,
    haystack,
    langfuse,
    openinference,
    openllmetry,
    semantic_kernel,
    vercel_ai,
)
from ._span import Span, SpanConvention, SpanRead

__all__ = ["CONVENTIONS", "Span", "SpanConvention", "SpanRead"]

CONVENTIONS: tuple[SpanConvention, ...] = (
    genai.CONVENTION,
    openinference.CONVENTION,
    genai_chat.CONVENTION,
    openllmetry.CONVENTION,
    langfuse.CONVENTION,
    vercel_ai.CONVENTION,
    haystack.CONVENTION,
    semantic_kernel.CONVENTION,
)
"""Every convention, in the order the docs list them."""
