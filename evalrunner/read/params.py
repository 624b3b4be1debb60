"""A tool's parameter schema as data: the document its `$ref`s resolve in (checked: local,
resolving, no cycle that never describes a value), and the tree of parameters read from it, each
recording where it, its rule and its default are written."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final
from urllib.parse import unquote

from ..jsonvalue import MAX_DEPTH
from ..model import MISSING, InputError, Param
from ..pointer import Loc, json_path, parse_pointer, pointer, resolve
from .annotations import NORM, check_annotations, norm_spec

MAX_PARAMS: Final = 10_000
"""The most parameters one tool's schema may expand to through its `$ref`s.

Real tools have tens; a schema whose `$defs` each refer to the next one twice would expand to
2**n parameters, and the reader would never finish."""


def read_params(schema: dict[str, Any], schema_loc: Loc, where: str) -> Param:
    """A tool's parameter tree from its schema, written at `schema_loc` in its file."""
    return _Reader(_Document(schema, schema_loc, where)).param(schema, schema_loc, "", (), 0)


# ------------------------------------------------------------------------- the schema as data

# The keywords whose value is a schema, a list of schemas, or an object of schemas, in the drafts
# jsonschema knows (4 to 2020-12). True: it applies to the value itself (a `$ref` cycle through
# it never ends); False: to a part of the value (a property, an item), so a cycle through it
# describes recursive data (a tree); None: it holds schemas without applying them (`$defs`).
_ONE: Final[dict[str, bool]] = {
    "not": True,
    "if": True,
    "then": True,
    "else": True,
    "items": False,
    "additionalItems": False,
    "unevaluatedItems": False,
    "contains": False,
    "additionalProperties": False,
    "unevaluatedProperties": False,
    "propertyNames": False,
    "contentSchema": False,
}
_LIST: Final[dict[str, bool]] = {
    "allOf": True,
    "anyOf": True,
    "oneOf": True,
    "items": False,
    "prefixItems": False,
}
_MAP: Final[dict[str, bool | None]] = {
    "dependentSchemas": True,
    "dependencies": True,
    "properties": False,
    "patternProperties": False,
    "$defs": None,
    "definitions": None,
}
REF_KEYS: Final = ("$ref", "$dynamicRef", "$recursiveRef")


def _subschemas(
    node: Mapping[str, Any], at: Loc
) -> Iterator[tuple[dict[str, Any], Loc, bool | None]]:
    """The schema objects directly inside `node`, where they are, and whether they apply in place."""
    for key, value in node.items():
        if key in _ONE and isinstance(value, dict):
            yield value, (*at, key), _ONE[key]
        elif key in _LIST and isinstance(value, list):
            for i, sub in enumerate(value):
                if isinstance(sub, dict):
                    yield sub, (*at, key, i), _LIST[key]
        elif key in _MAP and isinstance(value, dict):
            for name, sub in value.items():
                if isinstance(sub, dict):
                    yield sub, (*at, key, name), _MAP[key]


