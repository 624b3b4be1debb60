"""args_equivalent: SPEC "Verdicts" rule 1 and the explanation of every difference."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evalrunner import MISSING, args_equivalent
from evalrunner.compare import ToolPlan
from evalrunner.norms import BUILTINS
from evalrunner.tools import parse_tool

from .strategies import json_values, norm_inputs

SEARCH = parse_tool(
    {
        "name": "search_invoices",
        "parameters": {
            "type": "object",
            "properties": {
                "customer_id": {"type": "string"},
                "month": {"type": "string", "x-eval-norm": "month"},
                "status": {"type": "array", "items": {"type": "string"}, "x-eval-norm": "set"},
                "limit": {"type": "integer", "default": 50},
                "cursor": {"type": ["string", "null"], "default": None},
                "note": {"type": ["string", "null"]},
                "window": {"x-eval-norm": "duration_secs", "default": "PT30M"},
                "filters": {
                    "type": "object",
                    "properties": {
                        "min_amount": {"x-eval-norm": "money_cents", "default": 0},
                        "tags": {"type": "array", "x-eval-norm": "unordered_list"},
                        "page_size": {"type": "integer", "default": 10},
                    },
                },
                "flights": {
                    "type": "array",
                    "x-eval-norm": "unordered_list",
                    "items": {"$ref": "#/$defs/Flight"},
                },
            },
            "$defs": {
                "Flight": {
                    "type": "object",
                    "x-eval-norm": "known_fields",
                    "properties": {
                        "flight_number": {"type": "string", "x-eval-norm": "casefold"},
                        "date": {"type": "string", "x-eval-norm": "date"},
                    },
                }
            },
        },
    },
    "test",
)
PLAN = ToolPlan.compile(SEARCH, BUILTINS)


def cmp(actual, expected):
    return PLAN.compare(actual, expected)


def by_path(result):
    out = {}
    for d in result.diffs:
        out.setdefault(d.path, []).append(d)
    return out


def test_exact_is_exact():
    r = cmp({"customer_id": "C-1", "month": "2026-03"}, {"month": "2026-03", "customer_id": "C-1"})
    assert r.equal and r.exact and r.diffs == ()


def test_the_spec_example_three_shapes():
    r = cmp(
        {
            "customer_id": "C-4471",
            "month": "2026-03-01",
            "status": ["disputed", "open"],
            "limit": 50,
        },
        {"customer_id": "C-4471", "month": "2026-03", "status": ["open", "disputed"]},
    )
    assert r.equal and not r.exact
    assert r.shapes == ("encoding", "ordering", "default")
    p = by_path(r)
    (month,) = p["month"]
    assert (month.kind, month.shape, month.norm) == ("absorbed", "encoding", "month")
    assert (month.actual, month.actual_norm, month.expected) == ("2026-03-01", "2026-03", "2026-03")
    (status,) = p["status"]
    assert (status.shape, status.norm) == ("ordering", "set")
    (limit,) = p["limit"]
    assert (limit.kind, limit.shape, limit.actual, limit.expected) == (
        "default",
        "default",
        50,
        MISSING,
    )


def test_the_month_trap_is_a_mismatch_with_both_normal_forms():
    r = cmp({"month": "2026-03-01T00:40:00+01:00"}, {"month": "2026-03"})
    assert not r.equal
    (d,) = r.diffs
    assert (d.kind, d.path, d.norm) == ("mismatch", "month", "month")
    assert (d.actual_norm, d.expected_norm) == ("2026-02", "2026-03")


def test_default_in_both_directions():
    assert cmp({"limit": 50}, {}).equal
    assert cmp({}, {"limit": 50}).equal
    assert not cmp({"limit": 51}, {}).equal


def test_null_default_versus_no_default():
    # "cursor" declares default null: stating null equals omitting it.
    assert cmp({"cursor": None}, {}).shapes == ("default",)
    # "note" declares no default: null is a value the agent sent, not the default.
    r = cmp({"note": None}, {})
    assert not r.equal
    assert [(d.path, d.kind, d.actual, d.expected) for d in r.diffs] == [
        ("note", "mismatch", None, MISSING)
    ]


def test_a_default_restated_in_another_encoding_contributes_both():
    r = cmp({"window": 1800}, {})
    assert r.equal
    assert r.shapes == ("encoding", "default")
    assert {d.kind for d in by_path(r)["window"]} == {"default", "absorbed"}


def test_nested_defaults_and_rules():
    r = cmp(
        {"filters": {"min_amount": "0.00", "tags": ["b", "a"], "page_size": 10}},
        {"filters": {"tags": ["a", "b"]}},
    )
    assert r.equal
    p = by_path(r)
    assert p["filters.tags"][0].shape == "ordering"
    assert {d.shape for d in p["filters.min_amount"]} == {"default", "encoding"}
    assert p["filters.page_size"][0].shape == "default"


def test_a_list_of_known_fields_objects_under_unordered_list():
    actual = {
        "flights": [
            {"flight_number": "lh401", "date": "2026-03-02", "origin": "FRA"},
            {"flight_number": "UA9", "date": "2026-03-01T10:00:00Z"},
        ]
    }
    expected = {
        "flights": [
            {"flight_number": "UA9", "date": "2026-03-01"},
            {"flight_number": "LH401", "date": "2026-03-02"},
        ]
    }
    r = cmp(actual, expected)
    assert r.equal
    p = by_path(r)
    assert p["flights"][0].shape == "ordering"  # absorbed at the list
    assert p["flights[0]"][0].norm == "known_fields"  # "origin" ignored
    assert p["flights[0].flight_number"][0].norm == "casefold"
    assert p["flights[1].date"][0].norm == "date"
    assert p["flights[1].date"][0].param == "flights[].date"
    assert r.shapes == ("encoding", "ordering")


def test_known_fields_still_compares_declared_fields():
    r = cmp(
        {"flights": [{"flight_number": "LH1", "date": "2026-03-02", "origin": "FRA"}]},
        {"flights": [{"flight_number": "LH1", "date": "2026-03-03"}]},
    )
    assert not r.equal


def test_mismatch_points_at_the_parameter_that_differs():
    r = cmp(
        {"customer_id": "C-1", "filters": {"tags": ["a"], "page_size": 20}},
        {"customer_id": "C-1", "filters": {"tags": ["a"]}},
    )
    assert not r.equal
    assert [(d.path, d.kind, d.actual, d.expected) for d in r.mismatches] == [
        ("filters.page_size", "mismatch", 20, MISSING)
    ]


def test_a_value_the_rule_cannot_read_fails_honestly_with_a_note():
    r = cmp({"month": "sometime in March"}, {"month": "2026-03"})
    assert not r.equal
    (d,) = r.diffs
    assert d.note and "month cannot read 'sometime in March'" in d.note


def test_an_undeclared_parameter_is_compared_as_it_is():
    assert not cmp({"extra": 1}, {}).equal
    assert cmp({"extra": [1, 2]}, {"extra": [1, 2]}).exact


def test_true_is_never_one():
    assert not cmp({"limit": True}, {"limit": 1}).equal
    assert cmp({"limit": 1.0}, {"limit": 1}).exact


def test_args_equivalent_compiles_the_tool():
    r = args_equivalent(SEARCH, {"month": "2026-03-15"}, {"month": "2026-03"})
    assert r.equal and r.shapes == ("encoding",)


# ----------------------------------------------------------------------------------- laws

PARAMS = ["customer_id", "month", "status", "limit", "cursor", "window", "filters", "flights", "x"]


def args():
    value = st.one_of(norm_inputs(), json_values(6))
    return st.dictionaries(st.sampled_from(PARAMS), value, max_size=5)


def related_pair():
    """Two argument objects that often share values, so equivalences do occur."""
    return st.tuples(args(), args(), st.lists(st.sampled_from(PARAMS))).map(
        lambda t: (t[0], {**t[1], **{k: t[0][k] for k in t[2] if k in t[0]}})
    )


@settings(max_examples=400, deadline=None)
@given(a=args())
def test_reflexive(a):
    r = cmp(a, a)
    assert r.equal and r.exact


@settings(max_examples=400, deadline=None)
@given(pair=related_pair())
def test_symmetric_and_consistent_with_the_canonical_key(pair):
    a, b = pair
    ab, ba = cmp(a, b), cmp(b, a)
    assert ab.equal == ba.equal
    assert ab.equal == (PLAN.key(a) == PLAN.key(b))
    if ab.equal and not ab.exact:
        assert ab.shapes, "an equivalence that is not exact is explained by some shape"
    if not ab.equal:
        assert ab.mismatches, "a difference no rule explains is named"


@settings(max_examples=200, deadline=None)
@given(a=args())
def test_defaults_restated_stay_equivalent(a):
    b = {**a, "limit": 50, "cursor": None}
    assert (
        cmp(a, b).equal
        == cmp({k: v for k, v in a.items() if k not in ("limit", "cursor")}, a).equal
    )
