"""The `encoding` shape: same value, another encoding."""

from . import _examples
from .shape import Shape

SHAPE = Shape(
    name="encoding",
    kind="false_failure",
    precedence=3,
    meaning="same value, another encoding",
    example=_examples.absorbed,
    param=True,
    rule_class=True,
)
