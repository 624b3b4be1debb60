"""Drive real agent frameworks offline through one scenario; write the traces they record.

    make fixtures        (installs the `frameworks` extra in .venv/frameworks, runs this;
                          then each of OWN_VENV in .venv/frameworks-NAME, its extra
                          `frameworks-NAME`, and runs this with its name there)

Each framework runs with its own test or fake model (no network, no API key) through the same
four runs, one per case of tests/data/frameworks/cases.json:

- `retry`:    get_customer("C-9") is rejected by the tool, then get_customer("C-1") succeeds;
- `lookup`:   get_invoice("I-1");
- `parallel`: get_invoice("I-1") and get_invoice("I-2") in one model turn;
- `raised`:   get_customer("C-404"), whose tool raises, and the agent gives up.

and writes what the framework records, in each form it offers, to tests/data/frameworks/
(`<framework>-<form>.jsonl`). tests/formats/test_frameworks.py scores every fixture against the cases
and asserts the verdicts the scenario implies; it needs none of these frameworks.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "frameworks"

# The scenario: per case, the model's turns (tool calls, then the final text).
TURNS: dict[str, list[list[tuple[str, dict[str, str]]] | str]] = {
    "retry": [
        [("get_customer", {"customer_id": "C-9"})],
        [("get_customer", {"customer_id": "C-1"})],
        "Dana Whitfield is customer C-1.",
    ],
    "lookup": [[("get_invoice", {"invoice_id": "I-1"})], "Invoice I-1 is open."],
    "parallel": [
        [("get_invoice", {"invoice_id": "I-1"}), ("get_invoice", {"invoice_id": "I-2"})],
        "Both invoices are open.",
    ],
    "raised": [[("get_customer", {"customer_id": "C-404"})], "The customer service is down."],
}
PROMPTS = {
    "retry": "Look up customer C-1.",
    "lookup": "Is invoice I-1 open?",
    "parallel": "Are invoices I-1 and I-2 open?",
    "raised": "Look up customer C-404.",
}
CUSTOMERS = {"C-1": {"id": "C-1", "name": "Dana Whitfield"}}


class NotFound(Exception):
    pass


def customer(customer_id: str) -> dict[str, str]:
    """The tools' behaviour, shared by every framework: C-9 is unknown (the agent retries),
    C-404 makes the service fail (the agent gives up)."""
    if customer_id == "C-404":
        raise RuntimeError("customer service unavailable")
    if customer_id not in CUSTOMERS:
        raise NotFound(f"customer {customer_id} not found")
    return CUSTOMERS[customer_id]


def invoice(invoice_id: str) -> dict[str, str]:
    return {"id": invoice_id, "status": "open"}


def turn(case: str, done: int) -> list[tuple[str, dict[str, str]]] | str:
    """The model's next turn in `case`, after `done` turns of tool calls."""
    return TURNS[case][done]


def write(name: str, records: Sequence[Any], *, pretty: str | None = None) -> None:
    path = OUT / f"{name}.jsonl"
    if pretty is not None:
        path.write_text(pretty)
    else:
        path.write_text("".join(json.dumps(r, sort_keys=False) + "\n" for r in records))
    print(f"wrote {path.relative_to(OUT.parent.parent.parent)}", file=sys.stderr)


# ------------------------------------------------------------------------------ OpenTelemetry


class SpanFile:
    """An in-memory span exporter: the spans, as the OpenTelemetry SDK exports them."""

    def __init__(self) -> None:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))

    def flat(self) -> list[Any]:
        """`span.to_json()` of each span on one line, in the order they ended."""
        return [json.loads(s.to_json(indent=None)) for s in self.exporter.get_finished_spans()]

    def console(self) -> str:
        """What `ConsoleSpanExporter` writes: `to_json()` (indent 4), one after another."""
        return "".join(s.to_json() + os.linesep for s in self.exporter.get_finished_spans())

    def tracer(self, name: str = "evalrun.fixtures") -> Any:
        return self.provider.get_tracer(name)


@contextmanager
def case_span(spans: SpanFile, case: str) -> Iterator[None]:
    """The one line of glue a span exporter needs: the case id on a span around the run."""
    with spans.tracer().start_as_current_span("eval case", attributes={"evalrun.case_id": case}):
        yield


# -------------------------------------------------------------------------------- pydantic-ai


def pydantic_ai() -> None:
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.capabilities.instrumentation import Instrumentation
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.models.instrumented import InstrumentationSettings

    def model_for(case: str) -> FunctionModel:
        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            done = sum(1 for m in messages if m.kind == "response")
            step = turn(case, done)
            if isinstance(step, str):
                return ModelResponse(parts=[TextPart(step)])
            return ModelResponse(parts=[ToolCallPart(tool, args) for tool, args in step])

        return FunctionModel(respond)

    def agent(instrument: Any = None) -> Agent[None, str]:
        capabilities = [Instrumentation(settings=instrument)] if instrument is not None else []
        a: Agent[None, str] = Agent(capabilities=capabilities, retries=3)

        @a.tool_plain
        def get_customer(customer_id: str) -> dict[str, str]:
            """Get a customer."""
            try:
                return customer(customer_id)
            except Exception as e:  # pydantic-ai feeds errors back only as ModelRetry
                raise ModelRetry(str(e)) from e

        @a.tool_plain
        def get_invoice(invoice_id: str) -> dict[str, str]:
            """Get an invoice."""
            return invoice(invoice_id)

        return a

    wrapped, bare = [], []
    for case in TURNS:
        result = agent().run_sync(PROMPTS[case], model=model_for(case))
        messages = json.loads(result.all_messages_json())
        wrapped.append({"case_id": case, "messages": messages})
        bare.append(messages)
    write("pydantic-ai-messages", wrapped)
    write("pydantic-ai-messages-bare", bare)

    # output_type=: the final answer is a call of the output tool (final_result), not of a tool
    from pydantic import BaseModel

    class Status(BaseModel):
        status: str

    def structured_for(case: str) -> FunctionModel:
        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            done = sum(1 for m in messages if m.kind == "response")
            step = turn(case, done)
            if isinstance(step, str):
                output = info.output_tools[0].name
                return ModelResponse(parts=[ToolCallPart(output, {"status": step})])
            return ModelResponse(parts=[ToolCallPart(tool, args) for tool, args in step])

        return FunctionModel(respond)

    # content capture off: the spans say which tools ran, not with what (unscoreable, never {})
    spans = SpanFile()
    settings = InstrumentationSettings(
        tracer_provider=spans.provider, version=6, include_content=False
    )
    for case in TURNS:
        with case_span(spans, case):
            agent(settings).run_sync(PROMPTS[case], model=model_for(case))
    write("pydantic-ai-spans-v6-nocontent", spans.flat())

    structured = []
    for case in TURNS:
        typed = agent()
        result = typed.run_sync(PROMPTS[case], model=structured_for(case), output_type=Status)
        structured.append({"case_id": case, "messages": json.loads(result.all_messages_json())})
    write("pydantic-ai-messages-output-type", structured)

    for version, forms in ((5, ("flat", "console", "metadata")), (2, ("flat",))):
        for form in forms:
            spans = SpanFile()
            settings = InstrumentationSettings(tracer_provider=spans.provider, version=version)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for case in TURNS:
                    if form == "metadata":
                        # the case id in the run's metadata: no span of our own
                        agent(settings).run_sync(
                            PROMPTS[case], model=model_for(case), metadata={"case_id": case}
                        )
                        continue
                    with case_span(spans, case):
                        agent(settings).run_sync(PROMPTS[case], model=model_for(case))
            name = f"pydantic-ai-spans-v{version}-{form}"
            if form == "console":
                write(name, [], pretty=spans.console())
            else:
                write(name, spans.flat())
            if version == 5 and form == "flat":
                # GenAI chat spans alone: what an instrumentation of the model client records
                # (the model's tool calls in gen_ai.output.messages, the replies in
                # gen_ai.input.messages), pydantic-ai's own execute_tool spans left out
                chat = [
                    s
                    for s in spans.flat()
                    if s["attributes"].get("gen_ai.operation.name") != "execute_tool"
                ]
                write("genai-chat-spans", chat)


