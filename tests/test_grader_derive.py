"""`Grader.derive`, the graders of suggest's what-ifs: a derived grader keeps the compiled plans of
the tools a change leaves alone, and grades exactly as a grader made from scratch would (the
example suite's judged case included: a judged step's tool must keep its rules and judge)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import orjson

from evalrunner.grade.grader import Grader, RunResult
from evalrunner.grade.norms import load_registry
from evalrunner.model import NormSpec
from evalrunner.read.cases import load_cases
from evalrunner.read.tools import load_tools
from evalrunner.suggest.params import Change, with_changes
from evalrunner.suggest.whatif import WhatIf

ROOT = Path(__file__).parent.parent


def _records() -> list[tuple[str, object]]:
    out = []
    for path in sorted((ROOT / "traces").glob("*.jsonl")):
        for n, line in enumerate(path.read_bytes().splitlines(), 1):
            try:
                out.append((f"{path.name}:{n}", orjson.loads(line)))
            except orjson.JSONDecodeError:
                continue  # the corpus's broken lines: read by score, not here
    return out


def _verdicts(grader: Grader, records: list[tuple[str, object]]) -> list[tuple[object, ...]]:
    out = []
    for source, record in records:
        r = grader.grade_record(record, source)
        if isinstance(r, RunResult):
            out.append((r.run_id, r.verdict, r.shapes, r.accepted, [c.label for c in r.calls]))
    return out


def test_a_what_if_grades_as_a_grader_made_from_scratch():
    tools, cases, registry = load_tools(ROOT / "tools"), load_cases(ROOT / "cases"), load_registry()
    judged = {s.tool for c in cases.values() for seq in c.accept for s in seq if s.judge}
    assert judged  # the example suite has a judged step (cases/guarded.json)
    other = next(n for n in sorted(tools) if n not in judged and tools[n].params.properties)
    param = sorted(tools[other].params.properties)[0]
    changes = [Change(other, (param,), NormSpec("casefold"))]
    records = _records()

    whatif = WhatIf(tools, cases, registry, [])
    derived = whatif.grader(changes, ())
    fresh = Grader(with_changes(tools, changes), cases, registry=registry)
    assert _verdicts(derived, records) == _verdicts(fresh, records)
    # the plans of the tools the change leaves alone are the base grader's own
    assert all(derived.plans[n] is whatif.base.plans[n] for n in judged)
    assert derived.plans[other] is not whatif.base.plans[other]


def test_a_derived_grader_for_one_case_grades_its_runs_as_the_full_grader():
    tools, cases = load_tools(ROOT / "tools"), load_cases(ROOT / "cases")
    base = Grader(tools, cases)
    records = [(s, r) for s, r in _records() if isinstance(r, dict) and r.get("case_id") in cases]
    case_id = records[0][1]["case_id"]  # type: ignore[index]
    mine = [(s, r) for s, r in records if r["case_id"] == case_id]  # type: ignore[index]
    one = base.derive(cases={case_id: cases[case_id]})
    assert _verdicts(one, mine) == _verdicts(Grader(tools, cases), mine)


def test_a_derived_grader_compiles_again_only_the_judged_cases_a_change_touches(monkeypatch):
    """A judged case is compiled when a grader is made (its input errors raised early); a derived
    grader with the same plans for every tool the case names has nothing new to raise."""
    tools, cases, registry = load_tools(ROOT / "tools"), load_cases(ROOT / "cases"), load_registry()
    judged = {c.id: c for c in cases.values() if any(s.judge for seq in c.accept for s in seq)}
    assert judged
    base = Grader(tools, cases, registry=registry)
    compiled: list[str] = []
    real = Grader._compile_case

    def counting(self: Grader, case: object) -> object:
        compiled.append(case.id)  # type: ignore[attr-defined]
        return real(self, case)  # type: ignore[arg-type]

    monkeypatch.setattr(Grader, "_compile_case", counting)
    base.derive()
    assert compiled == []
    step_tool = next(s.tool for c in judged.values() for seq in c.accept for s in seq if s.judge)
    param = sorted(tools[step_tool].params.properties)[0]
    base.derive(with_changes(tools, [Change(step_tool, (param,), NormSpec("casefold"))]))
    names = {c.id for c in judged.values() if any(s.tool == step_tool for q in c.accept for s in q)}
    assert set(compiled) == names


def test_a_derived_grader_reads_only_the_judged_cases_it_must_check(monkeypatch):
    """Every judged case is read once, by the grader made first; a what-if's grader reads those
    it changes and those naming a tool it plans otherwise, not the whole suite's (that walk was
    a tenth of suggest on 27,300 cases)."""
    tools, cases = load_tools(ROOT / "tools"), load_cases(ROOT / "cases")
    first = next(c for c in cases.values() if any(s.judge for seq in c.accept for s in seq))
    copies = {f"{first.id}-{k}": dataclasses.replace(first, id=f"{first.id}-{k}") for k in range(3)}
    base = Grader(tools, {**cases, **copies})
    read: list[str] = []
    real = Grader._checked

    def noting(self: Grader, case: Any, plans: Any) -> bool:
        read.append(case.id)
        return real(self, case, plans)

    monkeypatch.setattr(Grader, "_checked", noting)
    changed = {
        f"{first.id}-1": dataclasses.replace(copies[f"{first.id}-1"], repeatable=frozenset({"x"}))
    }
    base.derive(changed=changed)
    assert read == [f"{first.id}-1"]
    read.clear()
    judged = [c for c in {**cases, **copies}.values() if any(s.judge for q in c.accept for s in q)]
    named = set().union(*map(_tools_named, judged))  # no judged case names `other`
    other = next(n for n in sorted(tools) if n not in named and tools[n].params.properties)
    param = sorted(tools[other].params.properties)[0]
    base.derive(with_changes(tools, [Change(other, (param,), NormSpec("casefold"))]))
    assert read == []
    step_tool = next(s.tool for seq in first.accept for s in seq if s.judge)
    param = sorted(tools[step_tool].params.properties)[0]
    base.derive(with_changes(tools, [Change(step_tool, (param,), NormSpec("casefold"))]))
    assert len(judged) < len(cases) + len(copies)
    assert sorted(read) == sorted(c.id for c in judged if step_tool in _tools_named(c))


def _tools_named(case: Any) -> set[str]:
    return {s.tool for seq in case.accept for s in seq}
