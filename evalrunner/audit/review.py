"""What a reviewer needs to judge one run without opening anything else: the case's request,
the calls as recorded (with their results and errors), the accepted sequences and how they are
matched, the effect assertions and the recorded world, and the tools involved (their
descriptions and parameter schemas). And, only when asked (`--show-verdict`), evalrun's verdict
with the explanation `evalrun score --show` prints.

Blind means blind to evalrun's judgement, and its equivalence rules are part of it: a reviewer who
reads `"x-eval-norm": "casefold"` on an account reference is told that case does not matter, which
is what the audit is there to check. So a blind sheet shows the schemas without evalrun's
annotations (`x-eval-*`); the tool's own contract (types, descriptions, defaults) stays.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from rich.console import Console

from ..grade.grader import RunResult
from ..model import MISSING, Case, Effect, Step, Tool
from ..read.cases import judge_to_json
from ..traces import NativeRecord, call_tool
from ..write.table import render_run

EXPLANATION_WIDTH = 100
ANNOTATION = "x-eval-"


def review(
    record: NativeRecord, case: Case, tools: Mapping[str, Tool], *, blind: bool = True
) -> dict[str, Any]:
    """The reviewer's material for one run, as the keys of its sheet line (in display order)."""
    native = record.record
    calls = native.get("calls")
    calls = calls if type(calls) is list else []
    world = native.get("world")
    meta = native.get("meta")
    accept = [[step_to_json(s) for s in seq] for seq in case.accept]
    out: dict[str, Any] = {
        "input": case.input,
        "calls": calls,
        "match": case.match,
        "accept": accept,
    }
    # What the case judges is the reviewer's to read too (not evalrun's verdict): only when set.
    if case.forbid:
        out["forbid"] = [{"tool": f.tool, "args": dict(f.args)} for f in case.forbid]
    if case.repeatable:
        out["repeatable"] = sorted(case.repeatable)
    if case.grade != "all":
        out["grade"] = case.grade
    out.update(
        {
            "effects": [effect_to_json(e) for e in case.effects],
            "world": world,
            "meta": meta if type(meta) is dict else {},
            "tools": tools_involved(calls, case, tools, blind=blind),
        }
    )
    return out


def step_to_json(step: Step) -> dict[str, Any]:
    """A step as a case file writes it, with its `judge` when it has one."""
    out: dict[str, Any] = {"tool": step.tool, "args": dict(step.args)}
    if step.judge:
        out["judge"] = {path: judge_to_json(j) for path, j in step.judge.items()}
    return out


def tools_involved(
    calls: list[Any], case: Case, tools: Mapping[str, Tool], *, blind: bool = True
) -> dict[str, dict[str, Any] | None]:
    """Each tool the run called or an accepted sequence names, in order of first mention: its
    description and parameter schema (without evalrun's annotations when `blind`), whether
    evalrun takes its repeated calls as polling (not when `blind`), and whether it only reads
    (not when `blind`, unless the case is graded on writes, which leaves those calls out); None
    when no tool file defines it."""
    names: dict[str, None] = {}
    for raw in calls:
        name = call_tool(raw) if type(raw) is dict else None
        if name is not None:
            names.setdefault(name, None)
    for seq in case.accept:
        for step in seq:
            names.setdefault(step.tool, None)
    out: dict[str, dict[str, Any] | None] = {}
    for name in names:
        tool = tools.get(name)
        if tool is None:
            out[name] = None
            continue
        schema = dict(tool.params.schema)
        entry: dict[str, Any] = {
            "description": tool.description,
            "parameters": without_annotations(schema) if blind else schema,
        }
        if not blind:
            entry["repeatable"] = tool.repeatable
        if tool.readonly and (not blind or case.grade == "writes"):
            # a case graded on writes leaves these calls out: the reviewer reads which they are
            entry["readonly"] = True
        out[name] = entry
    return out


def without_annotations(value: Any) -> Any:
    """A schema without evalrun's `x-eval-*` keys, at any depth."""
    if type(value) is dict:
        return {
            k: without_annotations(v)
            for k, v in value.items()
            if not (type(k) is str and k.startswith(ANNOTATION))
        }
    if type(value) is list:
        return [without_annotations(v) for v in value]
    return value


def effect_to_json(e: Effect) -> dict[str, Any]:
    """An effect assertion as a case file writes it."""
    out: dict[str, Any] = {"at": e.at, e.op: e.value}
    if e.where is not MISSING:
        out["where"] = e.where
    return out


def verdict(result: RunResult) -> dict[str, Any]:
    """evalrun's verdict on a run, for `--show-verdict`: both checks and the explanation."""
    return {
        "verdict": result.verdict,
        "shape": result.shape,
        "reported": "pass" if result.reported_pass else "fail",
        "true": "pass" if result.true_pass else "fail",
        "explanation": explain(result),
    }


def explain(result: RunResult) -> str:
    """The run with its explanation, as `evalrun score --show` prints it, as plain text."""
    out = io.StringIO()
    console = Console(
        file=out, width=EXPLANATION_WIDTH, color_system=None, highlight=False, soft_wrap=True
    )
    render_run(result, console)
    return "\n".join(line.rstrip() for line in out.getvalue().rstrip().splitlines())


def rules_used(result: RunResult) -> list[dict[str, str]]:
    """The rules that made a call equivalent to its step (each once): for a run a reviewer calls
    wrong and evalrun passes, the first rules to doubt."""
    seen: dict[tuple[str, str, str], None] = {}
    for c in result.calls:
        if c.label not in ("equivalent", "repeat") or c.comparison is None:
            continue
        for d in c.comparison.diffs:
            if d.kind == "absorbed" and d.norm:
                seen.setdefault((c.tool, d.param, d.norm), None)
    return [{"tool": t, "param": p, "norm": n} for t, p, n in seen]
