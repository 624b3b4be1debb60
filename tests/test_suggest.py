"""`evalrun suggest`, scenario by scenario: tests/data/suggest/<name>/{tools,cases,traces} and
expected.json, which names only what the scenario is about:

- `suggestions`: each must match one suggestion of the JSON document (every key given, at any
  depth; lists element by element); `absent`: none may match these;
- `tighten`: the same for tighten proposals; `risky`: exactly the risky ones, as [tool, param];
- `summary`: keys of the document's summary.

Every what-if is also checked against the slow way: the whole scenario scored again with the
suggestion applied.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from evalrunner.grade.grader import Grader, RunResult
from evalrunner.scoring import Config, load_config, score
from evalrunner.suggest import (
    AlternateSuggestion,
    DefaultSuggestion,
    RuleSuggestion,
    TightenSuggestion,
    suggest,
)
from evalrunner.suggest.collect import calls_ok, effect_status
from evalrunner.suggest.encodings import encoding_of
from evalrunner.suggest.params import with_changes
from evalrunner.suggest.rules import fitting_zones
from evalrunner.write import Collect
from evalrunner.write.suggest_json import to_json

SCENARIOS = Path(__file__).parent / "data" / "suggest"
NAMES = sorted(p.name for p in SCENARIOS.iterdir())


def run(name: str, **options: Any):
    d = SCENARIOS / name
    config = load_config(d / "tools", d / "cases")
    return config, suggest(config, [d / "traces"], **options)


def matches(want: Any, got: Any) -> bool:
    if isinstance(want, dict):
        return isinstance(got, dict) and all(
            k in got and matches(v, got[k]) for k, v in want.items()
        )
    if isinstance(want, list):
        return (
            isinstance(got, list)
            and len(want) == len(got)
            and all(matches(w, g) for w, g in zip(want, got))
        )
    return want == got and type(want) is type(got)


@pytest.mark.parametrize("name", NAMES)
def test_scenario(name):
    expected = json.loads((SCENARIOS / name / "expected.json").read_text())
    _, report = run(name)
    doc = to_json(report)
    scored = [s for s in doc["suggestions"] if s["kind"] != "tighten"]
    tighten = [s for s in doc["suggestions"] if s["kind"] == "tighten"]
    for want in expected["suggestions"]:
        assert any(matches(want, s) for s in scored), (name, want, scored)
    for unwanted in expected.get("absent", []):
        assert not any(matches(unwanted, s) for s in scored), (name, unwanted)
    if expected["suggestions"] == []:
        assert scored == []
    for want in expected.get("tighten", []):
        assert any(matches(want, s) for s in tighten), (name, want, tighten)
    if "risky" in expected:
        risky = [[s["tool"], s["param"]] for s in scored if s["risk"]["effects_failed"]]
        assert risky == expected["risky"]
    assert matches(expected.get("summary", {}), doc["summary"]), doc["summary"]
    # ordered by gains; tighten proposals after every scored suggestion
    assert [s["gains"] for s in scored] == sorted((s["gains"] for s in scored), reverse=True)
    assert doc["suggestions"] == scored + tighten


def _rescored(config: Config, d: Path, tools: Any, cases: Any) -> list[RunResult]:
    """The slow way: every run scored again, with changed tools and cases."""
    items = Collect()
    changed = Config(tools, cases, config.registry, Grader(tools, cases, registry=config.registry))
    score(changed, [d / "traces"], writer=items)
    return [r for r in items.items if isinstance(r, RunResult)]


def _moved(
    before: list[RunResult], after: list[RunResult], never_gains: frozenset[str] = frozenset()
) -> tuple[int, int, int, int]:
    """(gains, effects_failed, unverified, true failures after); the runs `never_gains` names
    (values a narrower rule reads apart: SPEC `risk.narrower_differs`) are not gains."""
    gains = failed = unverified = 0
    for a, b in zip(before, after):
        if not calls_ok(a) and calls_ok(b) and a.run_id not in never_gains:
            gains += 1
            failed += effect_status(a) == "failed"
            unverified += effect_status(a) == "unverified"
    return gains, failed, unverified, sum(1 for b in after if not b.true_pass)


@pytest.mark.parametrize("name", NAMES)
def test_every_what_if_is_what_scoring_again_says(name):
    config, report = run(name)
    d = SCENARIOS / name
    before = _rescored(config, d, config.tools, config.cases)
    changes, sequences, safe_changes, safe_sequences = [], [], [], []
    for s in report.scored:
        tools, cases = config.tools, dict(config.cases)
        if isinstance(s, AlternateSuggestion):
            case = cases[s.case_id]
            cases[s.case_id] = dataclasses.replace(case, accept=(*case.accept, s.sequence))
            sequences.append(s)
            if not s.risk.risky:
                safe_sequences.append(s)
        else:
            tools = with_changes(config.tools, [s.change])
            changes.append(s.change)
            if not s.risk.risky:
                safe_changes.append(s.change)
        narrower = s.risk.narrower_differs
        never_gains = frozenset(e.run_id for n in narrower for e in n.examples)
        # the scenarios are small: every such run is among the examples, one call each
        assert sum(n.calls for n in narrower) == sum(len(n.examples) for n in narrower)
        after = _rescored(config, d, tools, cases)
        gains, failed, unverified, _ = _moved(before, after, never_gains)
        assert (gains, failed, unverified) == (s.gains, s.risk.effects_failed, s.risk.unverified)

    def applied(chs: list[Any], seqs: list[AlternateSuggestion]) -> list[RunResult]:
        cases = dict(config.cases)
        for s in seqs:
            case = cases[s.case_id]
            cases[s.case_id] = dataclasses.replace(case, accept=(*case.accept, s.sequence))
        return _rescored(config, d, with_changes(config.tools, chs), cases)

    assert _moved(before, applied(changes, sequences))[0] == report.gains_if_all_applied
    assert _moved(before, applied(safe_changes, safe_sequences))[3] == (
        report.true_failed_if_safe_applied
    )


def test_all_at_once_is_a_regrade_not_the_sum():
    _, report = run("joint")
    assert sum(s.gains for s in report.scored) == 4
    assert report.gains_if_all_applied == 7  # three runs need both the rule and the default


def test_a_month_rule_on_local_midnight_whose_world_fails_is_risky():
    _, report = run("month_trap_risky")
    (rule,) = [s for s in report.scored if isinstance(s, RuleSuggestion)]
    assert rule.rule.options == {"tz": "Europe/Berlin"}
    assert rule.risk.risky and rule.risk.effects_failed == 2
    assert report.risky == 1
    # the only runs it would pass that do pass are left after the safe suggestions: none of it
    assert report.true_failed_if_safe_applied == report.summary.true_failed_runs


def test_kind_and_tool_narrow_the_list_and_the_figures():
    _, everything = run("joint")
    _, defaults = run("joint", kinds={"default"})
    assert [s.kind for s in defaults.suggestions] == ["default"]
    assert defaults.gains_if_all_applied == 2 < everything.gains_if_all_applied
    _, other_tool = run("joint", tool="get_customer")
    assert other_tool.suggestions == () and other_tool.gains_if_all_applied == 0
    _, tighten = run("tighten", kinds={"tighten"})
    assert [type(s) for s in tighten.suggestions] == [TightenSuggestion]


def test_defaults_are_only_proposed_where_a_parameter_may_be_left_out():
    _, report = run("default_limit")
    defaults = [s for s in report.scored if isinstance(s, DefaultSuggestion)]
    assert [(s.param, s.default) for s in defaults] == [("limit", 50)]


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("2026-03", "YYYY-MM"),
        ("2026-03-01", "YYYY-MM-DD"),
        ("2026-03-01T10:00:00Z", "YYYY-MM-DDThh:mm:ssZ"),
        ("2026-03-01T10:00:00.000Z", "YYYY-MM-DDThh:mm:ssZ"),
        ("2026-03-01T00:40:00+01:00", "YYYY-MM-DDThh:mm:ss±hh:mm"),
        ("2026-03-01T10:00:00", "YYYY-MM-DDThh:mm:ss"),
        ("2026-04-02T16:00Z", "YYYY-MM-DDThh:mmZ"),  # no seconds: not RFC 3339, apart
        ("2026-04-02T16:00+02:00", "YYYY-MM-DDThh:mm±hh:mm"),
        ("2026-04-02T16:00", "YYYY-MM-DDThh:mm"),
        ("PT30M", "ISO 8601 duration"),
        ("P1DT2H", "ISO 8601 duration"),
        ("1h30m", "duration shorthand (1h30m)"),
        ("1800", "decimal string"),
        ("19.99", "decimal string"),
        ("1e3", "numeric string"),
        (4200, "integer"),
        (42.0, "float"),
        ("C-4471", "other string"),
        ("", "other string"),
        (True, None),
        (None, None),
        ([1], None),
    ],
)
def test_encodings_are_named_as_a_reader_names_them(value, name):
    assert encoding_of(value) == name


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def test_a_zone_must_fit_every_offset_written():
    winter, summer = _at("2026-01-15T10:00:00+01:00"), _at("2026-07-15T10:00:00+02:00")
    assert fitting_zones([winter, summer])[0] == "Europe/Berlin"
    assert "Europe/Berlin" not in fitting_zones([winter, _at("2026-01-15T10:00:00+02:00")])
    assert fitting_zones([winter, _at("2026-01-15T10:00:00+03:00"), summer]) == []
    new_york = datetime(2026, 1, 15, 10, tzinfo=timezone(timedelta(hours=-5)))
    assert fitting_zones([new_york])[0] == "America/New_York"


def test_the_rule_that_absorbs_everything_is_never_proposed():
    """`any` (a free-text rule) would absorb a wrong customer id; suggest never infers it, nor
    any plugin's rule, whose width it cannot rank."""
    from evalrunner.grade.norms import Normalizer

    d = SCENARIOS / "rule_set"
    config = load_config(d / "tools", d / "cases")
    wide = {
        "any": Normalizer("any", "unjudged", lambda value: None, "every value is equal"),
        "everything": Normalizer("everything", "encoding", lambda value: 0, "a plugin"),
    }
    config = dataclasses.replace(config, registry={**config.registry, **wide})
    report = suggest(config, [d / "traces"])
    names = {s.rule.name for s in report.scored if isinstance(s, RuleSuggestion)}
    assert names == {"unordered_list"}  # the narrowest of the built-ins (rule_set)


