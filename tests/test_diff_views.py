"""What a diff keeps of each run: a few fields, and the run's JSON, compressed, read back exactly."""

from __future__ import annotations

import random
from decimal import Decimal

import orjson
import pytest

from evalrunner.diff.views import RunStore, RunView
from evalrunner.model import InputError


def run(run_id: str, **extra) -> dict:
    return {
        "run_id": run_id,
        "case_id": "c",
        "verdict": "fail",
        "reported": {"pass": False},
        "true": {"pass": False, "accepted": None, "aligned_to": 0},
        "calls": [{"index": 0, "tool": "lookup", "label": "mismatch", "reported_failed": True}],
        **extra,
    }


def test_the_store_gives_back_every_run_exactly_across_blocks():
    rng = random.Random(7)
    store = RunStore()
    # sizes around, within and well beyond a block, so runs start and end anywhere in one
    raws = [rng.randbytes(rng.choice([1, 100, 5000, RunStore.BLOCK, 3 * RunStore.BLOCK + 17]))]
    raws += [rng.randbytes(rng.randrange(1, 2 * RunStore.BLOCK)) for _ in range(200)]
    refs = [store.add(raw) for raw in raws]
    order = list(range(len(raws)))
    rng.shuffle(order)
    for i in order:
        assert store.get(refs[i]) == raws[i]


def test_a_view_reads_back_its_whole_explanation():
    store = RunStore()
    params = {"q": {"kind": "mismatch", "shapes": [], "norm": None, "actual": "x", "expected": "a"}}
    d = run("r1", source="t.jsonl:1")
    d["calls"][0]["params"] = params
    view = RunView.from_json(d, "t.jsonl:1", store)
    assert (view.run_id, view.case_id, view.tools, view.true_pass) == (
        "r1",
        "c",
        ("lookup",),
        False,
    )
    detail = view.detail()
    assert detail.source == "t.jsonl:1"
    (param,) = detail.calls[0].params
    assert (param.path, param.actual, param.expected) == ("q", "x", "a")
    assert RunView.from_json(orjson.loads(orjson.dumps(d)), "x", store).detail() == detail


@pytest.mark.parametrize(
    ("calls", "why"),
    [([{"index": 0}], "unreadable calls"), ([{"tool": 7}], "a call without a tool name")],
)
def test_calls_without_tool_names_are_not_a_run_result(calls, why):
    with pytest.raises(InputError, match=why):
        RunView.from_json(run("r1", calls=calls), "f.jsonl:3", RunStore())


def test_a_scored_run_holding_what_orjson_cannot_write_is_kept():
    # a trace side's runs come from the scorer as Python values, not from JSON text: a plugin's
    # normalizer may give a value orjson cannot write
    d = run("r1")
    param = {
        "kind": "equivalent",
        "actual": "1.50",
        "expected": "1.5",
        "actual_norm": Decimal("1.5"),
    }
    d["calls"][0]["params"] = {"n": param}
    view = RunView.from_json(d, "t.jsonl:1", RunStore())
    assert view.detail().calls[0].params[0].actual == "1.50"
