"""What lint reports: a `Finding` per problem, under a stable code, and the report that holds them.

Each finding has a fixed severity (from its code, documented in `docs/lint.md`), the file and the
JSON path of the node to edit, a one-line message and the fix.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from .._version import __version__
from ..pointer import Loc, json_path

__all__ = ["CODES", "Code", "Coverage", "Finding", "LintReport", "Loc", "finding", "json_path"]

Severity = Literal["error", "warning", "info"]
SEVERITIES: Final = ("error", "warning", "info")


@dataclass(frozen=True, slots=True)
class Code:
    """A finding's code: its fixed severity and what it means (documented in docs/lint.md)."""

    severity: Severity
    meaning: str


CODES: Final[dict[str, Code]] = {
    # errors: the numbers evalrun computes would be wrong
    "unknown-normalizer": Code("error", "x-eval-norm names a normalizer that is not registered"),
    "bad-norm-option": Code("error", "x-eval-norm gives an option the normalizer rejects"),
    "norm-type-mismatch": Code("error", "the rule cannot read any type the parameter accepts"),
    "norm-no-fields": Code("error", "known_fields on an object that declares no properties"),
    "norm-raised": Code("error", "the rule raised (not ValueError) on a value present"),
    "norm-not-idempotent": Code("error", "the rule is not idempotent on a value present"),
    "unknown-tool": Code("error", "a case step names a tool no schema defines"),
    "case-args-invalid": Code("error", "a case's expected args fail the tool's JSON Schema"),
    "default-invalid": Code("error", "a declared default fails its own parameter's schema"),
    "judge-unknown-param": Code("error", "a step's judge names no parameter of its tool"),
    "judge-invalid": Code("error", "a step's judge names an unknown rule or cannot apply"),
    "judge-pattern-invalid": Code("error", "a matches pattern cannot compile or backtracks"),
    # warnings: the schema or a rule invites false failures or false passes
    "multi-encoding-no-rule": Code("warning", "a parameter accepts several types and has no rule"),
    "aliased-keys": Code("warning", "two parameters look like one quantity in two encodings"),
    "default-unreadable": Code("warning", "the parameter's rule cannot read its declared default"),
    "case-value-unreadable": Code("warning", "the parameter's rule cannot read a case's value"),
    "money-cents-int-float": Code("warning", "money_cents reads 42 and 42.0 differently"),
    "pattern-unchecked": Code("warning", "a pattern could not be checked on a value in time"),
    "tool-never-called": Code("warning", "a tool is never called in the traces given"),
    "trace-file-not-read": Code("warning", "a file in a traces folder is not read"),
    "forbid-never-matches": Code("warning", "a forbid entry no call the tool accepts matches"),
    "forbid-taken-by-step": Code(
        "warning", "a forbid entry whose call a judged step accepts, so it is never forbidden"
    ),
    "writes-without-reads": Code("warning", 'grade "writes" where no tool is read-only'),
    "any-on-identifier": Code("warning", "the rule any stands on an identifier-like parameter"),
    "case-ids-look-alike": Code(
        "warning", "case ids that differ only by Unicode form, case or an invisible character"
    ),
    "run-value-rejected": Code(
        "warning", "runs send values their parameter's schema rejects, where a rule stands"
    ),
    # info
    "norm-unexercised": Code("info", "no value in the cases or traces exercises the rule"),
    "any-rule": Code("info", "a parameter whose values are not judged (the rule any)"),
}


@dataclass(frozen=True, slots=True)
class Finding:
    severity: Severity
    code: str
    file: str
    path: str
    """JSON path of the offending node in `file`: `$.tools[0].inputSchema.properties.month`."""
    message: str
    fix: str
    line: int | None = None
    """The line of a JSONL case file; None for a JSON file."""

    def to_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "code": self.code,
            "file": self.file,
            "line": self.line,
            "path": self.path,
            "message": self.message,
            "fix": self.fix,
        }


@dataclass(frozen=True, slots=True)
class Coverage:
    """Tools declaring rules vs all tools, and, with traces, the call volume those tools carry."""

    tools: int
    tools_with_norms: int
    runs: int | None = None
    """Runs read from the traces; None when no traces were given."""
    calls: int | None = None
    calls_with_norms: int | None = None
    unreadable_lines: int | None = None
    """Trace lines that are not runs (`evalrun score` lists them with file:line)."""

    @property
    def call_share_with_norms(self) -> float | None:
        if self.calls is None or self.calls_with_norms is None:
            return None
        return self.calls_with_norms / self.calls if self.calls else 0.0

    def to_json(self) -> dict[str, Any]:
        share = self.call_share_with_norms
        return {
            "tools": self.tools,
            "tools_with_norms": self.tools_with_norms,
            "runs": self.runs,
            "calls": self.calls,
            "calls_with_norms": self.calls_with_norms,
            "call_share_with_norms": None if share is None else round(share, 4),
            "unreadable_lines": self.unreadable_lines,
        }


@dataclass(frozen=True, slots=True)
class LintReport:
    findings: tuple[Finding, ...]
    coverage: Coverage
    ignored: int = 0
    """Findings left out by `ignoring`."""

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def ignoring(self, codes: Iterable[str]) -> LintReport:
        """The report without the findings of these codes (ValueError for a code that is unknown)."""
        leave = set(codes)
        unknown = sorted(leave - set(CODES))
        if unknown:
            raise ValueError(
                f"unknown lint code {', '.join(map(repr, unknown))} "
                f"(codes: {', '.join(sorted(CODES))})"
            )
        kept = tuple(f for f in self.findings if f.code not in leave)
        return replace(self, findings=kept, ignored=self.ignored + len(self.findings) - len(kept))

    def failed(self, *, strict: bool = False) -> bool:
        """Errors fail the lint; warnings too when `strict`."""
        return bool(self.count("error") or (strict and self.count("warning")))

    def to_json(self) -> dict[str, Any]:
        return {
            "evalrun": __version__,
            "findings": [f.to_json() for f in self.findings],
            "counts": {
                "error": self.count("error"),
                "warning": self.count("warning"),
                "info": self.count("info"),
                "ignored": self.ignored,
            },
            "coverage": self.coverage.to_json(),
        }


def finding(
    code: str, file: str, loc: Loc, message: str, fix: str, line: int | None = None
) -> Finding:
    """A finding of `code`, with the code's severity, at `loc` in `file`."""
    return Finding(CODES[code].severity, code, file, json_path(loc), message, fix, line)


def order(f: Finding) -> tuple[Any, ...]:
    """The order findings are reported in: by file, line and path, then severity and code."""
    # Indexes compare as numbers: `$.tools[2]` comes before `$.tools[10]`.
    path = tuple((0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", f.path))
    return (f.file, f.line or 0, path, SEVERITIES.index(f.severity), f.code, f.message)


def cut(text: str, limit: int = 160) -> str:
    """`text` on one line, cut to `limit` characters (a schema error can quote a whole value)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
