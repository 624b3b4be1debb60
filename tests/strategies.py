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


# --------------------------------------------------------------------------------- grading worlds
#
# Small tool surfaces, cases and runs whose values are drawn from small pools per rule, so that
# equal, equivalent, JSON-equal-but-differently-read (`25` and `25.0` under `money_cents`) and
# different values all meet often. Each pool mixes values a rule reads alike with values it
# reads apart and values it cannot read.

POOLS: dict[str | None, list] = {
    None: [0, 0.0, 1, "x", "X", None, True, [1], {"k": 1}],
    "money_cents": [25, 25.0, "25", "0.25", 2500, "25.00", 0.25, 99, True],
    "casefold": ["a", "A", " a ", "b", 1],
    "month": ["2026-03", "2026-03-01", "2026-03-01T00:40:00+01:00", "2026-02", "March"],
    "date": ["2026-03-01", "2026-03-01T10:00:00Z", "2026-02-28T23:40:00-01:00", "2026-03-02"],
    "instant": ["2026-03-01T00:40:00+01:00", "2026-02-28T23:40:00Z", "2026-02-28T23:40:00", "x"],
    "duration_secs": [1800, 1800.0, "PT30M", "30m", "1800", 60, "1m"],
    "number": [1, 1.0, "1", "1.00", 2, "2e0", 1.5],
    "set": [[1, 2], [2, 1], [1, 2, 2], [1], [], [1.0, 2]],
    "unordered_list": [[1, 2], [2, 1], [1, 2, 2], [2, 1, 2], [1], [2.0, 1]],
    "known_fields": [{"a": 1}, {"a": 1, "b": 2}, {"a": 1.0, "c": 3}, {"a": 2}, {}],
    "url": ["http://a.io/x", "HTTP://A.io:80/x", "http://a.io/x/", "https://a.io/x", "a.io/x", 1],
    "nested": [
        {"m": 25, "t": "A"},
        {"m": 25.0, "t": "a"},
        {"m": "25", "t": "a"},
        {"m": 25.0},
        {"t": "a"},
        {},
    ],
}
RULES = sorted(k for k in POOLS if k is not None and k != "nested")


def _param_schema(kind: str | None, default) -> dict:
    if kind == "nested":  # an object without a rule of its own, whose properties have rules
        schema = {
            "type": "object",
            "properties": {
                "m": {"x-eval-norm": "money_cents", "default": 25.0},
                "t": {"x-eval-norm": "casefold"},
            },
        }
    elif kind == "known_fields":
        schema = {"type": "object", "x-eval-norm": kind, "properties": {"a": {}}}
    elif kind is None:
        schema = {}
    else:
        schema = {"x-eval-norm": kind}
    if default is not None:
        schema["default"] = default[0]
    return schema


@st.composite
def tool_surfaces(draw, max_tools: int = 3):
    """[(tool JSON, {param: pool kind})]: tools t0, t1, ... with rules, defaults, repeatable."""
    tools = []
    for t in range(draw(st.integers(1, max_tools))):
        kinds = draw(
            st.dictionaries(
                st.sampled_from(["p", "q", "r"]),
                st.sampled_from([None, "nested", *RULES]),
                min_size=1,
                max_size=3,
            )
        )
        props = {}
        for name, kind in kinds.items():
            default = draw(st.none() | st.sampled_from(POOLS[kind]).map(lambda v: (v,)))
            props[name] = _param_schema(kind, default)
        tool = {
            "name": f"t{t}",
            "parameters": {"type": "object", "properties": props},
            "x-eval-repeatable": draw(st.booleans()),
        }
        tools.append((tool, kinds))
    return tools


def _args(draw, kinds: dict) -> dict:
    names = draw(st.lists(st.sampled_from(sorted(kinds)), unique=True))
    return {n: draw(st.sampled_from(POOLS[kinds[n]])) for n in names}


@st.composite
def grading_worlds(draw):
    """(tools JSON, case JSON, run records): a case over a generated tool surface, and runs made
    from its accepted sequences by respelling values, restating or dropping parameters,
    inserting errored attempts, repeats, extra, unknown-tool and malformed calls, and shuffling."""
    surface = draw(tool_surfaces())
    kinds = {tool["name"]: k for tool, k in surface}
    names = sorted(kinds)

    def call(draw):
        name = draw(st.sampled_from(names))
        return {"tool": name, "args": _args(draw, kinds[name])}

    accept = [
        [call(draw) for _ in range(draw(st.integers(1, 4)))] for _ in range(draw(st.integers(1, 3)))
    ]
    mode = draw(st.sampled_from(["exact", "prefix", "contains", "unordered", "contains_unordered"]))
    case = {"id": "c", "match": mode, "accept": accept}

    runs = []
    for r in range(draw(st.integers(1, 4))):
        base = draw(st.sampled_from(accept))
        calls = []
        for step in base:
            c = {"tool": step["tool"], "args": dict(step["args"])}
            for name in list(c["args"]):
                if draw(st.integers(0, 3)) == 0:  # respell (or change) a value
                    c["args"][name] = draw(st.sampled_from(POOLS[kinds[c["tool"]][name]]))
                elif draw(st.integers(0, 7)) == 0:  # drop a parameter
                    del c["args"][name]
            if draw(st.integers(0, 5)) == 0:  # state a parameter the step leaves out
                c["args"].update(_args(draw, kinds[c["tool"]]))
            calls.append(c)
        for _ in range(draw(st.integers(0, 3))):
            what = draw(
                st.sampled_from(["errored", "repeat", "extra", "drop", "unknown", "malformed"])
            )
            at = draw(st.integers(0, len(calls)))
            if what == "errored":
                wrong = (
                    dict(draw(st.sampled_from(calls)))
                    if calls and draw(st.booleans())
                    else call(draw)
                )
                calls.insert(at, {**wrong, "error": "rejected"})
            elif what == "repeat" and calls:
                calls.insert(at, dict(draw(st.sampled_from(calls))))
            elif what == "extra":
                calls.insert(at, call(draw))
            elif what == "drop" and calls:
                del calls[min(at, len(calls) - 1)]
            elif what == "unknown":
                calls.insert(at, {"tool": "nobody", "args": {"p": 1}})
            elif what == "malformed":
                calls.insert(at, {"tool": draw(st.sampled_from(names)), "args": "{not json"})
        if draw(st.integers(0, 3)) == 0:
            calls = draw(st.permutations(calls))
        runs.append({"run_id": f"r{r}", "case_id": "c", "calls": calls})
    return [t for t, _ in surface], case, runs
