"""A quick yes for the parameter schemas most tools have, so that reading tools need not import
jsonschema to check them against the meta-schema.

`surely_valid(schema)` is True only for a schema that draft 2020-12's meta-schema accepts: one
written with the keywords of `_CHECKS` alone (a `$ref` only to a place inside it, in plain
characters) (and keywords the meta-schema does not know, such as
`x-eval-norm`, which it allows with any value), each with a value of the kind the meta-schema
asks for. Anything else, and every schema with `$schema`, `patternProperties` and the rest of the
vocabulary it does not check, answers False: the caller then asks jsonschema, which says exactly
what is wrong. A False is never an error, so this may be as narrow as it likes; a True must never
pass a schema jsonschema would refuse (tests/test_schema_quick.py holds it to that).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})


def _schema(value: Any) -> bool:
    if type(value) is bool:
        return True
    if type(value) is not dict:
        return False
    for key, item in value.items():
        check = _CHECKS.get(key)
        if check is not None:
            if not check(item):
                return False
        elif key in _VOCABULARY:
            return False  # a keyword the meta-schema constrains that is not checked here
    return True


def _type(value: Any) -> bool:
    if type(value) is str:
        return value in _TYPES
    return (
        type(value) is list
        and len(value) > 0
        and all(type(t) is str and t in _TYPES for t in value)
        and len(set(value)) == len(value)
    )


def _string(value: Any) -> bool:
    return type(value) is str


def _boolean(value: Any) -> bool:
    return type(value) is bool


def _number(value: Any) -> bool:
    return type(value) is int or (type(value) is float and value == value)


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _positive(value: Any) -> bool:
    return _number(value) and value > 0


def _array(value: Any) -> bool:
    return type(value) is list


def _names(value: Any) -> bool:
    return (
        type(value) is list and all(type(n) is str for n in value) and len(set(value)) == len(value)
    )


def _properties(value: Any) -> bool:
    return type(value) is dict and all(_schema(s) for s in value.values())


def _schemas(value: Any) -> bool:
    """The meta-schema's `schemaArray`: a non-empty list of schemas."""
    return type(value) is list and len(value) > 0 and all(_schema(s) for s in value)


_LOCAL_REF = re.compile(r"#(?:/(?:[A-Za-z0-9_.~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})+)*")
"""A `$ref` to a place inside the schema: a fragment of RFC 3986 `pchar`s, which every
URI-reference reading allows."""


def _ref(value: Any) -> bool:
    return type(value) is str and _LOCAL_REF.fullmatch(value) is not None


def _regex(value: Any) -> bool:
    """What the meta-schema's `"format": "regex"` asks, as jsonschema checks it (`re.compile`)."""
    if type(value) is not str:
        return False
    try:
        re.compile(value)
    except (re.error, RecursionError, OverflowError, ValueError):
        return False
    return True


def _anything(value: Any) -> bool:
    return True


_CHECKS: dict[str, Callable[[Any], bool]] = {
    "type": _type,
    "properties": _properties,
    "items": _schema,
    "additionalProperties": _schema,
    "$defs": _properties,
    "definitions": _properties,
    "$ref": _ref,
    "anyOf": _schemas,
    "allOf": _schemas,
    "oneOf": _schemas,
    "not": _schema,
    "required": _names,
    "enum": _array,
    "const": _anything,
    "default": _anything,
    "examples": _array,
    "title": _string,
    "description": _string,
    "$comment": _string,
    "format": _string,
    "pattern": _regex,
    "deprecated": _boolean,
    "readOnly": _boolean,
    "writeOnly": _boolean,
    "uniqueItems": _boolean,
    "minimum": _number,
    "maximum": _number,
    "exclusiveMinimum": _number,
    "exclusiveMaximum": _number,
    "multipleOf": _positive,
    "minLength": _count,
    "maxLength": _count,
    "minItems": _count,
    "maxItems": _count,
    "minProperties": _count,
    "maxProperties": _count,
}

# Every keyword draft 2020-12's meta-schema says anything about (its vocabularies, and the older
# keywords it still constrains): one of these that `_CHECKS` does not check sends the schema to
# jsonschema.
_VOCABULARY = frozenset(
    {
        # core
        "$id", "$schema", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary",
        "$comment", "$defs",
        # applicator
        "prefixItems", "items", "contains", "additionalProperties", "properties",
        "patternProperties", "dependentSchemas", "propertyNames", "if", "then", "else", "allOf",
        "anyOf", "oneOf", "not",
        # unevaluated
        "unevaluatedItems", "unevaluatedProperties",
        # validation
        "type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
        "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
        "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required",
        "dependentRequired",
        # meta-data, format, content
        "title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
        "format", "contentEncoding", "contentMediaType", "contentSchema",
        # kept by the 2020-12 meta-schema for older schemas
        "definitions", "dependencies", "$recursiveAnchor", "$recursiveRef",
    }
)  # fmt: skip


def surely_valid(schema: dict[str, Any]) -> bool:
    """Whether `schema` is certainly valid under draft 2020-12's meta-schema (see the module)."""
    return _schema(schema)
