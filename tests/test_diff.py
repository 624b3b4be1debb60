"""`evalrun diff` on real files: results files, trace directories and git revisions.

Every corpus here is written to tmp_path and read back through the command line. The expected
p-values are literals worked out by hand from the binomial distribution (shown beside each), not
computed with the code under test.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app
from evalrunner.diff import binomial_two_sided, mcnemar_exact, sign_test, stats
from tests.conftest import one_line

# --------------------------------------------------------------------------------- the corpus


def search_tool(*, month_rule: bool) -> dict:
    month: dict = {"type": "string"}
    if month_rule:
        month["x-eval-norm"] = "month"
    return {
        "type": "function",
        "function": {
            "name": "search_invoices",
            "parameters": {
                "type": "object",
                "properties": {
                    "customer_id": {"type": "string"},
                    "month": month,
                    "limit": {"type": "integer", "default": 50},
                },
                "required": ["customer_id"],
            },
        },
    }


def call(month: str) -> dict:
    return {"tool": "search_invoices", "args": {"customer_id": "C-1", "month": month}}


REFUNDED = {"refunds": [{"invoice": "INV-1"}]}
NOT_REFUNDED: dict = {"refunds": []}

CASES = [
    {
        "id": "march",
        "accept": [[call("2026-03")]],
        "effect": [{"at": "/refunds", "count": 1}],
    },
    {"id": "march-prefix", "match": "prefix", "accept": [[call("2026-03")]]},
]

# One trace set, graded before and after the `month` rule is added to search_invoices.month.
RUNS = [
    {"run_id": "r1", "case_id": "march", "calls": [call("2026-03")], "world": REFUNDED},
    # an encoding the rule absorbs, world right: a false failure once the rule exists
    {"run_id": "r2", "case_id": "march", "calls": [call("2026-03-01")], "world": REFUNDED},
    # the rule absorbs it, but nothing was refunded: the calls match, the effect fails
    {"run_id": "r3", "case_id": "march", "calls": [call("2026-03-15")], "world": NOT_REFUNDED},
    {"run_id": "r4", "case_id": "march", "calls": [call("2026-04")], "world": REFUNDED},
    # absorbed by the rule, no world recorded: a pass nobody can check
    {"run_id": "r5", "case_id": "march", "calls": [call("2026-03-01")]},
    # the second call is an `extra` after the prefix until the rule makes it a repeat of the first
    {
        "run_id": "r6",
        "case_id": "march-prefix",
        "calls": [call("2026-03"), call("2026-03-01")],
    },
]

RULE_CHANGE_FLIPS = [
    {
        "key": "r2",
        "old": "fail",
        "new": "false_failure",
        "shape": {"old": None, "new": "encoding"},
        "cause": 'now equivalent through `month` on search_invoices.month: "2026-03-01" ~ "2026-03"',
    },
    {
        "key": "r5",
        "old": "fail",
        "new": "false_failure",
        "shape": {"old": None, "new": "encoding"},
        "cause": 'now equivalent through `month` on search_invoices.month: "2026-03-01" ~ "2026-03"',
    },
    {
        "key": "r6",
        "old": "pass",
        "new": "false_pass",
        "shape": {"old": None, "new": "redundant_call"},
        "cause": "call 1 now redundant (repeats call 0)",
    },
]


def write_json(path: Path, value) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))
    return path


def write_jsonl(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def corpus(root: Path, *, month_rule: bool, runs=RUNS, cases=CASES) -> Path:
    write_json(root / "tools" / "billing.json", [search_tool(month_rule=month_rule)])
    write_json(root / "cases" / "cases.json", cases)
    write_jsonl(root / "traces" / "runs.jsonl", runs)
    return root


def invoke(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def diff_json(*args: str) -> dict:
    result = invoke("diff", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project directory (the current directory) with the rule not yet added."""
    monkeypatch.chdir(tmp_path)
    return corpus(tmp_path, month_rule=False)


def score_to(path: Path, *args: str, fmt: str = "json") -> Path:
    result = invoke("score", *args, "--format", fmt, "--output", path)
    assert result.exit_code == 0, result.output
    return path