def pydantic_ai_rejected() -> None:
    """A call pydantic-ai rejects before running it: the model asks for a tool the agent does
    not have (`get_client`), pydantic-ai answers "Unknown tool name" and runs no tool (no
    execute_tool span), the model retries with the right one. The `retry` case, as spans (v5)
    and as messages."""
    from pydantic_ai import Agent
    from pydantic_ai.capabilities.instrumentation import Instrumentation
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.models.instrumented import InstrumentationSettings

    steps: list[Any] = [
        [("get_client", {"customer_id": "C-1"})],
        [("get_customer", {"customer_id": "C-1"})],
        "Dana Whitfield is customer C-1.",
    ]

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        step = steps[sum(1 for m in messages if m.kind == "response")]
        if isinstance(step, str):
            return ModelResponse(parts=[TextPart(step)])
        return ModelResponse(parts=[ToolCallPart(tool, args) for tool, args in step])

    spans = SpanFile()
    settings = InstrumentationSettings(tracer_provider=spans.provider, version=5)
    agent: Agent[None, str] = Agent(capabilities=[Instrumentation(settings=settings)], retries=3)

    @agent.tool_plain
    def get_customer(customer_id: str) -> dict[str, str]:
        """Get a customer."""
        return customer(customer_id)

    with case_span(spans, "retry"):
        result = agent.run_sync(PROMPTS["retry"], model=FunctionModel(respond))
    write("pydantic-ai-spans-v5-unknown-tool", spans.flat())
    messages = json.loads(result.all_messages_json())
    write("pydantic-ai-messages-unknown-tool", [{"case_id": "retry", "messages": messages}])


# ------------------------------------------------------------------------ OpenAI Agents SDK


def openai_agents() -> None:
    from agents import (
        Agent,
        ModelResponse,
        RunConfig,
        Runner,
        function_tool,
        set_trace_processors,
        set_tracing_disabled,
    )
    from agents.models.interface import Model
    from agents.tracing.processor_interface import TracingProcessor
    from agents.usage import Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    class Fake(Model):
        """The scenario's model: its turns, whatever it is sent."""

        def __init__(self, case: str) -> None:
            self.case, self.done = case, 0

        async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
            step = turn(self.case, self.done)
            self.done += 1
            if isinstance(step, str):
                text = ResponseOutputText(type="output_text", text=step, annotations=[])
                output: list[Any] = [
                    ResponseOutputMessage(
                        id=f"msg_{self.done}",
                        type="message",
                        role="assistant",
                        status="completed",
                        content=[text],
                    )
                ]
            else:
                output = [
                    ResponseFunctionToolCall(
                        type="function_call",
                        id=f"fc_{self.done}_{i}",
                        call_id=f"call_{self.done}_{i}",
                        name=tool,
                        arguments=json.dumps(args),
                        status="completed",
                    )
                    for i, (tool, args) in enumerate(step)
                ]
            return ModelResponse(output=output, usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    @function_tool
    def get_customer(customer_id: str) -> dict[str, str]:
        """Get a customer."""
        return customer(customer_id)

    @function_tool
    def get_invoice(invoice_id: str) -> dict[str, str]:
        """Get an invoice."""
        return invoice(invoice_id)

    class Export(TracingProcessor):
        """The tracing export: each trace and span as `export()` gives it, one a line."""

        def __init__(self) -> None:
            self.items: list[Any] = []

        def on_trace_start(self, trace: Any) -> None:
            self.items.append(trace.export())

        def on_trace_end(self, trace: Any) -> None:
            pass

        def on_span_start(self, span: Any) -> None:
            pass

        def on_span_end(self, span: Any) -> None:
            self.items.append(span.export())

        def shutdown(self) -> None:
            pass

        def force_flush(self) -> None:
            pass

    def run(case: str, **config: Any) -> Any:
        agent = Agent(name="billing", tools=[get_customer, get_invoice], model=Fake(case))
        return Runner.run_sync(agent, PROMPTS[case], run_config=RunConfig(**config))

    # `result.to_input_list()`: Responses items, wrapped with the case id
    set_tracing_disabled(True)
    write(
        "openai-agents-input-list",
        [{"case_id": case, "input": run(case).to_input_list()} for case in TURNS],
    )
    # its own tracing export, the case id in the trace's metadata
    set_tracing_disabled(False)
    export = Export()
    set_trace_processors([export])
    for case in TURNS:
        run(case, workflow_name="billing", trace_metadata={"case_id": case})
    write("openai-agents-tracing", export.items)
    # without sensitive data: function spans keep "input": null (unscoreable, never malformed)
    export = Export()
    set_trace_processors([export])
    for case in TURNS:
        run(
            case,
            workflow_name="billing",
            trace_metadata={"case_id": case},
            trace_include_sensitive_data=False,
        )
    write("openai-agents-tracing-nosensitive", export.items)
    set_trace_processors([])

    # OpenInference's instrumentation of the SDK (Phoenix): OpenTelemetry spans
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    spans = SpanFile()
    instrumentor = OpenAIAgentsInstrumentor()
    instrumentor.instrument(tracer_provider=spans.provider)
    for case in TURNS:
        with case_span(spans, case):
            run(case, workflow_name="billing")
    instrumentor.uninstrument()
    set_trace_processors([])
    write("openai-agents-openinference", spans.flat())


# ---------------------------------------------------------------------- LangGraph, LangChain


def langgraph() -> None:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, convert_to_openai_messages, messages_to_dict
    from langchain_core.tools import tool
    from langgraph.prebuilt import ToolNode, create_react_agent

    class Fake(GenericFakeChatModel):
        """The scenario's model, with tools bound (create_react_agent binds them)."""

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    def model(case: str) -> Fake:
        messages = []
        for n, step in enumerate(TURNS[case]):
            if isinstance(step, str):
                messages.append(AIMessage(content=step))
            else:
                calls = [
                    {"name": t, "args": a, "id": f"call_{n}_{i}", "type": "tool_call"}
                    for i, (t, a) in enumerate(step)
                ]
                messages.append(AIMessage(content="", tool_calls=calls))
        return Fake(messages=iter(messages))

    @tool
    def get_customer(customer_id: str) -> dict[str, str]:
        """Get a customer."""
        return customer(customer_id)

    @tool
    def get_invoice(invoice_id: str) -> dict[str, str]:
        """Get an invoice."""
        return invoice(invoice_id)

    def run(case: str, **config: Any) -> list[Any]:
        # ToolNode hands a tool's error back to the model ("Error: ... Please fix your mistakes.")
        tools = ToolNode([get_customer, get_invoice], handle_tool_errors=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            agent = create_react_agent(model(case), tools)
        state = agent.invoke({"messages": [("user", PROMPTS[case])]}, config=config or None)
        return list(state["messages"])

    runs = {case: run(case) for case in TURNS}
    write(
        "langgraph-openai-messages",
        [{"case_id": c, "messages": convert_to_openai_messages(m)} for c, m in runs.items()],
    )
    write(
        "langgraph-model-dump",
        [{"case_id": c, "messages": [x.model_dump() for x in m]} for c, m in runs.items()],
    )
    write(
        "langgraph-messages-to-dict",
        [{"case_id": c, "messages": messages_to_dict(m)} for c, m in runs.items()],
    )
    from langchain_core.load import dumpd

    write("langgraph-dumpd", [{"case_id": c, "messages": dumpd(m)} for c, m in runs.items()])

    # OpenInference (Phoenix): the case id in the run's metadata, no span of our own; then with
    # inputs and outputs hidden (__REDACTED__: unscoreable, never a run of 0 calls)
    from openinference.instrumentation import TraceConfig
    from openinference.instrumentation.langchain import LangChainInstrumentor

    for name, config in (
        ("langgraph-openinference", TraceConfig()),
        ("langgraph-openinference-hidden", TraceConfig(hide_inputs=True, hide_outputs=True)),
    ):
        spans = SpanFile()
        LangChainInstrumentor().instrument(tracer_provider=spans.provider, config=config)
        for case in TURNS:
            run(case, metadata={"case_id": case})
        LangChainInstrumentor().uninstrument()
        write(name, spans.flat())

    # OpenLLMetry (Traceloop); then with content tracing off (read at each call; instrumented
    # once: a second instrument() in one process records only the graph's own span)
    from opentelemetry.instrumentation.langchain import LangchainInstrumentor

    spans = SpanFile()
    LangchainInstrumentor().instrument(tracer_provider=spans.provider)
    for name, content in (
        ("langgraph-openllmetry", "true"),
        ("langgraph-openllmetry-nocontent", "false"),
    ):
        os.environ["TRACELOOP_TRACE_CONTENT"] = content
        for case in TURNS:
            with case_span(spans, case):
                run(case)
        write(name, spans.flat())
        spans.exporter.clear()
    LangchainInstrumentor().uninstrument()
    del os.environ["TRACELOOP_TRACE_CONTENT"]


# ------------------------------------------------------------------ the OpenAI client alone


def openai_client() -> None:
    import httpx
    import openai

    def completion(case: str, done: int) -> dict[str, Any]:
        step = turn(case, done)
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if isinstance(step, str):
            message["content"] = step
        else:
            message["tool_calls"] = [
                {
                    "id": f"call_{done}_{i}",
                    "type": "function",
                    "function": {"name": t, "arguments": json.dumps(a)},
                }
                for i, (t, a) in enumerate(step)
            ]
        return {
            "id": f"chatcmpl-{done}",
            "object": "chat.completion",
            "created": 1767225600,
            "model": "gpt-4.1",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "stop" if isinstance(step, str) else "tool_calls",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }

    tools = [
        {
            "type": "function",
            "function": {
                "name": name,
                "parameters": {"type": "object", "properties": {key: {"type": "string"}}},
            },
        }
        for name, key in (("get_customer", "customer_id"), ("get_invoice", "invoice_id"))
    ]

    def run(case: str) -> None:
        """A hand-written loop: the client's calls are all an instrumentation sees."""
        state = {"done": 0}

        def handler(request: httpx.Request) -> httpx.Response:
            body = completion(case, state["done"])
            state["done"] += 1
            return httpx.Response(200, json=body)

        client = openai.OpenAI(
            api_key="offline", http_client=httpx.Client(transport=httpx.MockTransport(handler))
        )
        messages: list[dict[str, Any]] = [{"role": "user", "content": PROMPTS[case]}]
        while True:
            reply = client.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools)
            message = reply.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            if not message.tool_calls:
                return
            for call in message.tool_calls:
                args = json.loads(call.function.arguments)
                fn = customer if call.function.name == "get_customer" else invoice
                try:
                    content = json.dumps(fn(*args.values()))
                except Exception as e:
                    content = json.dumps({"error": str(e)})
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})

    from openinference.instrumentation import TraceConfig
    from openinference.instrumentation.openai import OpenAIInstrumentor

    for name, config in (
        ("openai-client-openinference", TraceConfig()),
        ("openai-client-openinference-hidden", TraceConfig(hide_inputs=True, hide_outputs=True)),
    ):
        spans = SpanFile()
        OpenAIInstrumentor().instrument(tracer_provider=spans.provider, config=config)
        for case in TURNS:
            with case_span(spans, case):
                run(case)
        OpenAIInstrumentor().uninstrument()
        write(name, spans.flat())

    # OpenLLMetry (Traceloop)
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor as Traceloop

    spans = SpanFile()
    Traceloop().instrument(tracer_provider=spans.provider)
    for case in TURNS:
        with case_span(spans, case):
            run(case)
    Traceloop().uninstrument()
    write("openai-client-openllmetry", spans.flat())


