"""evalrun: score LLM agents' recorded tool calls honestly.

The public API. Everything not listed in `__all__` is an implementation detail. Data flows one
way, and so do the packages: files -> model (`read`, `traces`, `model`) -> grade (`grade`) ->
summary (`summary`) -> writer (`write`); `scoring.score` is that flow as one call, and `lint`,
`diff`, `suggest` and `audit` are built on it.
"""

__version__ = "0.1.0"

from .grade.compare import Comparison, Diff, ToolPlan, args_equivalent
from .grade.grader import CallResult, Grader, RunResult
from .grade.norms import Normalizer, NormError, load_registry
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
from .read.cases import load_cases
from .read.tools import load_tools
from .scoring import Config, load_config, score
from .summary import Summary
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
    "score",
]
