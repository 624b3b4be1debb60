"""`--write`: annotate the tool files in place, changing nothing else in them.

A suggestion is written as one new key (`"x-eval-norm"` or `"default"`) at the end of its
parameter's schema object, inserted into the file's text: every other byte stays as it was, so
key order, indentation, line endings and the formatting of everything else are the file's own.
The inserted key takes the file's manners, read from the object it goes into: on a line of its
own at the indentation of the keys above it in a pretty-printed object (a value that is itself an
object is spread over lines the same way), after `, ` or `,` in an object written on one line,
with the separator after the key that the object already uses (`": "` or `":"`).

Where a parameter's schema node is in its file is found by `schema_pointer`: from where the tool
reader found the tool's schema (`Tool.schema_loc`), then down the parameter's steps (following
`$ref`, `allOf` and a lone `anyOf`/`oneOf` branch as the tool reader does).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..jsonvalue import json_eq
from ..model import InputError, Tool
from ..pointer import parse_pointer
from .model import DefaultSuggestion, RuleSuggestion, Suggestion
from .params import ITEMS, Steps

NORM_KEY = "x-eval-norm"
DEFAULT_KEY = "default"


@dataclass(frozen=True)
class Written:
    """One key written into a tool file."""

    file: Path
    tool: str
    param: str
    key: str
    value: Any
    shared: bool = False
    """The node is a shared definition (under `$defs`): every parameter using it gets the key."""


@dataclass(frozen=True)
class Skipped:
    suggestion: RuleSuggestion | DefaultSuggestion
    reason: str


def write_suggestions(
    suggestions: Iterable[Suggestion], tools: Mapping[str, Tool], *, include_risky: bool = False
) -> tuple[list[Written], list[Skipped]]:
    """Write each `rule` and `default` suggestion without risk (with `include_risky`, those with
    it too) into its tool's file. Alternates and tighten proposals are never written."""
    written: list[Written] = []
    skipped: list[Skipped] = []
    for s in suggestions:
        if not isinstance(s, (RuleSuggestion, DefaultSuggestion)):
            continue
        if s.risk.risky and not include_risky:
            skipped.append(Skipped(s, "risky (--include-risky writes it)"))
            continue
        tool = tools[s.tool]
        if isinstance(s, RuleSuggestion):
            key = NORM_KEY
            value: Any = (
                s.rule.name if not s.rule.options else {"name": s.rule.name, **s.rule.options}
            )
        else:
            key, value = DEFAULT_KEY, s.default
        file = tool_file(tool)
        try:
            text = file.read_bytes().decode("utf-8")  # not read_text: it turns CRLF into LF
        except OSError as e:
            raise InputError(f"{file}: cannot read this tool file: {e.strerror or e}") from None
        pointer = schema_pointer(json.loads(text), tool, s.steps)
        try:
            new_text = insert_key(text, pointer, key, value)
        except ValueError as e:
            skipped.append(Skipped(s, str(e)))
            continue
        try:
            file.write_bytes(new_text.encode("utf-8"))
        except OSError as e:
            raise InputError(f"{file}: cannot write this tool file: {e.strerror or e}") from None
        shared = "$defs" in pointer or "definitions" in pointer
        written.append(Written(file, s.tool, s.param, key, value, shared))
    return written, skipped


# ------------------------------------------------------------------------------ where it is


def tool_file(tool: Tool) -> Path:
    """The file a tool was read from."""
    return Path(tool.file) if tool.file else Path(tool.source)


def schema_pointer(data: Any, tool: Tool, steps: Steps) -> tuple[str, ...]:
    """The JSON Pointer tokens, in the file's JSON `data`, of the schema object of the parameter
    of `tool` at `steps` (the node where its `x-eval-norm` and `default` are read): from the
    tool's schema as the reader located it (`Tool.schema_loc`: in a list, under `tools`, in a
    Gemini tool's `functionDeclarations`, in whichever key its format keeps the schema), then
    down its properties, through local `$ref`s.
    """
    here = tuple(str(token) for token in tool.schema_loc)
    root = here
    for n, step in enumerate(steps):
        holder = _holder(data, root, here, "items" if step is ITEMS else step, set())
        if holder is None:
            raise InputError(f"{tool.source}: no schema for parameter {steps[: n + 1]!r}")
        here = (*holder, "items") if step is ITEMS else (*holder, "properties", step)
    return here


def _at(data: Any, tokens: Sequence[str]) -> Any:
    for t in tokens:
        data = data[int(t)] if isinstance(data, list) else data[t]
    return data


def _holder(
    data: Any, root: tuple[str, ...], tokens: tuple[str, ...], step: str, seen: set[tuple[str, ...]]
) -> tuple[str, ...] | None:
    """The schema object, from `tokens` through `$ref`s and merged branches, that declares
    property `step` (or `items`), in the order the tool reader merges them: the node's own
    keys first, then its `$ref` target, `allOf` members, and a lone non-null `anyOf`/`oneOf`."""
    if tokens in seen:
        return None
    seen.add(tokens)
    node = _at(data, tokens)
    if not isinstance(node, dict):
        return None
    if step == "items":
        if isinstance(node.get("items"), dict):
            return tokens
    elif isinstance(node.get("properties"), dict) and step in node["properties"]:
        return tokens
    branches: list[tuple[str, ...]] = []
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#"):
        branches.append((*root, *parse_pointer(ref[1:])))
    if isinstance(node.get("allOf"), list):
        branches.extend((*tokens, "allOf", str(i)) for i in range(len(node["allOf"])))
    for key in ("anyOf", "oneOf"):
        options = node.get(key)
        if isinstance(options, list):
            real = [
                i for i, b in enumerate(options) if isinstance(b, dict) and b.get("type") != "null"
            ]
            if len(real) == 1:
                branches.append((*tokens, key, str(real[0])))
    for branch in branches:
        found = _holder(data, root, branch, step, seen)
        if found is not None:
            return found
    return None


