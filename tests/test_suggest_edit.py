"""`suggest --write`: the tool files annotated in place, each in its own format and style.

A file written by a JSON library in some style (indent 2, indent 4, tabs, CRLF, one line,
minified) must, after an annotation, be exactly what that library writes for the annotated
data: every other byte kept, the key appended last, in the file's manner.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from evalrunner.model import NormSpec
from evalrunner.read.tools import load_tools
from evalrunner.suggest.edit import insert_key, schema_pointer, write_suggestions
from evalrunner.suggest.model import DefaultSuggestion, Evidence, Risk, RuleSuggestion

PROPS = {
    "customer_id": {"type": "string"},
    "status": {"type": "array", "items": {"type": "string"}},
    "limit": {"type": "integer"},
}
SCHEMA = {"type": "object", "properties": PROPS, "required": ["customer_id"]}

FORMATS: dict[str, Any] = {
    "openai-chat": {"type": "function", "function": {"name": "search", "parameters": SCHEMA}},
    "openai-responses": {"type": "function", "name": "search", "parameters": SCHEMA},
    "anthropic": {"name": "search", "description": "Search.", "input_schema": SCHEMA},
    "mcp": {"name": "search", "inputSchema": SCHEMA, "annotations": {"readOnlyHint": True}},
    "bare": {"name": "search", "parameters": SCHEMA},
    "bedrock": {"toolSpec": {"name": "search", "inputSchema": {"json": SCHEMA}}},
    "gemini": {"name": "search", "parametersJsonSchema": SCHEMA},
}
SCHEMA_AT = {
    "openai-chat": ("function", "parameters"),
    "openai-responses": ("parameters",),
    "anthropic": ("input_schema",),
    "mcp": ("inputSchema",),
    "bare": ("parameters",),
    "bedrock": ("toolSpec", "inputSchema", "json"),
    "gemini": ("parametersJsonSchema",),
}
STYLES = {
    "indent 2": lambda d: json.dumps(d, indent=2) + "\n",
    "indent 4": lambda d: json.dumps(d, indent=4) + "\n",
    "tabs": lambda d: json.dumps(d, indent="\t") + "\n",
    "crlf": lambda d: json.dumps(d, indent=2).replace("\n", "\r\n") + "\r\n",
    "one line": lambda d: json.dumps(d) + "\n",
    "minified": lambda d: json.dumps(d, separators=(",", ":")),
}
WRAPPERS = {
    "one tool": lambda tool: tool,
    "a list": lambda tool: [{"name": "other", "parameters": {"type": "object"}}, tool],
    "tools/list": lambda tool: {"tools": [tool]},
}


def suggestion(kind: str, param: str, value: Any) -> RuleSuggestion | DefaultSuggestion:
    evidence, risk = Evidence(1, (), 1), Risk()
    if kind == "rule":
        spec = NormSpec(value) if isinstance(value, str) else NormSpec(value["name"], value["tz"])
        return RuleSuggestion("search", (param,), spec, (), 1, evidence, 1, risk)
    return DefaultSuggestion("search", (param,), value, evidence, 1, risk)


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_rule_and_a_default_in_every_format_and_style(tmp_path, fmt, style, wrapper):
    data = WRAPPERS[wrapper](copy.deepcopy(FORMATS[fmt]))
    file = tmp_path / "tools.json"
    file.write_bytes(STYLES[style](data).encode())
    tools = load_tools(tmp_path)
    assert tools["search"].format == fmt
    written, skipped = write_suggestions(
        [suggestion("rule", "status", "set"), suggestion("default", "limit", 50)], tools
    )
    assert skipped == [] and [(w.param, w.key) for w in written] == [
        ("status", "x-eval-norm"),
        ("limit", "default"),
    ]
    tool = (
        data["tools"][0] if wrapper == "tools/list" else data[-1] if wrapper == "a list" else data
    )
    node = tool
    for key in SCHEMA_AT[fmt]:
        node = node[key]
    node["properties"]["status"]["x-eval-norm"] = "set"
    node["properties"]["limit"]["default"] = 50
    assert file.read_bytes().decode() == STYLES[style](data)
    again = load_tools(tmp_path)["search"].params.properties
    assert again["status"].norm == NormSpec("set") and again["limit"].default == 50


@pytest.mark.parametrize("key", ["functionDeclarations", "function_declarations"])
def test_a_gemini_tool_lists_its_functions_each_a_tool_written_in_place(tmp_path, key):
    other = {"name": "other", "parameters": {"type": "object"}}
    data = [{key: [other, copy.deepcopy(FORMATS["bare"])]}, copy.deepcopy(FORMATS["gemini"])]
    data[1]["name"] = "lookup"
    (tmp_path / "t.json").write_text(json.dumps(data, indent=2))
    tools = load_tools(tmp_path)
    assert sorted(tools) == ["lookup", "other", "search"]
    assert tools["search"].schema_loc == (0, key, 1, "parameters")
    write_suggestions([suggestion("rule", "status", "set")], tools)
    data[0][key][1]["parameters"]["properties"]["status"]["x-eval-norm"] = "set"
    assert (tmp_path / "t.json").read_text() == json.dumps(data, indent=2)


@pytest.mark.parametrize("style", ["indent 2", "one line", "minified", "tabs"])
def test_a_rule_with_options_is_written_as_the_file_writes_objects(tmp_path, style):
    data = copy.deepcopy(FORMATS["openai-chat"])
    data["function"]["parameters"]["properties"]["month"] = {"type": "string"}
    (tmp_path / "t.json").write_text(STYLES[style](data))
    tools = load_tools(tmp_path)
    rule = RuleSuggestion(
        "search",
        ("month",),
        NormSpec("month", {"tz": "America/New_York"}),
        (),
        1,
        Evidence(1, (), 1),
        1,
        Risk(),
    )
    write_suggestions([rule], tools)
    data["function"]["parameters"]["properties"]["month"]["x-eval-norm"] = {
        "name": "month",
        "tz": "America/New_York",
    }
    assert (tmp_path / "t.json").read_text() == STYLES[style](data)


PYDANTIC = {
    "name": "update_customer",
    "input_schema": {
        "$defs": {
            "Address": {
                "type": "object",
                "properties": {"line1": {"type": "string"}, "country": {"type": "string"}},
            }
        },
        "type": "object",
        "properties": {
            "customer_id": {"type": "string"},
            "address": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}]},
            "tags": {"type": "array", "items": {"$ref": "#/$defs/Address"}},
        },
    },
}


@pytest.mark.parametrize(
    ("steps", "pointer"),
    [
        (("address",), ("input_schema", "properties", "address")),
        (("address", "country"), ("input_schema", "$defs", "Address", "properties", "country")),
        (("tags", None), ("input_schema", "properties", "tags", "items")),
        (("tags", None, "line1"), ("input_schema", "$defs", "Address", "properties", "line1")),
    ],
)
def test_where_a_parameter_is_written_follows_refs_and_nullable_branches(tmp_path, steps, pointer):
    (tmp_path / "t.json").write_text(json.dumps(PYDANTIC))
    tool = load_tools(tmp_path)["update_customer"]
    assert schema_pointer(PYDANTIC, tool, steps) == pointer


def test_the_outer_node_of_a_nullable_ref_is_annotated_not_the_shared_definition(tmp_path):
    (tmp_path / "t.json").write_text(json.dumps(PYDANTIC, indent=2))
    tools = load_tools(tmp_path)
    rule = RuleSuggestion(
        "update_customer",
        ("address",),
        NormSpec("known_fields"),
        (),
        1,
        Evidence(1, (), 1),
        1,
        Risk(),
    )
    (written,), _ = write_suggestions([rule], tools)
    assert not written.shared
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["input_schema"]["properties"]["address"]["x-eval-norm"] == "known_fields"
    assert "x-eval-norm" not in data["input_schema"]["$defs"]["Address"]
    assert load_tools(tmp_path)["update_customer"].params.properties["address"].norm is not None


def test_risky_suggestions_are_written_only_when_asked(tmp_path):
    (tmp_path / "t.json").write_text(json.dumps(FORMATS["bare"], indent=2))
    risky = dataclass_replace(suggestion("rule", "status", "set"), risk=Risk(effects_failed=3))
    written, skipped = write_suggestions([risky], load_tools(tmp_path))
    assert written == [] and "risky" in skipped[0].reason
    written, _ = write_suggestions([risky], load_tools(tmp_path), include_risky=True)
    assert [w.key for w in written] == ["x-eval-norm"]


def dataclass_replace(obj: Any, **changes: Any) -> Any:
    import dataclasses

    return dataclasses.replace(obj, **changes)


@pytest.mark.parametrize(
    ("text", "pointer", "error"),
    [
        ('{"a": {"b": 1}}', ("a",), "already has"),
        ('{"a": true}', ("a",), "no schema object"),
    ],
)
def test_what_cannot_be_written_says_why(text, pointer, error):
    key = "b" if error == "already has" else "x"
    with pytest.raises(ValueError, match=error):
        insert_key(text, pointer, key, 1)


def test_an_empty_object_and_escaped_keys(tmp_path: Path):
    assert insert_key('{"p": {}}', ("p",), "default", None) == '{"p": {"default": null}}'
    text = '{"a/b": {"c\\"d": {"x": 1}}}'
    assert json.loads(insert_key(text, ("a/b", 'c"d'), "default", [1, 2])) == {
        "a/b": {'c"d': {"x": 1, "default": [1, 2]}}
    }
