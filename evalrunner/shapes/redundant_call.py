"""The `redundant_call` shape: a correct call repeated (a loop)."""

from . import _examples
from .shape import Shape

SHAPE = Shape(
    name="redundant_call",
    kind="false_pass",
    precedence=1,
    meaning="a correct call repeated (a loop)",
    example=_examples.redundant,
)
