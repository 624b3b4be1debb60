"""tau-bench and tau2-bench tasks: their `actions` as the accepted sequence.

tau2-bench (`tasks.json`): `evaluation_criteria.actions` (`name`, `arguments`, `compare_args`,
`requestor`). `reward_basis` with `DB` judges the database afterwards: `grade: "writes"`, the
writes `unordered` (an extra write changes the database); without `DB` (`ACTION`, which checks
each action is taken, or telecom's `ENV_ASSERTION`) the agent's actions must each be taken,
other calls allowed (`contains_unordered`; a basis with neither `ACTION` nor `DB` is warned
about). Arguments outside `compare_args` are judged `any`. A user's action (`requestor:
"user"`) is the simulated user's, not the agent's: left out, with a warning;
`communicate_info`, `nl_assertions` and `env_assertions` are named in warnings.
tau-bench (tasks exported as JSON, `{"user_id", "instruction", "actions": [{"name", "kwargs"}],
"outputs"}`): graded on writes, `unordered`; its ids are the task indexes, as its results name
them (`task_id`); `outputs` (what the reply must say) is named in a warning.
"""

from __future__ import annotations

from typing import Any

from ._steps import step, text_of
from .format import CaseFormat, Native, Source, every, records

UNEXPRESSED = ("communicate_info", "nl_assertions", "env_assertions")


def _tau2(r: Any) -> bool:
    return (
        isinstance(r, dict)
        and isinstance(r.get("evaluation_criteria"), (dict, type(None)))
        and "evaluation_criteria" in r
    )


def _tau1(r: Any) -> bool:
    return (
        isinstance(r, dict)
        and isinstance(r.get("actions"), list)
        and ("instruction" in r or "user_id" in r)
    )


def _detect(source: Source) -> bool:
    return every(source, _tau2) or every(source, _tau1)


def _read(source: Source) -> list[Native]:
    out: list[Native] = []
    for i, rec in records(source):
        if _tau2(rec):
            out.append((_task2(source, i, rec), source.where(i)))
        else:
            at = f"[{i}]"
            steps = [
                s
                for j, a in enumerate(rec["actions"])
                if (
                    s := step(
                        source,
                        f"{at}.actions[{j}]",
                        (a or {}).get("name"),
                        (a or {}).get("kwargs", (a or {}).get("arguments")),
                    )
                )
                is not None
            ]
            if rec.get("outputs"):
                source.warn(
                    f"{at}.outputs",
                    "what the reply must say: evalrun grades tool calls, not replies",
                )
            case = {
                "id": str(i),
                "input": text_of(rec.get("instruction")),
                "accept": [steps],
                "match": "unordered",
                "grade": "writes",
            }
            out.append((case, source.where(i)))
    return out


def _task2(source: Source, i: int, rec: dict[str, Any]) -> dict[str, Any]:
    at = f"[{i}].evaluation_criteria"
    crit = rec.get("evaluation_criteria") or {}
    steps = []
    for j, a in enumerate(crit.get("actions") or []):
        a = a if isinstance(a, dict) else {}
        if a.get("requestor", "assistant") != "assistant":
            source.warn(
                f"{at}.actions[{j}]",
                f"an action of the {a.get('requestor')!r}, not the agent's; left out",
            )
            continue
        s = step(source, f"{at}.actions[{j}]", a.get("name"), a.get("arguments", a.get("kwargs")))
        if s is None:
            continue
        compare = a.get("compare_args")
        if isinstance(compare, list):
            free = sorted(k for k in s["args"] if k not in compare)
            if free:
                s["judge"] = {k: "any" for k in free}
        steps.append(s)
    for key in UNEXPRESSED:
        if crit.get(key):
            source.warn(
                f"{at}.{key}",
                "judged on the conversation or the environment by tau2 itself: evalrun does not grade it",
            )
    basis = crit.get("reward_basis") or ["DB", "COMMUNICATE"]
    writes = "DB" in basis
    if not writes and "ACTION" not in basis:
        source.warn(
            f"{at}.reward_basis",
            f"{basis!r}: tau2 judges neither the actions nor the database here; the agent's "
            "actions are read as calls the run must make, other calls allowed",
        )
    # Only the database check makes an extra call matter (it changes the database): without it,
    # tau2 never counts a call the task does not list.
    match = "unordered" if writes else "contains_unordered"
    scenario = rec.get("user_scenario")
    instructions = scenario.get("instructions") if isinstance(scenario, dict) else None
    case: dict[str, Any] = {
        "id": str(rec.get("id", i)),
        "input": text_of(instructions),
        "accept": [steps],
        "match": match,
    }
    if writes:
        case["grade"] = "writes"
    return case


FORMAT = CaseFormat(
    name="tau",
    summary='tau-bench / tau2-bench tasks: `actions` as the accepted sequence; `grade: "writes"` '
    "where the task judges the database (tau2's `reward_basis` `DB`, every tau-bench task)",
    looks_like='tasks with "evaluation_criteria" (tau2), or with "actions" and "instruction" (tau-bench)',
    version="tau2-bench 0.2 tasks.json; tau-bench 0.1 tasks (as JSON)",
    suffixes=(".json", ".jsonl"),
    detect=_detect,
    read=_read,
    order=35,
)
