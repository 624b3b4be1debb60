"""`suggest`'s case keys (`suggest/case_keys.py`): a step's `judge`, a case's `match`, `grade` and
`repeatable`, each proposed only from evidence (worlds checked and held, replies that changed) and
scored as a what-if on the same traces."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evalrunner.scoring import load_config
from evalrunner.suggest import suggest
from evalrunner.write.suggest_json import to_json
from tests.conftest import invoke


def corpus(tmp_path: Path, tools: list[dict[str, Any]], cases: list[dict[str, Any]], runs) -> Path:
    for sub in ("tools", "cases", "traces"):
        (tmp_path / sub).mkdir()
    (tmp_path / "tools" / "tools.json").write_text(json.dumps(tools))
    (tmp_path / "cases" / "cases.json").write_text(json.dumps(cases))
    (tmp_path / "traces" / "t.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    return tmp_path


def proposals(d: Path) -> list[dict[str, Any]]:
    config = load_config(d / "tools", d / "cases")
    return to_json(suggest(config, [d / "traces"])).get("case_suggestions", [])


S = {"type": "string"}
MAIL = {"name": "send_email", "parameters": {"type": "object", "properties": {"to": S, "body": S}}}
SENT = {"at": "/outbox", "count": 1}


def run(n: int, case: str, calls: list[dict[str, Any]], world: Any = None, **extra: Any):
    out = {"run_id": f"r{n}", "case_id": case, "calls": calls, **extra}
    if world is not None:
        out["world"] = world
    return out


def mail(body: str, to: str = "ops@x.io") -> dict[str, Any]:
    return {"tool": "send_email", "args": {"to": to, "body": body}}


def test_a_parameter_that_differs_across_runs_that_hold_every_effect_gets_a_judge(tmp_path):
    case = {"id": "notify", "accept": [[mail("<summary>")]], "effect": [SENT]}
    runs = [
        run(1, "notify", [mail("the db is down")], {"outbox": [1]}),
        run(2, "notify", [mail("database outage since 9")], {"outbox": [1]}),
        run(3, "notify", [mail("all fine now")], {"outbox": [1, 2]}),  # its world fails
        run(4, "notify", [mail("x", to="eve@x.io")], {"outbox": [1]}),  # another fact differs
    ]
    (found,) = proposals(corpus(tmp_path, [MAIL], [case], runs))
    assert found["key"] == "judge" and found["judge"] == "any"
    assert (found["step"], found["param"]) == ([0, 0], "body")
    assert found["evidence"]["runs"] == 2 and found["gains"] == 3
    assert found["risk"] == {"effects_failed": 1, "unverified": 0}


def test_one_other_value_is_no_evidence_and_no_world_is_none(tmp_path):
    case = {"id": "notify", "accept": [[mail("<summary>")]], "effect": [SENT]}
    runs = [
        run(1, "notify", [mail("the db is down")], {"outbox": [1]}),
        run(2, "notify", [mail("the db is down")], {"outbox": [1]}),
        run(3, "notify", [mail("something else entirely")]),  # no world: no evidence
    ]
    assert proposals(corpus(tmp_path, [MAIL], [case], runs)) == []


def test_a_wider_match_is_proposed_narrowest_first(tmp_path):
    look = {"name": "lookup", "parameters": {"type": "object", "properties": {}}}
    case = {"id": "c", "accept": [[mail("hi")]], "effect": [SENT]}
    runs = [run(1, "c", [{"tool": "lookup", "args": {}}, mail("hi")], {"outbox": [1]})]
    (found,) = proposals(corpus(tmp_path, [MAIL, look], [case], runs))
    assert (found["key"], found["match"]) == ("match", "contains")
    assert found["others"] == [{"match": "contains_unordered", "gains": 1}]


def test_grade_writes_is_proposed_where_reads_differ_and_the_world_holds(tmp_path):
    search = {
        "name": "search",
        "parameters": {"type": "object", "properties": {"q": S}},
        "x-eval-readonly": True,
    }
    case = {
        "id": "c",
        "match": "contains",
        "accept": [[{"tool": "search", "args": {"q": "db"}}, mail("hi")]],
        "effect": [SENT],
    }
    runs = [
        run(1, "c", [{"tool": "search", "args": {"q": "database"}}, mail("hi")], {"outbox": [1]})
    ]
    found = proposals(corpus(tmp_path, [MAIL, search], [case], runs))
    assert [(f["key"], f.get("grade")) for f in found] == [("grade", "writes")]


def test_repeatable_where_every_repeat_got_another_reply(tmp_path):
    status = {"name": "job_status", "parameters": {"type": "object", "properties": {"job": S}}}
    poll = {"tool": "job_status", "args": {"job": "J"}}
    case = {"id": "wait", "match": "contains", "accept": [[poll]]}
    polled = [{**poll, "result": {"state": "running"}}, {**poll, "result": {"state": "done"}}]
    looped = [{**poll, "result": {"state": "done"}}, {**poll, "result": {"state": "done"}}]
    d = corpus(tmp_path, [status], [case], [run(1, "wait", polled), run(2, "wait", polled)])
    (found,) = proposals(d)
    assert (found["key"], found["repeatable"], found["gains"]) == ("repeatable", ["job_status"], 2)
    (d / "traces" / "t.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in [run(1, "wait", polled), run(2, "wait", looped)])
    )
    assert proposals(d) == []  # one loop got the same reply: a loop, not polling


PRIO = {
    "name": "page",
    "parameters": {
        "type": "object",
        "properties": {
            "to": S,
            "prio": S,
            "filters": {"type": "object", "properties": {"team": S, "level": {"type": "integer"}}},
        },
    },
}


def page(**args: Any) -> dict[str, Any]:
    return {"tool": "page", "args": args}


def test_a_run_that_leaves_the_parameter_out_is_no_value_to_judge_by(tmp_path):
    """One run omits `prio` (no default), one states another: a judge passes neither absence nor
    one other value, so nothing is proposed; the table and the JSON both say so (a `one_of`
    holding the absence once crashed the JSON writer)."""
    case = {"id": "p", "accept": [[page(to="ops", prio="high")]], "effect": [SENT]}
    runs = [
        run(1, "p", [page(to="ops")], {"outbox": [1]}),
        run(2, "p", [page(to="ops", prio="low")], {"outbox": [1]}),
    ]
    d = corpus(tmp_path, [PRIO], [case], runs)
    assert proposals(d) == []
    for fmt in ("json", "table"):
        result = invoke(
            "suggest", "--tools", d / "tools", "--cases", d / "cases", d / "traces", "--format", fmt
        )
        assert result.exit_code == 0, result.output
        if fmt == "json":
            assert "case_suggestions" not in json.loads(result.output)


def test_a_nested_parameter_s_one_of_holds_the_step_s_own_value(tmp_path):
    """`filters.level` differs across runs that hold every effect: the proposal lists the step's
    own value first, as it does for a top-level parameter."""
    step = page(to="ops", filters={"team": "db", "level": 1})
    case = {"id": "p", "accept": [[step]], "effect": [SENT]}
    runs = [
        run(n, "p", [page(to="ops", filters={"team": "db", "level": level})], {"outbox": [1]})
        for n, level in enumerate([2, 3])
    ]
    (found,) = proposals(corpus(tmp_path, [PRIO], [case], runs))
    assert (found["key"], found["param"]) == ("judge", "filters.level")
    assert found["judge"] == {"one_of": [1, 2, 3]}


def test_the_table_names_the_judged_step_as_errors_and_lint_do(tmp_path):
    case = {"id": "notify", "accept": [[mail("<summary>")]], "effect": [SENT]}
    runs = [
        run(1, "notify", [mail("the db is down")], {"outbox": [1]}),
        run(2, "notify", [mail("database outage since 9")], {"outbox": [1]}),
    ]
    d = corpus(tmp_path, [MAIL], [case], runs)
    result = invoke("suggest", "--tools", d / "tools", "--cases", d / "cases", d / "traces")
    assert result.exit_code == 0, result.output
    assert '2  case notify: accept[0][0] judge body = "any"' in result.stdout


def test_repeatable_where_each_loop_stopped_once_the_reply_changed(tmp_path):
    """A job polled while it runs gets `running` more than once before `done`: polling. A loop
    that went on after the answer (`done`, `done`) is a loop, and nothing is proposed."""
    status = {"name": "job_status", "parameters": {"type": "object", "properties": {"job": S}}}
    poll = {"tool": "job_status", "args": {"job": "J"}}
    case = {"id": "wait", "match": "contains", "accept": [[poll]]}

    def polls(*states: str) -> list[dict[str, Any]]:
        return [{**poll, "result": {"state": s}} for s in states]

    runs = [run(1, "wait", polls("running", "running", "done")), run(2, "wait", polls("a", "b"))]
    (tmp_path / "polled").mkdir()
    (tmp_path / "looped").mkdir()
    (found,) = proposals(corpus(tmp_path / "polled", [status], [case], runs))
    assert (found["key"], found["repeatable"], found["gains"]) == ("repeatable", ["job_status"], 2)
    assert found["evidence"]["runs"] == 2
    went_on = [*runs, run(3, "wait", polls("running", "done", "done"))]
    assert proposals(corpus(tmp_path / "looped", [status], [case], went_on)) == []
