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


# ------------------------------------------------------------------- where things are written


def test_cases_and_steps_record_where_they_are_written(tmp_path):
    named = {"id": "n", "accept": [[{"tool": "t"}, {"name": "u", "arguments": {}}]]}
    write(tmp_path, "many.json", json.dumps([{**CASE, "id": "a"}, named]))
    legacy = {"id": "l", "expected_tool": "t", "expected_args": {}}
    d = write(tmp_path, "lines.jsonl", "\n" + json.dumps(legacy) + "\n")
    cases = load_cases(d)
    assert (cases["a"].file, cases["a"].line, cases["a"].loc) == (str(d / "many.json"), None, (0,))
    assert (cases["l"].file, cases["l"].line, cases["l"].loc) == (str(d / "lines.jsonl"), 2, ())
    steps = [(s.tool_loc, s.args_loc) for seq in cases["n"].accept for s in seq]
    assert steps == [
        ((1, "accept", 0, 0, "tool"), (1, "accept", 0, 0, "args")),
        ((1, "accept", 0, 1, "name"), (1, "accept", 0, 1, "arguments")),
    ]
    (step,) = cases["l"].accept[0]
    assert (step.tool_loc, step.args_loc) == (("expected_tool",), ("expected_args",))


# ------------------------------------------------------------------------- typos do not hide


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"effects": CASE["effect"]},
            "(case 'refund-dana-march'): unknown key 'effects' in a case; did you mean 'effect'? "
            "(a case reads id, input, match, accept, effect, forbid, repeatable, grade, "
            "expected_tool, expected_args, tags; other keys are allowed, but not one that looks "
            "like a typo of these)",
        ),
        ({"mtach": "prefix"}, "unknown key 'mtach' in a case; did you mean 'match'?"),
        ({"calls": []}, "unknown key 'calls' in a case; did you mean 'accept'?"),
        ({"case_id": "x"}, "unknown key 'case_id' in a case; did you mean 'id'?"),
        ({"Accept": []}, "unknown key 'Accept' in a case; did you mean 'accept'?"),
    ],
)
def test_a_misspelt_case_key_is_an_error(tmp_path, change, message):
    d = write(tmp_path, "bad.json", json.dumps({**CASE, **change}))
    with pytest.raises(InputError) as e:
        load_cases(d)
    assert message in str(e.value)


def test_a_misspelt_legacy_key_is_an_error(tmp_path):
    legacy = {"id": "l", "expected_tool": "t", "expected_arg": {"x": 1}}
    d = write(tmp_path, "bad.jsonl", json.dumps(legacy) + "\n")
    with pytest.raises(InputError) as e:
        load_cases(d)
    assert str(e.value).startswith(
        f"{d / 'bad.jsonl'}:1 (case 'l'): unknown key 'expected_arg' in a case; did you mean "
        "'expected_args'?"
    )


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (
            {"tool": "t", "arg": {}},
            "accept[0][0]: unknown key 'arg' in a step; did you mean 'args'?",
        ),
        ({"tools": "t"}, "accept[0][0]: unknown key 'tools' in a step; did you mean 'tool'?"),
        (
            {"name": "t", "input": {}},
            "accept[0][0]: unknown key 'input' in a step; did you mean 'args'?",
        ),
    ],
)
def test_a_misspelt_step_key_is_an_error(tmp_path, step, message):
    d = write(tmp_path, "bad.json", json.dumps({"id": "x", "accept": [[step]]}))
    with pytest.raises(InputError) as e:
        load_cases(d)
    assert message in str(e.value)


@pytest.mark.parametrize(
    ("effect", "message"),
    [
        (
            {"at": "/r", "equal": 1},
            "effect #0: unknown key 'equal' in an effect; did you mean 'equals'?",
        ),
        (
            {"at": "/r", "count": 1, "wher": {}},
            "unknown key 'wher' in an effect; did you mean 'where'?",
        ),
        ({"path": "/r", "absent": True}, "unknown key 'path' in an effect; did you mean 'at'?"),
    ],
)
def test_a_misspelt_effect_key_is_an_error(tmp_path, effect, message):
    d = write(
        tmp_path,
        "bad.json",
        json.dumps({"id": "x", "accept": [[{"tool": "t"}]], "effect": [effect]}),
    )
    with pytest.raises(InputError) as e:
        load_cases(d)
    assert message in str(e.value)


def test_other_keys_are_notes(tmp_path):
    case = {
        **CASE,
        "description": "d",
        "tags": ["refunds"],
        "output": "text",
        "accept": [[{"tool": "t", "args": {}, "note": "n", "tags": []}]],
        "effect": [{"at": "/r", "absent": True, "comment": "c"}],
    }
    d = write(tmp_path, "ok.json", json.dumps(case))
    assert load_cases(d)["refund-dana-march"].accept == ((Step("t", {}),),)
