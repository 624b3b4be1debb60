"""The built-in normalizers: SPEC "Built-in normalizers", one case per rule and trap."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalrunner.grade.norms import BUILTINS, NormError, bind, zone
from evalrunner.jsonvalue import json_eq
from evalrunner.model import NormSpec

from .strategies import json_values, norm_inputs


def rule(name: str, **options):
    return bind(NormSpec(name, options), BUILTINS, fields=frozenset({"flight_number", "date"}))


def norm(name: str, value, **options):
    out, problem = rule(name, **options).apply(value)
    assert problem is None, problem
    return out


def unread(name: str, value, **options) -> str:
    out, problem = rule(name, **options).apply(value)
    assert problem is not None, f"{name} read {value!r} as {out!r}"
    assert json_eq(out, value)  # a value the rule cannot read stays as it is
    return problem


# ------------------------------------------------------------------------------- time zones


def test_month_converts_an_offset_to_utc_first():
    # "2026-03-01T00:40:00+01:00"[:7] says March; the instant is 23:40 UTC on 28 February.
    assert norm("month", "2026-03-01T00:40:00+01:00") == "2026-02"
    assert norm("month", "2026-03") == "2026-03"


def test_month_across_a_month_end_the_other_way():
    assert norm("month", "2026-04-01T00:30:00+02:00") == "2026-03"


def test_a_date_without_a_time_is_never_shifted():
    assert norm("month", "2026-03-01") == "2026-03"
    assert norm("month", "2026-03-01", tz="Pacific/Auckland") == "2026-03"
    assert norm("date", "2026-03-01", tz="America/Los_Angeles") == "2026-03-01"


def test_the_tz_option_is_the_tools_calendar_zone():
    assert norm("month", "2026-02-28T23:30:00Z", tz="Europe/Berlin") == "2026-03"
    assert norm("date", "2026-02-28T23:30:00Z", tz="Europe/Berlin") == "2026-03-01"
    # Without an offset the date-time is read in the zone: its own calendar fields.
    assert norm("date", "2026-02-28T23:30:00", tz="Europe/Berlin") == "2026-02-28"


def test_instant_compares_in_utc_and_needs_a_time():
    assert norm("instant", "2026-03-01T00:40:00+01:00") == "2026-02-28T23:40:00Z"
    assert norm("instant", "2026-02-28T23:40:00Z") == "2026-02-28T23:40:00Z"
    assert norm("instant", "2026-02-28 23:40:00.250z") == "2026-02-28T23:40:00.25Z"
    assert norm("instant", "2026-03-01T00:40:00", tz="Europe/Berlin") == "2026-02-28T23:40:00Z"
    assert "not an instant" in unread("instant", "2026-03-01")


def test_unknown_time_zone_is_a_configuration_error():
    with pytest.raises(ValueError, match="unknown time zone 'Mars/Olympus'"):
        rule("month", tz="Mars/Olympus")
    assert zone("utc") is zone("UTC")


@pytest.mark.parametrize(
    "value", ["March 2026", "2026-13", "2026-02-30", "2026/03/01", 202603, None, True]
)
def test_dates_it_cannot_read_stay_as_they_are(value):
    unread("month", value)
    unread("date", value)


# ----------------------------------------------------------------------------------- money


@pytest.mark.parametrize(
    ("value", "cents"),
    [
        (42.0, 4200),  # a JSON float is major units
        (4200, 4200),  # a JSON integer is already cents
        ("19.99", 1999),  # a plain decimal string is major units
        ("42", 4200),
        (0.29, 29),  # 0.29 * 100 == 28.999999999999996 in binary floating point
        (1.005, 100),  # half-even from the decimal text "1.005": 100.5 -> 100
        (1.015, 102),  # 101.5 -> 102
        ("-3.50", -350),
        (4.2e3, 420000),  # written with an exponent: a float, major units
    ],
)
def test_money_cents(value, cents):
    got = norm("money_cents", value)
    assert got == cents and type(got) is int


@pytest.mark.parametrize("value", [True, False, "$42", "42,00", "1e3", " 42", "4 200", None, [42]])
def test_not_money(value):
    unread("money_cents", value)


# -------------------------------------------------------------------------------- durations


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("PT30M", 1800),
        (1800, 1800),
        ("1800", 1800),
        ("30m", 1800),
        ("1h30m", 5400),
        ("1h 30m", 5400),
        ("90s", 90),
        ("P1DT2H", 93600),
        ("P1W", 604800),
        ("PT0.5S", 0.5),
        ("PT1,5S", 1.5),  # ISO 8601's other decimal sign
        ("P0,5D", 43200),
        (1800.0, 1800),
        ("2d", 172800),
    ],
)
def test_duration_secs(value, seconds):
    assert norm("duration_secs", value) == seconds


@pytest.mark.parametrize(
    "value", ["P1Y", "P2M", "30M", "1H", "PT", "P", "m", "", "1h30", True, "1,5", "PT1,S"]
)
def test_not_a_duration(value):
    # Years and months are not fixed lengths; shorthand is lowercase only.
    unread("duration_secs", value)


# ----------------------------------------------------------------------- strings, numbers


def test_casefold_trims_and_ignores_case():
    assert norm("casefold", "  Open ") == "open"
    assert norm("casefold", "STRASSE") == norm("casefold", "straße")
    unread("casefold", 42)


def test_number_by_value_with_digits():
    assert norm("number", "42.10") == norm("number", 42.1)
    assert norm("number", "1e3") == 1000
    assert norm("number", "+7") == 7
    assert norm("number", 0.125, digits=2) == 0.12  # half-even
    assert norm("number", "0.135", digits=2) == 0.14
    unread("number", True)
    unread("number", "12 apples")


def test_number_digits_option_is_checked():
    with pytest.raises(ValueError, match="digits must be a whole number"):
        rule("number", digits="two")


# ------------------------------------------------------------------------- lists, objects


def test_unordered_list_is_a_multiset_and_set_a_set():
    assert norm("unordered_list", ["disputed", "open"]) == norm(
        "unordered_list", ["open", "disputed"]
    )
    assert norm("unordered_list", [1, 1, 2]) != norm("unordered_list", [1, 2])
    assert norm("set", [1, 1, 2]) == norm("set", [2, 1])


def test_ordering_rules_take_elements_of_any_type():
    mixed = [{"a": 1}, None, "x", 2, True, [1], 1.5, False]
    assert norm("unordered_list", mixed) == norm("unordered_list", list(reversed(mixed)))
    # true is not 1, and 1 is 1.0
    assert norm("set", [1, True]) == norm("set", [True, 1.0])
    assert len(norm("set", [1, True, 1.0])) == 2


def test_known_fields_ignores_undeclared_keys_only():
    a = {"flight_number": "LH1", "date": "2026-03-01", "origin": "FRA"}
    assert norm("known_fields", a) == {"flight_number": "LH1", "date": "2026-03-01"}
    unread("known_fields", ["not", "an", "object"])


def test_unknown_option_names_the_allowed_ones():
    with pytest.raises(ValueError, match=r"no option 'zone' \(its options: tz\)"):
        rule("month", zone="UTC")


# ----------------------------------------------------------------------------------- laws

OPTIONS = {"month": {"tz": "Europe/Berlin"}, "date": {"tz": "America/New_York"}, "number": {}}


@pytest.mark.parametrize("name", sorted(BUILTINS))
@given(data=st.data())
def test_every_builtin_is_idempotent_and_total(name, data):
    """n(n(x)) == n(x) on any JSON value; no exception, only "cannot read"."""
    value = data.draw(st.one_of(norm_inputs(), json_values()))
    for options in ({}, OPTIONS.get(name, {})):
        r = rule(name, **options)
        once, problem = r.apply(value)
        assert problem is None or "cannot read" in problem, problem
        twice, problem2 = r.apply(once)
        assert problem2 is None or problem is not None
        assert json_eq(twice, once), (value, once, twice)


def test_number_idempotent_at_the_edge_of_float_precision():
    r = rule("number")
    for x in ("56165535242220284.001", 5.616553524222029e16, "9007199254740993.5", 1e20):
        once = r.apply(x)[0]
        assert json_eq(r.apply(once)[0], once), x


def test_number_digits_idempotent_on_floats():
    r = rule("number", digits=2)
    for x in (0.125, 1e20, 2.675, -0.0, 123456789.125):
        once = r.apply(x)[0]
        assert json_eq(r.apply(once)[0], once)


def test_norm_error_is_a_value_error():
    assert issubclass(NormError, ValueError)
