"""Reading cases: accept sets, the legacy form, effects, and every bad-input path."""

from __future__ import annotations

import json

import pytest

from evalrunner import InputError, Step, load_cases

CASE = {
    "id": "refund-dana-march",
    "input": "refund the duplicate charge",
    "match": "contains",
    "accept": [
        [{"tool": "search_invoices", "args": {"customer_id": "C-4471", "month": "2026-03"}}],
        [{"tool": "get_customer", "args": {"customer_id": "C-4471"}}],
    ],
    "effect": [
        {"at": "/refunds", "contains": {"invoice": "INV-9912", "cents": 4200}},
        {"at": "/refunds", "count": 1, "where": {"invoice": "INV-9912"}},
        {"at": "/a~1b/c~0d", "absent": True},
        {"at": "", "equals": {}},
    ],
}


def write(tmp_path, name, text):
    d = tmp_path / "cases"
    d.mkdir(exist_ok=True)
    (d / name).write_text(text)
    return d


def test_single_list_and_jsonl(tmp_path):
    write(tmp_path, "one.json", json.dumps(CASE))
    write(tmp_path, "many.json", json.dumps([{**CASE, "id": "b"}, {**CASE, "id": "c"}]))
    d = write(
        tmp_path,
        "lines.jsonl",
        json.dumps({**CASE, "id": "d"}) + "\n\n" + json.dumps({**CASE, "id": "e"}) + "\n",
    )
    cases = load_cases(d)
    assert sorted(cases) == ["b", "c", "d", "e", "refund-dana-march"]
    c = cases["refund-dana-march"]
    assert c.match == "contains"
    assert c.accept[1] == (Step("get_customer", {"customer_id": "C-4471"}),)
    assert [e.op for e in c.effects] == ["contains", "count", "absent", "equals"]
    assert c.effects[2].tokens == ("a/b", "c~d")
    assert cases["e"].source.endswith("lines.jsonl:3")


def test_legacy_form(tmp_path):
    d = write(
        tmp_path,
        "legacy.json",
        json.dumps(
            {
                "id": "l",
                "input": "x",
                "expected_tool": "get_customer",
                "expected_args": {"customer_id": "C-1"},
            }
        ),
    )
    c = load_cases(d)["l"]
    assert c.accept == ((Step("get_customer", {"customer_id": "C-1"}),),)
    assert c.match == "prefix"


def test_default_match_is_exact(tmp_path):
    d = write(tmp_path, "a.json", json.dumps({"id": "x", "accept": [[{"tool": "t"}]]}))
    c = load_cases(d)["x"]
    assert c.match == "exact" and c.accept[0][0].args == {}


@pytest.mark.parametrize(
    ("case", "message"),
    [
        (
            {"id": "x", "accept": [[{"tool": "t"}]], "match": "fuzzy"},
            "unknown match mode 'fuzzy'; use one of exact, prefix, contains",
        ),
        ({"accept": [[{"tool": "t"}]]}, "the case has no 'id'"),
        ({"id": "x"}, "neither 'accept'"),
        ({"id": "x", "accept": []}, "'accept' must be a non-empty list"),
        ({"id": "x", "accept": [[{"args": {}}]]}, "accept[0][0] has no tool name"),
        (
            {"id": "x", "accept": [[{"tool": "t", "args": [1]}]]},
            "accept[0][0] 'args' must be an object",
        ),
        (
            {"id": "x", "accept": [[{"tool": "t"}]], "effect": [{"at": "refunds", "absent": True}]},
            "starts with '/'",
        ),
        (
            {
                "id": "x",
                "accept": [[{"tool": "t"}]],
                "effect": [{"at": "/r", "count": 1, "equals": 2}],
            },
            "exactly one of equals, contains, count, absent",
        ),
        (
            {"id": "x", "accept": [[{"tool": "t"}]], "effect": [{"at": "/r", "count": -1}]},
            "'count' must be a whole number",
        ),
        (
            {
                "id": "x",
                "accept": [[{"tool": "t"}]],
                "effect": [{"at": "/r", "equals": 1, "where": {}}],
            },
            "'where' goes with 'count' only",
        ),
    ],
)
def test_bad_cases_say_what_to_fix(tmp_path, case, message):
    d = write(tmp_path, "bad.json", json.dumps(case))
    with pytest.raises(InputError) as e:
        load_cases(d)
    assert message in str(e.value)
    assert "cases/bad.json" in str(e.value)


def test_duplicate_id_names_both_places(tmp_path):
    write(tmp_path, "a.json", json.dumps(CASE))
    d = write(tmp_path, "b.jsonl", "\n" + json.dumps(CASE) + "\n")
    with pytest.raises(InputError) as e:
        load_cases(d)
    msg = str(e.value)
    assert "case id 'refund-dana-march' is used twice" in msg
    assert "cases/a.json" in msg and "cases/b.jsonl:2" in msg


def test_a_bad_jsonl_line_names_the_line(tmp_path):
    d = write(tmp_path, "a.jsonl", json.dumps(CASE) + "\n{oops\n")
    with pytest.raises(InputError, match=r"cases/a\.jsonl:2: this case line is not valid JSON"):
        load_cases(d)
