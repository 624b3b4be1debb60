"""Validate values against a tool's schema: nothing fetched, nothing opened, nothing that hangs.

jsonschema's validators fetch any URL a `$ref` names (and read `file://` ones), and search
`pattern`s with Python's backtracking `re`, where `^(a|aa)+$` takes minutes on forty characters.
The tool reader already refuses non-local references; the validators built here hold the schema
document alone, in a registry whose retrieval refuses, so nothing can be fetched even if a
reference slipped past the reader. Their `pattern` and `patternProperties` checks (and the
`additionalProperties` check, which consults `patternProperties`) search with the `regex` module
and a time limit: a search that takes longer is not finished but reported, and the value is taken
to match, so that it raises no error it may not deserve.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import jsonschema
import referencing
import referencing.exceptions
import regex
from jsonschema.exceptions import ValidationError
from jsonschema.validators import extend, validator_for

from ..model import InputError
from ..pointer import Loc

PATTERN_TIMEOUT: Final = 1.0
"""Seconds one `pattern` search may take. An honest pattern answers in microseconds on an
argument; one that takes a second backtracks catastrophically, and would take minutes."""


def _refuse(uri: str) -> referencing.Resource[Any]:
    # referencing's exceptions and Registry are attrs classes, whose fields mypy cannot see.
    raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]


@dataclass(eq=False, slots=True)
class _Patterns:
    """The pattern searches of one tool's validator: compiled once, bounded in time."""

    compiled: dict[str, Any] = field(default_factory=dict)
    slow: set[str] = field(default_factory=set)
    """Patterns that ran out of time once: searching them again would only take the time again."""
    unchecked: dict[str, str] = field(default_factory=dict)
    """What the current check could not finish (by pattern), said for a reader: the first reason."""

    def search(self, pattern: str, text: str) -> bool:
        """Whether `pattern` matches somewhere in `text`; True when that cannot be told in time."""
        if pattern in self.slow:
            self.unchecked.setdefault(
                pattern, f"pattern {pattern!r} (it took over {PATTERN_TIMEOUT:g} s before)"
            )
            return True
        compiled = self.compiled.get(pattern)
        if compiled is None:
            try:
                compiled = self.compiled[pattern] = regex.compile(pattern)
            except (regex.error, RecursionError, OverflowError):
                self.unchecked.setdefault(
                    pattern, f"pattern {pattern!r} (the regex engine cannot read it)"
                )
                return True
        try:
            return compiled.search(text, timeout=PATTERN_TIMEOUT) is not None
        except TimeoutError:
            self.slow.add(pattern)
            self.unchecked.setdefault(
                pattern,
                f"pattern {pattern!r} (it took over {PATTERN_TIMEOUT:g} s on {text[:40]!r}: "
                "catastrophic backtracking)",
            )
            return True


@dataclass(frozen=True, slots=True)
class Check:
    """The outcome of validating one value: the schema's errors, and what could not be checked."""

    errors: tuple[ValidationError, ...]
    unchecked: tuple[str, ...] = ()


class SchemaValidator:
    """Validates values against one tool's parameter schema, or a node of it."""

    def __init__(self, schema: Mapping[str, Any], where: str) -> None:
        self.where = where
        self.root = _one_dialect(schema)
        self._patterns = _Patterns()
        cls = validator_for(self.root, default=jsonschema.Draft202012Validator)
        bounded = _bounded(cls, self._patterns, _has_pattern_properties(self.root))
        # The document alone: `resolver_with_root` adds it, and retrieval refuses everything else.
        sealed = referencing.Registry(retrieve=_refuse)  # type: ignore[call-arg]
        self._validator = bounded(self.root, registry=sealed)

    def check(self, instance: Any, at: Loc = ()) -> Check:
        """Validate `instance` against the schema node at `at` (keys below the schema's root).

        Errors come sorted by where they are in the instance.
        """
        node: Any = self.root
        for key in at:
            node = node[key]
        validator = self._validator if not at else self._validator.evolve(schema=node)
        self._patterns.unchecked.clear()
        try:
            errors = sorted(
                validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))
            )
        except referencing.exceptions.Unresolvable as e:
            # The reader resolves every reference against the schema's root; a nested `$id`
            # moves the base of the references inside it, and the validator then misses one.
            raise InputError(
                f"{self.where}: a reference in the parameters cannot be resolved when validating "
                f"({e}); nested $id are not supported: remove them"
            ) from None
        except RecursionError:
            raise InputError(
                f"{self.where}: validating a value against the parameters recurses too deep "
                "(a recursive schema through many $refs, and a deeply nested value)"
            ) from None
        return Check(tuple(errors), tuple(self._patterns.unchecked.values()))