def test_a_default_whose_evidence_disagrees_names_the_other_values(tmp_path):
    """Runs state flag=true where their steps leave it out; others leave it out where their
    steps say false. Either could be the default: the suggestion names the other value (a tie)."""
    from typer.testing import CliRunner

    from evalrunner.cli import app

    tool = {
        "name": "t",
        "parameters": {
            "type": "object",
            "properties": {"id": {"type": "string"}, "flag": {"type": "boolean"}},
        },
    }
    # each value in two cases: a default is never drawn from one case's wording (SPEC)
    cases = [
        {"id": "a", "accept": [[{"tool": "t", "args": {"id": "1"}}]]},
        {"id": "b", "accept": [[{"tool": "t", "args": {"id": "2", "flag": False}}]]},
        {"id": "c", "accept": [[{"tool": "t", "args": {"id": "3"}}]]},
        {"id": "d", "accept": [[{"tool": "t", "args": {"id": "4", "flag": False}}]]},
    ]
    runs = [
        {"case_id": "a", "calls": [{"tool": "t", "args": {"id": "1", "flag": True}}]},
        {"case_id": "b", "calls": [{"tool": "t", "args": {"id": "2"}}]},
        {"case_id": "c", "calls": [{"tool": "t", "args": {"id": "3", "flag": True}}]},
        {"case_id": "d", "calls": [{"tool": "t", "args": {"id": "4"}}]},
    ]
    (tmp_path / "tools.json").write_text(json.dumps(tool))
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    (tmp_path / "t.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    base = [
        "suggest",
        str(tmp_path / "t.jsonl"),
        "--tools",
        str(tmp_path / "tools.json"),
        "--cases",
        str(tmp_path / "cases.json"),
    ]
    result = CliRunner().invoke(app, [*base, "--format", "json"])
    assert result.exit_code == 0, result.output
    [d] = [s for s in json.loads(result.stdout)["suggestions"] if s["kind"] == "default"]
    other = {True: False, False: True}[d["default"]]
    assert d["others"] == [{"default": other, "calls": 2}]
    table = CliRunner().invoke(app, base, env={"COLUMNS": "120"}).stdout
    assert "also left out with another value" in table and "a tie" in table


def test_no_tighten_on_a_parameter_whose_schema_pins_a_format_already():
    from evalrunner.model import Param
    from evalrunner.suggest.encodings import census_plan

    def root(schema: dict[str, Any]) -> Param:
        from evalrunner.read.tools import parse_tool

        tool = {"name": "t", "parameters": {"type": "object", "properties": {"start": schema}}}
        return parse_tool(tool, "t").params

    assert census_plan(root({"type": "string"})).leaves == (("start", ("start",)),)
    assert not census_plan(root({"type": "string", "format": "date-time"}))
