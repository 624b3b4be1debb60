"""The `unjudged` shape: a difference only in what the team chose not to judge: a free-text
parameter (an email body, a message to support) declared with the rule `any` or judged by a
step's predicate (`matches`, `one_of`), or the reads of a case graded on writes."""

from . import _examples
from .shape import Shape

SHAPE = Shape(
    name="unjudged",
    kind="false_failure",
    precedence=6,
    meaning="free text or reads the case does not judge",
    example=_examples.unjudged,
    param=True,
    rule_class=True,
)
