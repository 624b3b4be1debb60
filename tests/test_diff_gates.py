"""`evalrun diff`'s CI gates on a small suite, where the paired test cannot fire.

A 14-case suite, three trials a case, re-recorded (so the sides pair by case): three cases break
outright. The sign test over 3 cases cannot reach p < 0.05 (it needs 6 cases all one way:
2 · 2^-6 = 0.031 < 0.05 < 0.0625 = 2 · 2^-5), so `--fail-on-regression` exits 0, and says why;
the gates a small suite can trip exit 1 and say which fired and by how much.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app
from evalrunner.diff.gates import replies_differ, smallest_suite
from tests.conftest import ROOT, one_line

IDS = [f"c{i:02}" for i in range(14)]
BROKEN = ("c03", "c07", "c11")


def lookup(q: str) -> dict:
    return {"tool": "lookup", "args": {"q": q}}


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def jsonl(rows) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


@pytest.fixture
def suite(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tool = {"name": "lookup", "input_schema": {"type": "object", "properties": {"q": {}}}}
    write(tmp_path / "tools" / "t.json", json.dumps([tool]))
    write(
        tmp_path / "cases" / "c.json", json.dumps([{"id": k, "accept": [[lookup(k)]]} for k in IDS])
    )
    old = [
        {"run_id": f"o-{k}-{t}", "case_id": k, "calls": [lookup(k)]} for k in IDS for t in range(3)
    ]
    # c00 loses one trial of three only: its share falls too (3/3 → 2/3)
    new = [
        {
            "run_id": f"n-{k}-{t}",
            "case_id": k,
            "calls": [lookup("x" if k in BROKEN or (k, t) == ("c00", 0) else k)],
        }
        for k in IDS
        for t in range(3)
    ]
    write(tmp_path / "old" / "runs.jsonl", jsonl(old))
    write(tmp_path / "new" / "runs.jsonl", jsonl(new))
    return tmp_path


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def test_the_paired_test_cannot_fire_and_says_so(suite):
    result = invoke("diff", "old", "new", "--fail-on-regression")
    assert result.exit_code == 0, result.output
    assert "0 cases improved, 4 regressed; p = 0.12" in one_line(result.stdout)
    assert (
        "note: --fail-on-regression: the paired test cannot reach p < 0.05 with 4 cases moving "
        "(it needs at least 6, all one way)" in one_line(result.stderr)
    )


def test_fail_above_delta_fires_with_the_rise(suite):
    # 10 of 42 runs fail now, none did: +23.8 points
    result = invoke("diff", "old", "new", "--fail-above-delta", "0.05")
    assert result.exit_code == 1, result.output
    assert (
        "--fail-above-delta: the true run failure rate rose 0.0% → 23.8% (+23.8 pts), more than "
        "5.0 pts" in one_line(result.stderr)
    )
    assert invoke("diff", "old", "new", "--fail-above-delta", "0.25").exit_code == 0
    assert invoke("diff", "new", "old", "--fail-above-delta", "0").exit_code == 0  # it fell


def test_fail_above_delta_takes_a_fraction(suite):
    result = invoke("diff", "old", "new", "--fail-above-delta", "5")
    assert result.exit_code == 2
    assert "--fail-above-delta takes a fraction from 0 to 1, not 5: for 5%, write 0.05" in one_line(
        result.stderr
    )


def test_fail_on_case_regression_lists_the_cases(suite):
    result = invoke("diff", "old", "new", "--fail-on-case-regression")
    assert result.exit_code == 1, result.output
    assert (
        "--fail-on-case-regression: 4 cases' true pass share fell: c00 3/3 → 2/3, c03 3/3 → 0/3, "
        "c07 3/3 → 0/3, c11 3/3 → 0/3" in one_line(result.stderr)
    )
    assert invoke("diff", "new", "old", "--fail-on-case-regression").exit_code == 0


def test_case_regression_under_run_pairing(suite):
    # the same runs graded under changed cases: run pairing, and the gate still reads shares
    assert invoke("score", "old", "--format", "json", "--output", "before.json").exit_code == 0
    cases = [{"id": k, "accept": [[lookup("x" if k == "c05" else k)]]} for k in IDS]
    write(suite / "cases2" / "c.json", json.dumps(cases))
    result = invoke("diff", "before.json", "old", "--cases", "cases2", "--fail-on-case-regression")
    assert result.exit_code == 1, result.output
    assert "paired by run_id" in one_line(result.stdout)
    assert "1 case's true pass share fell: c05 3/3 → 0/3" in one_line(result.stderr)


def test_every_gate_fires_at_once_and_each_is_said(suite):
    result = invoke(
        "diff",
        "old",
        "new",
        "--fail-on-regression",
        "--fail-above-delta",
        "0.1",
        "--fail-on-case-regression",
        "--fail-on-suspect",
    )
    assert result.exit_code == 1
    err = one_line(result.stderr)
    assert "--fail-above-delta:" in err and "--fail-on-case-regression:" in err
    assert "--fail-on-suspect" not in err  # no rule is suspect here


def test_gates_from_the_settings_file_are_named_with_it(suite):
    write(suite / "evalrun.toml", "fail_above_delta = 0.1\nfail_on_case_regression = true\n")
    result = invoke("diff", "old", "new")
    assert result.exit_code == 1, result.output
    err = one_line(result.stderr)
    assert "fail_above_delta in evalrun.toml: the true run failure rate rose" in err
    assert "more than 10.0 pts" in err
    assert "fail_on_case_regression in evalrun.toml: 4 cases' true pass share fell" in err
    # a flag wins over the file
    assert (
        invoke(
            "diff", "old", "new", "--fail-above-delta", "0.5", "--no-fail-on-case-regression"
        ).exit_code
        == 0
    )


def test_the_paired_test_set_in_the_file_says_why_it_cannot_fire_naming_the_setting(suite):
    # it said "note: --fail-on-regression: ..." to a user who never typed the flag
    write(suite / "evalrun.toml", "fail_on_regression = true\n")
    result = invoke("diff", "old", "new")
    assert result.exit_code == 0, result.output
    assert (
        "note: fail_on_regression in evalrun.toml: the paired test cannot reach p < 0.05 with 4 "
        "cases moving (it needs at least 6, all one way)" in one_line(result.stderr)
    )


def test_a_gate_setting_of_the_wrong_type_exits_2(suite):
    write(suite / "evalrun.toml", 'fail_on_suspect = "yes"\n')
    result = invoke("diff", "old", "new")
    assert result.exit_code == 2
    assert 'fail_on_suspect must be true or false, not "yes"' in one_line(result.stderr)


def test_fail_above_from_settings_is_named_as_the_setting(suite):
    write(suite / "pyproject.toml", "[tool.evalrun]\nfail_above = 0.1\n")
    result = invoke("score", "new")
    assert result.exit_code == 1
    assert "true run failure rate 23.8% is above fail_above in pyproject.toml 10.0%" in one_line(
        result.stderr
    )
    flagged = invoke("score", "new", "--fail-above", "0.2")
    assert "is above --fail-above 20.0%" in one_line(flagged.stderr)


@pytest.mark.parametrize(("alpha", "need"), [(0.05, 6), (0.01, 8), (0.1, 5), (0.5, 3), (0.25, 4)])
def test_smallest_suite_the_paired_test_can_fire_on(alpha, need):
    # 2 · 2^-n < alpha, by hand: 0.05 → 2/64 = 0.031 (n = 6; 2/32 = 0.0625 is not below)
    assert smallest_suite(alpha) == need
    assert 2 * 0.5**need < alpha <= 2 * 0.5 ** (need - 1)


# --------------------------------------------------------------------------- --fail-on-suspect


def month_project(root: Path, *, rule: bool) -> None:
    month: dict = {"type": "string"}
    if rule:
        month["x-eval-norm"] = "month"
    tool = {"name": "search", "input_schema": {"type": "object", "properties": {"month": month}}}
    write(root / "tools" / "t.json", json.dumps([tool]))


@pytest.fixture
def months(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    month_project(tmp_path, rule=False)
    case = {
        "id": "m",
        "accept": [[{"tool": "search", "args": {"month": "2026-03"}}]],
        "effect": [{"at": "/refunds", "count": 1}],
    }
    write(tmp_path / "cases" / "c.json", json.dumps([case]))
    runs = [
        {
            "run_id": "r1",
            "case_id": "m",
            "calls": [{"tool": "search", "args": {"month": "2026-03"}}],
            "world": {"refunds": [1]},
        },
        # matched only through the month rule, and nothing was refunded
        {
            "run_id": "r2",
            "case_id": "m",
            "calls": [{"tool": "search", "args": {"month": "2026-03-15"}}],
            "world": {"refunds": []},
        },
    ]
    write(tmp_path / "traces" / "t.jsonl", jsonl(runs))
    result = invoke("score", "--format", "json", "--output", "before.json")
    assert result.exit_code == 0, result.output
    return tmp_path


def test_score_fail_on_suspect(months):
    assert invoke("score", "--fail-on-suspect").exit_code == 0  # no rule, no suspect
    month_project(months, rule=True)
    result = invoke("score", "--fail-on-suspect")
    assert result.exit_code == 1, result.output
    assert (
        "--fail-on-suspect: a rule may be creating false passes; normalizer suspects: month on "
        "search.month (1 run)" in one_line(result.stderr)
    )
    assert invoke("score").exit_code == 0  # no flag, no failure


def test_diff_fail_on_suspect(months):
    month_project(months, rule=True)
    result = invoke("diff", "before.json", "traces", "--fail-on-suspect")
    assert result.exit_code == 1, result.output
    assert (
        "--fail-on-suspect: a rule may be creating false passes; normalizer suspects: month on "
        "search.month (1 run)" in one_line(result.stderr)
    )
    # the suspect is not new between two scorings with the rule: nothing fires
    after = invoke("score", "--format", "json", "--output", "after.json")
    assert after.exit_code == 0
    assert invoke("diff", "after.json", "traces", "--fail-on-suspect").exit_code == 0


@pytest.mark.parametrize(
    ("evidence", "fired"),
    [
        (None, []),  # a results file from before reply evidence
        ([], []),
        ("nonsense", []),
        (
            [{"tool": "logs", "param": "since", "norm": "instant", "pairs_differ": 2}],
            ["instant on logs.since"],
        ),
        (
            [{"tool": "logs", "param": "since", "norm": "instant", "pairs_differ": 0}],
            [],
        ),
        ([3, {"tool": "t", "param": "p", "norm": "set", "pairs_differ": 1}], ["set on t.p"]),
    ],
)
def test_reply_evidence_is_read_defensively(evidence, fired):
    summary = {} if evidence is None else {"reply_evidence": evidence}
    assert replies_differ(summary) == fired


# ------------------------------------------------------------------------------ the README's job


def _job_commands() -> list[list[str]]:
    import re
    import shlex

    readme = (Path(__file__).parent.parent / "README.md").read_text()
    job = re.search(r"### In CI: a GitHub Actions job.*?```yaml\n(.*?)```", readme, re.S)
    assert job is not None
    lines = [line.strip() for line in job.group(1).splitlines()]
    found = []
    for line in lines:
        line = line.removeprefix("run: ")
        if line.startswith("evalrun "):
            found.append(shlex.split(line.split(">>")[0].replace("${{ github.base_ref }}", "main")))
    return found


def test_the_readme_job_uses_the_new_gates_with_options_that_exist():
    import typer.main

    commands = _job_commands()
    flags = {f for c in commands for f in c if f.startswith("--")}
    assert {"--fail-above-delta", "--fail-on-case-regression", "--fail-on-suspect"} <= flags
    group = typer.main.get_command(app)
    for argv in commands:
        command = group.commands[argv[1]]  # type: ignore[attr-defined]
        known = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
        unknown = [f for f in argv if f.startswith("--") and f not in known]
        assert not unknown, (argv, unknown)


def test_every_setting_is_in_the_readme():
    from evalrunner.read.settings import KEYS

    readme = (Path(__file__).parent.parent / "README.md").read_text()
    keys = readme[readme.index("The keys are") :].split("\n\n")[0]
    assert [k for k in KEYS if f"`{k}`" not in keys] == []


def test_score_fail_on_suspect_fires_on_rules_whose_replies_differ(monkeypatch):
    """The reply_evidence scenario: `date` on a timestamp equates calls an hour apart whose log
    searches replied with other lines; no world is recorded, so no normalizer suspect."""
    monkeypatch.chdir(Path(__file__).parent / "data" / "scenarios" / "reply_evidence")
    plain = invoke("score", "traces", "--format", "json")
    assert plain.exit_code == 0, plain.output
    summary = json.loads(plain.stdout)["summary"]
    assert summary["normalizer_suspects"] == [] and replies_differ(summary)
    result = invoke("score", "traces", "--fail-on-suspect")
    assert result.exit_code == 1, result.output
    assert "replies" in one_line(result.stderr) and "date on" in one_line(result.stderr)


def test_the_docs_smallest_suites_are_what_the_gate_computes():
    """docs/diff.md's table of the fewest runs or cases that must move for the paired test to
    fire, row by row, against `smallest_suite` and the smallest p-value 2 · 2^-n."""
    text = (ROOT / "docs" / "diff.md").read_text()
    table = text.split("### When the paired test can fire, and when it cannot", 1)[1]
    rows = [line for line in table.splitlines() if re.match(r"\| 0\.\d+ \|", line)]
    assert len(rows) == 3
    for row in rows:
        alpha_cell, fewest_cell, suite_cell = (c.strip() for c in row.strip("|").split("|"))
        alpha = float(alpha_cell)
        need = smallest_suite(alpha)
        fewest = re.fullmatch(r"(\d+) \(2 · 2\^-(\d+) = ([0-9.]+)(?:; .*)?\)", fewest_cell)
        assert fewest is not None, fewest_cell
        assert int(fewest[1]) == int(fewest[2]) == need
        assert abs(float(fewest[3]) - 2 * 0.5**need) < 5e-4
        assert suite_cell == f"run pairing: {need} runs; case pairing: {need} cases"
