"""The `unjudged` shape: a difference only in a free-text parameter the team chose not to judge
(an email body, a message to support), declared with the rule `any`."""

from . import _examples
from .shape import Shape

SHAPE = Shape(
    name="unjudged",
    kind="false_failure",
    precedence=6,
    meaning="free text worded otherwise (rule any)",
    example=_examples.unjudged,
    param=True,
    rule_class=True,
)
