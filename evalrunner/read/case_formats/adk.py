"""Google ADK eval sets (`*.evalset.json`, and the test files `*.test.json`).

Each eval case's invocations' expected `intermediate_data.tool_uses` (`name`, `args`), in order
across the conversation, are the canonical sequence. ADK's tool-use `id`s are left out: they are
what made identical calls score 0.0. The match comes from a `test_config.json` beside the file:
`criteria.tool_trajectory_avg_score` as a number (ADK's default match, `EXACT`) or as
`{"threshold", "match_type", "ignore_args"}`, the match type as ADK reads it: its name in any case
(`IN_ORDER`, `in-order`) or the number ADK's own `EvalConfig` writes (0, 1, 2);
`ignore_args: true` (ADK compares the tools' names only) judges every step's arguments `any`.
Keys are read in snake_case or, as ADK's models dump by alias, camelCase (`evalCases`,
`toolUses`); an invocation's calls are its `tool_uses`, or, in ADK's newer form, the
`function_call` parts of its `invocation_events`. Rubrics (judged by a model) are named in a
warning. The older test-file form, a list of `{query, expected_tool_use: [{tool_name,
tool_input}]}`, is read too.
"""

from __future__ import annotations

import re
from typing import Any

from ._steps import step, text_of
from .format import CaseFormat, Native, Source, stable_id

CONFIG = "test_config.json"
MATCH_TYPES = {"EXACT": "exact", "IN_ORDER": "contains", "ANY_ORDER": "contains_unordered"}
MATCH_NUMBERS = ("EXACT", "IN_ORDER", "ANY_ORDER")
"""ADK's `ToolTrajectoryCriterion.MatchType` is an Enum of ints: `EvalConfig.model_dump_json()`
writes `"match_type": 1`."""
TRAJECTORY = "tool_trajectory_avg_score"


KEPT = frozenset({"args", "tool_input", "state", "text"})
"""Keys whose values are the user's data, not ADK's structure: their keys are never renamed."""


