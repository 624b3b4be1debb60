"""The `forbidden_call` shape: a call the case forbids (an injected payment, a second refund)."""

from . import _examples
from .shape import Shape

SHAPE = Shape(
    name="forbidden_call",
    kind="false_pass",
    precedence=0,
    meaning="a call the case forbids",
    example=_examples.forbidden,
)
