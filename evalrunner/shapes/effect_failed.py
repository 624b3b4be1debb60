"""The `effect_failed` shape: calls matched, the world is wrong."""

from . import _examples
from .shape import Shape

SHAPE = Shape(
    name="effect_failed",
    kind="false_pass",
    precedence=3,
    meaning="calls matched, the world is wrong",
    example=_examples.effect,
)