# ------------------------------------------------------------------------------- rule change


def test_rule_change_results_file_against_trace_directory(project):
    old = score_to(project / "old.json")
    write_json(project / "tools" / "billing.json", [search_tool(month_rule=True)])

    out = diff_json("old.json", "traces")

    assert out["pairing"] == "run_id"
    assert out["flips"] == RULE_CHANGE_FLIPS
    assert out["test"] == {"name": "exact_mcnemar", "improved": 2, "regressed": 1, "p_value": 1.0}
    assert out["old"]["kind"] == "results"
    assert out["old"]["source"] == "results file old.json"
    assert out["new"]["kind"] == "traces"
    assert out["new"]["source"].startswith(
        "trace directory traces, scored with the current tools (tools)"
    )
    assert out["old"]["summary"] == json.loads(old.read_text())["summary"]
    # 6 runs: old true failures r2 r3 r4 r5 (4/6); new r3 r4 r6 (3/6). Reported: r2..r5 (4/6).
    assert out["delta"] == {"reported_run_failure_rate": 0.0, "true_run_failure_rate": -0.1667}
    assert out["unpaired"] == {"old": 0, "new": 0}
    # r3 matches only through the new rule while nothing was refunded; r5 passed unchecked.
    assert out["suspect_rules"] == [
        {
            "tool": "search_invoices",
            "param": "month",
            "norm": "month",
            "runs": 1,
            "keys": ["r3"],
            "unverified_passes": 1,
        }
    ]


def test_rule_change_jsonl_results_give_the_same_diff(project):
    score_to(project / "old.jsonl", fmt="jsonl")
    write_json(project / "tools" / "billing.json", [search_tool(month_rule=True)])
    score_to(project / "new.jsonl", fmt="jsonl")

    out = diff_json("old.jsonl", "new.jsonl")

    assert out["flips"] == RULE_CHANGE_FLIPS
    assert out["old"]["source"] == "results file (jsonl) old.jsonl"
    assert [s["keys"] for s in out["suspect_rules"]] == [["r3"]]


def test_gzipped_jsonl_results_read_as_results_not_traces(project):
    plain = score_to(project / "old.jsonl", fmt="jsonl")
    (project / "old.jsonl.gz").write_bytes(gzip.compress(plain.read_bytes()))
    write_json(project / "tools" / "billing.json", [search_tool(month_rule=True)])

    out = diff_json("old.jsonl.gz", "traces")
    assert out["old"]["kind"] == "results"
    assert out["flips"] == RULE_CHANGE_FLIPS


def test_a_results_document_reformatted_by_hand_still_reads(project):
    old = score_to(project / "old.json")
    (project / "pretty.json").write_text(json.dumps(json.loads(old.read_text()), indent=2))
    write_json(project / "tools" / "billing.json", [search_tool(month_rule=True)])

    assert diff_json("pretty.json", "traces")["flips"] == RULE_CHANGE_FLIPS


def test_rule_change_table_says_it_in_words(project):
    score_to(project / "old.json")
    write_json(project / "tools" / "billing.json", [search_tool(month_rule=True)])

    result = invoke("diff", "old.json", "traces")

    assert result.exit_code == 0, result.output
    text = one_line(result.stdout)
    assert "paired by run_id: both sides hold the same 6 runs" in text
    assert "true run failure rate 66.7% (4) 50.0% (3) -16.7 pts" in text
    assert "Flips: 3 runs changed verdict" in text
    assert "r6 pass → false_pass (redundant_call) call 1 now redundant (repeats call 0)" in text
    assert "WARNING: calls now match through a rule while the recorded world says" in text
    assert "month on search_invoices.month: 1 run with failing effects (r3)" in text
    assert "2 runs improved, 1 regressed; p = 1: could well be noise at alpha 0.05." in text
    assert "doubt the rule" in one_line(result.stderr)


def test_same_traces_same_rules_change_nothing(project):
    out = diff_json("traces", "traces")
    assert out["flips"] == []
    assert out["suspect_rules"] == []
    assert out["test"] == {"name": "exact_mcnemar", "improved": 0, "regressed": 0, "p_value": 1.0}
    result = invoke("diff", "traces", "traces")
    assert "No run changed its true verdict" in one_line(result.stdout)


