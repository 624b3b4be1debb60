"""evalrun: score LLM agents' recorded tool calls honestly.

The public API. Everything not listed in `__all__` is an implementation detail. Data flows one
way, and so do the packages: files -> model (`read`, `traces`, `model`) -> grade (`grade`) ->
summary (`summary`) -> writer (`write`); `scoring.score` is that flow as one call, and `lint`,
`diff`, `suggest` and `audit` are built on it.
"""

import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ._version import __version__ as __version__

if TYPE_CHECKING:
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

_EXPORTS: dict[str, str] = {
    "Call": ".model",
    "CallResult": ".grade.grader",
    "Case": ".model",
    "Collect": ".write",
    "Comparison": ".grade.compare",
    "Config": ".scoring",
    "Diff": ".grade.compare",
    "Effect": ".model",
    "Finding": ".lint",
    "Grader": ".grade.grader",
    "InputError": ".model",
    "LintReport": ".lint",
    "MISSING": ".model",
    "NormError": ".grade.norms",
    "NormSpec": ".model",
    "Normalizer": ".grade.norms",
    "Output": ".write",
    "Param": ".model",
    "Reading": ".traces",
    "Run": ".model",
    "RunResult": ".grade.grader",
    "Step": ".model",
    "Summary": ".summary",
    "Tool": ".model",
    "ToolPlan": ".grade.compare",
    "TraceError": ".model",
    "TraceFormat": ".traces",
    "TraceReader": ".traces",
    "Writer": ".write",
    "WriterFormat": ".write",
    "args_equivalent": ".grade.compare",
    "lint": ".lint",
    "load_cases": ".read.cases",
    "load_config": ".scoring",
    "load_registry": ".grade.norms",
    "load_tools": ".read.tools",
    "read_runs": ".traces",
    "score": ".scoring",
}
"""Each public name, by the module it is imported from when first used (PEP 562): importing
`evalrunner` (for `__version__`, `evalrun --version`) imports nothing else but `_version`."""


class _Package(ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        # Importing the `evalrunner.lint` package would set the name `lint` to it, hiding the
        # function the API names so (imported eagerly, the function was set after the package).
        if name in _EXPORTS and isinstance(value, ModuleType) and hasattr(value, name):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


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
