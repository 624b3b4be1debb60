"""The `rejected_call` shape: the matching call was rejected."""

from . import _examples
from .shape import Shape

SHAPE = Shape(
    name="rejected_call",
    kind="false_pass",
    precedence=2,
    meaning="the matching call was rejected",
    example=_examples.errored,
)