# ---------------------------------------------------------------------------------- smolagents


def smolagents() -> None:
    import logging

    from smolagents import Model, ToolCallingAgent, tool
    from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction
    from smolagents.monitoring import LogLevel

    logging.getLogger("smolagents").setLevel(logging.ERROR)

    @tool
    def get_customer(customer_id: str) -> dict:  # type: ignore[type-arg]
        """Look up a customer.

        Args:
            customer_id: the customer's id
        """
        return customer(customer_id)

    @tool
    def get_invoice(invoice_id: str) -> dict:  # type: ignore[type-arg]
        """Look up an invoice.

        Args:
            invoice_id: the invoice's id
        """
        return invoice(invoice_id)

    class Scripted(Model):  # type: ignore[misc]
        """The scenario's turns as a smolagents model; a text turn is the final_answer tool."""

        def __init__(self, case: str) -> None:
            super().__init__(model_id="scripted")
            self.case, self.done, self.n = case, 0, 0

        def generate(self, messages: Any, stop_sequences: Any = None, **kwargs: Any) -> Any:
            step = turn(self.case, self.done)
            self.done += 1
            calls = [("final_answer", {"answer": step})] if isinstance(step, str) else step
            tool_calls = []
            for name, args in calls:
                self.n += 1
                function = ChatMessageToolCallFunction(name=name, arguments=args)
                tool_calls.append(
                    ChatMessageToolCall(id=f"call_{self.n}", type="function", function=function)
                )
            return ChatMessage(role="assistant", content=None, tool_calls=tool_calls)

    def agent(case: str) -> Any:
        return ToolCallingAgent(
            tools=[get_customer, get_invoice],
            model=Scripted(case),
            max_steps=5,
            verbosity_level=LogLevel.OFF,
        )

    full: list[Any] = []
    results: list[Any] = []
    messages: list[Any] = []
    for case in TURNS:
        run = agent(case)
        result = run.run(PROMPTS[case], return_full_result=True)
        # the documented glue: one run a line, with its case id
        full.append({"case_id": case, "steps": run.memory.get_full_steps()})
        results.append({"case_id": case, **result.dict()})
        # the memory as chat messages: the calls only as "Calling tools:" text (not read)
        messages.append(
            {"case_id": case, "messages": [m.dict() for m in run.write_memory_to_messages()]}
        )
    write("smolagents-full-steps", full)
    write("smolagents-run-result", results)
    write("smolagents-memory-messages", messages)

    from openinference.instrumentation.smolagents import SmolagentsInstrumentor

    spans = SpanFile()
    SmolagentsInstrumentor().instrument(tracer_provider=spans.provider)
    for case in TURNS:
        with case_span(spans, case):
            agent(case).run(PROMPTS[case])
    SmolagentsInstrumentor().uninstrument()
    write("smolagents-openinference", spans.flat())


# ---------------------------------------------------------------------------- autogen-agentchat


def autogen() -> None:
    import logging

    from autogen_agentchat.agents import AssistantAgent
    from autogen_core import FunctionCall
    from autogen_core.models import CreateResult, RequestUsage
    from autogen_ext.models.replay import ReplayChatCompletionClient
    from opentelemetry import trace

    logging.getLogger("autogen_core").setLevel(logging.ERROR)
    logging.getLogger("autogen_ext").setLevel(logging.ERROR)

    async def get_customer(customer_id: str) -> dict[str, str]:
        """Look up a customer."""
        return customer(customer_id)

    async def get_invoice(invoice_id: str) -> dict[str, str]:
        """Look up an invoice."""
        return invoice(invoice_id)

    def client(case: str) -> Any:
        """The scenario's turns, replayed by AutoGen's own replay client."""
        responses: list[Any] = []
        n = 0
        for step in TURNS[case]:
            if isinstance(step, str):
                responses.append(step)
                continue
            calls = []
            for name, args in step:
                n += 1
                calls.append(FunctionCall(id=f"call_{n}", arguments=json.dumps(args), name=name))
            usage = RequestUsage(prompt_tokens=0, completion_tokens=0)
            responses.append(
                CreateResult(
                    finish_reason="function_calls", content=calls, usage=usage, cached=False
                )
            )
        info = {
            "vision": False,
            "function_calling": True,
            "json_output": False,
            "family": "unknown",
            "structured_output": False,
        }
        return ReplayChatCompletionClient(responses, model_info=info)

    async def runs(spans: SpanFile | None) -> tuple[list[Any], list[Any]]:
        results, states = [], []

        def agent(case: str) -> Any:
            return AssistantAgent(
                "assistant",
                model_client=client(case),
                tools=[get_customer, get_invoice],
                max_tool_iterations=5,
            )

        for case in TURNS:
            if spans is not None:
                with case_span(spans, case):  # the agent made inside: its span joins the run
                    await agent(case).run(task=PROMPTS[case])
                continue
            run = agent(case)
            result = await run.run(task=PROMPTS[case])
            # the documented glue: one run a line, with its case id
            results.append({"case_id": case, **result.model_dump(mode="json")})
            states.append({"case_id": case, **(await run.save_state())})
        return results, states

    results, states = asyncio.run(runs(None))
    write("autogen-task-result", results)
    write("autogen-save-state", states)

    # its own OpenTelemetry instrumentation (the global tracer provider)
    spans = SpanFile()
    trace.set_tracer_provider(spans.provider)
    asyncio.run(runs(spans))
    write("autogen-otel", spans.flat())


