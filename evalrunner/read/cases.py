"""Read case files: accepted call sequences, match mode, effect assertions, and the legacy form.

A `.json` file holds one case or a list of them; a `.jsonl` file holds one case a line. Case files
are data: nothing in them is ever executed.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..jsonvalue import MAX_DEPTH, too_deep
from ..jsonvalue import dumps as json_dumps
from ..model import (
    GRADE_MODES,
    MATCH_MODES,
    MISSING,
    Case,
    Effect,
    EffectOp,
    Forbid,
    GradeMode,
    InputError,
    Judge,
    Matches,
    MatchMode,
    NormSpec,
    OneOf,
    Step,
)
from ..model import PREDICATES as PREDICATES
from ..pointer import Loc, parse_pointer
from .case_formats import (
    AUTO,
    CONFIG_FILES,
    CaseFormat,
    CaseWarning,
    Records,
    Source,
    decode,
    is_config,
)
from .case_formats import SUFFIXES as CASE_SUFFIXES
from .case_formats import detect as detect_case_format
from .case_formats import not_in as not_in_case_format
from .case_formats import resolve as resolve_case_format
from .case_formats import unknown_layout as unknown_case_layout
from .files import check_keys, list_files, near_miss

EFFECT_OPS: Final = ("equals", "contains", "count", "absent")

# The keys evalrun reads, and the keys users write for them (docs/lint.md, "Case keys"). Other keys
# are kept as notes; a near miss of a known key (`mtach`, `expected_arg`) is a typo, an error.
CASE_KEYS: Final = (
    "id",
    "input",
    "match",
    "accept",
    "effect",
    "forbid",
    "repeatable",
    "grade",
    "expected_tool",
    "expected_args",
    "tags",
)
CASE_CONFUSED: Final = {
    # keys of a run in the results JSON, copied into a case
    "case_id": "id",
    "calls": "accept",
    "effects": "effect",
    # what a case expects, named another way
    "expected": "accept",
    "expected_calls": "accept",
    "expected_effects": "effect",
    "expected_arguments": "expected_args",
    # a case's other keys, named another way
    "forbidden": "forbid",
    "forbidden_calls": "forbid",
    "deny": "forbid",
    "repeatable_tools": "repeatable",
    "repeat": "repeatable",
    "grading": "grade",
    "grade_on": "grade",
}
STEP_KEYS: Final = ("tool", "args", "name", "arguments", "judge")
STEP_CONFUSED: Final = {
    "judges": "judge",
    "rules": "judge",
    "norms": "judge",
    "x-eval-norm": "judge",
    "tool_name": "tool",
    "function": "tool",
    "input": "args",  # Anthropic's tool_use block
    "parameters": "args",
    "params": "args",
}
EFFECT_KEYS: Final = ("at", "where", *EFFECT_OPS)
EFFECT_CONFUSED: Final = {
    "path": "at",
    "pointer": "at",
    "value": "equals",
    "includes": "contains",
    "length": "count",
    "exists": "absent",
}


def load_cases(
    path: str | Path,
    *,
    case_format: str = AUTO,
    warnings: list[CaseWarning] | None = None,
) -> dict[str, Case]:
    """Every case under `path` (a directory of case files, or one file), by id.

    Each file is read in the case format it is in (`case_formats`: evalrun's own, ADK, BFCL, …),
    or in `case_format` when it names one. What a source holds that evalrun cannot express is
    appended to `warnings` (file and field), never dropped silently.

    Raises InputError (naming the file, and the line for JSONL) for unreadable files, malformed
    cases, a misspelt key, values nested too deep, an unknown match mode, or an id used twice.
    """
    return {case.id: case for case in each_case(path, case_format, warnings)}


def each_case(
    path: str | Path, case_format: str, warnings: list[CaseWarning] | None
) -> Iterator[Case]:
    """The cases under `path`, in file order, each id once (InputError for an id used twice):
    `load_cases`'s, one at a time (a `CaseStore` is built from them without holding them all)."""
    forced = resolve_case_format(case_format)
    suffixes = forced.suffixes if forced is not None else CASE_SUFFIXES
    sources: dict[str, str] = {}
    for file in list_files(path, suffixes, what="cases", flag="--cases"):
        for case in read_case_file(file, forced, warnings):
            if case.id in sources:
                raise InputError(
                    f"case id {case.id!r} is used twice: in {sources[case.id]} and in "
                    f"{case.source}; case ids must be unique across all case files"
                )
            sources[case.id] = case.source
            yield case


def read_case_file(
    file: Path, fmt: CaseFormat | None = None, warnings: list[CaseWarning] | None = None
) -> Iterator[Case]:
    """The cases of one file, in `fmt` or in the format detected, one at a time: a file of
    100,000 cases is never held as objects (a `CaseStore` keeps each as it comes), nor, in
    evalrun's own format, as records."""
    source = decode(file)
    if file.name in CONFIG_FILES and is_config(source):
        return  # a format's own configuration (ADK's test_config.json), read beside its cases
    if fmt is None:
        fmt = detect_case_format(source)
        if fmt is None:
            raise InputError(unknown_case_layout(file))
    elif not fmt.detect(source):  # forced: a reader is never handed a file of another shape
        raise InputError(not_in_case_format(file, fmt))
    if fmt.read is None:  # evalrun's own
        yield from _native(source)
        return
    for name in CONFIG_FILES:
        sibling = file.parent / name
        if sibling != file and sibling.is_file():
            source.siblings = {**source.siblings, name: decode(sibling).data}
    for data, where in fmt.read(source):
        yield parse_case(data, where, file=str(file), line=_line(where))
    if warnings is not None:
        warnings.extend(source.warnings)


def _line(where: str) -> int | None:
    tail = where.rpartition(":")[2]
    return int(tail) if tail.isdigit() else None


def _native(source: Source) -> Iterator[Case]:
    """The cases of a file in evalrun's own format; each record let go once it is parsed (the
    source is this reading's own)."""
    file, data = source.file, source.data
    if isinstance(data, Records):  # JSON lines
        for i, n in enumerate(source.lines or ()):
            record = data[i]
            data.drop(i)
            yield parse_case(record, f"{file}:{n}", file=str(file), line=n)
        return
    if isinstance(data, list):
        for i in range(len(data)):
            record, data[i] = data[i], None
            yield parse_case(record, f"{file} case #{i}", file=str(file), loc=(i,))
        return
    yield parse_case(data, str(file), file=str(file))


def parse_case(
    data: Any, where: str, *, file: str = "", line: int | None = None, loc: Loc = ()
) -> Case:
    """One case, in the `accept` form or the legacy `expected_tool`/`expected_args` form.

    `file`, `line` (JSONL) and `loc` (the case's place in a JSON list) say where it is written; the
    case and its steps record their locations from them.
    """
    if not isinstance(data, dict):
        raise InputError(f"{where}: a case must be a JSON object")
    case_id = data.get("id")
    named = f"{where} (case {case_id!r})" if isinstance(case_id, str) and case_id else where
    check_keys(data, CASE_KEYS, CASE_CONFUSED, what="a case", where=named)
    if not isinstance(case_id, str) or not case_id:
        raise InputError(f"{where}: the case has no 'id' (a non-empty string)")
    source, where = where, named
    default_match: MatchMode
    if "accept" in data:
        accept = _accept(data["accept"], where, loc)
        default_match = "exact"
    elif "expected_tool" in data:
        # Legacy form: one expected call, graded as the start of the run.
        step = _step(
            {"tool": data["expected_tool"], "args": data.get("expected_args", {})},
            where,
            "expected_tool",
            (*loc, "expected_tool"),
            (*loc, "expected_args"),
        )
        accept = ((step,),)
        default_match = "prefix"
    else:
        raise InputError(
            f"{where}: the case has neither 'accept' (a list of call sequences) nor the legacy "
            "'expected_tool'/'expected_args'"
        )
    match = data.get("match", default_match)
    if match not in MATCH_MODES:
        raise InputError(
            f"{where}: unknown match mode {match!r}; use one of {', '.join(MATCH_MODES)}"
        )
    effects = data.get("effect", [])
    if not isinstance(effects, list):
        raise InputError(f"{where}: 'effect' must be a list of assertions")
    inp = data.get("input", "")
    _shallow(inp, where, "'input'")
    tags = data.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) and t for t in tags):
        raise InputError(
            f"{where}: 'tags' must be a list of non-empty strings (--group-by case.tags)"
        )
    grade: GradeMode = data.get("grade", "all")
    if grade not in GRADE_MODES:
        raise InputError(
            f'{where}: unknown grade {grade!r}; use "all" (every call) or "writes" (calls to '
            "read-only tools left out of the match)"
        )
    return Case(
        id=case_id,
        accept=accept,
        match=match,
        effects=tuple(_effect(e, f"{where} effect #{i}") for i, e in enumerate(effects)),
        forbid=_forbid(data.get("forbid", []), where, loc),
        repeatable=_repeatable(data.get("repeatable", []), where),
        grade=grade,
        input=inp if isinstance(inp, str) else json_dumps(inp).decode(),
        tags=tuple(dict.fromkeys(tags)),
        source=source,
        file=file,
        line=line,
        loc=loc,
    )


