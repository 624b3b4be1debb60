"""BFCL (Berkeley Function Calling Leaderboard) `possible_answer` records.

A record is `{"id", "ground_truth": [{FUNCTION: {PARAM: [acceptable values]}}]}`, one line each
(BFCL's files are JSON lines named `.json`). Each ground-truth entry is one expected call; each
parameter's list of acceptable values becomes the step's `judge` `one_of`, the first value the
step's own; `""` in the list is BFCL's "may be omitted": the step leaves the parameter out, so
leaving it out passes and any listed value passes too. A parameter whose only value is `""` is
left out. Inside an object parameter (a dict's own possible answers) the first value is
expected, and alternatives or a `""` beside a value there are named in a warning (a judge path
there would need the tool to declare the object's properties). The parallel categories (an id
with `parallel`) are graded `unordered`, the others `exact`. Multi-turn ground truth (per turn,
the calls as Python source) is read, never run (each argument through `ast.literal_eval`), into
one sequence matched `contains`, with a warning.
"""

from __future__ import annotations

import ast
from typing import Any

from ...jsonvalue import dumps
from .format import CaseFormat, Native, Source, every, records

OMIT = ""


def _detect(source: Source) -> bool:
    return every(source, lambda r: isinstance(r, dict) and "ground_truth" in r and "id" in r)


def _value(options: Any, source: Source, at: str) -> tuple[bool, Any, list[Any]]:
    """(present, the step's value, every acceptable value) from one parameter's list."""
    if not isinstance(options, list):
        options = [options]
    listed = [o for o in options if o != OMIT]
    if not listed:
        return False, None, []
    values = [_plain(o, source, at) for o in listed]
    return True, values[0], values


def _plain(value: Any, source: Source, at: str) -> Any:
    """A nested dict's own possible answers (`{"key": [v1, v2]}`) read as its first choices."""
    if isinstance(value, dict):
        out = {}
        for k in sorted(value):
            present, first, listed = _value(value[k], source, f"{at}.{k}")
            if len(listed) > 1:
                source.warn(
                    f"{at}.{k}",
                    f"alternatives inside an object ({listed!r}); the first is expected",
                )
            if present and isinstance(value[k], list) and OMIT in value[k]:
                source.warn(
                    f"{at}.{k}",
                    'may be omitted ("" among its possible answers) inside an object; evalrun '
                    f"expects {dumps(first).decode()} there",
                )
            if present:
                out[k] = first
        return out
    return value


def _multi_turn(source: Source, case_id: str, turns: list[Any]) -> dict[str, Any]:
    """Multi-turn ground truth: per turn, the calls as Python source (`cd(folder='document')`),
    read (never run: `ast.literal_eval` of each argument) into one sequence, in order."""
    steps = []
    for t, turn in enumerate(turns):
        for k, text in enumerate(turn):
            found = _python_call(source, f"{case_id}.ground_truth[{t}][{k}]", text)
            if found is not None:
                steps.append(found)
    source.warn(
        f"{case_id}.ground_truth",
        "multi-turn: the turns' calls are read as one sequence, matched in order with other "
        "calls allowed (contains); BFCL's own state check is not evalrun's",
    )
    return {"id": case_id, "accept": [steps], "match": "contains"}


def _python_call(source: Source, at: str, text: Any) -> dict[str, Any] | None:
    try:
        node = ast.parse(text, mode="eval").body if isinstance(text, str) else None
    except SyntaxError:
        node = None
    if not isinstance(node, ast.Call) or not isinstance(node.func, (ast.Name, ast.Attribute)):
        source.warn(at, f"{text!r} is not a function call; left out")
        return None
    if node.args or any(kw.arg is None for kw in node.keywords):
        source.warn(at, f"{text!r}: positional arguments have no parameter names; left out")
        return None
    args: dict[str, Any] = {}
    for kw in node.keywords:
        try:
            value = _json(ast.literal_eval(kw.value))
        except (ValueError, TypeError, SyntaxError, RecursionError):
            source.warn(at, f"{text!r}: the argument {kw.arg!r} is not a literal; left out")
            return None
        args[str(kw.arg)] = value
    return {"tool": ast.unparse(node.func), "args": args}


def _json(value: Any) -> Any:
    """A Python literal as JSON: tuples as lists; a set, bytes or a complex number is not JSON."""
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _json(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise ValueError("not JSON")


def _read(source: Source) -> list[Native]:
    out: list[Native] = []
    for i, rec in records(source):
        case_id = str(rec["id"])
        at = f"{case_id}.ground_truth"
        truth = rec.get("ground_truth")
        if isinstance(truth, list) and truth and all(isinstance(t, list) for t in truth):
            out.append((_multi_turn(source, case_id, truth), source.where(i)))
            continue
        if not isinstance(truth, list) or any(not isinstance(g, dict) for g in truth):
            source.warn(
                at,
                "not a list of {function: {param: [values]}} or of turns; this record is left out",
            )
            continue
        steps = []
        for j, entry in enumerate(truth):
            for name in entry:
                params = entry[name] if isinstance(entry[name], dict) else {}
                args: dict[str, Any] = {}
                judge: dict[str, Any] = {}
                for p in sorted(params):
                    present, first, listed = _value(params[p], source, f"{at}[{j}].{name}.{p}")
                    omittable = isinstance(params[p], list) and OMIT in params[p]
                    if present and not omittable:
                        args[p] = first
                    if len(listed) > 1 or (present and omittable):
                        judge[p] = {"one_of": listed}
                s: dict[str, Any] = {"tool": name, "args": args}
                if judge:
                    s["judge"] = judge
                steps.append(s)
        match = "unordered" if "parallel" in case_id else "exact"
        out.append(({"id": case_id, "accept": [steps], "match": match}, source.where(i)))
    return out


FORMAT = CaseFormat(
    name="bfcl",
    summary="BFCL `possible_answer` records: one step per ground-truth call, each parameter's acceptable "
    'values a `judge` `one_of` (`""`: may be omitted); parallel categories `unordered`',
    looks_like='records with "id" and "ground_truth"',
    version="BFCL v3 / v4 (bfcl-eval)",
    suffixes=(".json", ".jsonl"),
    detect=_detect,
    read=_read,
    order=25,
)
