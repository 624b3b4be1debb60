"""Reading tools: every format, $ref resolution, rules and defaults at any depth, bad input."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from evalrunner import MISSING, InputError, NormSpec, load_tools
from evalrunner.cli import app
from tests.formats.common import REVIEW

PARAMS = {
    "type": "object",
    "properties": {"month": {"type": "string", "x-eval-norm": "month"}},
}


def write(tmp_path, name, data):
    d = tmp_path / "tools"
    d.mkdir(exist_ok=True)
    (d / name).write_text(json.dumps(data) if not isinstance(data, str) else data)
    return d


@pytest.mark.parametrize(
    ("fmt", "tool"),
    [
        ("openai-chat", {"type": "function", "function": {"name": "t", "parameters": PARAMS}}),
        ("openai-responses", {"type": "function", "name": "t", "parameters": PARAMS}),
        ("anthropic", {"name": "t", "description": "d", "input_schema": PARAMS}),
        ("mcp", {"name": "t", "inputSchema": PARAMS, "annotations": {"readOnlyHint": True}}),
        ("bare", {"name": "t", "parameters": PARAMS}),
        (
            "bedrock",
            {"toolSpec": {"name": "t", "description": "d", "inputSchema": {"json": PARAMS}}},
        ),
        ("gemini", {"name": "t", "description": "d", "parametersJsonSchema": PARAMS}),
    ],
)
def test_each_format(tmp_path, fmt, tool):
    tools = load_tools(write(tmp_path, "a.json", tool))
    t = tools["t"]
    assert t.format == fmt
    assert t.params.properties["month"].norm == NormSpec("month")
    assert not t.repeatable
    assert t.source.endswith("a.json")


def test_a_bedrock_tool_spec_without_its_json_schema_is_an_input_error(tmp_path):
    msg = fails(tmp_path, {"toolSpec": {"name": "t", "inputSchema": PARAMS}}, name="b.json")
    assert "a Bedrock toolSpec keeps its schema in inputSchema.json" in msg


def test_a_list_and_an_mcp_tools_list_result(tmp_path):
    d = write(
        tmp_path,
        "list.json",
        [{"name": "a", "parameters": PARAMS}, {"name": "b", "input_schema": PARAMS}],
    )
    write(tmp_path, "mcp.json", {"tools": [{"name": "c", "inputSchema": PARAMS}]})
    tools = load_tools(d)
    assert sorted(tools) == ["a", "b", "c"]
    assert tools["b"].source.endswith("list.json tool #1")


def test_repeatable_in_each_place(tmp_path):
    d = write(
        tmp_path,
        "r.json",
        [
            {
                "type": "function",
                "x-eval-repeatable": True,
                "function": {"name": "outer", "parameters": PARAMS},
            },
            {
                "type": "function",
                "function": {"name": "inner", "x-eval-repeatable": True, "parameters": PARAMS},
            },
            {"name": "mcp", "inputSchema": PARAMS, "annotations": {"x-eval-repeatable": True}},
            {"name": "plain", "parameters": PARAMS},
        ],
    )
    tools = load_tools(d)
    assert [n for n, t in sorted(tools.items()) if t.repeatable] == ["inner", "mcp", "outer"]


def test_pydantic_style_refs_defs_and_optional(tmp_path):
    schema = {
        "$defs": {
            "Window": {
                "type": "object",
                "properties": {
                    "start": {
                        "type": "string",
                        "x-eval-norm": {"name": "date", "tz": "Europe/Berlin"},
                    },
                    "length": {"x-eval-norm": "duration_secs", "default": "PT1H"},
                },
            },
            "Flight": {
                "type": "object",
                "properties": {"no": {"type": "string", "x-eval-norm": "casefold"}},
            },
        },
        "type": "object",
        "properties": {
            "window": {"anyOf": [{"$ref": "#/$defs/Window"}, {"type": "null"}], "default": None},
            "flights": {
                "type": "array",
                "items": {"$ref": "#/$defs/Flight"},
                "x-eval-norm": "unordered_list",
            },
            "legacy": {
                "allOf": [{"$ref": "#/$defs/Flight"}],
                "description": "pydantic v1 wraps refs",
            },
        },
    }
    t = load_tools(write(tmp_path, "a.json", {"name": "t", "parameters": schema}))["t"]
    window = t.params.properties["window"]
    assert window.default is None  # a declared null default, not MISSING
    assert window.types == ("object", "null")
    start = window.properties["start"]
    assert start.path == "window.start"
    assert start.norm == NormSpec("date", {"tz": "Europe/Berlin"})
    assert window.properties["length"].default == "PT1H"
    item = t.params.properties["flights"].items
    assert item.path == "flights[]" and item.properties["no"].norm == NormSpec("casefold")
    assert t.params.properties["legacy"].properties["no"].path == "legacy.no"
    assert {p.path for p in t.norm_params} == {
        "window.start",
        "window.length",
        "flights",
        "flights[].no",
        "legacy.no",
    }


def test_no_default_is_missing_not_null(tmp_path):
    t = load_tools(
        write(
            tmp_path,
            "a.json",
            {"name": "t", "parameters": {"type": "object", "properties": {"x": {}}}},
        )
    )
    assert t["t"].params.properties["x"].default is MISSING


def test_a_recursive_ref_terminates(tmp_path):
    schema = {
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"child": {"$ref": "#/$defs/Node"}, "v": {"x-eval-norm": "number"}},
            }
        },
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
    }
    t = load_tools(write(tmp_path, "a.json", {"name": "t", "parameters": schema}))["t"]
    root = t.params.properties["root"]
    assert root.properties["v"].norm == NormSpec("number")
    assert root.properties["child"].properties == {}  # the cycle is cut, not followed forever


def test_draft7_schema_is_accepted(tmp_path):
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "definitions": {"X": {"type": "string"}},
        "properties": {"x": {"$ref": "#/definitions/X", "x-eval-norm": "casefold"}},
    }
    t = load_tools(write(tmp_path, "a.json", {"name": "t", "parameters": schema}))["t"]
    assert t.params.properties["x"].types == ("string",)


# ------------------------------------------------------------------------------ bad input


def fails(tmp_path, data, *, name="bad.json") -> str:
    d = write(tmp_path, name, data)
    with pytest.raises(InputError) as e:
        load_tools(d)
    return str(e.value)


def test_not_json_names_the_file(tmp_path):
    msg = fails(tmp_path, "{not json")
    assert re.search(
        r"tools/bad\.json: this tool file is not valid JSON \(.*\); fix or remove it", msg
    )


def test_unknown_format(tmp_path):
    msg = fails(tmp_path, {"title": "x"})
    assert (
        "bad.json: not a tool in any known format" in msg
        and "Anthropic {name, input_schema}" in msg
    )


def test_invalid_schema_says_where(tmp_path):
    msg = fails(
        tmp_path,
        [
            {"name": "ok", "parameters": PARAMS},
            {"name": "t", "parameters": {"type": "object", "properties": {"x": {"type": 12}}}},
        ],
    )
    assert "bad.json tool #1 (t): the parameters are not a valid JSON Schema" in msg
    assert "(at properties/x/type)" in msg


def test_bad_norm_annotation(tmp_path):
    msg = fails(
        tmp_path,
        {
            "name": "t",
            "parameters": {"type": "object", "properties": {"x": {"x-eval-norm": {"tz": "UTC"}}}},
        },
    )
    assert (
        "bad.json (t): x-eval-norm on parameter 'x' must be a normalizer name or an object" in msg
    )


def test_unresolvable_and_remote_refs(tmp_path):
    msg = fails(
        tmp_path,
        {
            "name": "t",
            "parameters": {"type": "object", "properties": {"x": {"$ref": "#/$defs/Nope"}}},
        },
    )
    assert "$ref '#/$defs/Nope' does not resolve" in msg
    msg = fails(
        tmp_path,
        {
            "name": "t",
            "parameters": {
                "type": "object",
                "properties": {"x": {"$ref": "https://example.com/s.json"}},
            },
        },
    )
    assert "only local $ref" in msg


def test_duplicate_tool_name_across_files(tmp_path):
    write(tmp_path, "a.json", {"name": "t", "parameters": PARAMS})
    msg = fails(tmp_path, {"name": "t", "input_schema": PARAMS}, name="b.json")
    assert "tool 't' is defined twice" in msg and "a.json" in msg and "b.json" in msg


def test_missing_directory(tmp_path):
    with pytest.raises(
        InputError, match=r"tools directory '.*nope' does not exist \(set it with --tools DIR\)"
    ):
        load_tools(tmp_path / "nope")


def test_repeatable_must_be_boolean(tmp_path):
    msg = fails(tmp_path, {"name": "t", "parameters": PARAMS, "x-eval-repeatable": "yes"})
    assert "x-eval-repeatable must be true or false" in msg


# ------------------------------------------------------------------- where things are written


def test_tools_record_where_they_are_written(tmp_path):
    d = write(
        tmp_path,
        "list.json",
        [
            {"name": "a", "parameters": PARAMS},
            {"type": "function", "function": {"name": "b", "parameters": PARAMS}},
        ],
    )
    write(tmp_path, "mcp.json", {"tools": [{"name": "c", "inputSchema": PARAMS}]})
    write(tmp_path, "one.json", {"name": "e", "input_schema": PARAMS})
    tools = load_tools(d)
    where = {n: (t.file, t.loc, t.schema_loc) for n, t in tools.items()}
    assert where == {
        "a": (str(d / "list.json"), (0,), (0, "parameters")),
        "b": (str(d / "list.json"), (1,), (1, "function", "parameters")),
        "c": (str(d / "mcp.json"), ("tools", 0), ("tools", 0, "inputSchema")),
        "e": (str(d / "one.json"), (), ("input_schema",)),
    }
    assert tools["c"].schema == PARAMS
    month = tools["c"].params.properties["month"]
    assert month.loc == ("tools", 0, "inputSchema", "properties", "month")
    assert month.norm_loc == (*month.loc, "x-eval-norm") and month.default_loc is None
    assert month.raw == PARAMS["properties"]["month"]


def test_rules_and_defaults_are_located_where_they_are_written(tmp_path):
    # pydantic: Optional[Model] as anyOf [$ref, null]; v1 wraps refs in allOf.
    schema = {
        "$defs": {
            "Month": {"type": "string", "x-eval-norm": "month", "default": "2026-01"},
            "Window": {"type": "object", "properties": {"start": {"x-eval-norm": "date"}}},
        },
        "type": "object",
        "properties": {
            "month": {"anyOf": [{"$ref": "#/$defs/Month"}, {"type": "null"}]},
            "window": {"allOf": [{"$ref": "#/$defs/Window"}], "default": None},
            "list": {"type": "array", "items": {"$ref": "#/$defs/Month"}},
        },
    }
    t = load_tools(write(tmp_path, "a.json", {"name": "t", "parameters": schema}))["t"]
    month = t.params.properties["month"]
    assert month.loc == ("parameters", "properties", "month")
    assert month.norm_loc == ("parameters", "$defs", "Month", "x-eval-norm")
    assert month.default_loc == ("parameters", "$defs", "Month", "default")
    window = t.params.properties["window"]
    assert window.default_loc == ("parameters", "properties", "window", "default")
    start = window.properties["start"]
    assert start.loc == ("parameters", "$defs", "Window", "properties", "start")
    assert start.norm_loc == (*start.loc, "x-eval-norm")
    item = t.params.properties["list"].items
    assert item.loc == ("parameters", "properties", "list", "items")
    assert item.norm_loc == ("parameters", "$defs", "Month", "x-eval-norm")


def test_anchors_resolve_like_pointers(tmp_path):
    schema = {
        "type": "object",
        "$defs": {"Month": {"$anchor": "month", "type": "string", "x-eval-norm": "month"}},
        "properties": {"m": {"$ref": "#month"}},
    }
    t = load_tools(write(tmp_path, "a.json", {"name": "t", "parameters": schema}))["t"]
    assert t.params.properties["m"].norm_loc == ("parameters", "$defs", "Month", "x-eval-norm")


# ------------------------------------------------------------------------ annotation typos


@pytest.mark.parametrize(
    ("tool", "message"),
    [
        (
            {
                "name": "t",
                "parameters": {"type": "object", "properties": {"m": {"x-eval-norms": "month"}}},
            },
            "bad.json (t): unknown annotation 'x-eval-norms'; did you mean 'x-eval-norm'? (at "
            "$.parameters.properties.m['x-eval-norms']; evalrun reads x-eval-norm on a parameter "
            "schema and x-eval-repeatable and x-eval-readonly on the tool)",
        ),
        (
            {"name": "t", "parameters": PARAMS, "x-eval-repeat": True},
            "bad.json (t): unknown annotation 'x-eval-repeat'; did you mean 'x-eval-repeatable'? "
            "(at $['x-eval-repeat'];",
        ),
        (
            {
                "name": "t",
                "parameters": {"type": "object", "properties": {"n": {"x-eval-default": 5}}},
            },
            "unknown annotation 'x-eval-default'; did you mean 'default'? "
            "(at $.parameters.properties.n['x-eval-default'];",
        ),
        (
            {"name": "t", "inputSchema": PARAMS, "annotations": {"x_eval_repeatable": True}},
            "unknown annotation 'x_eval_repeatable'; did you mean 'x-eval-repeatable'? "
            "(at $.annotations.x_eval_repeatable;",
        ),
        (
            {
                "type": "function",
                "function": {"name": "t", "parameters": PARAMS, "x-eval-norm": "set"},
            },
            "bad.json (t): x-eval-norm goes on a parameter schema, not here (at "
            "$.function['x-eval-norm'];",
        ),
        (
            {
                "name": "t",
                "parameters": {"type": "object", "$defs": {"X": {"x-eval-repeatable": True}}},
            },
            "x-eval-repeatable goes on the tool, not here (at $.parameters['$defs'].X['x-eval-repeatable'];",
        ),
        (
            {"name": "t", "parameters": PARAMS, "x-eval-read-only": True},
            "unknown annotation 'x-eval-read-only'; did you mean 'x-eval-readonly'?",
        ),
        (
            {"name": "t", "parameters": PARAMS, "x-eval-readonly": "yes"},
            "x-eval-readonly must be true or false",
        ),
        (
            {"name": "t", "parameters": {"type": "object", "not": {"x-evl-norm": "set"}}},
            "unknown annotation 'x-evl-norm'; did you mean 'x-eval-norm'? "
            "(at $.parameters.not['x-evl-norm'];",
        ),
    ],
)
def test_a_misspelt_annotation_is_an_error(tmp_path, tool, message):
    assert message in fails(tmp_path, tool)


def test_a_parameter_named_like_an_annotation_is_fine(tmp_path):
    schema = {"type": "object", "properties": {"x-eval-norms": {"type": "string"}}, "x-other": 1}
    t = load_tools(write(tmp_path, "a.json", {"name": "t", "parameters": schema}))["t"]
    assert list(t.params.properties) == ["x-eval-norms"]


@pytest.mark.parametrize(
    ("written", "hint"),
    [("float", "'number'"), ("dict", "'object'"), ("STRING", "'string' (Gemini's capital types")],
)
def test_another_dialects_type_name_is_refused_with_what_to_write(tmp_path, written, hint):
    params = {"type": "object", "properties": {"n": {"type": written}}}
    msg = fails(tmp_path, {"name": "t", "parameters": params})
    assert f"(at properties/n/type); JSON Schema writes it {hint}" in msg


@pytest.mark.parametrize(
    ("folder", "fmt"),
    [
        ("tools-g1", "bare"),  # functionDeclarations, Gemini's capital OpenAPI types
        ("tools-g2", "gemini"),  # model_dump(): function_declarations, parameters_json_schema
        ("tools-g3", "bedrock"),  # {"toolConfig": {"tools": [...]}}
        ("tools-g4", "bedrock"),  # a cachePoint among the tools
    ],
)
def test_gemini_and_bedrock_tool_files_in_their_usual_forms(folder, fmt):
    from evalrunner.read.tools import load_tools

    tools = load_tools(REVIEW / folder)
    assert list(tools) == ["get_customer"] and tools["get_customer"].format == fmt
    params = tools["get_customer"].params.properties
    assert params is not None and "customer_id" in params


def test_x_eval_repeatable_inside_a_bedrock_tool_spec_is_read():
    data = REVIEW / "bedrock-repeatable"
    base = ["--tools", str(data / "tools"), "--cases", str(data / "cases")]
    result = CliRunner().invoke(app, ["score", *base, str(data / "traces"), "--format", "json"])
    assert result.exit_code == 0, result.output
    [run] = json.loads(result.stdout)["runs"]
    assert run["verdict"] == "pass" and [c["label"] for c in run["calls"]] == ["exact", "repeat"]
