"""`evalrun diff` names the new reasons a run flipped: a call now forbidden, a parameter now
judged by its step, a read now left out under `grade: "writes"`."""

from __future__ import annotations

from tests.test_diff import diff_json, score_to, write_json, write_jsonl

S = {"type": "string"}
TOOLS = [
    {"name": "send_money", "parameters": {"type": "object", "properties": {"to": S, "memo": S}}},
    {
        "name": "search",
        "parameters": {"type": "object", "properties": {"q": S}},
        "x-eval-readonly": True,
    },
]
PAY = {"tool": "send_money", "args": {"to": "landlord", "memo": "<rent>"}}


def project(tmp_path, case, calls):
    write_json(tmp_path / "tools" / "t.json", TOOLS)
    write_json(tmp_path / "cases" / "cases.json", [case])
    write_jsonl(tmp_path / "traces" / "t.jsonl", [{"run_id": "r1", "case_id": "c", "calls": calls}])
    score_to(tmp_path / "old.json")


def causes(tmp_path, case):
    write_json(tmp_path / "cases" / "cases.json", [case])
    return [(f["old"], f["new"], f["cause"]) for f in diff_json("old.json", "traces")["flips"]]


def test_a_call_now_forbidden_is_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    case = {"id": "c", "match": "contains", "accept": [[PAY]]}
    theft = {"tool": "send_money", "args": {"to": "attacker", "memo": "x"}}
    project(tmp_path, case, [PAY, theft])
    guarded = {**case, "forbid": [{"tool": "send_money", "args": {"to": "attacker"}}]}
    (flip,) = causes(tmp_path, guarded)
    assert flip[:2] == ("pass", "false_pass")
    assert "call 1 (send_money) now forbidden by the case (was extra)" in flip[2]


def test_a_parameter_now_judged_by_its_step_is_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    case = {"id": "c", "accept": [[PAY]]}
    worded = {"tool": "send_money", "args": {"to": "landlord", "memo": "March rent"}}
    project(tmp_path, case, [worded])
    judged = {"id": "c", "accept": [[{**PAY, "judge": {"memo": {"matches": "(?i)rent"}}}]]}
    (flip,) = causes(tmp_path, judged)
    assert flip[:2] == ("fail", "false_failure")
    assert "now accepted by the step's judge `matches` on send_money.memo" in flip[2]


def test_a_read_now_left_out_is_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    look = {"tool": "search", "args": {"q": "rent"}}
    case = {"id": "c", "accept": [[look, PAY]]}
    project(tmp_path, case, [{"tool": "search", "args": {"q": "rent march"}}, PAY])
    (flip,) = causes(tmp_path, {**case, "grade": "writes"})
    assert flip[:2] == ("fail", "false_failure")
    assert "call 0 (search) now a read the case does not judge" in flip[2]
