"""The checks on a case's own keys: each step's `judge`, the case's `forbid` and `grade`.

A judge path that names no parameter would judge nothing; a `matches` pattern that cannot compile,
or that backtracks without end, cannot be searched; a `forbid` entry that names no tool or
parameter can never match, so the case forbids nothing it means to; `grade: "writes"` on a case
whose tools declare nothing read-only grades every call as before.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Final

from .. import patterns
from ..grade.compare import ToolPlan
from ..grade.judge import param_paths, step_plan
from ..grade.norms import Normalizer
from ..grade.validity import Validity
from ..jsonvalue import json_eq, short_json
from ..model import Case, InputError, Matches, OneOf, Param, Step
from ..read.cases import step_label
from .findings import Finding, cut, finding
from .schema import ToolSite

PROBE_TIMEOUT: Final = 0.2
"""Seconds a pattern may take on one probe: an honest one answers in microseconds."""
PROBES: Final = tuple(
    text
    for unit in ("a", "0", " ", "x-", "ab", "<a>", "a@a.", "aA1_")
    for text in (unit * 30 + "!", unit * 2000 + "!", unit * 2000)
)
"""The texts a pattern is tried on: long runs of one kind of character, which make a pattern
with nested repetition (`(a+)+$`) backtrack without end."""


def check_case_keys(
    case: Case,
    sites: Mapping[str, ToolSite],
    registry: Mapping[str, Normalizer],
    out: list[Finding],
) -> None:
    """The findings about one case's `judge`, `forbid` and `grade`."""
    _check_judges(case, sites, registry, out)
    _check_forbid(case, sites, out)
    _check_grade(case, sites, out)