def _shallow(value: Any, where: str, what: str) -> None:
    """InputError when `value` is nested deeper than evalrun handles (see `MAX_DEPTH`)."""
    if too_deep(value):
        raise InputError(
            f"{where}: {what} is nested more than {MAX_DEPTH} levels deep; evalrun reads values "
            f"up to {MAX_DEPTH} levels"
        )


def _accept(raw: Any, where: str, loc: Loc) -> tuple[tuple[Step, ...], ...]:
    if not isinstance(raw, list) or not raw:
        raise InputError(f"{where}: 'accept' must be a non-empty list of call sequences")
    sequences = []
    for i, seq in enumerate(raw):
        if not isinstance(seq, list):
            raise InputError(f"{where}: accept[{i}] must be a list of calls ({{tool, args}})")
        steps = []
        for j, s in enumerate(seq):
            at = (*loc, "accept", i, j)
            tool_key = "tool" if not isinstance(s, dict) or "tool" in s else "name"
            args_key = (
                "arguments"
                if isinstance(s, dict) and "args" not in s and "arguments" in s
                else "args"
            )
            steps.append(_step(s, where, f"accept[{i}][{j}]", (*at, tool_key), (*at, args_key)))
        sequences.append(tuple(steps))
    return tuple(sequences)


def _step(raw: Any, where: str, at: str, tool_loc: Loc, args_loc: Loc) -> Step:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: {at} must be an object {{tool, args}}")
    check_keys(raw, STEP_KEYS, STEP_CONFUSED, what="a step", where=f"{where}: {at}")
    tool = raw.get("tool", raw.get("name"))
    if not isinstance(tool, str) or not tool:
        raise InputError(f"{where}: {at} has no tool name ('tool', a non-empty string)")
    args = raw.get("args", raw.get("arguments", {}))
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise InputError(f"{where}: {at} 'args' must be an object, not {args!r}")
    _shallow(args, where, f"{at} 'args'")
    judge = _judge(raw.get("judge", {}), f"{where}: {at}")
    return Step(tool=tool, args=args, judge=judge, tool_loc=tool_loc, args_loc=args_loc)


