"""The `default` shape: a documented default stated or omitted."""

from . import _examples
from .shape import Shape

SHAPE = Shape(
    name="default",
    kind="false_failure",
    precedence=5,
    meaning="a documented default stated or omitted",
    example=_examples.default,
    param=True,
)
