"""JSON values as evalrun compares them.

JSON equality: objects compare without regard to key order, lists in order, numbers by value
(`1 == 1.0`), and `true`, `false` and `null` are never numbers. Python's own `==` says
`True == 1`, so it cannot be used on its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

import orjson

from . import core


class _Missing:
    """The absence of a value: "no default declared" is not "the default is null"."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "MISSING"  # pickles as the module-level singleton (worker processes keep `is`)


MISSING: Final[Any] = _Missing()
"""The one absent value: `Param.default` when none is declared, `Run.world` when none is recorded."""


MAX_DEPTH: Final = 64
"""The deepest nesting of objects and lists evalrun reads in a value (a scalar is 0, `[1]` is 1).

Real tool arguments and schemas nest a handful of levels (pydantic models go through `$defs`, so a
schema's own nesting stays shallow): 64 leaves room for ten times that. The code that handles a
value cannot take much more: `canon_key`, `json_eq` and jsonschema recurse on every level
(jsonschema about seven frames a level, against Python's limit of 1,000 frames for the whole
stack), and orjson refuses to write more than 255 levels, so a value nested 250 deep could be read
but its results JSON (which wraps it in a few levels of its own) never written.
"""
RECORD_DEPTH: Final = MAX_DEPTH + 16
"""The deepest trace record read: its values may nest `MAX_DEPTH` levels inside the record's own
(a run's calls, a span batch's resource, scope, span and attribute levels)."""


def py_json_eq(a: Any, b: Any) -> bool:
    """JSON equality (see the module docstring): the reference; `json_eq` is the active core's."""
    ta, tb = type(a), type(b)
    if ta is dict:
        if tb is not dict or len(a) != len(b):
            return False
        for k, v in a.items():
            if k not in b or not py_json_eq(v, b[k]):
                return False
        return True
    if ta is list:
        if tb is not list or len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if not py_json_eq(x, y):
                return False
        return True
    if ta is bool or tb is bool:
        return ta is tb and a == b
    if tb is dict or tb is list:
        return False
    return bool(a == b)


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether `value` nests objects and lists more than `limit` levels deep.

    Iterative, so that it answers for any value `orjson` can parse, however deep.
    """
    stack: list[tuple[Any, int]] = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def py_canon_key(v: Any) -> Any:
    """A hashable, orderable key with `canon_key(a) == canon_key(b)` exactly when `json_eq(a, b)`.

    It orders values of different JSON types by type first, so any list of JSON values sorts.
    The reference; `canon_key` is the active core's (the native one returns equal keys, of the
    same types, so keys from both compare, hash and sort together).
    """
    t = type(v)
    if t is str:
        return (3, v)
    if t is int or t is float:
        return (2, v)
    if t is bool:
        return (1, v)
    if v is None:
        return (0,)
    if t is dict:
        return (5, tuple(sorted([(k, py_canon_key(x)) for k, x in v.items()])))
    if t is list:
        return (4, tuple([py_canon_key(x) for x in v]))
    return (6, type(v).__name__, repr(v))  # not JSON (a plugin's output): equal by repr


json_eq: Callable[[Any, Any], bool] = py_json_eq
canon_key: Callable[[Any], Any] = py_canon_key
if core.NATIVE is not None:
    json_eq = core.NATIVE.json_eq
    canon_key = core.NATIVE.canon_key


def json_kind(value: Any) -> str:
    """The JSON type of a value, with its article, for messages: "a list", "null"."""
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def short_json(value: Any, limit: int = 40) -> str:
    """A value as compact JSON for a message or a table cell, cut to `limit` characters."""
    if value is MISSING:
        return "(absent)"
    text = dumps(value, default=repr, option=orjson.OPT_SORT_KEYS).decode()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def kept(data: bytes) -> bytes:
    """`data` in a bytes object of its own size, for keeping.

    orjson.dumps returns bytes that pin a buffer of about 4 KiB however short the JSON (measured:
    100,000 kept results held 405 MB, their copies 7 MB): copy what a cache keeps.
    """
    return bytes(memoryview(data))


# One pass over the text tells whether it may hold an integer orjson reads wrongly: digits map to
# "0" (other bytes stay), so 20 zeros in a row may be an integer beyond 64 bits, and a minus sign
# before 19 of them one below -2**63 (orjson reads -9223372036854775809 as a float); "[" and "{"
# map to "(", so counting "(" bounds how deep the text may nest.
_SCAN = bytes.maketrans(b"0123456789[{", b"0000000000((")
_BIG = b"0" * 20
_BIG_NEGATIVE = b"-" + b"0" * 19


def py_scan_json(data: bytes) -> tuple[bool, int]:
    """(whether `data` may hold an integer orjson reads wrongly, how many `[`, `{` and `(` it
    holds, an upper bound on its nesting): the reference; `scan_json` is the active core's."""
    scanned = data.translate(_SCAN)
    return may_hold_big_int(scanned), scanned.count(b"(")