def _judge(raw: Any, where: str) -> dict[str, Judge]:
    """A step's `judge`: per parameter path, a rule or a predicate (whether each path names a
    parameter of the tool is checked where tools and cases meet, `grade.judge`)."""
    if not isinstance(raw, dict):
        raise InputError(
            f"{where}: 'judge' must be an object from parameter paths to rules, like "
            '{"body": "any"} or {"body": {"matches": "orders-db"}}'
        )
    out: dict[str, Judge] = {}
    for path in sorted(raw):
        out[path] = judge_value(raw[path], f"{where}: judge {path!r}")
    return out


def judge_value(raw: Any, where: str) -> Judge:
    """One `judge` value: a normalizer name, `{"name": ..., options}`, `{"matches": REGEX}` or
    `{"one_of": [V, ...]}`; InputError says what is wrong."""
    if isinstance(raw, str) and raw:
        return NormSpec(raw)
    if isinstance(raw, dict) and "matches" in raw:
        pattern = raw["matches"]
        if len(raw) != 1 or not isinstance(pattern, str):
            raise InputError(f'{where}: write {{"matches": "REGEX"}}, a string, and nothing else')
        return Matches(pattern)  # compiled where the step is graded (`grade.judge`)
    if isinstance(raw, dict) and "one_of" in raw:
        values = raw["one_of"]
        if len(raw) != 1 or not isinstance(values, list) or not values:
            raise InputError(f'{where}: write {{"one_of": [V, ...]}}, a non-empty list')
        _shallow(values, where, "'one_of'")
        return OneOf(tuple(values))
    if isinstance(raw, dict) and isinstance(raw.get("name"), str) and raw["name"]:
        return NormSpec(raw["name"], {k: v for k, v in raw.items() if k != "name"})
    if isinstance(raw, dict):
        meant = near_miss_any(raw, (*PREDICATES, "name"))
        if meant is not None:
            raise InputError(f"{where}: unknown key {meant[0]!r}; did you mean {meant[1]!r}?")
    raise InputError(
        f'{where}: a judge is a rule ("any", {{"name": "instant"}}), {{"matches": "REGEX"}} or '
        f'{{"one_of": [V, ...]}}, not {raw!r}'
    )


