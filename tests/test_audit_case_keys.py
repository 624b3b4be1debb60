"""The audit sheet shows what a case judges (a step's `judge`, `forbid`, `repeatable`, `grade`):
the reviewer reads the task as the case states it; a case without them gives the lines it gave."""

from __future__ import annotations

from evalrunner.audit.compare import hints
from evalrunner.audit.review import review
from evalrunner.grade.grader import Grader
from evalrunner.grade.norms import BUILTINS
from evalrunner.read.cases import parse_case
from evalrunner.read.tools import parse_tool
from evalrunner.traces import NativeRecord
from evalrunner.write.audit_page import view

TOOL = parse_tool(
    {
        "name": "send_money",
        "parameters": {"type": "object", "properties": {"to": {"type": "string"}}},
        "x-eval-readonly": False,
    },
    "t",
)
RECORD = NativeRecord({"run_id": "r", "case_id": "c", "calls": []}, "t.jsonl:1")


def test_the_sheet_shows_judge_forbid_repeatable_and_grade():
    case = parse_case(
        {
            "id": "c",
            "match": "contains",
            "grade": "writes",
            "repeatable": ["poll"],
            "accept": [
                [
                    {
                        "tool": "send_money",
                        "args": {"to": "x"},
                        "judge": {"to": {"one_of": ["x", "y"]}},
                    }
                ]
            ],
            "forbid": [{"tool": "send_money", "args": {"to": "attacker"}}],
        },
        "c.json",
    )
    line = review(RECORD, case, {"send_money": TOOL})
    assert line["accept"] == [
        [{"tool": "send_money", "args": {"to": "x"}, "judge": {"to": {"one_of": ["x", "y"]}}}]
    ]
    assert line["forbid"] == [{"tool": "send_money", "args": {"to": "attacker"}}]
    assert (line["repeatable"], line["grade"]) == (["poll"], "writes")
    shown = view({"run_id": "r", "case_id": "c", **line})
    assert shown["forbid"] and shown["accept"][0][0]["judge"] and shown["grade"] == "writes"


def test_a_case_without_them_gives_the_keys_it_gave():
    case = parse_case(
        {"id": "c", "accept": [[{"tool": "send_money", "args": {"to": "x"}}]]}, "c.json"
    )
    line = review(RECORD, case, {"send_money": TOOL})
    assert list(line) == ["input", "calls", "match", "accept", "effects", "world", "meta", "tools"]
    assert line["accept"] == [[{"tool": "send_money", "args": {"to": "x"}}]]


SEARCH = parse_tool(
    {
        "name": "search",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        "x-eval-readonly": True,
    },
    "t",
)


def test_a_blind_sheet_of_a_case_graded_on_writes_says_which_tools_only_read():
    """`grade: "writes"` leaves the read-only tools' calls out: a reviewer reads which tools those
    are, even blind; a case graded on every call keeps a blind sheet blind to it."""
    steps = [[{"tool": "search", "args": {"q": "r"}}, {"tool": "send_money", "args": {"to": "x"}}]]
    tools = {"search": SEARCH, "send_money": TOOL}
    writes = parse_case({"id": "c", "grade": "writes", "accept": steps}, "c.json")
    line = review(RECORD, writes, tools)
    assert line["tools"]["search"]["readonly"] is True
    assert "readonly" not in line["tools"]["send_money"]
    assert "x-eval-readonly" not in str(line["tools"])  # the schema stays without annotations
    assert view({"run_id": "r", "case_id": "c", **line})["reads"] == ["search"]
    every = parse_case({"id": "c", "accept": steps}, "c.json")
    assert "readonly" not in review(RECORD, every, tools)["tools"]["search"]
    assert review(RECORD, every, tools, blind=False)["tools"]["search"]["readonly"] is True


def _graded(case_json, calls, tools=(TOOL, SEARCH)):
    case = parse_case(case_json, "c.json")
    grader = Grader({t.name: t for t in tools}, {case.id: case}, registry=BUILTINS)
    return grader.grade_record({"run_id": "r", "case_id": case.id, "calls": calls}, "t.jsonl:1")


def test_the_leads_name_the_case_keys_that_decided():
    """A run the reviewer reads as correct that evalrun fails for a forbidden call, or for a value
    its step's judge refused, points at the case key; one read as wrong that a judge or a
    writes-only grade passed points at those."""
    pay = {"tool": "send_money", "args": {"to": "x"}}
    forbid = {"id": "c", "match": "contains", "accept": [[pay]], "forbid": [{"tool": "send_money"}]}
    forbidden = _graded(forbid, [pay, {"tool": "send_money", "args": {"to": "y"}}])
    assert hints(forbidden, True, {}) == [
        "call 1 to send_money is forbidden (forbid[0]: any call to send_money): does the case "
        "forbid too much?"
    ]
    judged = {**pay, "judge": {"to": {"matches": "^x"}}}
    refused = _graded(
        {"id": "c", "accept": [[judged]]}, [{"tool": "send_money", "args": {"to": "z"}}]
    )
    assert hints(refused, True, {}) == [
        'send_money.to: "z" fails the step\'s judge (matches): widen it?'
    ]
    passed = _graded(
        {"id": "c", "accept": [[judged]]}, [{"tool": "send_money", "args": {"to": "xz"}}]
    )
    assert hints(passed, False, {"effects": []})[0] == (
        "send_money.to matched through the step's judge (matches): doubt it first"
    )
    search = {"tool": "search", "args": {"q": "r"}}
    writes = {"id": "c", "grade": "writes", "accept": [[search, pay]]}
    unread = _graded(writes, [{"tool": "search", "args": {"q": "other"}}, pay])
    assert hints(unread, False, {"effects": []})[0] == (
        "the case is graded on writes: its calls to read-only tools were not judged; did a read "
        "matter?"
    )