# -------------------------------------------------------------------------------- Google ADK


def adk() -> None:
    import logging

    from google.adk.agents import LlmAgent
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_response import LlmResponse
    from google.adk.runners import InMemoryRunner
    from google.genai import types
    from opentelemetry import trace

    logging.getLogger("google_adk").setLevel(logging.ERROR)

    def get_customer(customer_id: str) -> dict[str, str]:
        """Look up a customer."""
        try:
            return {"status": "success", **customer(customer_id)}
        except Exception as e:  # ADK's documented way for a tool to fail
            return {"status": "error", "error_message": str(e)}

    def get_invoice(invoice_id: str) -> dict[str, str]:
        """Look up an invoice."""
        return {"status": "success", **invoice(invoice_id)}

    class Scripted(BaseLlm):  # type: ignore[misc]
        """The scenario's turns as an ADK model."""

        case: str = ""
        done: int = 0

        async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
            step = turn(self.case, self.done)
            self.done += 1
            if isinstance(step, str):
                parts = [types.Part(text=step)]
            else:
                parts = [
                    types.Part(
                        function_call=types.FunctionCall(id=f"call_{self.done}_{i}", name=n, args=a)
                    )
                    for i, (n, a) in enumerate(step)
                ]
            yield LlmResponse(content=types.Content(role="model", parts=parts))

    async def run(case: str) -> Any:
        agent = LlmAgent(
            name="assistant",
            model=Scripted(model="scripted", case=case),
            tools=[get_customer, get_invoice],
            instruction="Answer with the tools.",
        )
        runner = InMemoryRunner(agent=agent, app_name="evalrun")
        # the documented glue: the case id in the session's state
        session = await runner.session_service.create_session(
            app_name="evalrun", user_id="u", state={"case_id": case}
        )
        message = types.Content(role="user", parts=[types.Part(text=PROMPTS[case])])
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            pass
        return await runner.session_service.get_session(
            app_name="evalrun", user_id="u", session_id=session.id
        )

    async def sessions() -> list[Any]:
        done = []
        for case in TURNS:
            with case_span(spans, case):
                done.append(await run(case))
        return done

    spans = SpanFile()
    trace.set_tracer_provider(spans.provider)  # once: ADK's tracer follows the global provider
    done = asyncio.run(sessions())
    default_spans = spans.flat()
    variants = {}
    for name, env in (
        # content on the spans, in the GenAI conventions' attributes
        ("adk-spans-content", {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_ONLY"}),
        # the legacy schema: gcp.vertex.agent.tool_call_args / tool_response
        ("adk-spans-legacy", {"ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN": "1"}),
    ):
        os.environ.update(env)
        spans.exporter.clear()
        asyncio.run(sessions())
        variants[name] = spans.flat()
        for key in env:
            del os.environ[key]
    write(
        "adk-session-json",
        [],
        pretty="".join(s.model_dump_json(exclude_none=True, by_alias=True) + "\n" for s in done),
    )
    write("adk-session-dump", [s.model_dump(mode="json") for s in done])
    write(
        "adk-events",
        [
            {"case_id": s.state["case_id"], "events": [e.model_dump(mode="json") for e in s.events]}
            for s in done
        ],
    )
    # one event a line, as an event stream's consumer writes it: not a run on its own
    write("adk-event-lines", [e.model_dump(mode="json") for s in done for e in s.events])
    write("adk-spans-nocontent", default_spans)
    for name, records in variants.items():
        write(name, records)
    adk_eval_history(done)


def adk_eval_history(done: Sequence[Any]) -> None:
    """The sessions as `adk eval` saves its results (`.adk/eval_history/*.evalset_result.json`):
    ADK's own classes, the invocations converted from each session's events as its evaluation
    generator converts them, and the file as `LocalEvalSetResultsManager` writes it
    (`model_dump_json(indent=2)`). Then the same with the older intermediate data
    (`tool_uses` / `tool_responses`, ADK before `invocation_events`)."""
    from google.adk.evaluation._eval_set_results_manager_utils import create_eval_set_result
    from google.adk.evaluation.eval_case import (
        IntermediateData,
        Invocation,
        get_all_tool_calls,
        get_all_tool_responses,
    )
    from google.adk.evaluation.eval_metrics import EvalMetricResultPerInvocation
    from google.adk.evaluation.eval_result import EvalCaseResult
    from google.adk.evaluation.evaluation_generator import EvaluationGenerator
    from google.adk.evaluation.evaluator import EvalStatus
    from google.genai import types

    cases = {c["id"]: c for c in json.loads((OUT / "cases.json").read_text())}

    def expected(case: str, actual: Any) -> Any:
        calls = [
            types.FunctionCall(name=c["tool"], args=c["args"]) for c in cases[case]["accept"][0]
        ]
        return Invocation(
            user_content=actual.user_content, intermediate_data=IntermediateData(tool_uses=calls)
        )

    def results(legacy: bool) -> list[Any]:
        found = []
        for s in done:
            case = s.state["case_id"]
            invocations = EvaluationGenerator.convert_events_to_eval_invocations(s.events)
            if legacy:
                invocations = [
                    i.model_copy(
                        update={
                            "intermediate_data": IntermediateData(
                                tool_uses=get_all_tool_calls(i.intermediate_data),
                                tool_responses=get_all_tool_responses(i.intermediate_data),
                            )
                        }
                    )
                    for i in invocations
                ]
            per = [
                EvalMetricResultPerInvocation(
                    actual_invocation=i, expected_invocation=expected(case, i)
                )
                for i in invocations
            ]
            found.append(
                EvalCaseResult(
                    eval_set_id="scenario",
                    eval_id=case,
                    final_eval_status=EvalStatus.NOT_EVALUATED,
                    overall_eval_metric_results=[],
                    eval_metric_result_per_invocation=per,
                    session_id=s.id,
                    user_id=s.user_id,
                )
            )
        return found

    for name, legacy in (("adk-eval-history", False), ("adk-eval-history-tool-uses", True)):
        result = create_eval_set_result("evalrun", "scenario", results(legacy))
        path = OUT / f"{name}.evalset_result.json"
        path.write_text(result.model_dump_json(indent=2))
        print(f"wrote {path.relative_to(OUT.parent.parent.parent)}", file=sys.stderr)


# --------------------------------------------------------------------------- Strands Agents


def strands() -> None:
    from opentelemetry import trace

    spans = SpanFile()
    trace.set_tracer_provider(spans.provider)  # before strands makes its tracer

    from strands import Agent, tool
    from strands.models.model import Model

    @tool
    def get_customer(customer_id: str) -> dict[str, str]:
        """Look up a customer.

        Args:
            customer_id: the customer's id
        """
        return customer(customer_id)

    @tool
    def get_invoice(invoice_id: str) -> dict[str, str]:
        """Look up an invoice.

        Args:
            invoice_id: the invoice's id
        """
        return invoice(invoice_id)

    class Scripted(Model):  # type: ignore[misc]
        """The scenario's turns as a Strands model, streamed as Bedrock Converse events."""

        def __init__(self, case: str) -> None:
            self.case, self.done = case, 0

        def update_config(self, **config: Any) -> None:
            pass

        def get_config(self) -> Any:
            return {"model_id": "scripted"}

        async def structured_output(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError
            yield

        async def stream(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
            step = turn(self.case, self.done)
            self.done += 1
            yield {"messageStart": {"role": "assistant"}}
            if isinstance(step, str):
                yield {"contentBlockStart": {"start": {}}}
                yield {"contentBlockDelta": {"delta": {"text": step}}}
                yield {"contentBlockStop": {}}
                yield {"messageStop": {"stopReason": "end_turn"}}
                return
            for i, (name, args) in enumerate(step):
                start = {"toolUse": {"toolUseId": f"call_{self.done}_{i}", "name": name}}
                yield {"contentBlockStart": {"start": start}}
                yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(args)}}}}
                yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}

    messages = []
    for case in TURNS:
        with case_span(spans, case):
            agent = Agent(
                model=Scripted(case), tools=[get_customer, get_invoice], callback_handler=None
            )
            agent(PROMPTS[case])
        # the documented glue: the agent's messages (Bedrock Converse) with the case id
        messages.append({"case_id": case, "messages": agent.messages})
    write("strands-messages", messages)
    write("strands-spans", spans.flat())


