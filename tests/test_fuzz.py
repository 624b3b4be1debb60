"""Fuzzing the readers and the comparator: whatever comes in, evalrun answers with a result or a
reason, never a traceback, and loses no line.

`make test` runs a short pass (150 inputs a target, the quick profile); `make fuzz` runs a long one
(20,000 a target, the thorough profile); EVALRUN_FUZZ_EXAMPLES overrides both (tests/conftest.py).
The figures of the last long run are in the README ("Reliability"). Inputs are structure-aware:
trace lines in every format's shapes, mutated and cut, beside raw bytes; tool and case records
built from their own keys, with wrong types; results-like records and saved results documents;
names that carry control characters.
"""

from __future__ import annotations

import contextlib
from typing import Any

import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from evalrunner import InputError, TraceError
from evalrunner.grade.compare import ToolPlan
from evalrunner.grade.grader import Grader, RunResult
from evalrunner.grade.norms import load_registry
from evalrunner.read.cases import parse_case
from evalrunner.read.tools import parse_tool
from evalrunner.scoring import Config
from evalrunner.summary.view import SummaryView
from evalrunner.traces import BUILTINS, Reading, TraceReader
from evalrunner.traces.lines import stream_lines
from evalrunner.write.results import encode_items
from tests.conftest import FUZZ

from .strategies import json_values, scalars

TOOL = parse_tool(
    {
        "name": "pay",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": ["number", "string"], "x-eval-norm": "money_cents"},
                "month": {"type": "string", "x-eval-norm": "month"},
                "tags": {"type": "array", "items": {"type": "string"}, "x-eval-norm": "set"},
                "note": {"type": "string", "x-eval-norm": "any", "default": ""},
                "limit": {"type": "integer", "default": 50},
                "who": {
                    "type": "object",
                    "properties": {"name": {"type": "string", "x-eval-norm": "casefold"}},
                },
            },
        },
    },
    "fuzz",
)
CASE = parse_case(
    {"id": "c", "match": "contains", "accept": [[{"tool": "pay", "args": {"amount": 42.0}}]]},
    "fuzz",
)
REGISTRY = load_registry()
CONFIG = Config({"pay": TOOL}, {"c": CASE}, REGISTRY, Grader({"pay": TOOL}, {"c": CASE}))

keys = st.sampled_from(
    ["case_id", "run_id", "calls", "tool", "name", "args", "arguments", "result", "error",
     "is_error", "status", "world", "meta", "messages", "role", "tool_calls", "content",
     "function", "id", "type", "input", "output", "resourceSpans", "traceId", "spanId",
     "attributes", "parts", "part_kind", "span_data", "object", "verdict", "request",
     "response", "choices", "message", "contents", "candidates", "functionCall", "toolUse",
     "lc", "kwargs", "metadata", "toolResult", "functionResponse", "stopReason"]
)  # fmt: skip
WORDS = [
    "c", "pay", "tool_use", "function_call", "assistant", "{}", "[]", "message", "constructor",
    "response", "Final result processed.",
]  # fmt: skip
shaped = st.recursive(
    scalars | st.sampled_from(WORDS),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=5),
    max_leaves=20,
)


def _line(value: Any) -> bytes:
    try:
        return orjson.dumps(value)
    except TypeError:
        return b"{}"


