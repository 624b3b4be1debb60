"""Semantic Kernel's spans: its tool calls are GenAI `execute_tool` spans (`genai.py` reads them;
their arguments and results only with
`SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS_SENSITIVE=true`), each tool named by
its plugin-qualified name (`Billing-get_customer`). Under auto function calling the
`AutoFunctionInvocationLoop` span lists the functions the model was offered,
`sk.available_functions` (`Billing-get_customer,Billing-get_invoice`): in its trace, each is read
as the plugin's function (`get_customer`), as tool files name them and as the `semantic-kernel`
format reads a ChatHistory's `function_name`. A plugin's name has no `-` (Semantic Kernel allows
letters, digits and `_`), so the first `-` is where the function's name starts."""

from __future__ import annotations

from ._span import Span, SpanConvention, SpanRead

AVAILABLE = "sk.available_functions"


def read(span: Span) -> SpanRead | None:
    names = span.attrs.get(AVAILABLE)
    if type(names) is not str:
        return None
    renames = {}
    for name in names.split(","):
        plugin, dash, function = name.strip().partition("-")
        if dash and plugin and function:
            renames[name.strip()] = function
    return SpanRead(renames=renames)


CONVENTION = SpanConvention(
    name="Semantic Kernel",
    summary="`execute_tool` spans as GenAI tool spans; the plugin-qualified names "
    "`sk.available_functions` lists (`Billing-get_customer`) read as the function's "
    "(`get_customer`)",
    read=read,
)