# -------------------------------------------------------------------------------------- DSPy


def dspy_react() -> None:
    import dspy
    from dspy.utils import DummyLM

    def get_customer(customer_id: str) -> dict[str, str]:
        """Look up a customer."""
        return customer(customer_id)

    def get_invoice(invoice_id: str) -> dict[str, str]:
        """Look up an invoice."""
        return invoice(invoice_id)

    trajectories, predictions = [], []
    for case in TURNS:
        # DSPy's own DummyLM answers each step of ReAct in turn (one tool a step: the parallel
        # turn becomes two steps), then ReAct's `finish` and the answer
        answers: list[dict[str, Any]] = []
        for step in TURNS[case]:
            if isinstance(step, str):
                answers.append(
                    {"next_thought": "done", "next_tool_name": "finish", "next_tool_args": {}}
                )
                answers.append({"reasoning": "done", "answer": step})
                continue
            for name, args in step:
                answers.append(
                    {"next_thought": f"call {name}", "next_tool_name": name, "next_tool_args": args}
                )
        dspy.configure(lm=DummyLM(answers))
        react = dspy.ReAct("question -> answer", tools=[get_customer, get_invoice], max_iters=6)
        prediction = react(question=PROMPTS[case])
        # the documented glue: the trajectory (or the whole prediction) with the case id
        trajectories.append({"case_id": case, "trajectory": prediction.trajectory})
        predictions.append({"case_id": case, **prediction.toDict()})
    write("dspy-trajectory", trajectories)
    write("dspy-prediction", predictions)


# --------------------------------------------------------------------------------- LlamaIndex


def llamaindex() -> None:
    from llama_index.core.agent.workflow import FunctionAgent, ToolCallResult
    from llama_index.core.base.llms.types import ChatMessage, TextBlock, ToolCallBlock
    from llama_index.core.llms.mock import MockFunctionCallingLLM
    from llama_index.core.tools import FunctionTool

    def get_customer(customer_id: str) -> dict[str, str]:
        """Look up a customer."""
        return customer(customer_id)

    def get_invoice(invoice_id: str) -> dict[str, str]:
        """Look up an invoice."""
        return invoice(invoice_id)

    tools = [FunctionTool.from_defaults(get_customer), FunctionTool.from_defaults(get_invoice)]

    async def run(case: str) -> tuple[list[Any], list[Any]]:
        state = {"done": 0}

        def respond(messages: Any, **kwargs: Any) -> Any:
            """LlamaIndex's own mock function-calling LLM, answering the scenario's turns."""
            step = turn(case, state["done"])
            state["done"] += 1
            if isinstance(step, str):
                return ChatMessage(role="assistant", blocks=[TextBlock(text=step)])
            blocks = [
                ToolCallBlock(tool_call_id=f"call_{state['done']}_{i}", tool_name=n, tool_kwargs=a)
                for i, (n, a) in enumerate(step)
            ]
            return ChatMessage(role="assistant", blocks=blocks)

        llm = MockFunctionCallingLLM(response_generator=respond, is_chat_model=True)
        handler = FunctionAgent(tools=tools, llm=llm).run(user_msg=PROMPTS[case])
        events = [
            ev.model_dump(mode="json")
            async for ev in handler.stream_events()
            if isinstance(ev, ToolCallResult)
        ]
        await handler
        memory = await handler.ctx.store.get("memory")
        return events, [m.model_dump(mode="json") for m in await memory.aget_all()]

    histories, results = [], []
    for case in TURNS:
        events, messages = asyncio.run(run(case))
        # the documented glue: one run a line, with its case id
        histories.append({"case_id": case, "messages": messages})
        results.append({"case_id": case, "events": events})
    write("llamaindex-chat-history", histories)
    write("llamaindex-tool-results", results)


# ----------------------------------------------------------------------------------- Haystack


def _haystack_agents() -> Any:
    """Per case of the scenario, (case, a Haystack Agent over its scripted turns): the tools
    call this module's `customer` and `invoice`, the chat generator replays `TURNS`."""
    from haystack import component
    from haystack.components.agents import Agent
    from haystack.dataclasses import ChatMessage, ToolCall
    from haystack.tools import Tool

    def schema(key: str) -> dict[str, Any]:
        return {"type": "object", "properties": {key: {"type": "string"}}, "required": [key]}

    tools = [
        Tool(
            name="get_customer",
            description="Look up a customer.",
            parameters=schema("customer_id"),
            function=customer,
        ),
        Tool(
            name="get_invoice",
            description="Look up an invoice.",
            parameters=schema("invoice_id"),
            function=invoice,
        ),
    ]

    @component
    class Scripted:
        """The scenario's turns as a Haystack chat generator."""

        def __init__(self, case: str) -> None:
            self.case, self.done = case, 0

        @component.output_types(replies=list[ChatMessage])
        def run(self, messages: Any, tools: Any = None, **kwargs: Any) -> Any:
            step = turn(self.case, self.done)
            self.done += 1
            if isinstance(step, str):
                return {"replies": [ChatMessage.from_assistant(step)]}
            calls = [
                ToolCall(tool_name=n, arguments=a, id=f"call_{self.done}_{i}")
                for i, (n, a) in enumerate(step)
            ]
            return {"replies": [ChatMessage.from_assistant(tool_calls=calls)]}

    for case in TURNS:
        agent = Agent(
            chat_generator=Scripted(case), tools=tools, raise_on_tool_invocation_failure=False
        )
        agent.warm_up()
        yield case, agent


def haystack() -> None:
    from haystack.dataclasses import ChatMessage

    records = []
    for case, agent in _haystack_agents():
        result = agent.run(messages=[ChatMessage.from_user(PROMPTS[case])])
        # the documented glue: the messages' to_dict() with the case id
        records.append({"case_id": case, "messages": [m.to_dict() for m in result["messages"]]})
    write("haystack-messages", records)


def haystack_spans() -> None:
    """Haystack's OpenTelemetry spans with content tracing on (`HAYSTACK_CONTENT_TRACING_ENABLED=
    true`, set here before Haystack reads it): the same Agent and scripted chat generator as
    `haystack()`, its tracer Haystack's `OpenTelemetryTracer` (2.x; 3.x's `opentelemetry-haystack`
    when installed) over an in-memory exporter, the case id on a span around the run."""
    os.environ["HAYSTACK_CONTENT_TRACING_ENABLED"] = "true"
    import haystack
    from haystack import tracing
    from haystack.dataclasses import ChatMessage

    try:
        from haystack_integrations.tracing.opentelemetry import OpenTelemetryTracer
    except ImportError:
        from haystack.tracing.opentelemetry import OpenTelemetryTracer  # Haystack 2

    spans = SpanFile()
    tracing.tracer.is_content_tracing_enabled = True
    tracing.enable_tracing(OpenTelemetryTracer(spans.tracer("haystack")))
    for case, agent in _haystack_agents():
        with case_span(spans, case):
            agent.run(messages=[ChatMessage.from_user(PROMPTS[case])])
    tracing.disable_tracing()
    major = haystack.__version__.split(".")[0]
    write(f"haystack-spans-v{major}", spans.flat())


# --------------------------------------------------------------------------- Semantic Kernel


