"""evalrun's verdict inside a test: `assert_calls` fails a test only when the run truly fails.

    from evalrunner.testing import assert_calls

    def test_refund(agent):
        calls = agent.run("refund the duplicate charge on Dana's March invoice")
        assert_calls(calls, "refund-dana-march", tools="tools/", cases="cases/")

`calls` is what the agent called, in any trace format's call shape (OpenAI's `tool_calls`,
Anthropic's `tool_use` blocks, Gemini's `functionCall`, Bedrock's `toolUse`, LangChain's
`{name, args}`, evalrun's own `{tool, args}`), or a whole trace record in any format evalrun
reads (an OpenAI messages list, say). The `AssertionError` says what the run's explanation
says: which sequence, which parameter, raw and normalized, which rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .grade.grader import Grader, RunResult
from .grade.norms import Normalizer, load_registry
from .jsonvalue import MISSING, dumps
from .model import Case, InputError, Tool, TraceError
from .read.cases import load_cases, parse_case
from .read.tools import load_tools, parse_tool
from .traces.reader import read_lines
from .write.explain import explain
from .write.results import run_to_json

ToolsArg = str | Path | Mapping[str, Tool] | Iterable[Mapping[str, Any]]
CaseArg = str | Case | Mapping[str, Any]
SOURCE = "assert_calls:1"


def native_call(call: Any) -> Any:
    """One call in any trace format's call shape, as evalrun's own `{tool, args}` (its other keys,
    an error flag or a result, kept); a value in no known shape is returned as it is, and the
    reader says why it cannot be graded."""
    if isinstance(call, tuple) and hasattr(call, "_asdict"):  # evalrun's own Call
        call = {k: v for k, v in call._asdict().items() if v is not MISSING}
        call["error"] = call.pop("errored", False) or None
        call.pop("malformed", None)
    if not isinstance(call, Mapping):
        return call
    c = dict(call)
    for key in ("function", "functionCall", "function_call", "toolUse"):
        inner = c.get(key)
        if isinstance(inner, Mapping) and "name" in inner:  # OpenAI Chat, Gemini, Bedrock
            rest = {k: v for k, v in c.items() if k != key}
            args = inner.get("arguments", inner.get("args", inner.get("input", {})))
            return {**rest, "tool": inner["name"], "args": args}
    if "tool" in c:
        return c
    if "name" in c:  # Anthropic tool_use, Responses function_call, LangChain, MLflow
        for key in ("args", "arguments", "input", "kwargs", "input_parameters", "inputParameters"):
            if key in c:
                args = c.pop(key)
                break
        else:
            args = {}
        name = c.pop("name")
        return {**c, "tool": name, "args": args}
    return c


def _record(calls: Any, case_id: str, world: Any) -> dict[str, Any]:
    if isinstance(calls, Mapping) and "calls" not in calls:
        record = dict(calls)  # a whole trace record, in whichever format it is in
    elif isinstance(calls, Mapping):
        record = {**calls, "calls": [native_call(c) for c in calls["calls"]]}
    else:
        items = list(calls)
        if items and all(isinstance(m, Mapping) and "role" in m for m in items):
            record = {"messages": items}  # a chat transcript
        else:
            record = {"calls": [native_call(c) for c in items]}
    record["case_id"] = case_id
    record.setdefault("run_id", "assert_calls")
    if world is not MISSING:
        record["world"] = world
    return record


def _tools(tools: ToolsArg) -> dict[str, Tool]:
    if isinstance(tools, (str, Path)):
        return load_tools(tools)
    if isinstance(tools, Mapping):
        return dict(tools)
    found = [parse_tool(t, f"tools[{i}]") for i, t in enumerate(tools)]
    return {t.name: t for t in found}


def _case(case: CaseArg, cases: str | Path | Mapping[str, Case] | None) -> Case:
    if isinstance(case, Case):
        return case
    if isinstance(case, Mapping):
        return parse_case(dict(case), "the case given to assert_calls")
    if cases is None:
        raise InputError(f"case {case!r} is named by id: give cases= (a folder, file or mapping)")
    known = load_cases(cases) if isinstance(cases, (str, Path)) else cases
    if case not in known:
        raise InputError(
            f"unknown case {case!r} (not in {cases if isinstance(cases, (str, Path)) else 'cases'})"
        )
    return known[case]


def grade_calls(
    calls: Any,
    case: CaseArg,
    *,
    tools: ToolsArg,
    cases: str | Path | Mapping[str, Case] | None = None,
    world: Any = MISSING,
    registry: Mapping[str, Normalizer] | None = None,
) -> RunResult:
    """The run's verdicts, without asserting; InputError for a call or record evalrun cannot
    read (the reason said), an unknown case, or unusable tools."""
    the_case = _case(case, cases)
    grader = Grader(
        _tools(tools),
        {the_case.id: the_case},
        # the built-ins and the installed plugins; local plugin modules only when asked for
        registry=dict(registry) if registry is not None else load_registry(()),
    )
    record = _record(calls, the_case.id, world)
    runs = read_lines([(SOURCE, dumps(record))])
    if len(runs) != 1 or isinstance(runs[0], TraceError):
        why = "; ".join(r.error for r in runs if isinstance(r, TraceError)) or "no run in it"
        raise InputError(f"assert_calls cannot read these calls: {why}")
    result = grader.grade(runs[0])
    if isinstance(result, TraceError):
        raise InputError(f"assert_calls: {result.error}")
    return result


def explanation(result: RunResult) -> str:
    """The run's explanation as text: the same words as the HTML page and JUnit output."""
    head = f"case {result.case_id!r}: {result.verdict.replace('_', ' ')}"
    if result.shapes:
        head += f" ({', '.join(result.shapes)})"
    return "\n".join([head, *(f"  {text}" for _, text in explain(run_to_json(result)))])


def assert_calls(
    calls: Any,
    case: CaseArg,
    *,
    tools: ToolsArg,
    cases: str | Path | Mapping[str, Case] | None = None,
    world: Any = MISSING,
    registry: Mapping[str, Normalizer] | None = None,
) -> RunResult:
    """Pass when the run truly passes (exact-match may fail it: a false failure passes here, and
    the result says why); raise AssertionError with the explanation when it truly fails.

    `case` is a `Case`, a case as a case file writes it, or an id looked up in `cases`;
    `registry` the rules (by default the built-ins and the installed plugins).
    """
    result = grade_calls(calls, case, tools=tools, cases=cases, world=world, registry=registry)
    if not result.true_pass:
        raise AssertionError(explanation(result))
    return result
