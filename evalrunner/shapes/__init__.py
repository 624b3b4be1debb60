"""The shapes of a verdict that disagrees with exact-match: one table, in precedence order.

A run can show several shapes of its kind; they are listed in the table's order, and the first
is the run's primary shape (SPEC "Shapes"). The verdict's shape tuples, the table's meaning
lines, the summary's examples and the results schema's enums are derived from this table or
checked against it by a test (`tests/test_registries.py`). How a shape is *detected* lives in
grading (`grade/grader.py`, `grade/compare.py`); how its example reads, in `_examples.py`.

A new shape is a constant, its row in `SHAPES` at its precedence, and its detection in grading.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from . import _examples

ALTERNATE_PATH: Final = "alternate_path"
ERRORED_ATTEMPT: Final = "errored_attempt"
ENCODING: Final = "encoding"
ORDERING: Final = "ordering"
DEFAULT: Final = "default"
UNJUDGED: Final = "unjudged"
FORBIDDEN_CALL: Final = "forbidden_call"
REDUNDANT_CALL: Final = "redundant_call"
REJECTED_CALL: Final = "rejected_call"
EFFECT_FAILED: Final = "effect_failed"

Kind = Literal["false_failure", "false_pass"]


@dataclass(frozen=True)
class Shape:
    name: str
    """As it appears in the results JSON and the table: `encoding`."""
    kind: Kind
    """A false failure (exact-match fails a correct run) or a false pass (it passes a wrong one)."""
    meaning: str
    """One line for the table, read after the name: "same value, another encoding"."""
    example: Callable[[Any, str], str]
    """`example(run_result, name)`: the line that shows it in a run, for the summary's example."""
    param: bool = False
    """A difference in one parameter can show it (an argument's explanation may carry it)."""
    rule_class: bool = False
    """Normalizers of this class (`Normalizer.cls`) absorb differences of this shape."""

    @property
    def precedence(self) -> int:
        """Its place among the shapes of its kind in `SHAPES`: lower wins the primary shape."""
        return of_kind(self.kind).index(self.name)


# fmt: off
SHAPES: Mapping[str, Shape] = {s.name: s for s in (
    # false failures: exact-match fails a correct run
    Shape(ALTERNATE_PATH, "false_failure", "another accepted sequence of calls",
          _examples.alternate),
    Shape(ERRORED_ATTEMPT, "false_failure", "a rejected call, then a correct one",
          _examples.errored),
    Shape(ENCODING, "false_failure", "same value, another encoding", _examples.absorbed,
          param=True, rule_class=True),
    Shape(ORDERING, "false_failure", "a list whose order the tool ignores", _examples.absorbed,
          param=True, rule_class=True),
    Shape(DEFAULT, "false_failure", "a documented default stated or omitted", _examples.default,
          param=True),
    # a difference only in what the team chose not to judge: a free-text parameter declared with
    # the rule `any` or judged by a step's predicate (`matches`, `one_of`), or the reads of a
    # case graded on writes
    Shape(UNJUDGED, "false_failure", "free text or reads the case does not judge",
          _examples.unjudged, param=True, rule_class=True),
    # false passes: exact-match passes a wrong run (an injected payment, a second refund, a loop)
    Shape(FORBIDDEN_CALL, "false_pass", "a call the case forbids", _examples.forbidden),
    Shape(REDUNDANT_CALL, "false_pass", "a correct call repeated (a loop)", _examples.redundant),
    Shape(REJECTED_CALL, "false_pass", "the matching call was rejected", _examples.errored),
    Shape(EFFECT_FAILED, "false_pass", "calls matched, the world is wrong", _examples.effect),
)}
"""Every shape by name: false failures, then false passes, each in precedence order."""
# fmt: on


def of_kind(kind: Kind) -> tuple[str, ...]:
    """The shapes of one kind, in precedence order."""
    return tuple(name for name, s in SHAPES.items() if s.kind == kind)


FALSE_FAILURE_SHAPES = of_kind("false_failure")
FALSE_PASS_SHAPES = of_kind("false_pass")
PARAM_SHAPES = tuple(name for name in FALSE_FAILURE_SHAPES if SHAPES[name].param)
"""The shapes one parameter's difference can carry, in precedence order."""
RULE_CLASSES = tuple(name for name in FALSE_FAILURE_SHAPES if SHAPES[name].rule_class)
"""The classes a normalizer may belong to: the shapes of the differences it absorbs."""

__all__ = [
    "ALTERNATE_PATH",
    "DEFAULT",
    "EFFECT_FAILED",
    "ENCODING",
    "ERRORED_ATTEMPT",
    "FALSE_FAILURE_SHAPES",
    "FALSE_PASS_SHAPES",
    "FORBIDDEN_CALL",
    "ORDERING",
    "PARAM_SHAPES",
    "REDUNDANT_CALL",
    "REJECTED_CALL",
    "RULE_CLASSES",
    "SHAPES",
    "UNJUDGED",
    "Kind",
    "Shape",
    "of_kind",
]