def semantic_kernel(*, spans: SpanFile | None = None) -> None:
    """Its ChatHistory; or, given `spans`, its OpenTelemetry spans instead (see
    `semantic_kernel_spans`)."""
    import logging

    from semantic_kernel import Kernel
    from semantic_kernel.connectors.ai.chat_completion_client_base import (
        ChatCompletionClientBase,
    )
    from semantic_kernel.connectors.ai.function_choice_behavior import FunctionChoiceBehavior
    from semantic_kernel.connectors.ai.prompt_execution_settings import PromptExecutionSettings
    from semantic_kernel.contents import (
        AuthorRole,
        ChatHistory,
        ChatMessageContent,
        FunctionCallContent,
    )
    from semantic_kernel.functions import kernel_function

    logging.getLogger("semantic_kernel").setLevel(logging.CRITICAL)

    class Billing:
        @kernel_function(description="Look up a customer.")
        def get_customer(self, customer_id: str) -> dict[str, str]:
            return customer(customer_id)

        @kernel_function(description="Look up an invoice.")
        def get_invoice(self, invoice_id: str) -> dict[str, str]:
            return invoice(invoice_id)

    class Scripted(ChatCompletionClientBase):  # type: ignore[misc]
        """The scenario's turns as a chat service; the kernel's auto function calling runs the
        plugin's functions, under their plugin-qualified names."""

        case: str = ""
        done: int = 0
        SUPPORTS_FUNCTION_CALLING: bool = True

        def service_url(self) -> None:
            return None

        async def _inner_get_chat_message_contents(self, chat_history: Any, settings: Any) -> Any:
            step = turn(self.case, self.done)
            self.done += 1
            if isinstance(step, str):
                return [ChatMessageContent(role=AuthorRole.ASSISTANT, content=step)]
            items = [
                FunctionCallContent(
                    id=f"call_{self.done}_{i}", name=f"Billing-{n}", arguments=json.dumps(a)
                )
                for i, (n, a) in enumerate(step)
            ]
            return [ChatMessageContent(role=AuthorRole.ASSISTANT, items=items)]

        def _update_function_choice_settings_callback(self) -> Any:
            return lambda config, settings, kind: None

        def _reset_function_choice_settings(self, settings: Any) -> None:
            pass

        def get_prompt_execution_settings_class(self) -> Any:
            return PromptExecutionSettings

    async def run(case: str) -> Any:
        kernel = Kernel()
        kernel.add_plugin(Billing(), "Billing")
        service = Scripted(ai_model_id="scripted", service_id="scripted", case=case)
        kernel.add_service(service)
        history = ChatHistory()
        history.add_user_message(PROMPTS[case])
        settings = PromptExecutionSettings(
            service_id="scripted", function_choice_behavior=FunctionChoiceBehavior.Auto()
        )
        result = await service.get_chat_message_contents(
            chat_history=history, settings=settings, kernel=kernel
        )
        history.add_message(result[0])
        return json.loads(history.serialize())

    if spans is not None:
        for case in TURNS:
            with case_span(spans, case):
                asyncio.run(run(case))
        write("semantic-kernel-spans", spans.flat())
        return
    # the documented glue: the history's serialize() with the case id
    write("semantic-kernel-chat-history", [{"case_id": c, **asyncio.run(run(c))} for c in TURNS])


def semantic_kernel_spans() -> None:
    """Semantic Kernel's own OpenTelemetry spans (`execute_tool`, the GenAI conventions), with
    sensitive data on (`SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS_SENSITIVE=
    true`, set before Semantic Kernel reads it), through the global tracer provider it traces
    to; the case id on a span around the run."""
    from opentelemetry import trace

    os.environ["SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS_SENSITIVE"] = "true"
    spans = SpanFile()
    trace.set_tracer_provider(spans.provider)
    semantic_kernel(spans=spans)


# ---------------------------------------------------------------------------- Vercel AI SDK


def vercel_ai() -> None:
    """The Vercel AI SDK is an npm package, which this machine cannot install: its outputs are
    written from its documented shapes (AI SDK 5: `ModelMessage` parts in `response.messages`,
    `StepResult.content` in `result.steps`, the tool's errors as an `error-text` output and a
    `tool-error` part), through the same scenario."""
    messages_lines, steps_lines = [], []
    for case in TURNS:
        n, messages, steps = 0, [], []
        for step in TURNS[case]:
            if isinstance(step, str):
                messages.append({"role": "assistant", "content": [{"type": "text", "text": step}]})
                steps.append({"content": [{"type": "text", "text": step}], "finishReason": "stop"})
                continue
            calls, results, content = [], [], []
            for name, args in step:
                n += 1
                base = {"toolCallId": f"call_{n}", "toolName": name}
                call = {"type": "tool-call", **base, "input": args}
                calls.append(call)
                content.append(call)
                fn = customer if name == "get_customer" else invoice
                try:
                    value = fn(*args.values())
                except Exception as e:
                    output = {"type": "error-text", "value": str(e)}
                    results.append({"type": "tool-result", **base, "output": output})
                    content.append({"type": "tool-error", **base, "input": args, "error": str(e)})
                    continue
                results.append(
                    {"type": "tool-result", **base, "output": {"type": "json", "value": value}}
                )
                content.append({"type": "tool-result", **base, "input": args, "output": value})
            messages.append({"role": "assistant", "content": calls})
            messages.append({"role": "tool", "content": results})
            steps.append({"content": content, "finishReason": "tool-calls"})
        messages_lines.append({"case_id": case, "messages": messages})
        # the case id where experimental_telemetry's metadata put it
        telemetry = {"metadata": {"case_id": case}}
        steps_lines.append({"experimental_telemetry": telemetry, "steps": steps})
    write("vercel-ai-response-messages", messages_lines)
    write("vercel-ai-steps", steps_lines)


def vercel_ai_spans() -> None:
    """The Vercel AI SDK's telemetry spans (`experimental_telemetry: {isEnabled: true, metadata:
    {case_id}}`), written from its documented attributes (AI SDK 5's telemetry page; the SDK is
    npm-only here) as the OpenTelemetry collector's file exporter writes OTLP/JSON, one batch a
    trace: `ai.generateText` around the run, an `ai.generateText.doGenerate` span a step (the
    calls it asked for in `ai.response.toolCalls`), an `ai.toolCall` span a tool the SDK ran
    (`ai.toolCall.args`/`result` JSON text; a tool that threw: status ERROR, an exception event).
    Ids and times are derived from the case, so the file is the same on every run."""

    def attrs(values: dict[str, Any]) -> list[dict[str, Any]]:
        out = []
        for key, value in values.items():
            if isinstance(value, int):
                any_value: dict[str, Any] = {"intValue": str(value)}
            elif isinstance(value, list):
                any_value = {"arrayValue": {"values": [{"stringValue": v} for v in value]}}
            else:
                any_value = {"stringValue": value}
            out.append({"key": key, "value": any_value})
        return out

    def span(
        c: int,
        spans: list[Any],
        name: str,
        start: int,
        end: int,
        values: dict[str, Any],
        **extra: Any,
    ) -> dict[str, Any]:
        return {
            "traceId": f"{c:08x}" * 4,
            "spanId": f"{c:04x}{len(spans) + 1:012x}",
            "parentSpanId": f"{c:04x}{0:012x}",
            "name": name,
            "kind": 1,
            "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(end),
            "attributes": attrs(values),
            "status": {},
            **extra,
        }

    lines = []
    for c, case in enumerate(TURNS, start=1):
        trace_id = f"{c:08x}" * 4
        root_id = f"{c:04x}{0:012x}"
        base = {"ai.model.id": "gpt-4.1", "ai.model.provider": "openai.responses"}
        meta = {"ai.telemetry.metadata.case_id": case, "ai.settings.maxRetries": 2}
        t0 = 1_767_225_600_000_000_000 + c * 10_000_000_000
        spans: list[dict[str, Any]] = []
        clock, n, step_no, text = t0, 0, 0, ""

        for step in TURNS[case]:
            step_no += 1
            start, clock = clock + 1_000_000, clock + 100_000_000
            generate = {
                "operation.name": "ai.generateText.doGenerate",
                "ai.operationId": "ai.generateText.doGenerate",
                **base,
                **meta,
                "gen_ai.system": "openai.responses",
                "gen_ai.request.model": "gpt-4.1",
            }
            if isinstance(step, str):
                text = step
                generate |= {
                    "ai.response.finishReason": "stop",
                    "ai.response.text": step,
                    "gen_ai.response.finish_reasons": ["stop"],
                }
                spans.append(span(c, spans, "ai.generateText.doGenerate", start, clock, generate))
                continue
            calls = []
            for name, args in step:
                n += 1
                calls.append((f"call_{n}", name, args))
            requested = [
                {"toolCallId": i, "toolName": t, "input": json.dumps(a)} for i, t, a in calls
            ]
            generate |= {
                "ai.response.finishReason": "tool-calls",
                "ai.response.toolCalls": json.dumps(requested),
                "gen_ai.response.finish_reasons": ["tool-calls"],
            }
            spans.append(span(c, spans, "ai.generateText.doGenerate", start, clock, generate))
            for call_id, name, args in calls:  # the SDK runs a step's tools concurrently
                begin, end = clock + 1_000_000, clock + 5_000_000
                tool = {
                    "operation.name": "ai.toolCall",
                    "ai.operationId": "ai.toolCall",
                    "ai.toolCall.name": name,
                    "ai.toolCall.id": call_id,
                    "ai.toolCall.args": json.dumps(args),
                }
                fn = customer if name == "get_customer" else invoice
                try:
                    value = fn(*args.values())
                except Exception as e:
                    event = {
                        "timeUnixNano": str(end),
                        "name": "exception",
                        "attributes": attrs(
                            {"exception.type": type(e).__name__, "exception.message": str(e)}
                        ),
                    }
                    failed = {"code": 2, "message": str(e)}
                    spans.append(
                        span(c, spans, "ai.toolCall", begin, end, tool, events=[event])
                        | {"status": failed}
                    )
                    continue
                tool["ai.toolCall.result"] = json.dumps(value)
                spans.append(span(c, spans, "ai.toolCall", begin, end, tool))
            clock += 10_000_000
        root = {
            "traceId": trace_id,
            "spanId": root_id,
            "parentSpanId": "",
            "name": "ai.generateText",
            "kind": 1,
            "startTimeUnixNano": str(t0),
            "endTimeUnixNano": str(clock + 1_000_000),
            "attributes": attrs(
                {
                    "operation.name": "ai.generateText",
                    "ai.operationId": "ai.generateText",
                    **base,
                    **meta,
                    "ai.prompt": json.dumps({"prompt": PROMPTS[case]}),
                    "ai.response.finishReason": "stop",
                    "ai.response.text": text,
                }
            ),
            "status": {},
        }
        resource = {"attributes": attrs({"service.name": "billing-agent"})}
        scope = {"name": "ai", "version": ""}
        batch = [{"resource": resource, "scopeSpans": [{"scope": scope, "spans": [*spans, root]}]}]
        lines.append({"resourceSpans": batch})
    write("vercel-ai-spans", lines)