# ------------------------------------------------------------------- McNemar through the CLI


def lookup_tool() -> dict:
    return {
        "name": "lookup",
        "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
    }


def lookup(q: str) -> dict:
    return {"tool": "lookup", "args": {"q": q}}


def mcnemar_project(root: Path) -> None:
    """12 runs that fail case v1 and pass v2, 3 the other way round, 2 that fail both."""
    write_json(root / "tools" / "t.json", [lookup_tool()])
    qs = ["B"] * 12 + ["A"] * 3 + ["C"] * 2
    write_jsonl(
        root / "traces" / "t.jsonl",
        [{"run_id": f"r{i:02}", "case_id": "q", "calls": [lookup(q)]} for i, q in enumerate(qs)],
    )
    write_json(root / "cases-v1" / "c.json", [{"id": "q", "accept": [[lookup("A")]]}])
    write_json(root / "cases-v2" / "c.json", [{"id": "q", "accept": [[lookup("B")]]}])
    score_to(root / "v1.json", "--cases", "cases-v1")
    score_to(root / "v2.json", "--cases", "cases-v2")


# By hand: 15 discordant pairs, 3 the other way: P(X <= 3) for X ~ Bin(15, 1/2) is
# (C(15,0) + C(15,1) + C(15,2) + C(15,3)) / 2^15 = (1 + 15 + 105 + 455) / 32768 = 576 / 32768,
# and two-sided p = 1152 / 32768 = 0.03515625.
P_12_3 = 0.03515625