class _Document:
    """One tool's parameter schema: every schema object in it, its anchors, its local `$ref`s.

    Built once per tool, it checks the schema as data before anything reads it: every `$ref`
    (`$dynamicRef`, `$recursiveRef`) anywhere a validator could follow one is local and resolves,
    no `$ref` cycle applies to the same value forever, and no schema object carries an `x-eval-*`
    annotation evalrun does not read.
    """

    def __init__(self, root: dict[str, Any], base: Loc, where: str) -> None:
        self.root = root
        self.base = base
        """Where the schema is in its file: locations below are absolute (`base` + the keys)."""
        self.where = where
        self.anchors: dict[str, tuple[dict[str, Any], Loc]] = {}
        self._index: dict[int, int] = {}
        self._nodes: list[tuple[dict[str, Any], Loc]] = []
        self._visit(root, base)
        for node, at in self._nodes:
            for key in ("$anchor", "$dynamicAnchor", "$id"):
                name = node.get(key)
                if isinstance(name, str) and (key != "$id" or name.startswith("#")):
                    self.anchors.setdefault(name.removeprefix("#"), (node, at))
        # Follow every reference; what a reference reaches is walked like the rest.
        in_place: dict[int, list[int]] = {}
        i = 0
        while i < len(self._nodes):
            node, at = self._nodes[i]
            edges = in_place.setdefault(id(node), [])
            for sub, _, applies in _subschemas(node, at):
                if applies:
                    edges.append(id(sub))
            for key in REF_KEYS:
                if key in node:
                    target, target_at = self.resolve(node[key], key, (*at, key))
                    self._visit(target, target_at)
                    edges.append(id(target))
            check_annotations(node, NORM, at, where)
            i += 1
        self._check_cycles(in_place)

    def _visit(self, node: dict[str, Any], at: Loc) -> None:
        """Add `node` and every schema object below it (iteratively: a schema may nest deep)."""
        stack = [(node, at)]
        while stack:
            node, at = stack.pop()
            if id(node) in self._index:
                continue
            self._index[id(node)] = len(self._nodes)
            self._nodes.append((node, at))
            stack.extend((sub, sub_at) for sub, sub_at, _ in reversed(list(_subschemas(node, at))))

    def resolve(self, ref: Any, key: str, at: Loc) -> tuple[dict[str, Any], Loc]:
        """The schema object a local reference points at, and where it is written."""
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise InputError(
                f"{self.where}: only local $ref ('#/$defs/...') are supported, not {ref!r} "
                f"({key} at {json_path(at)}); inline it: a schema is data, and evalrun never "
                "opens a file or the network for one"
            )
        fragment = unquote(ref[1:])
        target: Any
        if fragment == "" or fragment.startswith("/"):
            try:
                tokens = parse_pointer(fragment)
            except ValueError as e:
                raise InputError(
                    f"{self.where}: {key} {ref!r} is not a valid JSON Pointer: {e}"
                ) from None
            target, steps = self.root, list(self.base)
            for token in tokens:
                # A list index is a number in a location: `allOf[0]`, not `allOf['0']`.
                steps.append(int(token) if isinstance(target, list) and token.isdigit() else token)
                target = resolve(target, (token,))
            loc: Loc = tuple(steps)
        else:
            target, loc = self.anchors.get(fragment, (MISSING, ()))
        if not isinstance(target, dict):
            raise InputError(
                f"{self.where}: {key} {ref!r} does not resolve to a schema in this tool "
                f"(at {json_path(at)})"
            )
        return target, loc

    def _check_cycles(self, in_place: dict[int, list[int]]) -> None:
        """InputError for a cycle of references that applies to the same value forever.

        `{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}` describes nothing:
        checking a value against `a` checks it against `b`, then `a` again. A cycle through a
        property or an item (`children.items` -> the node) describes recursive data and is fine.
        """
        done: set[int] = set()
        for start, _ in self._nodes:
            if id(start) in done:
                continue
            path = [id(start)]
            on_path = {id(start)}
            stack = [iter(in_place.get(id(start), ()))]
            while stack:
                nxt = next(stack[-1], None)
                if nxt is None:
                    stack.pop()
                    finished = path.pop()
                    on_path.discard(finished)
                    done.add(finished)
                    continue
                if nxt in on_path:
                    cycle = [*path[path.index(nxt) :], nxt]
                    chain = " -> ".join(self._pointer(n) for n in cycle)
                    raise InputError(
                        f"{self.where}: $ref cycle {chain}: it refers back to itself without "
                        "ever describing a value, so checking any value against it would never "
                        "end; break the cycle"
                    )
                if nxt not in done:
                    path.append(nxt)
                    on_path.add(nxt)
                    stack.append(iter(in_place.get(nxt, ())))

    def _pointer(self, node_id: int) -> str:
        return pointer(self._nodes[self._index[node_id]][1][len(self.base) :])


# ----------------------------------------------------------------------------- parameter trees

_Flat = tuple[dict[str, Any], dict[str, Loc], dict[str, Loc], tuple[str, ...], int]
"""A flattened schema node: its keys, where each key is written, where each property is written
(the object whose `properties` holds it), the `$ref`s expanded to reach it, and its depth."""


