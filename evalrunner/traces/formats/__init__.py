"""The built-in trace formats, one module each. A new format is a new module here that defines
`FORMAT`, and its line in `BUILTIN` below; the registry (`..registry`) orders them for detection."""

from . import anthropic, mcp, native, openai_chat, openai_responses, otel

BUILTIN = (
    native.FORMAT,
    otel.FORMAT,
    mcp.FORMAT,
    anthropic.FORMAT,
    openai_chat.FORMAT,
    openai_responses.FORMAT,
)
