"""The quick meta-schema check (`read/schema_quick.py`): its yes must never be a schema
jsonschema refuses. Its no is only a referral to jsonschema, so it is not held to anything but
being said for every schema it cannot vouch for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalrunner.read.schema_quick import surely_valid
from tests.conftest import ROOT


def _valid(schema: Any) -> bool:
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError:
        return False
    return True


# values of every kind, the wrong ones included: the law is about what the quick check says yes to
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["string", "integer", "object", "x", "", "^a+$", "(", "#/$defs/A", "#/a b"]),
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)
_KEYWORDS = [
    "type", "properties", "items", "additionalProperties", "required", "enum", "const",
    "default", "examples", "title", "description", "$comment", "format", "pattern",
    "deprecated", "readOnly", "writeOnly", "uniqueItems", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems",
    "maxItems", "minProperties", "maxProperties", "$defs", "definitions", "$ref", "anyOf",
    "allOf", "oneOf", "not", "patternProperties", "$schema", "dependentRequired", "x-eval-norm",
]  # fmt: skip


def _schemas(depth: int = 2) -> st.SearchStrategy[Any]:
    inner = _schemas(depth - 1) if depth else st.booleans()
    value = st.one_of(
        _values,
        inner,
        st.lists(inner, max_size=2),
        st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2),
        st.lists(st.sampled_from(["string", "null", "integer", "a"]), max_size=3),
    )
    return st.dictionaries(st.sampled_from(_KEYWORDS), value, max_size=4)


@given(_schemas())
def test_a_quick_yes_is_a_schema_jsonschema_accepts(schema):
    if surely_valid(schema):
        assert _valid(schema), schema


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "strin"},
        {"type": []},
        {"type": ["string", "string"]},
        {"required": ["a", "a"]},
        {"required": "a"},
        {"properties": {"a": {"type": "nope"}}},
        {"properties": {"a": 1}},
        {"items": [{"type": "string"}]},
        {"minLength": -1},
        {"minLength": 1.5},
        {"multipleOf": 0},
        {"enum": "a"},
        {"pattern": "("},
        {"anyOf": []},
        {"$ref": 3},
        {"examples": "a"},
        {"properties": {"a": {"allOf": [{"minimum": "1"}]}}},
    ],
)
def test_what_jsonschema_refuses_is_never_a_quick_yes(schema):
    assert not _valid(schema)
    assert not surely_valid(schema)


@pytest.mark.parametrize(
    "schema",
    [
        {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"},
        {"patternProperties": {"^a": {}}},
        {"$ref": "other.json#/a"},
        {"$ref": "#/a b"},
        {"minLength": 1.0},  # jsonschema's integer: the quick check does not know 1.0 is one
    ],
)
def test_what_the_quick_check_cannot_vouch_for_goes_to_jsonschema(schema):
    assert not surely_valid(schema)


def _tool_schemas(pattern: str) -> list[Any]:
    found = []
    for path in sorted(ROOT.glob(pattern)):
        try:
            data = json.loads(Path(path).read_text())
        except (ValueError, UnicodeDecodeError):
            continue  # the test data holds broken tool files on purpose
        tools = data if isinstance(data, list) else data.get("tools", [data])
        for tool in tools if isinstance(tools, list) else []:
            inner = tool.get("function", tool) if isinstance(tool, dict) else None
            for key in ("input_schema", "inputSchema", "parameters"):
                if isinstance(inner, dict) and isinstance(inner.get(key), dict):
                    found.append(inner[key])
    return found


def test_the_example_tools_take_the_quick_path_and_are_valid():
    """Every tool of the example corpus (pydantic's `$defs`/`$ref`/`anyOf` among them) is told
    valid without jsonschema, and jsonschema agrees; so does every quick yes in the test data."""
    example = _tool_schemas("tools/*.json")
    assert len(example) >= 30 and all(surely_valid(s) and _valid(s) for s in example)
    data = _tool_schemas("tests/data/**/*.json")
    assert data and all(_valid(s) for s in data if surely_valid(s))
