"""`evalrun suggest` end to end with CliRunner, on tests/data/suggest and tests/data/cli."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app

SUGGEST = Path(__file__).parent / "data" / "suggest"
CLI = Path(__file__).parent / "data" / "cli"
ENV = {"COLUMNS": "80", "NO_COLOR": "1"}


def invoke(*args: str, input: bytes | None = None):
    return CliRunner().invoke(app, list(args), input=input, env=ENV)


def in_scenario(monkeypatch, name: str, *args: str):
    monkeypatch.chdir(SUGGEST / name)
    return invoke("suggest", *args)


def test_the_table(monkeypatch):
    result = in_scenario(monkeypatch, "rule_set", "traces")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "evalrun suggest · 5 runs · traces",
        "",
        "True run failure rate: 80.0% (4 runs) now; 40.0% (2) with 1 suggestion without",
        "risk below applied.",
        "Applied all at once, the 1 suggestion below would pass the calls of 2 runs that",
        "fail now (the sum of their gains: 2).",
        "",
        "Suggestions, by gains (the runs each would pass)",
        "",
        '     2  rule      search_invoices.status  "x-eval-norm": "unordered_list"',
        '        status: ["disputed","open"] vs ["open","disputed"] in 2 runs →',
        "        unordered_list",
        "        others: set absorbs as many, but is wider",
        "        set would also equate 1 call that unordered_list reads apart",
        '        (["open","disputed","open"] vs ["open","disputed"],',
        "        traces/runs.jsonl:3): not proposed for them.",
        "        checked by: nothing: no world recorded and no replies to compare",
        "        (unverified)",
        "",
    ]


def test_a_risky_suggestion_is_marked_and_explained(monkeypatch):
    out = in_scenario(monkeypatch, "month_trap_risky", "traces").stdout
    lines = out.splitlines()
    assert "     3  rule      export_statement.month  RISKY" in lines
    assert '        "x-eval-norm": {"name":"month","tz":"Europe/Berlin"}' in lines
    assert "risky: 2 of the 3 runs it would pass fail an effect assertion" in out
    assert "The better fix: one encoding per parameter" in lines
    assert "      YYYY-MM-DDThh:mm:ss±hh:mm 3 (75%) · YYYY-MM 1 (25%)" in lines


def test_an_alternate_is_printed_as_a_line_to_paste(monkeypatch):
    out = in_scenario(monkeypatch, "alternate", "traces").stdout
    paste = next(line.strip() for line in out.splitlines() if line.strip().startswith("[{"))
    assert json.loads(paste) == [
        {"tool": "get_customer", "args": {"customer_id": "C-1000"}},
        {
            "tool": "issue_refund",
            "args": {"amount": 4200, "invoice_id": "INV-1", "reason": "duplicate"},
        },
    ]


def test_what_checked_an_alternate_counts_the_worlds_that_were_checked(monkeypatch):
    # r1 and r2 recorded a world that holds; r3 made the same calls and recorded none
    lines = in_scenario(monkeypatch, "alternate", "traces").stdout.splitlines()
    assert "        checked by: effects (2 runs with a checked world)" in lines
    assert "        1 of the 3 runs it would pass recorded no world to check (unverified)." in lines


def test_json_keys_are_specs(monkeypatch):
    doc = json.loads(in_scenario(monkeypatch, "joint", "traces", "-f", "json").stdout)
    assert list(doc) == ["evalrun", "suggestions", "summary", "errors"]
    rule, default = doc["suggestions"]
    # SPEC's keys in SPEC's order, then the additive ones (docs/suggest.md)
    assert list(rule) == [
        "kind", "tool", "param", "rule", "others", "evidence", "gains", "risk", "wider_merges"
    ]  # fmt: skip
    assert list(default) == ["kind", "tool", "param", "default", "evidence", "gains", "risk"]
    assert list(rule["evidence"]) == ["calls", "runs", "examples", "replies_agree", "checked_by"]
    assert rule["evidence"]["examples"][0] == {
        "run_id": "r1",
        "source": "traces/runs.jsonl:1",
        "actual": ["disputed", "open"],
        "expected": ["open", "disputed"],
    }
    # a one-sided difference: the side that leaves the parameter out has no key
    assert default["evidence"]["examples"][0] == {
        "run_id": "r3",
        "source": "traces/runs.jsonl:3",
        "actual": 20,
    }
    assert list(rule["risk"]) == [
        "effects_failed", "unverified", "narrower_differs", "description", "replies_differ",
        "risky",
    ]  # fmt: skip
    assert list(default["risk"]) == ["effects_failed", "unverified", "replies_differ", "risky"]
    assert doc["summary"] == {
        "runs": 7,
        "true_failed_runs": 7,
        "gains_if_all_applied": 7,
        "risky": 0,
        "true_failed_runs_if_safe_applied": 0,
        "lines": 7,
        "unscoreable": 0,
    }
    alt = json.loads(in_scenario(monkeypatch, "alternate", "traces", "-f", "json").stdout)
    assert list(alt["suggestions"][0]) == [
        "kind", "case_id", "sequence", "evidence", "gains", "risk"
    ]  # fmt: skip
    tighten = json.loads(in_scenario(monkeypatch, "tighten", "traces", "-f", "json").stdout)
    assert tighten["suggestions"] == [
        {
            "kind": "tighten",
            "tool": "issue_refund",
            "param": "amount",
            "encodings": [
                {"encoding": "integer", "calls": 3},
                {"encoding": "float", "calls": 2},
                {"encoding": "decimal string", "calls": 1},
            ],
        }
    ]


def test_kind_and_tool(monkeypatch):
    def kinds(*args: str) -> list[str]:
        doc = json.loads(in_scenario(monkeypatch, "joint", "traces", "-f", "json", *args).stdout)
        return [s["kind"] for s in doc["suggestions"]]

    assert kinds() == ["rule", "default"]
    assert kinds("--kind", "default") == ["default"]
    assert kinds("--kind", "default", "--kind", "rule") == ["rule", "default"]
    assert kinds("--tool", "get_customer") == []
    result = in_scenario(monkeypatch, "joint", "traces", "--tool", "nope")
    assert result.exit_code == 2 and "--tool 'nope': no tool of that name" in result.stderr
    result = in_scenario(monkeypatch, "joint", "traces", "--kind", "rules")
    assert result.exit_code == 2


def test_unscoreable_lines_are_counted_and_listed_as_score_does():
    base = ["--tools", str(CLI / "tools"), "--cases", str(CLI / "cases"), str(CLI / "traces")]
    result = invoke("suggest", *base, "-f", "json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    s = doc["summary"]
    assert (s["runs"], s["unscoreable"], s["lines"]) == (7, 2, 9)
    assert [e["source"].rsplit("/", 1)[1] for e in doc["errors"]] == ["a.jsonl:7", "a.jsonl:9"]
    score = json.loads(invoke("score", *base, "-f", "json").stdout)
    assert doc["errors"] == score["errors"]
    assert "2 of 9 trace records could not be scored" in result.stderr
    table = invoke("suggest", *base).stdout
    assert "Unscoreable lines (2, counted, not scored):" in table
    assert invoke("suggest", *base, "--strict", "-f", "json").exit_code == 2


def test_standard_input(monkeypatch):
    monkeypatch.chdir(SUGGEST / "joint")
    raw = (SUGGEST / "joint" / "traces" / "runs.jsonl").read_bytes()
    doc = json.loads(invoke("suggest", "-", "-f", "json", input=raw).stdout)
    assert doc["summary"]["gains_if_all_applied"] == 7
    assert doc["suggestions"][0]["evidence"]["examples"][0]["source"] == "<stdin>:1"


@pytest.mark.parametrize(
    "setup",
    [
        lambda d: shutil.rmtree(d / "tools"),
        lambda d: (d / "tools" / "bad.json").write_text("{"),
        lambda d: (d / "tools" / "x.json").write_text(
            json.dumps({"name": "x", "parameters": {"properties": {"a": {"x-eval-norm": "no"}}}})
        ),
        lambda d: (d / "cases" / "dup.json").write_text(
            json.dumps({"id": "legacy", "expected_tool": "t"})
        ),
        lambda d: shutil.rmtree(d / "traces"),
    ],
)
def test_unusable_input_is_what_score_says(tmp_path, setup):
    d = tmp_path / "corpus"
    shutil.copytree(CLI, d)
    setup(d)
    args = ["--tools", str(d / "tools"), "--cases", str(d / "cases"), str(d / "traces")]
    suggested, scored = invoke("suggest", *args), invoke("score", *args)
    assert suggested.exit_code == scored.exit_code == 2
    assert suggested.stderr == scored.stderr and suggested.stdout == ""


def test_include_risky_needs_write(monkeypatch):
    result = in_scenario(monkeypatch, "rule_set", "traces", "--include-risky")
    assert result.exit_code == 2 and "add --write" in result.stderr


def test_names_are_printed_as_written_not_as_markup(tmp_path):
    tool = {
        "name": "pay[/]",
        "parameters": {
            "type": "object",
            "properties": {"ids[b]": {"type": "array", "items": {"type": "string"}}},
        },
    }
    (tmp_path / "tools").mkdir()
    (tmp_path / "cases").mkdir()
    (tmp_path / "tools" / "t.json").write_text(json.dumps(tool))
    step = {"tool": "pay[/]", "args": {"ids[b]": ["[bold]a", "b[/]"]}}
    (tmp_path / "cases" / "c.json").write_text(json.dumps({"id": "[red]c", "accept": [[step]]}))
    run = {
        "run_id": "r1",
        "case_id": "[red]c",
        "calls": [{**step, "args": {"ids[b]": ["b[/]", "[bold]a"]}}],
    }
    (tmp_path / "t.jsonl").write_text(json.dumps(run) + "\n")
    base = ["--tools", str(tmp_path / "tools"), "--cases", str(tmp_path / "cases")]
    result = invoke("suggest", *base, str(tmp_path / "t.jsonl"))
    assert result.exit_code == 0, result.output
    assert '     1  rule      pay[/].ids[b]  "x-eval-norm": "unordered_list"' in result.stdout
    assert '["b[/]","[bold]a"] vs ["[bold]a","b[/]"] in 1 run' in result.stdout


def test_write_annotates_the_tool_files_and_prints_what_changed(tmp_path, monkeypatch):
    d = tmp_path / "c"
    shutil.copytree(SUGGEST / "joint", d)
    before = (d / "tools" / "billing.json").read_text()
    monkeypatch.chdir(d)
    result = invoke("suggest", "traces", "--write")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        'wrote tools/billing.json: search_invoices.status  "x-eval-norm": "unordered_list"',
        'wrote tools/billing.json: search_invoices.limit  "default": 20',
    ]
    # the file was written as json.dumps(indent=2) writes: it still is, with two keys more
    data = json.loads(before)
    properties = data[0]["function"]["parameters"]["properties"]
    properties["status"]["x-eval-norm"] = "unordered_list"
    properties["limit"]["default"] = 20
    assert (d / "tools" / "billing.json").read_text() == json.dumps(data, indent=2) + "\n"
    again = json.loads(invoke("suggest", "traces", "-f", "json").stdout)
    assert [s["kind"] for s in again["suggestions"]] == []
    assert again["summary"]["true_failed_runs"] == 0


def test_write_leaves_risky_ones_unless_asked(tmp_path, monkeypatch):
    d = tmp_path / "c"
    shutil.copytree(SUGGEST / "month_trap_risky", d)
    monkeypatch.chdir(d)
    before = (d / "tools" / "billing.json").read_text()
    result = invoke("suggest", "traces", "--write", "-f", "json")
    assert result.exit_code == 0
    assert "not written: export_statement.month: risky (--include-risky writes it)" in result.stderr
    assert "nothing written" in result.stderr
    assert (d / "tools" / "billing.json").read_text() == before
    result = invoke("suggest", "traces", "--write", "--include-risky", "-f", "json")
    assert "wrote tools/billing.json: export_statement.month" in result.stderr
    assert json.loads((d / "tools" / "billing.json").read_text())[3]["function"]["parameters"][
        "properties"
    ]["month"]["x-eval-norm"] == {"name": "month", "tz": "Europe/Berlin"}


def test_alternates_are_never_written(tmp_path, monkeypatch):
    d = tmp_path / "c"
    shutil.copytree(SUGGEST / "alternate", d)
    monkeypatch.chdir(d)
    cases = (d / "cases" / "cases.json").read_text()
    result = invoke("suggest", "traces", "--write")
    assert "alternates are never written: paste the 1 above into its case" in result.stderr
    assert (d / "cases" / "cases.json").read_text() == cases


def _without_replies(traces: Path) -> None:
    """The Anthropic runs with their tool_result messages left out: calls with no reply."""
    for path in traces.glob("*.jsonl"):
        lines = []
        for line in path.read_text().splitlines():
            record = json.loads(line)
            record["messages"] = [
                m
                for m in record["messages"]
                if not (
                    isinstance(m["content"], list)
                    and any(b.get("type") == "tool_result" for b in m["content"])
                )
            ]
            lines.append(json.dumps(record))
        path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("replies", [True, False], ids=["replies", "no-replies"])
def test_write_turns_no_real_failure_into_a_pass_and_moves_the_rate_towards_the_truth(
    tmp_path, monkeypatch, replies
):
    # Issue 25's "done when": no world recorded; with the tools' replies and without them, what
    # the schema, the descriptions and the narrower rules say is enough to stay honest.
    d = tmp_path / "c"
    shutil.copytree(SUGGEST / "devops_truth", d)
    if not replies:
        _without_replies(d / "traces")
    truth = json.loads((d / "truth.json").read_text())
    monkeypatch.chdir(d)

    def true_pass() -> dict[str, bool]:
        doc = json.loads(invoke("score", "traces", "-f", "json").stdout)
        assert doc["summary"]["runs"] == len(truth)
        return {r["run_id"]: r["true"]["pass"] for r in doc["runs"]}

    before = true_pass()
    result = invoke("suggest", "traces", "--write")
    assert result.exit_code == 0, result.output
    assert "not written: silence_alert.alert_id: risky" in result.stderr
    assert "not written: get_metrics.start: risky" in result.stderr
    after = true_pass()
    wrong = {run for run, said in truth.items() if said == "wrong"}
    assert sorted(run for run in wrong if after[run]) == []
    # every run correct by the truth that passes now is one a written rule explains
    assert {run for run, ok in after.items() if ok} <= set(truth) - wrong
    off_before = abs(sum(not ok for ok in before.values()) - len(wrong))
    off_after = abs(sum(not ok for ok in after.values()) - len(wrong))
    assert off_after < off_before
    # what stays off: the three runs whose start is a day alone, which only date would read,
    # and date would also equate six hours apart
    assert sorted(run for run, ok in after.items() if not ok and run not in wrong) == [
        f"metrics-{i}-day" for i in range(3)
    ]


def test_help_says_every_risk_and_what_checked_it():
    result = CliRunner().invoke(app, ["suggest", "--help"], env={"COLUMNS": "200", **ENV})
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "Rules are tried narrowest first." in text
    for risk in (
        "fails an effect assertion",
        "equate values a narrower rule reads apart",
        "go against its parameter's description (case-sensitive, timestamp)",
        "equate calls the tool answered differently",
        "what checked it (effects, replies, or nothing)",
    ):
        assert risk in text, risk
