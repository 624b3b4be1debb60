"""The built-in trace formats, one module each. A new format is a new module here that defines
`FORMAT`, and its line in `BUILTIN` below; the registry (`..registry`) orders them for detection.
OpenTelemetry instrumentations are span conventions inside `otel` (`spans/`), one module each."""

from . import (
    anthropic,
    bedrock,
    gemini,
    langchain,
    mcp,
    native,
    openai_agents,
    openai_chat,
    openai_responses,
    otel,
    pydantic_ai,
)

BUILTIN = (
    native.FORMAT,
    otel.FORMAT,
    openai_agents.FORMAT,
    mcp.FORMAT,
    pydantic_ai.FORMAT,
    langchain.FORMAT,
    anthropic.FORMAT,
    gemini.FORMAT,
    bedrock.FORMAT,
    openai_chat.FORMAT,
    openai_responses.FORMAT,
)
