"""Suggest on the example corpus with every `x-eval-norm` and `default` stripped from its tools:
what it finds again of the annotations that carry the corpus's false failures (recall), how many
of its proposals are what was stripped (precision), and that the README and docs/suggest.md
report those very figures."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from evalrunner.grade.grader import Grader, RunResult
from evalrunner.jsonvalue import MISSING
from evalrunner.model import PREDICATES
from evalrunner.scoring import Config, load_config, score
from evalrunner.suggest import AlternateSuggestion, DefaultSuggestion, RuleSuggestion, suggest
from evalrunner.suggest.params import param_path, walk, with_changes
from evalrunner.write import Collect
from evalrunner.write.suggest_json import to_json

ROOT = Path(__file__).resolve().parent.parent

Key = tuple[str, str, str, str]
"""(kind, tool, parameter, rule name or "")."""


def _strip_module() -> Any:
    spec = importlib.util.spec_from_file_location(
        "strip", ROOT / "scripts" / "strip_annotations.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


@pytest.fixture(scope="module")
def stripped(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("stripped")
    _strip_module().strip(ROOT / "tools", d / "tools")
    (d / "cases").symlink_to(ROOT / "cases")
    (d / "traces").symlink_to(ROOT / "traces")
    return d


@pytest.fixture(scope="module")
def config(stripped) -> Config:
    return load_config(stripped / "tools", stripped / "cases")


@pytest.fixture(scope="module")
def report(config, stripped):
    return suggest(config, [stripped / "traces"])


def annotations() -> set[Key]:
    """Every rule and default the example tools declare."""
    found = set()
    for tool in load_config(ROOT / "tools", ROOT / "cases").tools.values():
        for steps, p in walk(tool.params):
            if p.norm is not None:
                found.add(("rule", tool.name, param_path(steps), p.norm.name))
            if p.default is not MISSING:
                found.add(("default", tool.name, param_path(steps), ""))
    return found


def carried_by_case() -> dict[Key, set[str]]:
    """The annotations that absorb a difference of some false failure of the corpus, each with
    the cases of those runs."""
    items = Collect()
    score(load_config(ROOT / "tools", ROOT / "cases"), [ROOT / "traces"], writer=items)
    found: dict[Key, set[str]] = {}
    for r in items.items:
        if not isinstance(r, RunResult) or r.verdict != "false_failure":
            continue
        for c in r.calls:
            for d in c.comparison.diffs if c.comparison is not None else ():
                if d.kind == "absorbed" and d.norm not in PREDICATES:  # a case's, not a tool's
                    found.setdefault(("rule", c.tool, d.param, d.norm or ""), set()).add(r.case_id)
                elif d.kind == "default":
                    found.setdefault(("default", c.tool, d.param, ""), set()).add(r.case_id)
    return found


def carried() -> set[Key]:
    return set(carried_by_case())


def proposed(report) -> set[Key]:
    out = set()
    for s in report.suggestions:
        if isinstance(s, RuleSuggestion):
            out.add(("rule", s.tool, s.param, s.rule.name))
        elif isinstance(s, DefaultSuggestion):
            out.add(("default", s.tool, s.param, ""))
    return out


def ties(report, stripped_all: set[Key]) -> set[Key]:
    """The stripped rules suggest proposed as a tie: a narrower rule proposed, the stripped
    one among its others as absorbing as many calls (the evidence cannot tell them apart)."""
    out = set()
    for s in report.suggestions:
        if isinstance(s, RuleSuggestion):
            for other, n in s.others:
                key = ("rule", s.tool, s.param, other.name)
                if n >= s.absorbed and key in stripped_all:
                    out.add(key)
    return out


def test_recall_and_precision_are_what_the_docs_say(report):
    stripped_all, found = annotations(), proposed(report)
    by_case = carried_by_case()
    # never proposed (SPEC): the rule `any`, and a default only one case's runs show
    one_case = {k for k, cases in by_case.items() if k[0] == "default" and len(cases) < 2}
    needed = {k for k in by_case if k[3] != "any" and k not in one_case}
    free_text = len({k for k in by_case if k[3] == "any"})
    assert needed <= stripped_all
    hit, right, tied = len(found & needed), len(found & stripped_all), ties(report, stripped_all)
    assert (hit + len(tied & needed)) / len(needed) >= 0.95
    assert (right + len(tied)) / len(found) >= 0.95
    left = [f"{free_text} free-text `any`"] if free_text else []
    if one_case:
        left.append(f"{len(one_case)} defaults only one case's runs show")
    aside = f" (and {' and '.join(left)}, which it never proposes)" if left else ""
    sentence = (
        f"{len(stripped_all)} annotations stripped, `suggest` proposes {len(found)} rules and "
        f"defaults: of the {len(needed)} that carry the corpus's false failures{aside}, it "
        f"finds {hit} by name and {len(tied & needed)} more as a tie the evidence cannot break, "
        f"and {right} of its {len(found)} proposals are the annotation that was stripped"
    )
    for doc in ("README.md", "docs/suggest.md"):
        text = " ".join((ROOT / doc).read_text().split())
        assert sentence in text, f"{doc} should say: {sentence}"


def test_the_casefold_on_a_case_sensitive_account_reference_is_risky(report):
    (credit,) = [s for s in report.scored if getattr(s, "param", "") == "account_ref"]
    assert isinstance(credit, RuleSuggestion) and credit.rule.name == "casefold"
    assert credit.risk.risky and credit.risk.effects_failed == credit.gains > 0
    assert [(s.tool, s.param) for s in report.scored if s.risk.risky] == [
        ("apply_credit", "account_ref")
    ]


def test_the_headline_is_a_full_regrade(report, config, stripped):
    """Both figures the table leads with, against scoring every run again."""

    def rescored(suggestions: list[Any]) -> list[RunResult]:
        changes = [s.change for s in suggestions if not isinstance(s, AlternateSuggestion)]
        cases = dict(config.cases)
        for s in suggestions:
            if isinstance(s, AlternateSuggestion):
                case = cases[s.case_id]
                cases[s.case_id] = dataclasses.replace(case, accept=(*case.accept, s.sequence))
        tools = with_changes(config.tools, changes)
        changed = Config(
            tools, cases, config.registry, Grader(tools, cases, registry=config.registry)
        )
        items = Collect()
        score(changed, [stripped / "traces"], writer=items)
        return [r for r in items.items if isinstance(r, RunResult)]

    everything = rescored(list(report.scored))
    safe = rescored([s for s in report.scored if not s.risk.risky])
    before = rescored([])
    gains = sum(
        1
        for a, b in zip(before, everything)
        if (a.accepted is None or any(c.label == "redundant" for c in a.calls))
        and b.accepted is not None
        and not any(c.label == "redundant" for c in b.calls)
    )
    assert gains == report.gains_if_all_applied
    assert sum(1 for r in safe if not r.true_pass) == report.true_failed_if_safe_applied
    # Under half once the `set`s' repeats were gains; narrowest first (SPEC), repeats that
    # `unordered_list` reads apart are what `set` would merge, never its gains.
    assert report.true_failed_if_safe_applied < report.summary.true_failed_runs * 0.6


def test_jobs_give_the_same_suggestions(report, config, stripped):
    parallel = suggest(config, [stripped / "traces"], jobs=2)
    assert json.dumps(to_json(parallel)) == json.dumps(to_json(report))