scan_json: Callable[[bytes], tuple[bool, int]] = py_scan_json
if core.NATIVE is not None:
    scan_json = core.NATIVE.scan_json


def may_hold_big_int(scanned: bytes) -> bool:
    """Whether text whose digits were mapped by `_SCAN` (or any table that maps them to "0" and
    keeps "-") may hold an integer that does not fit orjson's range."""
    return _BIG in scanned or _BIG_NEGATIVE in scanned


def loads(data: bytes | str) -> Any:
    """JSON text read exactly, for every input a user writes (tool, case and trace files, and the
    JSON text inside them such as a call's `arguments` string).

    orjson reads an integer beyond 64 bits as a float (18446744073709551617 becomes ...616), so
    text that may hold one is read with the standard parser, which keeps big integers; `NaN` and
    `Infinity` are refused there as orjson refuses them. Raises ValueError (orjson's
    JSONDecodeError is one) when the text is not JSON or nests too deep to parse.
    """
    raw = data.encode() if isinstance(data, str) else data
    if not scan_json(raw)[0]:
        return orjson.loads(raw)
    return loads_exact(raw)


def decoded(value: Any) -> Any:
    """A value that may be JSON text (a framework that stores every attribute as JSON: MLflow,
    CrewAI's event arguments), decoded; text that is not JSON, and any other value, as it is."""
    if type(value) is str:
        try:
            return loads(value)
        except ValueError:
            return value
    return value


def loads_exact(raw: bytes) -> Any:
    """JSON text read with the standard parser, which keeps integers beyond 64 bits (`loads`
    takes it when a scan says the text may hold one). ValueError as `loads`; nesting beyond the
    parser's depth says "depth"."""
    try:
        value = json.loads(raw, parse_constant=_not_json_constant)
    except RecursionError:
        raise ValueError("JSON nested beyond the parser's depth") from None
    if not _utf8(value):
        # orjson refuses a lone surrogate (`"\ud800"`) and so must this reader, which lets one
        # through: the same line must not be read or refused by whether it holds a big integer
        # (nor crash every writer, which cannot encode it).
        raise ValueError("a string holds a lone surrogate, which is not Unicode text")
    return value


def _utf8(value: Any) -> bool:
    """Whether every string in `value` (keys too) is Unicode text that UTF-8 can write."""
    stack = [value]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is str:
            if not v.isascii():
                try:
                    v.encode()
                except UnicodeEncodeError:
                    return False
        elif t is dict:
            stack.extend(v)
            stack.extend(v.values())
        elif t is list:
            stack.extend(v)
    return True


def _not_json_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def dumps(value: Any, option: int = 0, default: Any = None) -> bytes:
    """`orjson.dumps`, except that an integer beyond 64 bits (read exactly by `loads`) is written
    as the number it is: orjson refuses it, so such a value is written again with those integers
    as raw JSON text. Every value that came from a user's files is written through this."""
    try:
        return orjson.dumps(value, option=option, default=default)
    except TypeError as e:
        if "64-bit" not in str(e):
            raise
        return orjson.dumps(_big_ints(value), option=option, default=default)


def _big_ints(value: Any) -> Any:
    if type(value) is int and not -(2**63) <= value < 2**64:
        return orjson.Fragment(str(value).encode())
    if type(value) is dict:
        return {k: _big_ints(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return [_big_ints(v) for v in value]
    return value
