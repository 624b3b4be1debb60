"""LangChain agentevals reference trajectories, and LangSmith dataset examples holding them.

A reference trajectory is an OpenAI-style message list; its assistant messages' `tool_calls`
(`function.name` and `function.arguments`, or LangChain's `name` and `args`) are the canonical
sequence. A file holds one trajectory, or examples (`.json` list or `.jsonl`, as LangSmith
exports them: `{"id", "inputs", "outputs"}`) whose `reference_trajectory`, `reference_outputs`
or `outputs` hold one (the list, or `{"messages": [...]}`). agentevals' `trajectory_match_mode`
(on the example, or in its `metadata`) becomes `match`: `strict` -> `exact`, `unordered` ->
`unordered`, `superset` -> `contains_unordered` (messages as OpenAI writes them, `role`, or as
LangChain serializes them: `type: "ai"`, `messages_to_dict`'s `data`, `dumpd`'s `kwargs`);
`subset` (the run's calls all among the reference's, some may be missing) has no match mode and
is read as `unordered`, with a warning.
`tool_args_match_mode: "ignore"` judges every argument the reference names as `any`.
"""

from __future__ import annotations

from typing import Any

from ._steps import step, text_of
from .format import CaseFormat, Native, Records, Source, every, records, stable_id

MODES = {"strict": "exact", "unordered": "unordered", "superset": "contains_unordered"}
HOLDERS = ("reference_trajectory", "reference_outputs", "outputs")


ROLES = {"ai": "assistant", "human": "user", "AIMessage": "assistant", "HumanMessage": "user"}


def _message(m: Any) -> dict[str, Any] | None:
    """A message as OpenAI writes it (`role`), or as LangChain serializes one: `model_dump()`
    (`type` and the fields at the top), `messages_to_dict()` (the fields in `data`) or `dumpd()`
    (`{"lc": 1, "type": "constructor", "id": [..., "AIMessage"], "kwargs": {...}}`)."""
    if not isinstance(m, dict):
        return None
    if "role" in m:
        return m
    kind = m.get("type")
    body = m["data"] if isinstance(m.get("data"), dict) else m
    if m.get("lc") == 1 and kind == "constructor" and isinstance(m.get("kwargs"), dict):
        path = m.get("id")
        body = m["kwargs"]
        kind = body.get("type", path[-1] if isinstance(path, list) and path else None)
    if isinstance(kind, str) and kind in (*ROLES, "tool", "system", "ToolMessage", "SystemMessage"):
        return {**body, "role": ROLES.get(kind, kind.lower().removesuffix("message"))}
    return None


def _messages(value: Any) -> list[Any] | None:
    if isinstance(value, dict):
        value = value.get("messages", value.get("trajectory"))
    if isinstance(value, (list, Records)) and value:
        read = []
        for m in value:  # stops at the first that is not a message (a file of other records)
            found = _message(m)
            if found is None:
                return None
            read.append(found)
        return read
    return None


def _trajectory(record: Any) -> tuple[str, list[Any]] | None:
    if not isinstance(record, dict):
        return None
    for key in HOLDERS:
        found = _messages(record.get(key))
        if found is not None:
            return key, found
    return None


def _detect(source: Source) -> bool:
    if _messages(source.data) is not None:
        return True
    return every(source, lambda r: _trajectory(r) is not None)


def _calls(source: Source, at: str, messages: list[Any]) -> list[dict[str, Any]]:
    steps = []
    for k, m in enumerate(messages):
        if m.get("role") not in ("assistant", "ai"):
            continue
        for j, call in enumerate(m.get("tool_calls") or []):
            if not isinstance(call, dict):
                continue
            fn: dict[str, Any] = (
                call["function"] if isinstance(call.get("function"), dict) else call
            )
            args = fn.get("arguments", fn.get("args"))
            s = step(source, f"{at}[{k}].tool_calls[{j}]", fn.get("name"), args)
            if s is not None:
                steps.append(s)
    return steps


def _case(
    source: Source, at: str, record: dict[str, Any], messages: list[Any], case_id: str
) -> dict[str, Any]:
    meta: dict[str, Any] = record["metadata"] if isinstance(record.get("metadata"), dict) else {}
    mode = record.get("trajectory_match_mode", meta.get("trajectory_match_mode", "strict"))
    match = MODES.get(str(mode))
    if match is None:
        source.warn(
            f"{at.split('.')[0]}.trajectory_match_mode",
            f"{mode!r}: evalrun has no match for it (subset: the run's calls all among the "
            "reference's); read as unordered",
        )
        match = "unordered"
    steps = _calls(source, at, messages)
    args_mode = record.get("tool_args_match_mode", meta.get("tool_args_match_mode", "exact"))
    if args_mode == "ignore":
        for s in steps:
            if s["args"]:
                s["judge"] = {k: "any" for k in sorted(s["args"])}
    elif args_mode != "exact":
        source.warn(
            f"{at}.tool_args_match_mode",
            f"{args_mode!r} is not expressible; the arguments are compared under the tools' rules",
        )
    if record.get("tool_args_match_overrides") or meta.get("tool_args_match_overrides"):
        source.warn(
            f"{at}.tool_args_match_overrides",
            "custom comparators are code: give the tools x-eval-norm rules instead",
        )
    first = next((m.get("content") for m in messages if m.get("role") in ("user", "human")), None)
    inputs = record.get("inputs")
    return {
        "id": case_id,
        "input": text_of(inputs if inputs is not None and first is None else first),
        "accept": [steps],
        "match": match,
    }


def _read(source: Source) -> list[Native]:
    whole = _messages(source.data)
    if whole is not None:
        case_id = stable_id(source.file.name.split(".")[0], whole)
        return [(_case(source, "", {}, whole, case_id), str(source.file))]
    out: list[Native] = []
    for i, rec in records(source):
        found = _trajectory(rec)
        assert found is not None  # detected
        key, messages = found
        rid = rec.get("id", rec.get("example_id"))
        case_id = (
            rid if isinstance(rid, str) and rid else stable_id(source.file.name.split(".")[0], rec)
        )
        out.append((_case(source, f"#{i}.{key}", rec, messages, case_id), source.where(i)))
    return out


FORMAT = CaseFormat(
    name="agentevals",
    summary="LangChain agentevals / LangSmith: reference trajectories (OpenAI-style messages with "
    "`tool_calls`), alone or in dataset examples' reference outputs; `trajectory_match_mode` "
    "becomes `match` (strict, unordered, superset)",
    looks_like='a list of {"role", ...} messages, or examples whose "reference_trajectory", '
    '"reference_outputs" or "outputs" hold one',
    version="agentevals 0.0.x, LangSmith example export",
    suffixes=(".json", ".jsonl"),
    detect=_detect,
    read=_read,
    order=50,
)
