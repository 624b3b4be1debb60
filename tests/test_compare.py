"""args_equivalent: SPEC "Verdicts" rule 1 and the explanation of every difference."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from evalrunner import MISSING, args_equivalent
from evalrunner.grade.compare import ToolPlan
from evalrunner.grade.norms import BUILTINS
from evalrunner.read.tools import parse_tool

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


@given(a=args())
def test_reflexive(a):
    r = cmp(a, a)
    assert r.equal and r.exact


@given(pair=related_pair())
def test_symmetric_and_consistent_with_the_canonical_key(pair):
    a, b = pair
    ab, ba = cmp(a, b), cmp(b, a)
    assert ab.equal == ba.equal == PLAN.equivalent(a, b)
    if PLAN.key(a) == PLAN.key(b):
        assert ab.equal, "equal canonical keys always mean equivalent arguments"
    if ab.equal and not ab.exact:
        assert ab.shapes, "an equivalence that is not exact is explained by some shape"
    if not ab.equal:
        assert ab.mismatches, "a difference no rule explains is named"


STABLE = parse_tool(
    {
        "name": "stable",
        "parameters": {
            "properties": {
                "month": {"x-eval-norm": "month"},
                "status": {"type": "array", "x-eval-norm": "set"},
                "limit": {"default": 50},
                "flights": {
                    "type": "array",
                    "x-eval-norm": "unordered_list",
                    "items": {
                        "type": "object",
                        "x-eval-norm": "known_fields",
                        "properties": {"flight_number": {"x-eval-norm": "casefold"}},
                    },
                },
            }
        },
    },
    "test",
)
STABLE_PLAN = ToolPlan.compile(STABLE, BUILTINS)
STABLE_PARAMS = ["month", "status", "limit", "flights", "x"]


@given(
    pair=st.tuples(
        st.dictionaries(st.sampled_from(STABLE_PARAMS), st.one_of(norm_inputs(), json_values(6))),
        st.dictionaries(st.sampled_from(STABLE_PARAMS), st.one_of(norm_inputs(), json_values(6))),
        st.lists(st.sampled_from(STABLE_PARAMS)),
    ).map(lambda t: (t[0], {**t[1], **{k: t[0][k] for k in t[2] if k in t[0]}}))
)
def test_where_every_rule_is_json_stable_equivalence_is_equal_keys(pair):
    """The grader's fast path: for such tools, hashing canonical keys is the pairwise relation."""
    a, b = pair
    assert not STABLE_PLAN.pairwise and PLAN.pairwise
    assert STABLE_PLAN.compare(a, b).equal == (STABLE_PLAN.key(a) == STABLE_PLAN.key(b))


# ------------------------------------------------------------------- JSON equality comes first

REFUND = parse_tool(
    {
        "name": "refund",
        "parameters": {
            "properties": {
                "amount": {"x-eval-norm": "money_cents"},
                "note": {"x-eval-norm": "casefold"},
                "fee": {"x-eval-norm": "money_cents", "default": 25.0},
                "lines": {"type": "array", "items": {"x-eval-norm": "money_cents"}},
            }
        },
    },
    "test",
)
REFUND_PLAN = ToolPlan.compile(REFUND, BUILTINS)


def test_a_parameter_equal_before_normalizing_is_equal():
    # money_cents reads 25 as 25 cents and 25.0 as 2,500; as JSON they are one number.
    r = REFUND_PLAN.compare({"amount": 25}, {"amount": 25.0})
    assert r.equal and r.exact and r.diffs == ()
    assert REFUND_PLAN.key({"amount": 25}) != REFUND_PLAN.key({"amount": 25.0})
    # not transitive: 25 ~ 25.0 ~ "25", yet 25 is not "25"
    assert REFUND_PLAN.compare({"amount": 25.0}, {"amount": "25"}).equal
    assert not REFUND_PLAN.compare({"amount": 25}, {"amount": "25"}).equal


def test_json_equality_first_holds_per_parameter_at_any_depth():
    r = REFUND_PLAN.compare({"amount": 25, "note": "A"}, {"amount": 25.0, "note": "a"})
    assert r.equal and not r.exact
    assert [(d.path, d.kind, d.shape) for d in r.diffs] == [("note", "absorbed", "encoding")]
    r = REFUND_PLAN.compare({"lines": [25, 1.0], "note": "A"}, {"lines": [25.0, 1], "note": "a"})
    assert r.equal and r.shapes == ("encoding",)
    assert not REFUND_PLAN.compare({"lines": [25, 1]}, {"lines": ["25", 1]}).equal


def test_a_stated_default_equal_before_normalizing_is_the_default():
    r = REFUND_PLAN.compare({"fee": 25}, {})  # 25 == 25.0, the declared default, as JSON
    assert r.equal and r.shapes == ("default",)
    r = REFUND_PLAN.compare({}, {"fee": "25.00"})  # 2,500 cents either way
    assert r.equal and r.shapes == ("encoding", "default")
    assert not REFUND_PLAN.compare({"fee": 26}, {}).equal