def _snake(value: Any) -> Any:
    """ADK's models write camelCase when dumped by alias (`evalCases`, `toolUses`): read both."""
    if isinstance(value, list):
        return [_snake(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for k, v in value.items():
        name = _snake_name(k)
        out[name] = v if name in KEPT else _snake(v)
    return out


def _old(record: Any) -> bool:
    return isinstance(record, dict) and "query" in record and "expected_tool_use" in record


def _detect(source: Source) -> bool:
    data = source.data  # only its top level is looked at: a large file of other cases is not walked
    if isinstance(data, dict):
        return any(isinstance(data.get(k), list) for k in ("eval_cases", "evalCases"))
    return isinstance(data, list) and bool(data) and all(_old(_snake_keys(r)) for r in data)


def _snake_keys(record: Any) -> Any:
    return {_snake_name(k): v for k, v in record.items()} if isinstance(record, dict) else record


def _snake_name(key: Any) -> Any:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower() if isinstance(key, str) else key


def _match_type(value: Any) -> str | None:
    """ADK's match type as ADK's own validator reads it: the Enum's number, or its name in any
    case with `-` or a space for `_`; None when it is neither."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(MATCH_NUMBERS):
        return MATCH_NUMBERS[value]
    if isinstance(value, str):
        name = value.strip().upper().replace("-", "_").replace(" ", "_")
        return name if name in MATCH_TYPES else None
    return None


def _match(source: Source) -> tuple[str, bool]:
    """The case's match, and whether ADK compares the tools' names only (`ignore_args`)."""
    config = source.siblings.get(CONFIG)
    where = f"{CONFIG} criteria"
    if not isinstance(config, dict) or not isinstance(config.get("criteria"), dict):
        return "exact", False  # ADK's default: the expected tool uses, exactly, in order
    criteria = config["criteria"]
    for name in sorted(criteria):
        if name != TRAJECTORY:
            source.warn(f"{where}.{name}", "not a tool-call criterion: evalrun does not grade it")
    value = criteria.get(TRAJECTORY)
    threshold, match_type, ignore_args = value, "EXACT", False
    if isinstance(value, dict):
        threshold = value.get("threshold", 1.0)
        given = value.get("match_type", value.get("matchType", "EXACT"))
        found = _match_type(given)
        if found is None:
            source.warn(
                f"{where}.{TRAJECTORY}.match_type", f"unknown match type {given!r}; read as EXACT"
            )
        match_type = found or "EXACT"
        ignore_args = value.get("ignore_args", value.get("ignoreArgs")) is True
    if isinstance(threshold, (int, float)) and threshold < 1:
        source.warn(
            f"{where}.{TRAJECTORY}",
            f"a threshold of {threshold} on the average over a case's invocations; evalrun passes "
            "or fails the whole case",
        )
    return MATCH_TYPES[match_type], ignore_args


def _read(source: Source) -> list[Native]:
    match, names_only = _match(source)
    out = _cases(source, match)
    if names_only:  # ADK's ignore_args: the tools' names are compared, their arguments not
        for case, _ in out:
            for s in case["accept"][0]:
                s["judge"] = {"": "any"}
    return out


def _cases(source: Source, match: str) -> list[Native]:
    out: list[Native] = []
    data = _snake(source.data)
    if isinstance(data, list):  # the older test file
        for i, rec in enumerate(data):
            at = f"[{i}]"
            old_steps = [
                s
                for j, use in enumerate(rec.get("expected_tool_use") or [])
                if (
                    s := step(
                        source,
                        f"{at}.expected_tool_use[{j}]",
                        (use or {}).get("tool_name"),
                        (use or {}).get("tool_input"),
                    )
                )
                is not None
            ]
            for key in ("reference", "expected_intermediate_agent_responses"):
                if rec.get(key):
                    source.warn(
                        f"{at}.{key}", "a response, not a tool call: evalrun does not grade it"
                    )
            case = {
                "id": stable_id(source.file.name.split(".")[0], rec),
                "input": text_of(rec.get("query")),
                "accept": [old_steps],
                "match": match,
            }
            out.append((case, source.where(i)))
        return out
    for i, ec in enumerate(data["eval_cases"]):
        at = f"eval_cases[{i}]"
        if not isinstance(ec, dict):
            source.warn(at, "an eval case must be an object; left out")
            continue
        steps: list[dict[str, Any]] = []
        first = ""
        conversation = ec.get("conversation") or []
        if ec.get("rubrics"):
            source.warn(
                f"{at}.rubrics", "rubrics are judged by a model: evalrun does not grade them"
            )
        if ec.get("conversation_scenario"):
            source.warn(
                f"{at}.conversation_scenario",
                "a simulated user: evalrun reads only recorded conversations",
            )
        for k, inv in enumerate(conversation if isinstance(conversation, list) else []):
            iat = f"{at}.conversation[{k}]"
            if not isinstance(inv, dict):
                continue
            if not first:
                first = text_of(inv.get("user_content"))
            inter = inv.get("intermediate_data") or {}
            for j, use in enumerate(inter.get("tool_uses") or []):
                use = use if isinstance(use, dict) else {}
                s = step(
                    source,
                    f"{iat}.intermediate_data.tool_uses[{j}]",
                    use.get("name"),
                    use.get("args"),
                )
                if s is not None:
                    steps.append(s)
            # ADK's newer form: the invocation's events, whose parts hold the function calls
            for j, event in enumerate(inter.get("invocation_events") or []):
                content = event.get("content") if isinstance(event, dict) else None
                parts = content.get("parts") if isinstance(content, dict) else None
                for k2, part in enumerate(parts if isinstance(parts, list) else []):
                    call = part.get("function_call") if isinstance(part, dict) else None
                    if isinstance(call, dict):
                        at_call = (
                            f"{iat}.intermediate_data.invocation_events[{j}].content.parts[{k2}]"
                        )
                        s = step(source, at_call, call.get("name"), call.get("args"))
                        if s is not None:
                            steps.append(s)
            if inter.get("intermediate_responses"):
                source.warn(
                    f"{iat}.intermediate_data.intermediate_responses",
                    "sub-agent responses: evalrun does not grade them",
                )
            if inv.get("rubrics"):
                source.warn(
                    f"{iat}.rubrics", "rubrics are judged by a model: evalrun does not grade them"
                )
            if inv.get("final_response"):
                source.warn(
                    f"{iat}.final_response",
                    "the expected reply: evalrun grades tool calls, not replies",
                )
        case_id = ec.get("eval_id")
        if not isinstance(case_id, str) or not case_id:
            case_id = stable_id(str(data.get("eval_set_id") or source.file.name.split(".")[0]), ec)
        out.append(
            (
                {"id": case_id, "input": first, "accept": [steps], "match": match},
                f"{source.file} {at}",
            )
        )
    return out


FORMAT = CaseFormat(
    name="adk",
    summary="Google ADK eval sets and test files: each eval case's expected `tool_uses` (`name`, `args`) "
    "across its invocations; `tool_trajectory_avg_score`'s match type (EXACT, IN_ORDER, ANY_ORDER) from "
    "`test_config.json` becomes `match` (exact, contains, contains_unordered); its `ignore_args` "
    "judges the arguments `any`",
    looks_like='{"eval_set_id", "eval_cases": [...]}, or a list of {"query", "expected_tool_use"}',
    version="google-adk 1.x to 2.13 EvalSet (and the pre-1.0 test file)",
    suffixes=(".json",),
    detect=_detect,
    read=_read,
    order=10,
    config_files=(CONFIG,),
    is_config=lambda source: isinstance(source.data, dict) and "criteria" in source.data,
)