# ------------------------------------------------------------------------------------ CrewAI


def crewai() -> None:
    """CrewAI: one agent, one task a case, driven by a scripted LLM (a `BaseLLM`) with native
    function calling, and again in its text (ReAct) mode; written as the task's messages
    (`task.output.messages`) and as the tool events an event listener collects
    (`event.to_json()` of ToolUsageStartedEvent / FinishedEvent / ErrorEvent)."""
    os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")
    os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
    os.environ.setdefault("OTEL_SDK_DISABLED", "true")
    from crewai import Agent, Crew, Task
    from crewai.events import (
        BaseEventListener,
        ToolUsageErrorEvent,
        ToolUsageFinishedEvent,
        ToolUsageStartedEvent,
    )
    from crewai.llms.base_llm import BaseLLM
    from crewai.tools import tool
    from pydantic import Field

    @tool("get_customer")
    def get_customer(customer_id: str) -> dict[str, str]:
        """Look up a customer."""
        return customer(customer_id)

    @tool("get_invoice")
    def get_invoice(invoice_id: str) -> dict[str, str]:
        """Look up an invoice."""
        return invoice(invoice_id)

    class Scripted(BaseLLM):  # type: ignore[misc]
        """The scenario's turns as a CrewAI LLM: tool calls as OpenAI-style calls (native function
        calling), or, with `native=False`, as the ReAct text CrewAI parses (one tool a turn: the
        parallel turn becomes two)."""

        steps: list[Any] = Field(default_factory=list)
        done: int = 0
        native: bool = True

        def call(self, messages: Any, tools: Any = None, *args: Any, **kwargs: Any) -> Any:
            step = self.steps[self.done]
            self.done += 1
            if isinstance(step, str):
                return step if self.native else f"Thought: I know it.\nFinal Answer: {step}"
            if self.native:
                return [
                    {
                        "id": f"call_{self.done}_{i}",
                        "type": "function",
                        "function": {"name": n, "arguments": json.dumps(a)},
                    }
                    for i, (n, a) in enumerate(step)
                ]
            [(name, args)] = step
            return f"Thought: look it up.\nAction: {name}\nAction Input: {json.dumps(args)}"

        def supports_function_calling(self) -> bool:
            return self.native

        def supports_stop_words(self) -> bool:
            return False

        def get_context_window_size(self) -> int:
            return 100_000

    def steps(case: str, native: bool) -> list[Any]:
        out: list[Any] = []
        for step in TURNS[case]:
            if isinstance(step, str) or native:
                out.append(step)
            else:
                out.extend([call] for call in step)
        return out

    events: list[Any] = []

    class Collect(BaseEventListener):  # type: ignore[misc]
        """The documented way to see a crew's tool events: a listener on the event bus."""

        def setup_listeners(self, bus: Any) -> None:
            for kind in (ToolUsageStartedEvent, ToolUsageFinishedEvent, ToolUsageErrorEvent):
                bus.on(kind)(lambda source, event: events.append(event.to_json()))

    Collect()
    for native, form in ((True, ""), (False, "-react")):
        messages, tool_events = [], []
        for case in TURNS:
            events.clear()
            llm = Scripted(model="scripted", steps=steps(case, native), native=native)
            agent = Agent(
                role="billing clerk",
                goal="Answer billing questions.",
                backstory="You look things up.",
                llm=llm,
                tools=[get_customer, get_invoice],
                verbose=False,
            )
            task = Task(description=PROMPTS[case], expected_output="The answer.", agent=agent)
            Crew(agents=[agent], tasks=[task], verbose=False).kickoff()
            assert task.output is not None
            # the documented glue: the task's messages, or the tool events, with the case id
            messages.append({"case_id": case, "messages": task.output.messages})
            tool_events.append({"case_id": case, "events": list(events)})
        write(f"crewai-task-messages{form}", messages)
        write(f"crewai-tool-events{form}", tool_events)


# -------------------------------------------------------------------------------------- Agno


def agno() -> None:
    """Agno: an Agent with a scripted model (a `Model` whose `invoke` answers the scenario's
    turns; Agno runs the tools, catching what they raise), the case id in the run's metadata
    (`agent.run(..., metadata={"case_id": ...})`); written as `RunOutput.to_dict()` a line, and
    the run's `messages` beside the case id, and the tables of a `JsonDb` store."""
    import logging
    import shutil
    import tempfile
    from dataclasses import dataclass

    from agno.agent import Agent
    from agno.db.json import JsonDb
    from agno.models.base import Model
    from agno.models.response import ModelResponse

    logging.getLogger("agno").setLevel(logging.CRITICAL)

    def get_customer(customer_id: str) -> dict[str, str]:
        """Look up a customer."""
        return customer(customer_id)

    def get_invoice(invoice_id: str) -> dict[str, str]:
        """Look up an invoice."""
        return invoice(invoice_id)

    @dataclass
    class Scripted(Model):  # type: ignore[misc]
        """The scenario's turns as an Agno model."""

        id: str = "scripted"
        name: str = "Scripted"
        provider: str = "evalrun"
        case: str = ""
        done: int = 0

        def invoke(self, *args: Any, **kwargs: Any) -> Any:
            step = turn(self.case, self.done)
            self.done += 1
            if isinstance(step, str):
                return ModelResponse(role="assistant", content=step)
            calls = [
                {
                    "id": f"call_{self.done}_{i}",
                    "type": "function",
                    "function": {"name": n, "arguments": json.dumps(a)},
                }
                for i, (n, a) in enumerate(step)
            ]
            return ModelResponse(role="assistant", tool_calls=calls)

        async def ainvoke(self, *args: Any, **kwargs: Any) -> Any:
            return self.invoke()

        def invoke_stream(self, *args: Any, **kwargs: Any) -> Any:
            yield self.invoke()

        async def ainvoke_stream(self, *args: Any, **kwargs: Any) -> Any:
            yield self.invoke()

        def _parse_provider_response(self, response: Any, **kwargs: Any) -> Any:
            return response

        def _parse_provider_response_delta(self, response: Any) -> Any:
            return response

    store = Path(tempfile.mkdtemp(prefix="evalrun-agno-"))
    db = JsonDb(db_path=str(store))
    outputs, messages = [], []
    for case in TURNS:
        agent = Agent(
            model=Scripted(case=case), tools=[get_customer, get_invoice], db=db, telemetry=False
        )
        # the documented glue: the case id in the run's metadata
        run = agent.run(PROMPTS[case], metadata={"case_id": case})
        outputs.append(run.to_dict())
        messages.append({"case_id": case, "messages": [m.to_dict() for m in run.messages or []]})
    write("agno-run-output", outputs)
    write("agno-run-messages", messages)
    # the store's tables as it writes them: the runs (one row a run) and the sessions
    out = OUT / "agno-jsondb"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    for table in ("agno_runs.json", "agno_sessions.json"):
        shutil.copyfile(store / table, out / table)
    print(f"wrote {out.relative_to(OUT.parent.parent.parent)}/", file=sys.stderr)
    shutil.rmtree(store)


