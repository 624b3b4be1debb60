"""The checks on cases: each step's tool exists, its args pass the tool's schema, and the rules
read the values it expects (which also feeds the rules' law checks)."""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Mapping
from typing import Final

import regex

from ..grade.compare import normalize
from ..grade.validity import FORMATS, format_problem
from ..model import Case, Param
from ..pointer import Loc
from ..read.cases import step_label
from .findings import Finding, cut, finding
from .laws import raised
from .schema import PATTERN_FIX, ToolSite, values


def check_case(case: Case, tools: Mapping[str, ToolSite], out: list[Finding]) -> None:
    """The findings about one case: steps naming no tool, args the tool refuses or its rules
    cannot read; and the case's values handed to the rules' law checks."""
    for step in (step for sequence in case.accept for step in sequence):
        label, tool_at, args_at = step_label(case, step), step.tool_loc, step.args_loc
        tool = tools.get(step.tool)
        if tool is None:
            close = difflib.get_close_matches(step.tool, list(tools), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            out.append(
                finding(
                    "unknown-tool",
                    case.file,
                    tool_at,
                    f"case {case.id!r}: {label} calls {step.tool!r}, which no tool schema defines",
                    f"{hint}correct the tool name, or add the tool's schema to --tools",
                    case.line,
                )
            )
            continue
        checked = tool.validator.check(step.args)
        for e in checked.errors:
            out.append(
                finding(
                    "case-args-invalid",
                    case.file,
                    (*args_at, *e.absolute_path),
                    f"case {case.id!r}: {label} {step.tool}: {cut(e.message)}",
                    "the case is wrong, not the agent: correct the expected args so the tool "
                    "would accept them (or the schema, if the tool really accepts this)",
                    case.line,
                )
            )
        for path, message in format_breaches(step.args, tool.tool.params):
            # jsonschema does not check `format`; the grader reads it (SPEC "Precise readings")
            out.append(
                finding(
                    "case-args-invalid",
                    case.file,
                    (*args_at, *path),
                    f"case {case.id!r}: {label} {step.tool}: {message}",
                    "the case is wrong, not the agent: write the value as the schema's format "
                    "says (a run's value written like this is compared as JSON only, no rule)",
                    case.line,
                )
            )
        for what in checked.unchecked:
            out.append(
                finding(
                    "pattern-unchecked",
                    case.file,
                    args_at,
                    f"case {case.id!r}: {label} {step.tool}: the args could not be checked "
                    f"against {what}",
                    PATTERN_FIX,
                    case.line,
                )
            )
        for p, value, path in values(step.args, tool):
            rule = p.node.rule
            assert rule is not None
            inner = normalize(value, p.bare)
            problem = rule.apply(inner)[1]
            if problem is not None and not raised(problem) and value is not None:
                out.append(
                    finding(
                        "case-value-unreadable",
                        case.file,
                        (*args_at, *path),
                        f"case {case.id!r}: {label} {p.name}: {problem}; only an exactly equal "
                        "value can match it",
                        f"write the expected value in an encoding rule {rule.name!r} reads",
                        case.line,
                    )
                )
            p.evidence.check(rule, inner, value, f"case {case.id!r} ({case.file})")


INVISIBLE: Final = regex.compile(r"[\p{Cf}\p{Cc}\p{Zl}\p{Zp}]")
"""Characters that show as nothing: zero-width spaces and joiners, bidi controls, controls."""


def look_alike_ids(cases: Mapping[str, Case], out: list[Finding]) -> None:
    """Case ids that differ only by Unicode normalization (`é` as one character or two), case,
    or a zero-width character: a trace naming one is scored against the other's case or is
    unscoreable, and a reader cannot tell which the trace meant."""
    by_key: dict[str, list[Case]] = {}
    for case in cases.values():
        key = INVISIBLE.sub("", unicodedata.normalize("NFKC", case.id)).casefold()
        by_key.setdefault(key, []).append(case)
    for group in by_key.values():
        if len(group) < 2:
            continue
        first, *others = group
        for case in others:
            out.append(
                finding(
                    "case-ids-look-alike",
                    case.file,
                    (*case.loc, "id"),
                    f"case {case.id!r} and case {first.id!r} ({first.file}) differ only by "
                    "Unicode form, case or an invisible character",
                    "rename one of them: a trace's case_id cannot tell them apart to a reader",
                    case.line,
                )
            )


def format_breaches(args: object, root: Param) -> list[tuple[Loc, str]]:
    """The strings in `args` that break their parameter's `format` (`date-time`, `date`,
    `time`, RFC 3339), with their path in `args`."""
    found: list[tuple[Loc, str]] = []

    def walk(value: object, param: Param, path: Loc) -> None:
        fmt = param.schema.get("format")
        if fmt in FORMATS and type(value) is str:
            problem = format_problem(fmt, value)
            if problem is not None:
                found.append((path, f"{value!r} is not a {fmt} ({problem})"))
        if param.properties and type(value) is dict:
            for k, x in value.items():
                if k in param.properties:
                    walk(x, param.properties[k], (*path, k))
        elif param.items is not None and type(value) is list:
            for i, x in enumerate(value):
                walk(x, param.items, (*path, i))

    walk(args, root, ())
    return found
