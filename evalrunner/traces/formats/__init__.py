"""The built-in trace formats, one module each, listed in `TABLE`: a new format is a new module
here that defines `FORMAT` (a `TraceFormat`) and its row in the table. The registry
(`..registry`) imports a format's module only when the format is first asked for, so detection
imports no format after the first that reads a line (a run in the native format, the hot path,
imports none). tests/test_registries.py holds the table to the modules: every module is listed,
under its format's name and order. Modules whose name starts with `_` are shared helpers, not
formats. OpenTelemetry instrumentations are span conventions inside `otel` (`spans/`), one module
each."""

from __future__ import annotations

TABLE: tuple[tuple[str, str, int], ...] = (
    # (format name, module in this package, detection order: lower is tried first)
    ("native", "native", 0),
    ("otel", "otel", 10),
    ("mlflow", "mlflow", 11),
    ("openai-agents", "openai_agents", 12),
    ("mcp", "mcp", 20),
    ("smolagents", "smolagents", 21),
    ("pydantic-ai", "pydantic_ai", 22),
    ("adk", "adk", 23),
    ("adk-eval", "adk_eval", 23),
    ("agno", "agno", 23),
    ("autogen", "autogen", 23),
    ("crewai", "crewai", 23),
    ("dspy", "dspy", 23),
    ("haystack", "haystack", 23),
    ("llamaindex", "llamaindex", 23),
    ("semantic-kernel", "semantic_kernel", 23),
    ("vercel-ai", "vercel_ai", 23),
    ("langchain", "langchain", 24),
    ("anthropic", "anthropic", 25),
    ("gemini", "gemini", 26),
    ("bedrock", "bedrock", 27),
    ("openai-chat", "openai_chat", 30),
    ("openai-responses", "openai_responses", 50),
)
"""Every built-in format: its name, its module here, and its detection order (the module's
`FORMAT` says the same name and order; the registry checks it on import)."""