def _check_judges(
    case: Case,
    sites: Mapping[str, ToolSite],
    registry: Mapping[str, Normalizer],
    out: list[Finding],
) -> None:
    for step in (step for sequence in case.accept for step in sequence):
        if not step.judge:
            continue
        label = step_label(case, step)
        at = (*step.tool_loc[:-1], "judge")
        site = sites.get(step.tool)
        paths = param_paths(site.tool if site is not None else None)
        bad_pattern = False
        for path, spec in step.judge.items():
            if path not in paths:
                close = difflib.get_close_matches(path, list(paths), n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                out.append(
                    finding(
                        "judge-unknown-param",
                        case.file,
                        (*at, path),
                        f"case {case.id!r}: {label} judges {path!r}, which names no parameter "
                        f"of {step.tool!r}",
                        f"{hint}write the parameter's path as explanations name it (`body`, "
                        "`filters.status`, `items[].note`)",
                        case.line,
                    )
                )
            elif isinstance(spec, Matches):
                bad = not _check_pattern(case, label, spec.pattern, (*at, path, "matches"), out)
                bad_pattern = bad_pattern or bad
            elif isinstance(spec, OneOf):
                _check_answers(case, label, step.tool, path, paths[path], spec, at, out)
        if site is None or bad_pattern or any(p not in paths for p in step.judge):
            continue
        try:
            plan = step_plan(
                step, site.tool, ToolPlan.compile(site.tool, registry), registry, label
            )
        except InputError as e:
            out.append(
                finding(
                    "judge-invalid",
                    case.file,
                    at,
                    f"case {case.id!r}: {cut(str(e))}",
                    "name a registered rule with valid options, or a predicate on a value "
                    "compared on its own",
                    case.line,
                )
            )
            continue
        _check_forbid_taken(case, step, label, plan, out)


def _check_forbid_taken(
    case: Case, step: Step, label: str, plan: ToolPlan, out: list[Finding]
) -> None:
    """A `forbid` entry whose call a judged step accepts: such a call fills the step, and a call
    aligned to a step is never forbidden (SPEC "Cases", `forbid`), so the run passes with
    the very call the case forbids (`recipient` judged `any`, `recipient: "attacker"`
    forbidden). An entry the step's own values name (the one refund allowed, a second one
    forbidden) is what the case means, and is not said."""
    for k, entry in enumerate(case.forbid):
        if entry.tool != step.tool or not entry.args:
            continue
        if all(k2 in step.args and json_eq(step.args[k2], v) for k2, v in entry.args.items()):
            continue  # the step itself is the call: others like it are what is forbidden
        call = {**step.args, **entry.args}
        if not plan.equivalent(call, dict(step.args), checked=False):
            continue
        out.append(
            finding(
                "forbid-taken-by-step",
                case.file,
                (*entry.loc, "args"),
                f"case {case.id!r}: the call forbid[{k}] names ({entry.tool} "
                f"{short_json(dict(entry.args), 80)}) is one {label} accepts through its judge: "
                "it would fill the step, and a call that fills a step is never forbidden",
                "narrow the step's judge so that it refuses the forbidden values (a matches or "
                "one_of instead of any), or drop the forbid entry",
                case.line,
            )
        )


def _check_answers(
    case: Case,
    label: str,
    tool: str,
    path: str,
    param: Param,
    spec: OneOf,
    at: tuple[str | int, ...],
    out: list[Finding],
) -> None:
    """A `one_of` value the parameter's schema refuses: a run that sends it is equal to it as
    JSON, so it passes, though the tool should have refused the call (as for a case's args)."""
    checks = Validity.of(param)
    if checks is None:
        return
    for k, value in enumerate(spec.values):
        found = checks.breach(value)
        if found is not None:
            out.append(
                finding(
                    "case-args-invalid",
                    case.file,
                    (*at, path, "one_of", k),
                    f"case {case.id!r}: {label} {tool}: judge {path!r} one_of: "
                    f"{cut(found.message)}",
                    "the case is wrong, not the agent: list only values the tool accepts (or "
                    "correct the schema, if the tool really accepts this)",
                    case.line,
                )
            )


def _check_pattern(
    case: Case, label: str, pattern: str, loc: tuple[str | int, ...], out: list[Finding]
) -> bool:
    try:
        compiled = patterns.compiled(pattern)  # as grading compiles it
    except patterns.PatternError as e:
        out.append(
            finding(
                "judge-pattern-invalid",
                case.file,
                loc,
                f"case {case.id!r}: {label}: the pattern {pattern!r} does not compile ({e})",
                "correct the regular expression (Python's `regex` syntax)",
                case.line,
            )
        )
        return False
    for probe in PROBES:
        try:
            compiled.search(probe, timeout=PROBE_TIMEOUT)
        except TimeoutError:
            out.append(
                finding(
                    "judge-pattern-invalid",
                    case.file,
                    loc,
                    f"case {case.id!r}: {label}: the pattern {pattern!r} backtracks without end "
                    f"(over {PROBE_TIMEOUT:g} s on {len(probe)} characters of "
                    f"{probe[:4]!r}…)",
                    "remove the nested repetition (`(a+)+`, `(a|aa)*`): grading gives up on a "
                    "search that takes too long, and the value does not match",
                    case.line,
                )
            )
            return False
    return True


def _check_forbid(case: Case, sites: Mapping[str, ToolSite], out: list[Finding]) -> None:
    for entry in case.forbid:
        site = sites.get(entry.tool)
        if site is None:
            close = difflib.get_close_matches(entry.tool, list(sites), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            out.append(
                finding(
                    "forbid-never-matches",
                    case.file,
                    (*entry.loc, "tool"),
                    f"case {case.id!r}: forbid names {entry.tool!r}, which no tool schema "
                    "defines: no call the agent can make matches it",
                    f"{hint}correct the tool name",
                    case.line,
                )
            )
            continue
        declared = site.tool.params.properties
        free = site.tool.schema.get("additionalProperties", True) is not False
        for key in entry.args:
            if key in declared or (free and not declared):
                continue
            close = difflib.get_close_matches(key, list(declared), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            out.append(
                finding(
                    "forbid-never-matches",
                    case.file,
                    (*entry.loc, "args", key),
                    f"case {case.id!r}: forbid lists {entry.tool}.{key}, which names no "
                    f"parameter of {entry.tool!r}: a call that states it is one the tool "
                    "refuses",
                    f"{hint}list the tool's own parameters",
                    case.line,
                )
            )
        checked = site.validator.check(dict(entry.args))
        for e in checked.errors:
            if e.validator in ("required", "additionalProperties"):
                continue  # some arguments listed, not all (an unknown one is said above)
            out.append(
                finding(
                    "forbid-never-matches",
                    case.file,
                    (*entry.loc, "args", *e.absolute_path),
                    f"case {case.id!r}: forbid {entry.tool}: {cut(e.message)}: the tool "
                    "refuses such a call, so none is recorded as one that succeeded",
                    "write the value as the tool accepts it",
                    case.line,
                )
            )


def _check_grade(case: Case, sites: Mapping[str, ToolSite], out: list[Finding]) -> None:
    if case.grade != "writes":
        return
    named = {step.tool for sequence in case.accept for step in sequence}
    if any(sites[n].tool.readonly for n in named if n in sites):
        return
    out.append(
        finding(
            "writes-without-reads",
            case.file,
            (*case.loc, "grade"),
            f"case {case.id!r} is graded on writes, but no tool declares itself read-only "
            f'(it calls {", ".join(sorted(named))}): every call is graded as under "all"',
            'mark the tools that only read with "x-eval-readonly": true (or MCP '
            "annotations.readOnlyHint), or drop grade",
            case.line,
        )
    )