# ---------------------------------------------------------------------------------- Langfuse


def langfuse_tracing() -> None:
    """Langfuse's OpenTelemetry spans: the client given an in-memory `span_exporter` (what its
    OTLP exporter would send; nothing leaves the machine), the tools `@observe(as_type="tool")`,
    each model turn a `generation` observation whose output is the assistant message, the case
    id trace metadata (`propagate_attributes(metadata=...)`); written as `to_json()` a line."""
    from langfuse import Langfuse, observe, propagate_attributes
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    client = Langfuse(
        public_key="pk-lf-fixtures",
        secret_key="sk-lf-fixtures",
        base_url="http://127.0.0.1:9",  # never reached: the spans go to the exporter given
        span_exporter=exporter,
    )

    @observe(as_type="tool")
    def get_customer(customer_id: str) -> dict[str, str]:
        return customer(customer_id)

    @observe(as_type="tool")
    def get_invoice(invoice_id: str) -> dict[str, str]:
        return invoice(invoice_id)

    tools: dict[str, Callable[..., Any]] = {
        "get_customer": get_customer,
        "get_invoice": get_invoice,
    }

    @observe(as_type="agent")
    def agent(case: str) -> str:
        # the documented glue: the case id as trace metadata, on every span of the run
        with propagate_attributes(metadata={"case_id": case}):
            messages: list[dict[str, Any]] = [{"role": "user", "content": PROMPTS[case]}]
            done = 0
            while True:
                step = turn(case, done)
                with client.start_as_current_observation(
                    as_type="generation", name="chat", model="scripted", input=list(messages)
                ) as generation:
                    if isinstance(step, str):
                        generation.update(output={"role": "assistant", "content": step})
                        return step
                    calls = [
                        {
                            "id": f"call_{done}_{i}",
                            "type": "function",
                            "function": {"name": n, "arguments": json.dumps(a)},
                        }
                        for i, (n, a) in enumerate(step)
                    ]
                    message = {"role": "assistant", "content": None, "tool_calls": calls}
                    generation.update(output=message)
                messages.append(message)
                done += 1
                for call, (name, args) in zip(calls, step):
                    try:
                        reply = json.dumps(tools[name](**args))
                    except NotFound as e:
                        reply = f"Error: {e}"
                    except RuntimeError:
                        return TURNS[case][-1]  # type: ignore[return-value]  # it gives up
                    messages.append({"role": "tool", "tool_call_id": call["id"], "content": reply})

    for case in TURNS:
        agent(case)
    client.flush()
    spans = exporter.get_finished_spans()
    write("langfuse-spans", [json.loads(s.to_json(indent=None)) for s in spans])
    client.shutdown()


# ------------------------------------------------------------------------------------ MLflow


def mlflow_tracing() -> None:
    """MLflow Tracing: the tools traced as TOOL spans (`@mlflow.trace`), the case id a trace tag
    (`mlflow.update_current_trace(tags=...)`), stored in a local file store; written as each
    trace's `to_json()` a line, what `mlflow traces get` prints for each, one after another, and
    the file store's own `traces.json` files (with the tags beside them, as the store keeps
    them)."""
    import shutil
    import subprocess
    import tempfile

    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"  # the file store, kept for this
    os.environ["MLFLOW_ENABLE_ASYNC_TRACE_LOGGING"] = "false"  # each trace stored when it ends
    import mlflow
    from mlflow.entities import SpanType

    store = Path(tempfile.mkdtemp(prefix="evalrun-mlflow-"))
    mlflow.set_tracking_uri(store.as_uri())
    mlflow.set_experiment("evalrun-fixtures")

    @mlflow.trace(span_type=SpanType.TOOL)
    def get_customer(customer_id: str) -> dict[str, str]:
        return customer(customer_id)

    @mlflow.trace(span_type=SpanType.TOOL)
    def get_invoice(invoice_id: str) -> dict[str, str]:
        return invoice(invoice_id)

    tools: dict[str, Callable[..., Any]] = {
        "get_customer": get_customer,
        "get_invoice": get_invoice,
    }

    @mlflow.trace(span_type=SpanType.AGENT)
    def agent(case: str, prompt: str) -> str:
        # the documented glue: the case id as a tag of the trace
        mlflow.update_current_trace(tags={"case_id": case})
        done = 0
        while True:
            step = turn(case, done)
            done += 1
            if isinstance(step, str):
                return step
            for name, args in step:
                try:
                    tools[name](**args)
                except NotFound:
                    continue  # the scripted model retries on the next turn
                except RuntimeError:
                    return TURNS[case][-1]  # type: ignore[return-value]  # it gives up

    traces = []
    for case in TURNS:
        agent(case, PROMPTS[case])
        traces.append(mlflow.get_trace(mlflow.get_last_active_trace_id()))
    write("mlflow-trace-json", [json.loads(t.to_json()) for t in traces])
    # what `mlflow traces get --trace-id ID` prints for each (indented JSON), one after another
    env = {**os.environ, "MLFLOW_TRACKING_URI": store.as_uri()}
    printed = [
        subprocess.run(
            [sys.executable, "-m", "mlflow", "traces", "get", "--trace-id", t.info.trace_id],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for t in traces
    ]
    write("mlflow-traces-get", [], pretty="".join(printed))
    # the file store's traces.json of each trace, with its tags beside it (where the case id is)
    out = OUT / "mlflow-file-store"
    shutil.rmtree(out, ignore_errors=True)
    for t in traces:
        found = next(store.glob(f"*/traces/{t.info.trace_id}"))
        for part in ("artifacts/traces.json", "tags/case_id"):
            (out / t.info.trace_id / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(found / part, out / t.info.trace_id / part)
    print(f"wrote {out.relative_to(OUT.parent.parent.parent)}/", file=sys.stderr)
    shutil.rmtree(store)


# ------------------------------------------------------------------------------------- main

FRAMEWORKS: dict[str, Callable[[], None]] = {
    "pydantic-ai": pydantic_ai,
    "pydantic-ai-rejected": pydantic_ai_rejected,
    "openai-agents": openai_agents,
    "langgraph": langgraph,
    "openai-client": openai_client,
    "smolagents": smolagents,
    "autogen": autogen,
    "adk": adk,
    "strands": strands,
    "dspy": dspy_react,
    "llamaindex": llamaindex,
    "haystack": haystack,
    "haystack-spans": haystack_spans,
    "semantic-kernel": semantic_kernel,
    "semantic-kernel-spans": semantic_kernel_spans,
    "vercel-ai": vercel_ai,
    "vercel-ai-spans": vercel_ai_spans,
    "crewai": crewai,
    "agno": agno,
    "langfuse": langfuse_tracing,
    "mlflow": mlflow_tracing,
}


OWN_VENV = ("mlflow", "langfuse", "crewai", "agno")
"""Frameworks driven each in a venv of its own (`make fixtures`: the extra `frameworks-NAME`):
installed here beside nothing else, their pins not checked against the `frameworks` extra's.
Without names, this script runs the others (the `frameworks` extra's)."""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("frameworks", nargs="*", choices=[*FRAMEWORKS, []], default=[])
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    for name in args.frameworks or [n for n in FRAMEWORKS if n not in OWN_VENV]:
        FRAMEWORKS[name]()
    asyncio.set_event_loop(None)


if __name__ == "__main__":
    main()