def judge_to_json(judge: Judge) -> Any:
    """A `judge` value as a case file writes it (`judge_value` reads it back)."""
    if isinstance(judge, Matches):
        return {"matches": judge.pattern}
    if isinstance(judge, OneOf):
        return {"one_of": list(judge.values)}
    return judge.name if not judge.options else {"name": judge.name, **judge.options}


def case_to_json(case: Case) -> dict[str, Any]:
    """A case as evalrun's own case file writes it: `parse_case` reads it back to an equal case
    (`evalrun cases` prints every source this way). Keys left at their defaults are left out."""
    out: dict[str, Any] = {"id": case.id}
    if case.input:
        out["input"] = case.input
    out["match"] = case.match
    out["accept"] = [
        [
            {"tool": s.tool, "args": dict(s.args)}
            | ({"judge": {p: judge_to_json(j) for p, j in s.judge.items()}} if s.judge else {})
            for s in seq
        ]
        for seq in case.accept
    ]
    if case.effects:
        out["effect"] = [
            {"at": e.at, e.op: e.value} | ({"where": e.where} if e.where is not MISSING else {})
            for e in case.effects
        ]
    if case.forbid:
        out["forbid"] = [
            {"tool": f.tool} | ({"args": dict(f.args)} if f.args else {}) for f in case.forbid
        ]
    if case.repeatable:
        out["repeatable"] = sorted(case.repeatable)
    if case.grade != "all":
        out["grade"] = case.grade
    if case.tags:
        out["tags"] = list(case.tags)
    return out


def near_miss_any(raw: Mapping[str, Any], known: tuple[str, ...]) -> tuple[str, str] | None:
    """The first key of `raw` that reads as a typo of one of `known`, with the key it means."""
    for key in raw:
        if isinstance(key, str) and key not in known:
            meant = near_miss(key, known)
            if meant is not None:
                return key, meant
    return None


FORBID_KEYS: Final = ("tool", "args", "name", "arguments")


def _forbid(raw: Any, where: str, loc: Loc) -> tuple[Forbid, ...]:
    if not isinstance(raw, list):
        raise InputError(
            f'{where}: \'forbid\' must be a list of calls, like [{{"tool": "send_money"}}]'
        )
    out = []
    for i, entry in enumerate(raw):
        at = f"{where}: forbid[{i}]"
        if not isinstance(entry, dict):
            raise InputError(f"{at} must be an object {{tool, args?}}")
        check_keys(entry, FORBID_KEYS, STEP_CONFUSED, what="a forbid entry", where=at)
        tool = entry.get("tool", entry.get("name"))
        if not isinstance(tool, str) or not tool:
            raise InputError(f"{at} has no tool name ('tool', a non-empty string)")
        args = entry.get("args", entry.get("arguments", {}))
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise InputError(f"{at} 'args' must be an object, not {args!r}")
        _shallow(args, where, f"forbid[{i}] 'args'")
        out.append(Forbid(tool=tool, args=args, loc=(*loc, "forbid", i)))
    return tuple(out)


