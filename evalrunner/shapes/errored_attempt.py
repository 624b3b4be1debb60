"""The `errored_attempt` shape: a rejected call, then a correct one."""

from . import _examples
from .shape import Shape

SHAPE = Shape(
    name="errored_attempt",
    kind="false_failure",
    precedence=2,
    meaning="a rejected call, then a correct one",
    example=_examples.errored,
)
