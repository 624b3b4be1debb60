"""Laws of a case's own keys (`judge`, `forbid`, `repeatable`, `grade: "writes"`) and of labels,
over the generated worlds of `strategies.grading_worlds` with those keys drawn on top."""

from __future__ import annotations

import copy
from unittest import mock

from hypothesis import example, given
from hypothesis import strategies as st

from evalrunner.grade.grader import Grader, RunResult
from evalrunner.grade.norms import BUILTINS
from evalrunner.read.cases import parse_case
from evalrunner.read.tools import parse_tool
from evalrunner.traces import parse_record

from .strategies import POOLS, grading_worlds


def build(tools_json, case_json):
    tools = {t["name"]: parse_tool(t, "generated") for t in tools_json}
    case = parse_case(case_json, "generated")
    return Grader(tools, {case.id: case}, registry=BUILTINS)


def grade_all(tools_json, case_json, records) -> list[RunResult]:
    grader = build(tools_json, case_json)
    out = []
    for n, record in enumerate(records):
        r = grader.grade_record(record, f"runs.jsonl:{n + 1}")
        assert isinstance(r, RunResult)
        out.append(r)
    return out


@st.composite
def keyed_worlds(draw):
    """A generated world whose case (and tools) carry the new keys, drawn at random."""
    tools_json, case_json, records = copy.deepcopy(draw(grading_worlds()))
    names = [t["name"] for t in tools_json]
    for t in tools_json:
        t["x-eval-readonly"] = draw(st.booleans())
    case_json["repeatable"] = draw(st.lists(st.sampled_from(names), unique=True, max_size=2))
    case_json["grade"] = draw(st.sampled_from(["all", "writes"]))
    case_json["forbid"] = forbids(draw, tools_json)
    for seq in case_json["accept"]:
        for step in seq:
            tool = next(t for t in tools_json if t["name"] == step["tool"])
            props = tool["parameters"]["properties"]
            judged = draw(st.lists(st.sampled_from(sorted(props)), unique=True, max_size=2))
            if judged:
                step["judge"] = {p: draw(judges(props[p])) for p in judged}
    return tools_json, case_json, records


def forbids(draw, tools_json):
    out = []
    for _ in range(draw(st.integers(0, 2))):
        tool = draw(st.sampled_from(tools_json))
        entry = {"tool": tool["name"]}
        props = tool["parameters"]["properties"]
        if draw(st.booleans()):
            p = draw(st.sampled_from(sorted(props)))
            entry["args"] = {p: draw(st.sampled_from(POOLS[None] + ["a", 25, "2026-03"]))}
        out.append(entry)
    return out


def judges(schema):
    own = schema.get("x-eval-norm")
    choices = [st.just("any"), st.just({"matches": "^[aA]|2026"})]
    choices.append(
        st.lists(st.sampled_from([0, 1, "a", "A", 25, 25.0, "2026-03", [1, 2]]), min_size=1).map(
            lambda vs: {"one_of": vs}
        )
    )
    if own is not None and "properties" not in schema and "items" not in schema:
        choices.append(st.just(own))
    return st.one_of(*choices)


def readonly_tools(tools_json) -> set[str]:
    return {t["name"] for t in tools_json if t.get("x-eval-readonly")}


# Found by this law: a default makes `x()` equivalent to `x(p=0)`, a judge keeps the step `x()`
# from taking `x(p=0)`; only the second `x(p=0)` is a loop, and both `x()` serve steps.
_DEFAULT_AND_JUDGE = (
    [
        {
            "name": "t0",
            "parameters": {"type": "object", "properties": {"p": {"default": 0}}},
            "x-eval-repeatable": False,
            "x-eval-readonly": False,
        }
    ],
    {
        "id": "c",
        "match": "contains",
        "accept": [
            [
                {"tool": "t0", "args": {"p": 0}},
                {"tool": "t0", "args": {}, "judge": {"p": {"matches": "^[aA]|2026"}}},
                {"tool": "t0", "args": {}, "judge": {"p": {"matches": "^[aA]|2026"}}},
            ]
        ],
        "repeatable": [],
        "grade": "all",
        "forbid": [],
    },
    [
        {
            "run_id": "r0",
            "case_id": "c",
            "calls": [
                {"tool": "t0", "args": {"p": 0}},
                {"tool": "t0", "args": {"p": 0}},
                {"tool": "t0", "args": {}},
                {"tool": "t0", "args": {}},
            ],
        }
    ],
)


@given(world=keyed_worlds())
@example(world=_DEFAULT_AND_JUDGE)
def test_labels_agree_with_the_match(world):
    """A matched sequence has no missing step: each of its steps (rule 1's, the reads left out
    under writes) is served by exactly one call, and no repeat or loop is one of those calls."""
    tools_json, case_json, _records = world
    reads = readonly_tools(tools_json) if case_json["grade"] == "writes" else set()
    for r in grade_all(*world):
        if r.accepted is None:
            continue
        assert r.missing == (), r
        served = [c.step for c in r.calls if c.label in ("exact", "equivalent")]
        steps = case_json["accept"][r.accepted]
        wanted = [j for j, s in enumerate(steps) if s["tool"] not in reads]
        assert sorted(served) == wanted, r
        for c in r.calls:
            if c.label in ("redundant", "repeat", "read", "extra", "forbidden"):
                assert c.step is None, r