def respell(value, data):
    """A JSON-equal value written another way: whole numbers as int or float, keys reordered."""
    if type(value) is int and abs(value) < 2**53 and data.draw(st.booleans()):
        return float(value)
    if (
        type(value) is float
        and value.is_integer()
        and abs(value) < 2**53
        and data.draw(st.booleans())
    ):
        return int(value)
    if type(value) is list:
        return [respell(x, data) for x in value]
    if type(value) is dict:
        keys = data.draw(st.permutations(list(value)))
        return {k: respell(value[k], data) for k in keys}
    return value


def one_rule_plan(name: str) -> ToolPlan:
    """`v` under the rule, `items` a list of such values, `n` a casefolded sibling."""
    schema: dict = {"x-eval-norm": name}
    if name == "known_fields":
        schema["properties"] = {"flight_number": {}, "date": {}}
    props = {
        "v": schema,
        "items": {"type": "array", "items": schema},
        "n": {"x-eval-norm": "casefold"},
    }
    tool = parse_tool({"name": name, "parameters": {"properties": props}}, "test")
    return ToolPlan.compile(tool, BUILTINS)


RULE_PLANS = {name: one_rule_plan(name) for name in sorted(BUILTINS)}


@given(
    name=st.sampled_from(sorted(BUILTINS)),
    value=st.one_of(norm_inputs(), json_values(6)),
    data=st.data(),
)
def test_json_equal_is_equivalent_under_every_rule(name, value, data):
    """A parameter equal before normalizing is equal, whatever its rule and its siblings."""
    plan = RULE_PLANS[name]
    twin = respell(value, data)
    actual = {"v": value, "items": [value, "x"], "n": "A"}
    expected = {"n": "a", "items": [twin, "x"], "v": twin}
    r = plan.compare(actual, expected)
    assert r.equal and plan.equivalent(actual, expected)
    assert r.shapes == ("encoding",) and {d.path for d in r.diffs} == {"n"}


@given(
    name=st.sampled_from(sorted(BUILTINS)),
    value=st.one_of(norm_inputs(), json_values(6)),
    data=st.data(),
)
def test_rules_declared_json_stable_read_json_equal_values_alike(name, value, data):
    """`json_stable` lets the grader hash canonical keys: it must be true of the rule."""
    plan = RULE_PLANS[name]
    if plan.pairwise:
        return
    assert plan.key({"v": value}) == plan.key({"v": respell(value, data)})


def test_rules_not_declared_json_stable_indeed_are_not():
    witnesses = {
        "money_cents": (25, 25.0),
        "number": (2**62, float(2**62)),
        "duration_secs": (2**62, float(2**62)),
    }
    assert {n for n, p in RULE_PLANS.items() if p.pairwise} == set(witnesses)
    for name, (a, b) in witnesses.items():
        plan = RULE_PLANS[name]
        assert plan.key({"v": a}) != plan.key({"v": b}) and plan.equivalent({"v": a}, {"v": b})


@given(a=args())
def test_defaults_restated_stay_equivalent(a):
    b = {**a, "limit": 50, "cursor": None}
    assert (
        cmp(a, b).equal
        == cmp({k: v for k, v in a.items() if k not in ("limit", "cursor")}, a).equal
    )


def test_a_plugin_rule_is_compared_pairwise_unless_it_says_it_may_not_be():
    """A plugin may read values by type (`1` apart from `1.0`): unless it declares `json_stable`,
    its tools' calls are compared pairwise, JSON equality first."""
    from evalrunner.grade.norms import Normalizer

    def by_type(value):
        return [type(value).__name__, value]

    registry = {
        **BUILTINS,
        "by_type": Normalizer("by_type", "encoding", by_type, "reads values by type"),
        "stable": Normalizer("stable", "encoding", lambda v: v, "as it is", json_stable=True),
    }
    for name, pairwise in (("by_type", True), ("stable", False)):
        tool = parse_tool(
            {"name": "t", "parameters": {"properties": {"v": {"x-eval-norm": name}}}}, "x"
        )
        plan = ToolPlan.compile(tool, registry)
        assert plan.pairwise is pairwise
    plan = ToolPlan.compile(
        parse_tool(
            {
                "name": "t",
                "parameters": {
                    "properties": {
                        "v": {"x-eval-norm": "by_type"},
                        "n": {"x-eval-norm": "casefold"},
                    }
                },
            },
            "x",
        ),
        registry,
    )
    assert plan.compare({"v": 1, "n": "A"}, {"v": 1.0, "n": "a"}).equal
    assert plan.key({"v": 1}) != plan.key({"v": 1.0})