# ------------------------------------------------------------------------------ the text


@dataclass
class _Obj:
    start: int
    """The offset of `{`."""
    end: int
    """The offset of `}`."""
    members: list[tuple[int, int, int, int]]
    """(key start, key end, value start, value end) of each member, in order."""


class _Spans:
    """A JSON text parsed for where its objects are: pointer tokens -> `_Obj`."""

    _WS = re.compile(r"[ \t\r\n]*")
    _STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
    _SCALAR = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")

    def __init__(self, text: str) -> None:
        self.text = text
        self.objects: dict[tuple[str, ...], _Obj] = {}
        end = self._value(self._skip(0), ())
        if self._skip(end) != len(text):
            raise ValueError("trailing text after the JSON value")

    def _skip(self, i: int) -> int:
        m = self._WS.match(self.text, i)
        return m.end() if m else i

    def _value(self, i: int, at: tuple[str, ...]) -> int:
        c = self.text[i : i + 1]
        if c == "{":
            return self._object(i, at)
        if c == "[":
            j, n = self._skip(i + 1), 0
            if self.text[j] == "]":
                return j + 1
            while True:
                j = self._skip(self._value(j, (*at, str(n))))
                n += 1
                if self.text[j] == "]":
                    return j + 1
                j = self._skip(j + 1)  # ','
        m = (self._STRING if c == '"' else self._SCALAR).match(self.text, i)
        if m is None:
            raise ValueError(f"not JSON at offset {i}")
        return m.end()

    def _object(self, i: int, at: tuple[str, ...]) -> int:
        obj = _Obj(i, -1, [])
        j = self._skip(i + 1)
        while self.text[j] != "}":
            m = self._STRING.match(self.text, j)
            if m is None:
                raise ValueError(f"not JSON at offset {j}")
            key = json.loads(m.group(0))
            colon = self._skip(m.end())
            v = self._skip(colon + 1)
            end = self._value(v, (*at, key))
            obj.members.append((j, m.end(), v, end))
            j = self._skip(end)
            if self.text[j] == ",":
                j = self._skip(j + 1)
        obj.end = j
        self.objects[at] = obj
        return j + 1


def insert_key(text: str, pointer: Sequence[str], key: str, value: Any) -> str:
    """`text` with `"key": value` added at the end of the object at `pointer`, in the text's
    own style; ValueError when there is no object there or it has the key already."""
    spans = _Spans(text)
    obj = spans.objects.get(tuple(pointer))
    if obj is None:
        raise ValueError(f"no schema object at /{'/'.join(pointer)} (a boolean schema?)")
    data = json.loads(text)
    node = _at(data, pointer)
    if key in node:
        raise ValueError(f"the schema already has {key!r}")
    newline = "\r\n" if "\r\n" in text else "\n"
    if obj.members:
        k_start, k_end, v_start, v_end = obj.members[-1]
        colon = text[k_end:v_start]  # '": "' is '":' plus its spacing: keep the object's own
        multiline = "\n" in text[obj.start : obj.members[0][0]]
        if multiline:
            indent = _indent_of(text, k_start)
            unit = _unit(indent, _indent_of(text, obj.start))
            rendered = _render(value, colon, indent, unit, newline)
            insertion = f",{newline}{indent}{json.dumps(key)}{colon}{rendered}"
        else:
            gap = _gap(text, obj)
            insertion = f",{gap}{json.dumps(key)}{colon}{_render(value, colon, None, '', newline)}"
        new = text[:v_end] + insertion + text[v_end:]
    else:
        body = f"{json.dumps(key)}: {_render(value, ': ', None, '', newline)}"
        new = text[: obj.start + 1] + body + text[obj.end :]
    check = json.loads(new)
    expected = json.loads(text)
    _at(expected, pointer)[key] = value
    if not json_eq(check, expected):  # pragma: no cover (a bug here must not corrupt a file)
        raise ValueError("the edit did not produce the expected JSON; the file is left as it was")
    return new


def _indent_of(text: str, offset: int) -> str:
    line_start = text.rfind("\n", 0, offset) + 1
    m = re.match(r"[ \t]*", text[line_start:offset])
    return m.group(0) if m else ""


def _unit(inner: str, outer: str) -> str:
    """One level of indentation: what the members add to their object's own line."""
    if inner.startswith(outer) and len(inner) > len(outer):
        return inner[len(outer) :]
    return "\t" if inner.startswith("\t") else "  "


def _gap(text: str, obj: _Obj) -> str:
    """What follows a comma between two members of a one-line object (`" "` or nothing)."""
    if len(obj.members) >= 2:
        between = text[obj.members[0][3] : obj.members[1][0]]
        return between.replace(",", "", 1)
    after = text[obj.start + 1 : obj.members[0][0]]
    return " " if after or ": " in text else ""


def _render(value: Any, colon: str, indent: str | None, unit: str, newline: str) -> str:
    """A JSON value as the file writes its own: spread over lines under `indent` when the
    object it goes into is (`indent` not None), else on one line with the file's spacing."""
    spaced = colon.endswith(" ")
    if indent is None or not isinstance(value, (dict, list)) or not value:
        separators = (", ", ": ") if spaced else (",", ":")
        return json.dumps(value, ensure_ascii=False, separators=separators)
    colon_sep = ": " if spaced else ":"
    text = json.dumps(value, ensure_ascii=False, indent=unit or 2, separators=(",", colon_sep))
    return text.replace("\n", newline + indent)
