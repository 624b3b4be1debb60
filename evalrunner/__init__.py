"""evalrun: score LLM agents' recorded tool calls honestly.

The public API. Everything not listed in `__all__` is an implementation detail.
"""

__version__ = "0.1.0"

from .adapters import TraceFormat, TraceReader
from .cases import load_cases
from .compare import Comparison, Diff, ToolPlan, args_equivalent
from .lint import Finding, LintReport, lint
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
from .pipeline import Config, load_config
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
    "Config",
    "Diff",
    "Effect",
    "Finding",
    "Grader",
    "InputError",
    "LintReport",
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
    "TraceFormat",
    "TraceReader",
    "__version__",
    "args_equivalent",
    "lint",
    "load_cases",
    "load_config",
    "load_registry",
    "load_tools",
    "read_runs",
]
