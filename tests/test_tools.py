"""Reading tools: every format, $ref resolution, rules and defaults at any depth, bad input."""

from __future__ import annotations

import json
import re

import pytest

from evalrunner import MISSING, InputError, NormSpec, load_tools

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
        ("openai_chat", {"type": "function", "function": {"name": "t", "parameters": PARAMS}}),
        ("openai_responses", {"type": "function", "name": "t", "parameters": PARAMS}),
        ("anthropic", {"name": "t", "description": "d", "input_schema": PARAMS}),
        ("mcp", {"name": "t", "inputSchema": PARAMS, "annotations": {"readOnlyHint": True}}),
        ("bare", {"name": "t", "parameters": PARAMS}),
    ],
)
def test_each_format(tmp_path, fmt, tool):
    tools = load_tools(write(tmp_path, "a.json", tool))
    t = tools["t"]
    assert t.format == fmt
    assert t.params.properties["month"].norm == NormSpec("month")
    assert not t.repeatable
    assert t.source.endswith("a.json")


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
