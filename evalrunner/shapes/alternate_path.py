"""The `alternate_path` shape: another accepted sequence of calls."""

from . import _examples
from .shape import Shape

SHAPE = Shape(
    name="alternate_path",
    kind="false_failure",
    precedence=1,
    meaning="another accepted sequence of calls",
    example=_examples.alternate,
)
