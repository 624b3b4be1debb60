"""evalrun: score LLM agents' recorded tool calls honestly.

The public API. Everything not listed in `__all__` is an implementation detail.
"""

__version__ = "0.1.0"

from .cases import load_cases
from .compare import Comparison, Diff, ToolPlan, args_equivalent
from .model import (
    MISSING,
    Call,
    Case,
    Effect,
    InputError,
    NormSpec,
    Param,
    Run,
    Step,
    Tool,
    TraceError,
)
from .norms import Normalizer, NormError, load_registry
from .score import CallResult, Grader, RunResult
from .summary import Summary
from .tools import load_tools
from .traces import read_runs

__all__ = [
    "MISSING",
    "Call",
    "CallResult",
    "Case",
    "Comparison",
    "Diff",
    "Effect",
    "Grader",
    "InputError",
    "NormError",
    "NormSpec",
    "Normalizer",
    "Param",
    "Run",
    "RunResult",
    "Step",
    "Summary",
    "Tool",
    "ToolPlan",
    "TraceError",
    "__version__",
    "args_equivalent",
    "load_cases",
    "load_registry",
    "load_tools",
    "read_runs",
]