@given(world=keyed_worlds())
def test_forbid_only_turns_passes_into_failures(world):
    tools_json, case_json, records = world
    free = {**case_json, "forbid": []}
    for with_forbid, without in zip(grade_all(*world), grade_all(tools_json, free, records)):
        assert with_forbid.reported_pass == without.reported_pass
        assert with_forbid.accepted == without.accepted
        if with_forbid.true_pass:
            assert without.true_pass
        if without.true_pass and not with_forbid.true_pass:
            assert "forbidden_call" in with_forbid.shapes or with_forbid.verdict == "fail"
            assert any(c.label == "forbidden" for c in with_forbid.calls)
        if not any(c.label == "forbidden" for c in with_forbid.calls):
            assert with_forbid.true_pass == without.true_pass


@given(world=keyed_worlds())
def test_grade_writes_fails_no_run_for_a_read_except_by_rule_2(world):
    """Under `grade: "writes"` a run's true verdict is that of its calls without the reads,
    unless a read is a loop (rule 2) or forbidden (rule 4)."""
    tools_json, case_json, records = world
    if case_json["grade"] != "writes":
        return
    reads = readonly_tools(tools_json)
    without_reads = [
        {**rec, "calls": [c for c in rec["calls"] if c.get("tool") not in reads]} for rec in records
    ]
    for r, w in zip(grade_all(*world), grade_all(tools_json, case_json, without_reads)):
        if any(c.tool in reads and c.label in ("redundant", "forbidden") for c in r.calls):
            continue
        assert r.true_pass == w.true_pass, (r, w)
        for c in r.calls:
            if c.tool in reads and c.label not in ("errored", "malformed"):
                assert c.label in ("read", "redundant", "forbidden", "repeat"), r


@given(world=grading_worlds())
def test_a_case_without_the_new_keys_grades_as_before(world):
    """Empty new keys change nothing, and a step that judges its parameters by the tool's own
    rules (the pairwise path) grades exactly as the step without a judge (the key path)."""
    tools_json, case_json, records = world
    before = grade_all(*world)
    empty = {**case_json, "forbid": [], "repeatable": [], "grade": "all"}
    assert grade_all(tools_json, empty, records) == before
    own = copy.deepcopy(case_json)
    for seq in own["accept"]:
        for step in seq:
            tool = next(t for t in tools_json if t["name"] == step["tool"])
            props = tool["parameters"]["properties"]
            rules = {p: s["x-eval-norm"] for p, s in props.items() if "x-eval-norm" in s}
            if rules:
                step["judge"] = rules
    judged = grade_all(tools_json, own, records)
    for a, b in zip(before, judged):
        missing_a, missing_b = [j for j, _ in a.missing], [j for j, _ in b.missing]
        assert (a.verdict, a.shapes, a.accepted, missing_a) == (
            b.verdict,
            b.shapes,
            b.accepted,
            missing_b,
        )
        assert [(c.label, c.step, c.repeats) for c in a.calls] == [
            (c.label, c.step, c.repeats) for c in b.calls
        ]


@given(world=keyed_worlds())
def test_the_fast_paths_and_the_general_path_agree_with_the_new_keys(world):
    tools_json, case_json, records = world
    grader = build(tools_json, case_json)
    case = grader.cases[case_json["id"]]
    cp = grader._case_plan(case)
    for n, record in enumerate(records):
        run = parse_record(record, f"runs.jsonl:{n + 1}")
        fast = grader._grade_calls(run.calls, case, None)
        calls = grader._prepare(run.calls, None, cp.plans)
        grader._canonical_keys(calls)
        with mock.patch.object(grader, "_pairwise", lambda calls, cp: True):
            pairwise = grader._grade_prepared(calls, cp)
        assert fast == pairwise, record


@given(world=keyed_worlds())
def test_a_false_pass_lists_only_the_shapes_whose_condition_holds(world):
    for r in grade_all(*world):
        if r.verdict != "false_pass":
            continue
        labels = {c.label for c in r.calls}
        assert ("forbidden_call" in r.shapes) == ("forbidden" in labels), r
        if "rejected_call" in r.shapes:
            assert "errored" in labels and r.accepted is None, r
        if "redundant_call" in r.shapes:
            assert "redundant" in labels or any(
                c.label == "forbidden" and c.repeats is not None for c in r.calls
            ), r
        assert "effect_failed" not in r.shapes  # the generated runs record no world
        assert r.shape == r.shapes[0]


@given(world=keyed_worlds())
def test_a_judged_step_explains_what_it_decides(world):
    """`compare(call, step).equal` is `equivalent(call, step)` for a judged step's own plan, and
    a call JSON-equal to the step is always equivalent to it."""
    tools_json, case_json, records = world
    grader = build(tools_json, case_json)
    cp = grader._case_plan(grader.cases[case_json["id"]])
    for seq in cp.seqs:
        for item in seq.items:
            if not item.plan.judged:
                continue
            assert item.plan.equivalent(item.call.args, item.call.args)
            for record in records:
                for call in record["calls"]:
                    args = call.get("args")
                    if call.get("tool") != item.call.tool or type(args) is not dict:
                        continue
                    got = item.plan.compare(args, item.call.args)
                    assert got.equal == item.plan.equivalent(args, item.call.args), (args, item)


@given(world=keyed_worlds(), mode=st.sampled_from(["exact", "prefix", "contains", "unordered"]))
def test_a_sequence_any_mode_matches_the_widest_mode_matches(world, mode):
    """A run some mode accepts, `contains_unordered` accepts: it is the widest mode (suggest's
    `case_keys.WIDER` proposes it last, as the mode that accepts the most), whatever the case's
    repeats, reads, judges and forbidden calls."""
    tools_json, case_json, records = world
    narrow = grade_all(tools_json, {**case_json, "match": mode}, records)
    widest = grade_all(tools_json, {**case_json, "match": "contains_unordered"}, records)
    assert len(narrow) == len(widest)
    for n, w in zip(narrow, widest, strict=True):
        assert n.accepted is None or w.accepted is not None, (n.run_id, mode)
