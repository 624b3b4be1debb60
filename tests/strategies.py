"""Hypothesis strategies for JSON values and the strings normalizers read."""

from __future__ import annotations

from hypothesis import strategies as st

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**62), max_value=2**62),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)


def json_values(max_leaves: int = 12):
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(st.text(max_size=5), children, max_size=4),
        ),
        max_leaves=max_leaves,
    )


def _iso_datetimes():
    offsets = st.sampled_from(["", "Z", "z", "+01:00", "-05:30", "+0200", "+14:00", "-12:00"])
    return st.builds(
        lambda d, sep, h, m, s, frac, off: f"{d}{sep}{h:02d}:{m:02d}:{s:02d}{frac}{off}",
        st.dates().map(lambda d: d.isoformat()),
        st.sampled_from(["T", " ", "t"]),
        st.integers(0, 23),
        st.integers(0, 59),
        st.integers(0, 59),
        st.sampled_from(["", ".5", ".123456", ".000001"]),
        offsets,
    )


def norm_inputs():
    """Values shaped like what the built-ins read, including near misses."""
    return st.one_of(
        _iso_datetimes(),
        st.dates().map(lambda d: d.isoformat()),
        st.dates().map(lambda d: d.isoformat()[:7]),
        st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str),
        st.from_regex(
            r"P(\d{1,3}W)?(\d{1,3}D)?(T(\d{1,3}H)?(\d{1,3}M)?(\d{1,3}(\.\d{1,3})?S)?)?",
            fullmatch=True,
        ),
        st.from_regex(r"(\d{1,3}d)? ?(\d{1,3}h)? ?(\d{1,3}m)? ?(\d{1,3}s)?", fullmatch=True),
        st.from_regex(r"[+-]?\d{1,6}(\.\d{0,6})?([eE][+-]?\d{1,3})?", fullmatch=True),
        st.floats(min_value=-1e12, max_value=1e12, allow_nan=False),
        st.lists(scalars, max_size=5),
        st.dictionaries(st.sampled_from(["flight_number", "date", "origin"]), scalars, max_size=3),
    )