def _repeatable(raw: Any, where: str) -> frozenset[str]:
    if not isinstance(raw, list) or not all(isinstance(t, str) and t for t in raw):
        raise InputError(
            f"{where}: 'repeatable' must be a list of tool names, like [\"get_job_status\"]"
        )
    return frozenset(raw)


def _effect(raw: Any, where: str) -> Effect:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: an effect needs 'at', a JSON Pointer string like '/refunds'")
    check_keys(raw, EFFECT_KEYS, EFFECT_CONFUSED, what="an effect", where=where)
    if not isinstance(raw.get("at"), str):
        raise InputError(f"{where}: an effect needs 'at', a JSON Pointer string like '/refunds'")
    try:
        tokens = parse_pointer(raw["at"])
    except ValueError as e:
        raise InputError(f"{where}: {e}") from None
    ops: list[EffectOp] = [op for op in EFFECT_OPS if op in raw]
    if len(ops) != 1:
        raise InputError(
            f"{where}: an effect needs exactly one of {', '.join(EFFECT_OPS)} (found {ops or 'none'})"
        )
    op = ops[0]
    value, where_obj = raw[op], raw.get("where", MISSING)
    _shallow(value, where, f"{op!r}")
    _shallow(where_obj, where, "'where'")
    if op == "count" and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise InputError(f"{where}: 'count' must be a whole number >= 0")
    if op == "absent" and not isinstance(value, bool):
        raise InputError(f"{where}: 'absent' must be true or false")
    if where_obj is not MISSING and op != "count":
        raise InputError(f"{where}: 'where' goes with 'count' only")
    return Effect(at=raw["at"], op=op, value=value, where=where_obj, tokens=tokens)


# ------------------------------------------------------------------------------- consistency


def step_label(case: Case, step: Step) -> str:
    """How a message names the step: `accept[0][1]`, or `expected_tool` in the legacy form."""
    written = step.tool_loc[len(case.loc) :]
    if written[:1] == ("accept",) and len(written) >= 3:
        return f"accept[{written[1]}][{written[2]}]"
    if written[:1] == ("expected_tool",):
        return "expected_tool"
    for i, sequence in enumerate(case.accept):  # a case built in code, without locations
        for j, s in enumerate(sequence):
            if s is step:
                return f"accept[{i}][{j}]"
    return "a step"


@dataclass(frozen=True)
class UnknownTool:
    """A case step that names a tool no schema defines: every run of the case fails there."""

    case: Case
    step: Step
    label: str
    close: str | None
    """The defined tool the name is closest to, if any: a likely typo."""
    judged: bool = False
    """A step of the case to this tool has a `judge`, which cannot apply without the schema."""

    @property
    def message(self) -> str:
        text = (
            f"case {self.case.id!r}: {self.label} calls {self.step.tool!r}, which no tool "
            "schema defines"
        )
        if self.judged:
            text += " (its judge is not applied: calls to it are compared as JSON)"
        return text + (f"; did you mean {self.close!r}?" if self.close else "")


def unknown_in(case: Case, names: list[str], known: set[str]) -> Iterator[UnknownTool]:
    """The case's steps naming a tool no schema defines, each tool once, in step order. `names`
    are the tools' names (`known` the same, as a set), made once for a whole suite by the caller
    (`scoring.load_config` asks it of each case as it is read)."""
    seen: set[str] = set()
    for step in (step for sequence in case.accept for step in sequence):
        if step.tool in known or step.tool in seen:
            continue
        seen.add(step.tool)
        close = difflib.get_close_matches(step.tool, names, n=1)
        judged = any(s.judge for seq in case.accept for s in seq if s.tool == step.tool)
        yield UnknownTool(case, step, step_label(case, step), close[0] if close else None, judged)