def _one_dialect(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `schema` without `$schema` below its root.

    jsonschema picks a validator class anew for a subschema that names its `$schema`, and that
    class would search patterns with `re` again: the whole document is read in its root's draft.
    """

    def strip(value: Any, root: bool) -> Any:
        if isinstance(value, dict):
            return {k: strip(v, False) for k, v in value.items() if root or k != "$schema"}
        if isinstance(value, list):
            return [strip(v, False) for v in value]
        return value

    copied: dict[str, Any] = strip(schema, True)  # the reader bounded its depth (MAX_DEPTH)
    return copied


def _bounded(cls: Any, patterns: _Patterns, pattern_properties_anywhere: bool) -> Any:
    """`cls` with every keyword that searches a pattern searching through `patterns`."""

    def pattern(
        validator: Any, patrn: str, instance: Any, schema: Any
    ) -> Iterator[ValidationError]:
        if validator.is_type(instance, "string") and not patterns.search(patrn, instance):
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    def pattern_properties(
        validator: Any, pattern_properties: Any, instance: Any, schema: Any
    ) -> Iterator[ValidationError]:
        if not validator.is_type(instance, "object"):
            return
        for patrn, subschema in pattern_properties.items():
            for k, v in instance.items():
                if patterns.search(patrn, k):
                    yield from validator.descend(v, subschema, path=k, schema_path=patrn)

    def additional_properties(
        validator: Any, additional: Any, instance: Any, schema: Any
    ) -> Iterator[ValidationError]:
        # jsonschema's own, with its `re.search` over the patternProperties replaced.
        if not validator.is_type(instance, "object"):
            return
        properties = schema.get("properties", {})
        regexes = list(schema.get("patternProperties", {}))
        extras = {
            k
            for k in instance
            if k not in properties and not any(patterns.search(p, k) for p in regexes)
        }
        if validator.is_type(additional, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], additional, path=extra)
        elif not additional and extras:
            if "patternProperties" in schema:
                verb = "does" if len(extras) == 1 else "do"
                joined = ", ".join(repr(each) for each in sorted(extras))
                listed = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
                yield ValidationError(f"{joined} {verb} not match any of the regexes: {listed}")
            else:
                listed = ", ".join(repr(each) for each in sorted(extras, key=str))
                verb = "was" if len(extras) == 1 else "were"
                yield ValidationError(
                    f"Additional properties are not allowed ({listed} {verb} unexpected)"
                )

    stock = cls.VALIDATORS.get("unevaluatedProperties")

    def unevaluated_properties(
        validator: Any, unevaluated: Any, instance: Any, schema: Any
    ) -> Iterator[ValidationError]:
        # jsonschema decides which properties were evaluated with `re.search` over every
        # patternProperties the value meets; beside patternProperties the keyword is left out.
        if pattern_properties_anywhere:
            patterns.unchecked.setdefault(
                "unevaluatedProperties",
                "unevaluatedProperties (beside patternProperties, it would search them with a "
                "backtracking regex engine)",
            )
            return
        yield from stock(validator, unevaluated, instance, schema)

    keywords = {
        "pattern": pattern,
        "patternProperties": pattern_properties,
        "additionalProperties": additional_properties,
    }
    if stock is not None:
        keywords["unevaluatedProperties"] = unevaluated_properties
    chosen = {k: v for k, v in keywords.items() if k in cls.VALIDATORS}
    return extend(cls, chosen)  # type: ignore[no-untyped-call]


def _has_pattern_properties(schema: Any) -> bool:
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "patternProperties" in node:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False
