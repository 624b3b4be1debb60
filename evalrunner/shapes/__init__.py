"""The shapes of a verdict that disagrees with exact-match, declared once (one module each).

A new shape is a new module here that defines `SHAPE`, its line in `_MODULES` below, and its
detection in grading.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import (
    alternate_path,
    default,
    effect_failed,
    encoding,
    errored_attempt,
    forbidden_call,
    ordering,
    redundant_call,
    rejected_call,
    unjudged,
)
from .shape import Kind, Shape

_MODULES = (
    alternate_path,
    errored_attempt,
    encoding,
    ordering,
    default,
    unjudged,
    forbidden_call,
    redundant_call,
    rejected_call,
    effect_failed,
)

SHAPES: Mapping[str, Shape] = {
    s.name: s
    for s in sorted((m.SHAPE for m in _MODULES), key=lambda s: (s.kind, s.precedence, s.name))
}
"""Every shape by name: false failures, then false passes, each in precedence order."""


def of_kind(kind: Kind) -> tuple[str, ...]:
    """The shapes of one kind, in precedence order."""
    return tuple(name for name, s in SHAPES.items() if s.kind == kind)


FALSE_FAILURE_SHAPES = of_kind("false_failure")
FALSE_PASS_SHAPES = of_kind("false_pass")
PARAM_SHAPES = tuple(name for name in FALSE_FAILURE_SHAPES if SHAPES[name].param)
"""The shapes one parameter's difference can carry, in precedence order."""
RULE_CLASSES = tuple(name for name in FALSE_FAILURE_SHAPES if SHAPES[name].rule_class)
"""The classes a normalizer may belong to: the shapes of the differences it absorbs."""

__all__ = [
    "FALSE_FAILURE_SHAPES",
    "FALSE_PASS_SHAPES",
    "PARAM_SHAPES",
    "RULE_CLASSES",
    "SHAPES",
    "Kind",
    "Shape",
    "of_kind",
]
