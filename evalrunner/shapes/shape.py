"""What a shape declares about itself, once: its name, whether it explains a false failure or a
false pass, its precedence, what it means, and how its example reads.

Each shape is one module in this package that defines `SHAPE = Shape(...)`; the registry
(`__init__.py`) collects them. The verdict model's shape tuples, the table's meaning lines, the
summary's examples and the results schema's enums are derived from it or checked against it by a
test. How a shape is *detected* lives in grading (`score.py`, `compare.py`), which is the one
place that needs to know.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["false_failure", "false_pass"]


@dataclass(frozen=True)
class Shape:
    name: str
    """As it appears in the results JSON and the table: `encoding`."""
    kind: Kind
    """A false failure (exact-match fails a correct run) or a false pass (it passes a wrong one)."""
    precedence: int
    """Among the shapes of its kind, lower wins the run's primary shape (SPEC "Shapes")."""
    meaning: str
    """One line for the table, read after the name: "same value, another encoding"."""
    example: Callable[[Any, str], str]
    """`example(run_result, name)`: the line that shows it in a run, for the summary's example."""
    param: bool = False
    """A difference in one parameter can show it (an argument's explanation may carry it)."""
    rule_class: bool = False
    """Normalizers of this class (`Normalizer.cls`) absorb differences of this shape."""
