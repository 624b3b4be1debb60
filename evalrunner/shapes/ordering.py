"""The `ordering` shape: a list whose order the tool ignores."""

from . import _examples
from .shape import Shape

SHAPE = Shape(
    name="ordering",
    kind="false_failure",
    precedence=4,
    meaning="a list whose order the tool ignores",
    example=_examples.absorbed,
    param=True,
    rule_class=True,
)
