"""evalrun: score LLM agents' recorded tool calls honestly.

The public API. Everything not listed in `__all__` is an implementation detail.
"""

__version__ = "0.1.0"

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
from .score import CallResult, Grader, RunResult
from .scoring import Config, load_config
from .summary import Summary
from .tools import load_tools
from .traces import Reading, TraceFormat, TraceReader, read_runs
from .write import Collect, Output, Writer, WriterFormat

__all__ = [
    "MISSING",
    "Call",
    "CallResult",
    "Case",
    "Collect",
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
    "Output",
    "Param",
    "Reading",
    "Run",
    "RunResult",
    "Step",
    "Summary",
    "Tool",
    "ToolPlan",
    "TraceError",
    "TraceFormat",
    "TraceReader",
    "Writer",
    "WriterFormat",
    "__version__",
    "args_equivalent",
    "lint",
    "load_cases",
    "load_config",
    "load_registry",
    "load_tools",
    "read_runs",
]