def test_mcnemar_p_value_and_words(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    mcnemar_project(tmp_path)

    out = diff_json("v1.json", "traces", "--cases", "cases-v2")
    assert out["test"] == {
        "name": "exact_mcnemar",
        "improved": 12,
        "regressed": 3,
        "p_value": P_12_3,
    }
    flip = next(f for f in out["flips"] if f["key"] == "r00")
    assert flip == {
        "key": "r00",
        "old": "fail",
        "new": "pass",
        "shape": {"old": None, "new": None},
        "cause": 'call 0 (lookup) now matches exactly (was mismatch: lookup.q "B" ≠ "A"); '
        "exact-match now passes call 0 (lookup)",
    }
    assert len(out["flips"]) == 15

    result = invoke("diff", "v1.json", "traces", "--cases", "cases-v2")
    assert (
        "12 runs improved, 3 regressed; p = 0.035: unlikely to be noise at alpha 0.05 "
        "(an improvement)." in one_line(result.stdout)
    )


def test_fail_on_regression_exits_1_only_when_significant(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    mcnemar_project(tmp_path)

    worse = invoke("diff", "v2.json", "v1.json", "--fail-on-regression")
    assert worse.exit_code == 1, worse.output
    assert "3 runs improved, 12 regressed; p = 0.035" in one_line(worse.stderr)

    assert (
        invoke("diff", "v2.json", "v1.json", "--fail-on-regression", "--alpha", "0.01").exit_code
        == 0
    )
    assert invoke("diff", "v2.json", "v1.json").exit_code == 0  # no flag, no failure
    assert invoke("diff", "v1.json", "v2.json", "--fail-on-regression").exit_code == 0  # better


def test_alpha_out_of_range_is_a_usage_error(project):
    result = invoke("diff", "traces", "traces", "--alpha", "1.5")
    assert result.exit_code == 2
    assert "--alpha must be between 0 and 1" in one_line(result.stderr)


# ------------------------------------------------------------------ re-recorded traces: cases


def rerecorded_project(root: Path) -> None:
    cases = [
        {"id": "a", "accept": [[lookup("a")]]},
        {"id": "b", "accept": [[lookup("b")]], "effect": [{"at": "/done", "equals": True}]},
        {"id": "c", "accept": [[lookup("c")]]},
        {"id": "d", "accept": [[lookup("d")]]},
    ]
    write_json(root / "tools" / "t.json", [lookup_tool()])
    write_json(root / "cases" / "c.json", cases)
    old = [
        {"run_id": "old-1", "case_id": "a", "calls": [lookup("a")]},
        {"run_id": "old-2", "case_id": "a", "calls": [lookup("x")]},
        {"run_id": "old-3", "case_id": "a", "calls": [lookup("x")]},
        {"run_id": "old-4", "case_id": "b", "calls": [lookup("b")], "world": {"done": True}},
        {"run_id": "old-5", "case_id": "b", "calls": [lookup("b")], "world": {"done": True}},
        {"run_id": "old-6", "case_id": "c", "calls": [lookup("c")]},
        {"run_id": "old-7", "case_id": "d", "calls": [lookup("d")]},
    ]
    new = [
        {"run_id": "new-1", "case_id": "a", "calls": [lookup("a")]},
        {"run_id": "new-2", "case_id": "a", "calls": [lookup("a")]},
        {"run_id": "new-3", "case_id": "a", "calls": [lookup("a")]},
        {"run_id": "new-4", "case_id": "b", "calls": [lookup("b")], "world": {"done": True}},
        {"run_id": "new-5", "case_id": "b", "calls": [lookup("b")], "world": {"done": False}},
        {"run_id": "new-6", "case_id": "c", "calls": [lookup("c")]},
        {"run_id": "new-7", "case_id": "e", "calls": [lookup("e")]},  # unknown case: unscoreable
    ]
    write_jsonl(root / "old" / "runs.jsonl", old)
    write_jsonl(root / "new" / "runs.jsonl", new)


def test_rerecorded_traces_pair_by_case(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rerecorded_project(tmp_path)

    out = diff_json("old", "new")

    assert out["pairing"] == "case_id"
    assert out["pairing_reason"] == (
        "the sides hold different runs (7 run ids only in OLD, 6 only in NEW)"
    )
    assert out["flips"] == [
        {
            "key": "a",
            "old": 0.3333,
            "new": 1.0,
            "cause": "3/3 trials pass (was 1/3); fewer failures: lookup.q differs (2); "
            "exact-match passes 3/3 (was 1/3)",
            "trials": {"old": 3, "new": 3},
        },
        {
            "key": "b",
            "old": 1.0,
            "new": 0.5,
            "cause": "1/2 trials pass (was 2/2); new failures: effect fails: equals at /done (1)",
            "trials": {"old": 2, "new": 2},
        },
    ]
    # one case better, one worse: two-sided p = 2 · P(X <= 1), X ~ Bin(2, 1/2) = 2 · 3/4, capped at 1
    assert out["test"] == {"name": "exact_sign", "improved": 1, "regressed": 1, "p_value": 1.0}
    assert out["unpaired"] == {"old": 1, "new": 0}  # case d was not re-recorded
    assert out["new"]["summary"]["unscoreable"] == 1

    result = invoke("diff", "old", "new")
    text = one_line(result.stdout)
    assert "Flips: 2 cases changed true pass fraction" in text
    assert "a 33% → 100%" in text
    assert "not paired: 1 case only in OLD, 0 only in NEW" in text
    assert "NEW: 1 trace line could not be scored" in one_line(result.stderr)


# By hand: 9 cases better, 1 worse: P(X <= 1), X ~ Bin(10, 1/2) = (1 + 10) / 1024; p = 22 / 1024.
P_9_1 = 0.021484375


def test_sign_test_p_value_over_cases(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_json(tmp_path / "tools" / "t.json", [lookup_tool()])
    ids = [f"k{i}" for i in range(10)]
    write_json(tmp_path / "cases" / "c.json", [{"id": k, "accept": [[lookup(k)]]} for k in ids])
    old = [
        {"run_id": f"o{k}", "case_id": k, "calls": [lookup("x" if k != "k9" else k)]} for k in ids
    ]
    new = [
        {"run_id": f"n{k}", "case_id": k, "calls": [lookup(k if k != "k9" else "x")]} for k in ids
    ]
    write_jsonl(tmp_path / "old.jsonl", old)
    write_jsonl(tmp_path / "new.jsonl", new)

    out = diff_json("old.jsonl", "new.jsonl")

    assert out["pairing"] == "case_id"
    assert out["test"] == {"name": "exact_sign", "improved": 9, "regressed": 1, "p_value": P_9_1}
    assert out["delta"] == {"reported_run_failure_rate": -0.8, "true_run_failure_rate": -0.8}


def test_pairing_can_be_forced(project):
    out = diff_json("traces", "traces", "--pairing", "case_id")
    assert out["pairing"] == "case_id"
    assert out["pairing_reason"] == "pairing by case_id was asked for"


# ------------------------------------------------------------------------------- p-values


@pytest.mark.parametrize(
    ("improved", "regressed", "expected"),
    [
        (12, 3, Fraction(1152, 32768)),  # see P_12_3
        (3, 12, Fraction(1152, 32768)),  # two-sided: symmetric
        (9, 1, Fraction(22, 1024)),  # see P_9_1
        (0, 5, Fraction(2, 32)),  # 2 · C(5,0) / 2^5
        (7, 0, Fraction(2, 128)),  # 2 · C(7,0) / 2^7
        # 2 · (1 + 25 + 300 + 2300 + 12650 + 53130) / 2^25 = 2 · 68406 / 33554432
        (20, 5, Fraction(136812, 33554432)),
        (2, 2, Fraction(1)),  # 2 · 11/16 > 1: capped
        (1, 0, Fraction(1)),  # 2 · 1/2
        (0, 0, Fraction(1)),  # nothing changed
    ],
)
def test_exact_binomial_p_values(improved, regressed, expected):
    assert mcnemar_exact(improved, regressed) == expected
    assert sign_test(improved, regressed) == expected
    assert binomial_two_sided(improved, regressed) == expected


def test_p_value_for_many_pairs_is_exact_and_small():
    # 0 of 2000 the other way: p = 2 / 2^2000, far below a float's smallest normal: 0.0 as float,
    # but exact as a fraction.
    assert mcnemar_exact(2000, 0) == Fraction(2, 2**2000)


@pytest.mark.parametrize(
    ("improved", "regressed"),
    [(12, 3), (400, 600), (499, 501), (2400, 2600), (9000, 11001), (9990, 10010), (1, 19999)],
)
def test_the_floating_point_tail_agrees_with_the_integer_sum(monkeypatch, improved, regressed):
    exact = binomial_two_sided(improved, regressed)
    monkeypatch.setattr(stats, "EXACT_WORK", 0)  # every test now takes the floating-point sum
    approx = binomial_two_sided(improved, regressed)
    assert abs(approx - exact) <= exact * Fraction(1, 10**11)


def test_a_test_over_hundreds_of_thousands_of_pairs():
    # Summed with integers (32 s, once, to write this literal down): 0.11375545575607501.
    p = mcnemar_exact(200_000, 199_000)
    assert abs(float(p) - 0.11375545575607501) <= 1e-11 * 0.11375545575607501
    # far below the smallest float, and still not zero: 2 · P(X <= 100000), X ~ Bin(400000, 1/2)
    tiny = mcnemar_exact(100_000, 300_000)
    assert 0 < tiny < Fraction(1, 2**75000) and float(tiny) == 0.0


# ------------------------------------------------------------------------------ git revisions


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A git repository with two commits: the month rule is added in the second."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.name", "Test")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "commit.gpgsign", "false")
    corpus(root, month_rule=False)
    git(root, "add", "tools", "cases", "traces")
    git(root, "commit", "-q", "-m", "corpus")
    write_json(root / "tools" / "billing.json", [search_tool(month_rule=True)])
    git(root, "commit", "-q", "-am", "add the month rule")
    monkeypatch.chdir(root)
    return root


def test_two_commits_are_scored_from_their_own_files(repo):
    # The working tree differs from both commits, uncommitted: the diff must neither read nor
    # touch it.
    dirty = json.dumps([search_tool(month_rule=False)]) + "\n"
    (repo / "tools" / "billing.json").write_text(dirty)
    (repo / "traces" / "runs.jsonl").write_text("")
    status = git(repo, "status", "--porcelain")

    out = diff_json("HEAD~1", "HEAD")

    assert out["pairing"] == "run_id"
    assert out["flips"] == RULE_CHANGE_FLIPS
    assert out["old"]["kind"] == "revision"
    assert out["old"]["commit"] == git(repo, "rev-parse", "HEAD~1")
    assert out["new"]["commit"] == git(repo, "rev-parse", "HEAD")
    assert out["old"]["source"].startswith(f"git revision HEAD~1 ({out['old']['commit'][:12]})")
    # sources read the way git names the file at that revision
    example = out["new"]["summary"]["examples"]["encoding"]
    assert example["source"] == "HEAD:traces/runs.jsonl:2"

    assert (repo / "tools" / "billing.json").read_text() == dirty
    assert git(repo, "status", "--porcelain") == status
    assert git(repo, "stash", "list") == ""
    assert git(repo, "worktree", "list").count("\n") == 0


def test_a_path_wins_over_a_revision_of_the_same_name(repo):
    git(repo, "branch", "traces")  # `traces` is now a branch and a directory
    out = diff_json("HEAD~1", "traces")
    assert out["new"]["kind"] == "traces"
    assert out["new"]["source"].endswith("(a path; the git revision of the same name was not used)")
    # the directory is scored with the working tree's tools, which have the rule
    assert out["flips"] == RULE_CHANGE_FLIPS


# ------------------------------------------------------------------------------- bad input


def test_unknown_revision_exits_2(repo):
    result = invoke("diff", "no-such-rev", "HEAD")
    assert result.exit_code == 2
    assert "'no-such-rev' is neither a file or directory nor a revision of the git repository" in (
        one_line(result.stderr)
    )
    assert result.stdout == ""


def test_revision_without_the_directories_exits_2(repo):
    result = invoke("diff", "HEAD~1", "HEAD", "--tools", "schemas")
    assert result.exit_code == 2
    assert "has no schemas: nothing to read there" in one_line(result.stderr)


def test_unusable_tools_at_a_revision_are_named_as_git_names_them(repo):
    broken = search_tool(month_rule=True)
    broken["function"]["parameters"]["properties"]["month"]["x-eval-norm"] = "no_such_rule"
    write_json(repo / "tools" / "billing.json", [broken])
    git(repo, "commit", "-q", "-am", "a rule that does not exist")

    result = invoke("diff", "HEAD~1", "HEAD")

    assert result.exit_code == 2
    message = one_line(result.stderr)
    assert "HEAD:tools/billing.json" in message
    assert "no_such_rule" in message
    assert "evalrun-diff-" not in message  # not the temporary extraction


def test_revision_outside_a_git_repository_exits_2(project, monkeypatch):
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(project.parent))
    result = invoke("diff", "HEAD~1", "traces")
    assert result.exit_code == 2
    assert "'HEAD~1' is not a file or directory, and" in one_line(result.stderr)
    assert "is not in a git repository" in one_line(result.stderr)


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ('{"name": "report", "items": [1, 2]}', "a JSON object with keys items, name"),
        ("[1, 2, 3]", "it is not a JSON object"),
        ("not json at all", "its first line is not JSON"),
        ('{"evalrun": "0.1.0", "runs": [{"run_id": "r1"}], "summary": {}}', 'no "case_id" string'),
    ],
)
def test_a_file_that_is_not_a_results_file_exits_2(project, content, why):
    (project / "other.json").write_text(content)
    result = invoke("diff", "other.json", "traces")
    assert result.exit_code == 2
    message = one_line(result.stderr)
    assert "not an evalrun results file" in message or "not an evalrun run result" in message
    assert why in message


def test_a_jsonl_results_file_cut_short_exits_2(project):
    full = score_to(project / "old.jsonl", fmt="jsonl").read_text().splitlines()
    (project / "cut.jsonl").write_text("\n".join(full[:-1]) + "\n")
    result = invoke("diff", "cut.jsonl", "traces")
    assert result.exit_code == 2
    assert "ends without its summary line" in one_line(result.stderr)


def test_unusable_tools_for_a_trace_side_exit_2(project):
    result = invoke("diff", "traces", "traces", "--tools", "missing")
    assert result.exit_code == 2
    assert "tools directory 'missing' does not exist" in one_line(result.stderr)