lines = st.lists(
    st.one_of(
        shaped.map(_line),
        json_values().map(_line),
        st.binary(max_size=60),
        shaped.map(_line).map(lambda b: b[: len(b) // 2]),  # cut short
    ),
    max_size=8,
)


# What the fuzzer found once: a list where a name is expected (unhashable in a set lookup).
UNHASHABLE = [
    b'{"messages":[],"case_id":null,"part_kind":[]}',
    b'{"case_id":"c","messages":[{"role":"user","content":[{"type":["tool_use"]}]}]}',
    b'{"case_id":"c","output":[{"type":{"a":1}}]}',
    b'{"case_id":"c","messages":[{"type":["ai"],"tool_calls":[]}]}',
    b'{"case_id":"c","messages":[{"kind":"request","parts":[{"part_kind":"tool-return","outcome":[]}]}]}',
    b'{"case_id":null,"run_id":null,"type":[]}',
    b'{"case_id":"c","events":[{"type":["tool_usage_started"],"tool_name":"t"}]}',
]


@pytest.mark.parametrize("fmt", ["auto", *BUILTINS])
def test_every_format_answers_a_list_or_an_object_where_a_name_is_expected(fmt):
    """The lines the fuzzer found, through every format forced and detected: each is a run or a
    reason, never an exception (a list where a name is expected is unhashable in a set lookup:
    CrewAI's `"type": []` was one)."""
    reader = TraceReader(fmt)
    pairs = list(stream_lines("f.jsonl", iter_bytes(b"\n".join(UNHASHABLE))))
    out = [
        item if isinstance(item, TraceError) else CONFIG.grader.grade_record(*item)
        for item in reader.records(pairs)
    ]
    assert out and all(isinstance(o, (TraceError, RunResult)) for o in out)


@FUZZ
@given(lines=lines, fmt=st.sampled_from(["auto", "native", "openai-chat", "otel", "pydantic-ai"]))
@example(lines=UNHASHABLE, fmt="auto")
@example(lines=UNHASHABLE, fmt="pydantic-ai")
def test_the_trace_reader_and_grader_answer_every_line(lines, fmt):
    data = b"\n".join(lines)
    pairs = list(stream_lines("f.jsonl", iter_bytes(data)))
    reader = TraceReader(fmt)
    out = [
        item if isinstance(item, TraceError) else CONFIG.grader.grade_record(*item)
        for item in reader.records(pairs)
    ]
    encode_items(out)  # and every result can be written
    grouping = fmt == "otel" or any(b"trace" in line.lower() for line in lines)
    if not grouping:  # every non-blank line is accounted for: a result or a reason in its place
        # (a line holding a JSON array of runs is read record by record, each at the line)
        assert {str(o.source) for o in out} == {s for s, _ in pairs}


class iter_bytes:
    """A stream over bytes, read in small pieces (block boundaries anywhere)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def read(self, n: int) -> bytes:
        n = min(n, 7)
        chunk, self.at = self.data[self.at : self.at + n], self.at + n
        return chunk


@FUZZ
@given(raw=st.one_of(shaped, json_values()))
def test_the_case_reader_answers_a_case_or_a_reason(raw):
    with contextlib.suppress(InputError):  # a reason, said; anything else fails the test
        parse_case(raw, "fuzz")


tool_keys = st.sampled_from(
    ["name", "parameters", "input_schema", "inputSchema", "type", "function", "properties",
     "items", "x-eval-norm", "default", "$ref", "$defs", "anyOf", "allOf", "required",
     "x-eval-repeatable", "enum", "pattern", "format"]
)  # fmt: skip
tool_like = st.recursive(
    scalars | st.sampled_from(["object", "string", "array", "month", "set", "#/$defs/a", "pay"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(tool_keys, inner, max_size=5),
    max_leaves=25,
)


@FUZZ
@given(raw=tool_like)
def test_the_tool_reader_answers_a_tool_or_a_reason(raw):
    try:
        tool = parse_tool(raw, "fuzz")
    except InputError:
        return
    try:
        plan = ToolPlan.compile(tool, REGISTRY)
    except InputError:
        return  # an unknown rule or a bad option: said so, exit 2
    plan.compare({}, {})


@FUZZ
@given(a=shaped, b=shaped)
def test_the_comparator_answers_any_two_values(a, b):
    plan = ToolPlan.compile(TOOL, REGISTRY)
    for x, y in ((a, b), ({"amount": a, "tags": b}, {"amount": b, "who": a})):
        forward, backward = plan.compare(x, y), plan.compare(y, x)
        assert forward.equal == backward.equal
        assert plan.compare(x, x).equal


@given(st.just(None))
def test_fuzz_reading_reaches_every_format(_):
    """The shapes the fuzzer builds reach the formats it means to exercise (a fuzzer whose inputs
    never get past detection proves little)."""
    reader = TraceReader(Reading().trace_format)
    record = {"case_id": "c", "calls": [{"tool": "pay", "args": {"amount": 42}}]}
    [item] = list(reader.records([("f:1", orjson.dumps(record))]))
    assert not isinstance(item, TraceError)


# ------------------------------------------------------------- results-like records (issue 28)

RESULT_KEYS = [
    "run_id", "case_id", "source", "verdict", "shape", "shapes", "reported", "true", "pass",
    "calls", "index", "label", "tool", "missing", "effects", "suspects", "summary", "errors",
    "warnings", "evalrun", "runs", "unscoreable", "verdicts", "meta", "args",
]  # fmt: skip
RESULT_WORDS = ["pass", "fail", "false_failure", "false_pass", "exact", "c", "pay", "true"]
results_like = st.recursive(
    scalars | st.sampled_from(RESULT_WORDS),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(RESULT_KEYS), inner, max_size=8)
    ),
    max_leaves=30,
)
REAL_RESULT = orjson.loads(
    encode_items([CONFIG.grader.grade_record({"case_id": "c", "calls": []}, "f:1")])[0][0]
)


def _mutated(record: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    out = dict(record)
    out[key] = value
    return out


@FUZZ
@given(
    value=st.one_of(
        results_like,
        st.builds(_mutated, st.just(REAL_RESULT), st.sampled_from(RESULT_KEYS), results_like),
    )
)
def test_results_like_records_are_told_by_structure_and_every_one_is_answered(value):
    """A record with results' words is a run, a results record (unscoreable, said) or a reason:
    never dropped, never a crash; and only a record with the results' structure is results."""
    from evalrunner.traces.own_results import RUN_KEYS, is_results_record

    line = _line(value)
    out = list(TraceReader("auto").records([("f:1", line)]))
    assert out and all(o.source == "f:1" for o in out)  # (an array of runs: one each)
    if is_results_record(value) and type(value) is dict and "summary" not in value:
        assert all(type(value.get(k)) is t for k, t in RUN_KEYS.items())
    graded = [o if isinstance(o, TraceError) else CONFIG.grader.grade_record(*o) for o in out]
    encode_items(graded)


@FUZZ
@given(key=st.sampled_from(["summary", "runs", "errors"]), value=results_like, at=st.integers(0, 3))
def test_report_answers_any_results_document_with_a_render_or_a_reason(
    tmp_path_factory, key, value, at
):
    """A saved results document with any key replaced renders, or is refused naming the key."""
    import io

    from evalrunner.write import WRITERS, Output
    from evalrunner.write.report import render_saved

    doc = {"evalrun": "0.1.0", "summary": {}, "runs": [REAL_RESULT], "errors": [], "warnings": []}
    doc["summary"] = orjson.loads(orjson.dumps(_SUMMARY))
    if key == "summary" and isinstance(value, dict):
        doc["summary"].update(value)
    elif key == "runs":
        doc["runs"] = [_mutated(REAL_RESULT, RESULT_KEYS[at], value)]
    else:
        doc[key] = value
    path = tmp_path_factory.mktemp("report") / "r.json"
    path.write_bytes(_line(doc))
    for name in ("html", "markdown", "junit"):
        writer = WRITERS[name].make(Output(io.BytesIO(), to_file=True, sources=("r.json",)))
        with contextlib.suppress(InputError):
            render_saved(path, writer)  # type: ignore[arg-type]


def _summary() -> dict[str, Any]:
    from evalrunner.summary import Summary

    summary = Summary.for_tools(CONFIG.tools)
    summary.add(CONFIG.grader.grade_record({"case_id": "c", "calls": []}, "f:1"), (0, 0))
    return summary.finish().to_json()


_SUMMARY = _summary()


# ------------------------------------------------------ control characters in every name (28)

CONTROLS = st.sampled_from(
    [
        "\x1b[2J",
        "\x1b]8;;http://x\x07",
        "\x9b1m",
        "\u202e",
        "\u2066",
        "\x07",
        "\r",
        "\x00",
        "\u2028",
    ]
)
names = st.lists(st.one_of(st.text(max_size=3), CONTROLS), min_size=1, max_size=4).map("".join)
RAW_CONTROLS = {chr(c) for c in range(0x20) if chr(c) not in "\n"} | {
    chr(c) for c in range(0x7F, 0xA0)
}
RAW_CONTROLS |= set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029")


@FUZZ
@given(run_id=names, tool=names, model=names, source=names, value=names)
def test_no_control_character_in_any_name_reaches_the_table_or_markdown(
    run_id, tool, model, source, value
):
    import io

    from evalrunner.summary import Summary
    from evalrunner.write import markdown
    from evalrunner.write.table import data_console, render_run, render_summary

    record = {
        "run_id": run_id,
        "case_id": "c",
        "calls": [{"tool": tool, "args": {"amount": value}}, {"tool": "pay", "args": {"x": value}}],
        "meta": {"model": model},
    }
    result = CONFIG.grader.grade_record(record, f"{source}:1")
    error = TraceError(f"{source}:2", f"unknown case {value!r}")
    summary = Summary.for_tools(CONFIG.tools, group_by="meta.model")
    for n, item in enumerate((result, error)):
        if not isinstance(item, TraceError):
            item = item._replace(group=model)
        summary.add(item, (0, n))
    out = io.BytesIO()
    console = data_console(out, to_file=True)
    finished = summary.finish()
    render_summary(finished, [source], console)
    if not isinstance(result, TraceError):
        render_run(result, console)
    text = out.getvalue().decode()
    assert not RAW_CONTROLS & set(text), sorted(RAW_CONTROLS & set(text))
    errors = [{"source": error.source, "error": error.error}]
    text = markdown.render(SummaryView.of(finished), sources=[source], errors=errors)
    assert not RAW_CONTROLS & set(text.replace("\n", "")), sorted(RAW_CONTROLS & set(text))