class _Reader:
    """Builds a tool's parameter tree, recording where each parameter, rule and default is written.

    `depth` counts what a validator (and the comparison) recurses through to reach a parameter:
    each level of parameters, each `$ref` followed, each `allOf`/`anyOf` branch merged.
    """

    def __init__(self, document: _Document) -> None:
        self.doc = document
        self.where = document.where
        self.count = 0

    def param(self, node: Any, loc: Loc, path: str, refs: tuple[str, ...], depth: int) -> Param:
        """The Param for a schema node, children included; `refs` are the `$ref`s being expanded."""
        self._deeper(depth, path)
        self.count += 1
        if self.count > MAX_PARAMS:
            raise InputError(
                f"{self.where}: the parameters expand to more than {MAX_PARAMS:,} through their "
                "$refs (a definition that refers to the next one several times doubles at each "
                "level); simplify the schema"
            )
        if not isinstance(node, dict):  # a boolean schema: accepts anything (true) or nothing
            return Param(path=path, schema={}, loc=loc, raw=bool(node))
        resolved = self._deref(node, loc, refs, depth)
        types = self._types(resolved[0], depth, path) if resolved is not None else ()
        flat = self._flatten(node, loc, refs, depth, path)
        if flat is None:  # a recursive $ref already being expanded: an opaque value here
            return Param(path=path, schema={}, loc=loc, raw=node)
        merged, origin, held, refs, depth = flat
        properties = {}
        if isinstance(merged.get("properties"), dict):
            for name, sub in merged["properties"].items():
                child_path = f"{path}.{name}" if path else name
                child_loc = (*held[name], "properties", name)
                properties[name] = self.param(sub, child_loc, child_path, refs, depth + 1)
        items = None
        if isinstance(merged.get("items"), dict):
            items_loc = (*origin["items"], "items")
            items = self.param(merged["items"], items_loc, f"{path}[]", refs, depth + 1)
        return Param(
            path=path,
            schema=merged,
            norm=norm_spec(merged, path, self.where),
            default=merged.get("default", MISSING),
            properties=properties,
            items=items,
            types=types,
            loc=loc,
            raw=node,
            norm_loc=(*origin[NORM], NORM) if NORM in merged else None,
            default_loc=(*origin["default"], "default") if "default" in merged else None,
        )

    def _flatten(
        self, node: dict[str, Any], loc: Loc, refs: tuple[str, ...], depth: int, path: str
    ) -> _Flat | None:
        """Resolve `$ref`, merge `allOf` members and a lone non-null `anyOf`/`oneOf` branch.

        Pydantic writes `Optional[Model]` as `{"anyOf": [{"$ref": ...}, {"type": "null"}]}` and
        older versions wrap refs in `allOf`; the annotations evalrun reads live inside the branch.
        The outer node's own keys win over the merged ones. None when the node is a `$ref` cycle.
        """
        self._deeper(depth, path)
        resolved = self._deref(node, loc, refs, depth)
        if resolved is None:
            return None
        node, origin, refs, depth = resolved
        merged = dict(node)
        held: dict[str, Loc] = {}
        if isinstance(node.get("properties"), dict):
            held = dict.fromkeys(node["properties"], origin["properties"])
        branches: list[tuple[dict[str, Any], Loc]] = []
        if isinstance(node.get("allOf"), list):
            for i, member in enumerate(node["allOf"]):
                if isinstance(member, dict):
                    branches.append((member, (*origin["allOf"], "allOf", i)))
        for key in ("anyOf", "oneOf"):
            options = node.get(key)
            if isinstance(options, list):
                non_null = [
                    (i, b)
                    for i, b in enumerate(options)
                    if isinstance(b, dict) and b.get("type") != "null"
                ]
                if len(non_null) == 1:
                    i, branch = non_null[0]
                    branches.append((branch, (*origin[key], key, i)))
        for branch, branch_loc in branches:
            flat = self._flatten(branch, branch_loc, refs, depth + 1, path)
            if flat is None:
                continue
            values, where, branch_held = flat[:3]
            for key, value in values.items():
                if key == "properties" and isinstance(value, dict):
                    merged["properties"] = {**value, **merged.get("properties", {})}
                    for name in value:
                        held.setdefault(name, branch_held[name])
                elif key not in merged:
                    merged[key] = value
                    origin[key] = where[key]
        return merged, origin, held, refs, depth

    def _deref(
        self, node: dict[str, Any], loc: Loc, refs: tuple[str, ...], depth: int
    ) -> tuple[dict[str, Any], dict[str, Loc], tuple[str, ...], int] | None:
        """`node` with its `$ref` chain merged in (its own keys win), where each key is written."""
        origin = dict.fromkeys(node, loc)
        while "$ref" in node:
            ref = node["$ref"]
            target, target_loc = self.doc.resolve(ref, "$ref", (*origin["$ref"], "$ref"))
            if ref in refs:
                return None
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            origin = {**dict.fromkeys(target, target_loc), **{k: origin[k] for k in siblings}}
            node, refs, depth = {**target, **siblings}, (*refs, ref), depth + 1
        return node, origin, refs, depth

    def _types(self, node: Mapping[str, Any], depth: int, path: str) -> tuple[str, ...]:
        """The JSON types a schema node accepts, from `type` or from its `anyOf`/`oneOf` branches."""
        self._deeper(depth, path)
        found: list[str] = []
        declared = node.get("type")
        if isinstance(declared, str):
            found.append(declared)
        elif isinstance(declared, list):
            found.extend(t for t in declared if isinstance(t, str))
        if not found:
            for key in ("anyOf", "oneOf"):
                for branch in node.get(key, []) if isinstance(node.get(key), list) else []:
                    if isinstance(branch, dict):
                        resolved = self._deref(branch, (), (), depth + 1)
                        inner, hops = (resolved[0], resolved[3]) if resolved else ({}, depth + 1)
                        found.extend(self._types(inner, hops, path))
        return tuple(dict.fromkeys(found))

    def _deeper(self, depth: int, path: str) -> None:
        if depth > MAX_DEPTH:
            raise InputError(
                f"{self.where}: parameter {path or '(root)'!r} is nested more than {MAX_DEPTH} "
                "levels deep (counting each $ref, allOf and anyOf it goes through); evalrun "
                f"reads schemas up to {MAX_DEPTH} levels: flatten it"
            )
