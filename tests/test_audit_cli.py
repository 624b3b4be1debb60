"""`evalrun audit sample` and `evalrun audit score` end to end, with CliRunner on tests/data/cli.

That corpus holds 9 trace lines: 7 runs and 2 lines that cannot be scored. evalrun's verdicts
(tests/test_cli_score.py): r1 pass, r2 false_failure, r3 fail, r4 false_failure, r5 false_pass,
r6 fail, r8 false_pass. So the reported failures are r2, r3, r4, r6 and the reported passes r1,
r5, r8; the true failures r3, r5, r6, r8.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app

DATA = Path(__file__).parent / "data" / "cli"
TRUE_PASS = {"r1": True, "r2": True, "r3": False, "r4": True, "r5": False, "r6": False, "r8": False}
REPORTED_FAIL = {"r2", "r3", "r4", "r6"}
ENV = {"COLUMNS": "100", "NO_COLOR": "1"}


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    """A working directory holding a copy of the corpus (tools/, cases/, traces/)."""
    for name in ("tools", "cases", "traces"):
        shutil.copytree(DATA / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args, input=None):
    return CliRunner().invoke(app, ["audit", *args], input=input, env=ENV)


def sample(*args, output="sheet.jsonl"):
    result = run("sample", *args, "--output", output)
    assert result.exit_code == 0, result.output
    return result


def read(path="sheet.jsonl"):
    lines = [json.loads(line) for line in Path(path).read_text().splitlines()]
    return lines[0], lines[1:]


def write(header, runs, path="sheet.jsonl"):
    Path(path).write_text("".join(json.dumps(x) + "\n" for x in [header, *runs]))


def label(labels, path="sheet.jsonl"):
    """Set each run's label (and note) as a reviewer would, by run id."""
    header, runs = read(path)
    for r in runs:
        value = labels.get(r["run_id"])
        r["label"], r["note"] = value if isinstance(value, tuple) else (value, "")
    write(header, runs, path)


def score_json(*args, sheet="sheet.jsonl"):
    result = run("score", sheet, *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), result


# ------------------------------------------------------------------------------------ sample


def test_sample_writes_the_population_then_one_blind_run_a_line(corpus):
    result = sample("--failures", "2", "--passes", "2", "--seed", "1")
    header, runs = read()
    assert header["evalrun_audit_sheet"] == 1
    assert header["population"] == {
        "runs": 7,
        "reported_failures": 4,
        "reported_passes": 3,
        "unscoreable": 2,
    }
    assert header["sample"] == {"reported_failures": 2, "reported_passes": 2}
    # the lines that could not be scored are listed, not only counted
    assert [e["source"] for e in header["errors"]] == ["traces/a.jsonl:7", "traces/a.jsonl:9"]
    assert header["errors"][1]["error"] == "unknown case 'nope' (not in the cases directory)"
    assert header["seed"] == 1 and header["blind"] is True
    assert set(header["inputs"]) == {"tools", "cases", "traces"}
    assert header["inputs"]["traces"]["files"].keys() == {"a.jsonl"}
    assert len(header["digest"]) == 64
    assert [r["stratum"] for r in runs].count("reported_fail") == 2
    for r in runs:
        assert (r["stratum"] == "reported_fail") == (r["run_id"] in REPORTED_FAIL)
        assert list(r) == [
            "run_id",
            "case_id",
            "source",
            "stratum",
            "input",
            "calls",
            "match",
            "accept",
            "effects",
            "world",
            "meta",
            "tools",
            "label",
            "note",
        ]
        assert r["label"] is None and r["note"] == ""
        assert r["source"].startswith("traces/a.jsonl:")
    # blind: no verdict, and none of evalrun's own rules in the schemas
    assert "x-eval" not in Path("sheet.jsonl").read_text()
    err = result.stderr.splitlines()
    assert err[:2] == [
        "Drew 2 of 4 reported failures and 2 of 3 passes (seed 1) into sheet.jsonl; label each run, "
        "then: evalrun audit score sheet.jsonl",
        "2 of 9 trace lines could not be scored:",
    ]
    assert err[2].startswith("  traces/a.jsonl:7  line is not valid JSON: ")
    assert err[3:] == ["  traces/a.jsonl:9  unknown case 'nope' (not in the cases directory)"]


def test_each_run_carries_what_a_reviewer_needs(corpus):
    sample("--failures", "4", "--passes", "3", "--seed", "1")
    _, runs = read()
    by_id = {r["run_id"]: r for r in runs}
    r4, r8 = by_id["r4"], by_id["r8"]
    # calls as recorded: arguments as the agent sent them, results and errors kept
    assert r4["calls"] == [{"tool": "get_customer", "arguments": '{"customer_id":"C-4471"}'}]
    assert r8["calls"][0]["result"] == {"error": "timeout"}
    # the case: its request, how calls are matched, every accepted sequence, its effects
    assert r4["match"] == "contains"
    assert [[s["tool"] for s in seq] for seq in r4["accept"]] == [
        ["search_invoices"],
        ["get_customer"],
    ]
    assert r4["effects"][0] == {
        "at": "/refunds",
        "contains": {"invoice": "INV-9912", "cents": 4200},
    }
    assert r4["world"] is None and r8["world"] == {
        "refunds": [{"invoice": "INV-9912", "cents": 4200}]
    }
    # the tools involved, called or expected, with their descriptions and schemas
    assert list(r4["tools"]) == ["get_customer", "search_invoices"]
    assert r4["tools"]["search_invoices"]["parameters"]["properties"]["limit"]["default"] == 50


def test_the_same_inputs_and_seed_write_the_same_sheet(corpus):
    sample("--failures", "2", "--passes", "2", "--seed", "5", output="a.jsonl")
    sample("--failures", "2", "--passes", "2", "--seed", "5", output="b.jsonl")
    sample("--failures", "2", "--passes", "2", "--seed", "6", output="c.jsonl")
    assert Path("a.jsonl").read_bytes() == Path("b.jsonl").read_bytes()
    assert Path("a.jsonl").read_bytes() != Path("c.jsonl").read_bytes()


def test_a_stratum_smaller_than_asked_is_taken_whole(corpus):
    sample("--failures", "10", "--passes", "0", "--seed", "1")
    header, runs = read()
    assert header["sample"] == {"reported_failures": 4, "reported_passes": 0}
    assert sorted(r["run_id"] for r in runs) == ["r2", "r3", "r4", "r6"]


def test_show_verdict_adds_evalruns_verdict_and_rules(corpus):
    sample("--failures", "4", "--passes", "3", "--seed", "1", "--show-verdict")
    header, runs = read()
    assert header["blind"] is False
    r2 = next(r for r in runs if r["run_id"] == "r2")
    assert r2["evalrun"]["verdict"] == "false_failure"
    assert (r2["evalrun"]["reported"], r2["evalrun"]["true"]) == ("fail", "pass")
    assert "month" in r2["evalrun"]["explanation"]
    assert r2["tools"]["search_invoices"]["parameters"]["properties"]["month"]["x-eval-norm"]


def test_sample_needs_its_options(corpus):
    result = run("sample", "--failures", "1", "--passes", "1", "--output", "s.jsonl")
    assert result.exit_code == 2 and "--seed" in result.output


def test_traces_from_standard_input(corpus):
    traces = (corpus / "traces" / "a.jsonl").read_bytes()
    result = run(
        "sample",
        "-",
        "--failures",
        "4",
        "--passes",
        "3",
        "--seed",
        "1",
        "--output",
        "s.jsonl",
        input=traces,
    )
    assert result.exit_code == 0, result.output
    header, runs = read("s.jsonl")
    assert header["inputs"]["traces"]["files"].keys() == {"<stdin>"}
    assert {r["source"].split(":")[0] for r in runs} == {"<stdin>"}
    label({r: "correct" for r in TRUE_PASS}, "s.jsonl")
    result = run("score", "s.jsonl", "-", "--format", "json", input=traces)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["warnings"] == [] and doc["agreement"]["runs"] == 7


# ------------------------------------------------------------------------------------- score


CENSUS_LABELS = {
    # a reviewer who reads r2 as wrong (evalrun passes it) and r3 as correct (evalrun fails it)
    "r1": "correct",
    "r2": ("wrong", "the month is [bold]not[/bold] March"),
    "r3": ("correct", "March 1st, 00:40 in Berlin is March"),
    "r4": "correct",
    "r5": "wrong",
    "r6": "wrong",
    "r8": "wrong",
}


def test_score_compares_the_labels_with_evalrun_numbers_by_hand(corpus):
    # Every run drawn: each stratum read in full, so the rate is known exactly.
    sample("--failures", "4", "--passes", "3", "--seed", "1")
    label(CENSUS_LABELS)
    doc, _ = score_json()
    assert doc["population"] == {"runs": 7, "reported_failures": 4, "reported_passes": 3}
    assert doc["sample"] == {
        "reported_failures": 4,
        "reported_passes": 3,
        "labelled": 7,
        "unlabelled": 0,
        "counts": {
            "reported_fail": {"correct": 2, "wrong": 2, "unlabelled": 0},
            "reported_pass": {"correct": 1, "wrong": 2, "unlabelled": 0},
        },
    }
    # 4/7 * 2/4 + 3/7 * 2/3 = 4/7 = 0.5714, exactly (a census); Wilson(2, 4) = [0.1500, 0.8500]:
    # centre (0.5 + 3.8415/8) / (1 + 3.8415/4) = 0.5, half 1.96 sqrt(0.0625 + 0.0600) / 1.9604
    # Wilson(2, 3): centre (0.6667 + 0.6403) / 2.2805 = 0.5731, half 0.5034 / ... = [0.2077, 0.9385]
    assert doc["hand"] == {
        "true_run_failure_rate": 0.5714,
        "ci95": [0.5714, 0.5714],
        "correct_among_reported_failures": 0.5,
        "correct_among_reported_failures_ci95": [0.15, 0.85],
        "wrong_among_reported_passes": 0.6667,
        "wrong_among_reported_passes_ci95": [0.2077, 0.9385],
    }
    # evalrun: 4 of 7 reported failures, 4 of 7 true failures; 2 of 4 reported failures are
    # false failures, 2 of 3 reported passes false passes
    assert doc["measured"] == {
        "runs": 7,
        "reported_run_failure_rate": 0.5714,
        "true_run_failure_rate": 0.5714,
        "correct_among_reported_failures": 0.5,
        "wrong_among_reported_passes": 0.6667,
    }
    # read correct: r1 (pass), r3 (fail), r4 (pass); read wrong: r2 (pass), r5, r6, r8 (fail)
    # p_o = 5/7; p_e = (3*3 + 4*4)/49 = 25/49; kappa = (35 - 25)/(49 - 25) = 10/24 = 0.4167
    assert doc["agreement"] == {
        "runs": 7,
        "agree": 5,
        "rate": 0.7143,
        "kappa": 0.4167,
        "matrix": {"correct": {"pass": 2, "fail": 1}, "wrong": {"pass": 1, "fail": 3}},
        "left_out_changed": 0,
    }
    leads = {d["run_id"]: d for d in doc["disagreements"]}
    assert leads.keys() == {"r2", "r3"}
    r2, r3 = leads["r2"], leads["r3"]
    assert (r2["label"], r2["evalrun"], r2["lead"]) == (
        "wrong",
        "pass",
        "a rule to doubt or a missing effect assertion",
    )
    assert {"tool": "search_invoices", "param": "month", "norm": "month"} in r2["rules"]
    assert r2["hints"][0] == "search_invoices.month matched through the rule month: doubt it first"
    assert r2["note"] == "the month is [bold]not[/bold] March"
    assert (r3["label"], r3["evalrun"], r3["lead"]) == (
        "correct",
        "fail",
        "missing rule, default or alternate",
    )
    assert r3["source"] == "traces/a.jsonl:3" and r3["verdict"] == "fail"
    assert "month" in r3["detail"]  # what differed, as `score` explains it
    assert [e["source"] for e in doc["errors"]] == ["traces/a.jsonl:7", "traces/a.jsonl:9"]
    assert doc["errors"][0]["error"].startswith("line is not valid JSON: ")
    assert doc["errors"][1]["error"] == "unknown case 'nope' (not in the cases directory)"
    assert doc["warnings"] == [] and doc["changed"] == {"inputs": {}, "runs": []}


def test_score_prints_hand_beside_measured(corpus):
    sample("--failures", "4", "--passes", "3", "--seed", "1")
    label(CENSUS_LABELS)
    result = run("score", "sheet.jsonl")
    assert result.exit_code == 0, result.output
    out = [line.rstrip() for line in result.stdout.splitlines()]
    assert out[:11] == [
        "evalrun audit · sheet.jsonl · 7 runs labelled · seed 1",
        "Population: 7 runs, 4 reported failures and 3 reported passes",
        "",
        "                               hand (7 read)   95% interval   evalrun (7)",
        "─────────────────────────────────────────────────────────────────────────",
        "true run failure rate                  57.1%     57.1–57.1%         57.1%",
        "reported (exact-match)                                              57.1%",
        "correct among reported fails     50.0% (2/4)     15.0–85.0%         50.0%",
        "wrong among reported passes      66.7% (2/3)     20.8–93.9%         66.7%",
        "",
        "Agreement: 5 of 7 labelled runs (71.4%), Cohen's kappa 0.42",
    ]
    text = "\n".join(out)
    assert "Disagreements (2), each a lead:" in text
    assert "  read correct, evalrun fails (fail) → missing rule, default or alternate" in text
    # user strings are text, not markup: the note keeps its brackets
    assert "  note: the month is [bold]not[/bold] March" in text
    assert "Unscoreable lines (2, counted, not scored):" in text


def test_the_estimate_from_a_sample(corpus):
    # 2 of 4 reported failures and 2 of 3 reported passes drawn with seed 3, all read correct:
    # no wrong run in the sample; the rate's estimate is 0 and its interval is above 0.
    sample("--failures", "2", "--passes", "2", "--seed", "3")
    label({r: "correct" for r in TRUE_PASS})
    doc, _ = score_json()
    hand = doc["hand"]
    assert hand["true_run_failure_rate"] == 0.0
    assert hand["ci95"][0] == 0.0 and 0.0 < hand["ci95"][1] < 1.0
    assert hand["correct_among_reported_failures"] == 1.0
    # Wilson(2 of 2): [z^2... ] = [2 / (2 + 3.8415), 1] = [0.3424, 1]
    assert hand["correct_among_reported_failures_ci95"] == [0.3424, 1.0]


def test_unlabelled_lines_are_counted_and_left_out(corpus):
    sample("--failures", "4", "--passes", "3", "--seed", "1")
    label({"r1": "correct", "r3": "wrong"})
    doc, _ = score_json()
    assert doc["sample"]["labelled"] == 2 and doc["sample"]["unlabelled"] == 5
    assert doc["agreement"]["runs"] == 2 and doc["agreement"]["agree"] == 2
    # r3 is the only labelled reported failure: 1 wrong of 1; r1 the only labelled pass.
    assert doc["hand"]["true_run_failure_rate"] == pytest.approx(4 / 7 * 1 + 3 / 7 * 0, abs=1e-4)


def test_lines_removed_from_the_sheet_are_noticed(corpus):
    sample("--failures", "4", "--passes", "3", "--seed", "1")
    header, runs = read()
    write(header, [r for r in runs if r["run_id"] not in ("r1", "r2")])
    doc, result = score_json()
    assert doc["sample"]["reported_failures"] == 3 and doc["sample"]["reported_passes"] == 2
    assert doc["warnings"] == [
        "the sheet holds 3 of the 4 reported failures drawn: lines were removed; the estimate "
        "uses the labelled runs left",
        "the sheet holds 2 of the 3 reported passes drawn: lines were removed; the estimate uses "
        "the labelled runs left",
    ]
    assert "warning: the sheet holds 3 of the 4 reported failures drawn" in result.stderr


def test_a_stratum_not_labelled_gives_no_estimate_and_the_interval_for_any_rate(corpus):
    sample("--failures", "4", "--passes", "3", "--seed", "1")
    label({"r2": "correct", "r3": "wrong", "r4": "correct", "r6": "wrong"})
    doc, _ = score_json()
    hand = doc["hand"]
    # failures read in full (2 of 4 wrong: 4/7 * 1/2 = 2/7 of the rate); passes unread (0 to 3/7)
    assert hand["true_run_failure_rate"] is None
    assert hand["ci95"] == [round(2 / 7, 4), round(2 / 7 + 3 / 7, 4)]
    assert hand["wrong_among_reported_passes"] is None
    assert hand["wrong_among_reported_passes_ci95"] == [0.0, 1.0]
    table = run("score", "sheet.jsonl").stdout
    assert "The hand estimate needs labelled runs from both strata" in table


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("Correct", 'label "Correct" is not "correct" or "wrong" (or null, not yet read)'),
        (1, 'label 1 is not "correct" or "wrong" (or null, not yet read)'),
    ],
)
def test_a_label_other_than_correct_or_wrong_is_an_error_naming_the_line(corpus, value, message):
    sample("--failures", "4", "--passes", "3", "--seed", "1")
    header, runs = read()
    runs[1]["label"] = value
    write(header, runs)
    result = run("score", "sheet.jsonl")
    assert result.exit_code == 2
    assert result.stderr == f"error: sheet.jsonl:3: {message}\n"


def test_a_run_no_longer_in_the_traces_is_an_error_naming_the_line(corpus):
    sample("--failures", "4", "--passes", "3", "--seed", "1")
    header, runs = read()
    runs[0]["run_id"] = "r-gone"
    runs[3]["label"] = "wrong"
    runs[3]["run_id"] = "r-also-gone"
    write(header, runs)
    result = run("score", "sheet.jsonl")
    assert result.exit_code == 2
    case0, case3 = runs[0]["case_id"], runs[3]["case_id"]
    assert result.stderr == (
        f"error: sheet.jsonl:2: run 'r-gone' (case '{case0}') is not in the traces; score the "
        "traces it was sampled from, or remove the line\n"
        f"sheet.jsonl:5: run 'r-also-gone' (case '{case3}') is not in the traces; score the "
        "traces it was sampled from, or remove the line\n"
    )


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda lines: lines[1:], "sheet.jsonl:1: this is not the first line of an evalrun audit"),
        (lambda lines: [*lines, "{oops"], "sheet.jsonl:9: not valid JSON"),
        (lambda lines: [*lines, lines[2]], "sheet.jsonl:9: run 'r"),
        (lambda lines: [], "sheet.jsonl: the sheet is empty"),
        (
            lambda lines: [lines[0], lines[1].replace('"stratum":"reported_', '"stratum":"x')],
            "sheet.jsonl:2: stratum 'x",
        ),
    ],
)
def test_an_unusable_sheet_is_exit_2_naming_the_line(corpus, edit, message):
    sample("--failures", "4", "--passes", "3", "--seed", "1")
    lines = Path("sheet.jsonl").read_text().splitlines()
    Path("sheet.jsonl").write_text("".join(line + "\n" for line in edit(lines)))
    result = run("score", "sheet.jsonl")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: " + message), result.stderr


def test_a_sheet_whose_traces_changed_is_scored_with_a_warning_naming_what_changed(corpus):
    sample("--failures", "4", "--passes", "3", "--seed", "1")
    label(CENSUS_LABELS)
    traces = corpus / "traces" / "a.jsonl"
    lines = traces.read_text().splitlines()
    lines[0] = lines[0].replace('"2026-03"', '"2026-04"')  # r1 is not what the reviewer read
    lines.append('{"run_id":"r9","case_id":"legacy","calls":[]}')
    traces.write_text("\n".join(lines) + "\n")
    doc, result = score_json()
    r1_line = next(i for i, r in enumerate(read()[1], start=2) if r["run_id"] == "r1")
    assert doc["changed"] == {
        "inputs": {"traces": {"modified": ["a.jsonl"], "added": [], "removed": [], "renamed": []}},
        "runs": [{"line": r1_line, "run_id": "r1", "changed": ["calls"]}],
    }
    assert doc["warnings"] == [
        "the traces changed since the sheet was sampled (a.jsonl modified); the runs are scored "
        "as they are now",
        f"run r1 (sheet line {r1_line}) is not the run that was read: its calls changed; read it "
        "again (left out of the agreement and kappa until then)",
    ]
    # r1's label judged another recording: not counted for or against evalrun
    assert doc["agreement"]["left_out_changed"] == 1
    assert doc["agreement"]["runs"] == doc["sample"]["labelled"] - 1
    matrix = doc["agreement"]["matrix"]
    assert sum(sum(row.values()) for row in matrix.values()) == doc["agreement"]["runs"]
    table = run("score", "sheet.jsonl")
    assert "1 labelled run left out: changed since sampling" in " ".join(table.stdout.split())
    assert result.stderr.startswith(
        "warning: the traces changed since the sheet was sampled (a.jsonl modified)"
    )
    assert doc["measured"]["runs"] == 8  # the traces as they are now
    assert doc["population"]["runs"] == 7  # the population the sample was drawn from


def test_changed_tools_are_named_too(corpus):
    sample("--failures", "4", "--passes", "3", "--seed", "1")
    label(CENSUS_LABELS)
    tools = corpus / "tools" / "billing.json"
    tools.write_text(tools.read_text().replace('"month"', '"date"', 1))
    doc, _ = score_json()
    assert list(doc["changed"]["inputs"]) == ["tools"]
    assert doc["warnings"] == [
        "the tools changed since the sheet was sampled (billing.json modified); evalrun's "
        "verdicts are those of the tools as they are now"
    ]


def test_score_reads_the_traces_as_they_were_sampled(tmp_path, monkeypatch):
    # An Anthropic transcript sampled with --case-key: scored without the flags, read the same.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tools").mkdir()
    (tmp_path / "cases").mkdir()
    (tmp_path / "tools" / "t.json").write_text(
        json.dumps({"name": "get_customer", "input_schema": {"type": "object"}})
    )
    (tmp_path / "cases" / "c.json").write_text(
        json.dumps({"id": "lookup", "accept": [[{"tool": "get_customer", "args": {"id": 1}}]]})
    )
    record = {
        "task": {"name": "lookup"},
        "messages": [
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "get_customer", "input": {"id": 1}}
                ],
            }
        ],
    }
    (tmp_path / "t.jsonl").write_text(json.dumps(record) + "\n")
    args = ["--failures", "1", "--passes", "1", "--seed", "1", "--case-key", "task.name"]
    result = run("sample", "t.jsonl", *args, "--trace-format", "anthropic", "--output", "s.jsonl")
    assert result.exit_code == 0, result.output
    header, runs = read("s.jsonl")
    assert header["reading"] == {
        "trace_format": "anthropic",
        "case_key": "task.name",
        "run_key": None,
    }
    assert runs[0]["calls"] == [{"tool": "get_customer", "args": {"id": 1}}]
    label({runs[0]["run_id"]: "correct"}, "s.jsonl")
    doc, _ = score_json("t.jsonl", sheet="s.jsonl")
    assert doc["agreement"]["agree"] == 1


@pytest.mark.parametrize("command", ["sample", "score"])
def test_every_audit_command_has_help(command):
    result = CliRunner().invoke(app, ["audit", command, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0
    assert f"Usage: evalrun audit {command}" in result.output
    assert len(result.output.splitlines()) > 8


SPEC_EXAMPLE = {  # SPEC "`evalrun audit`", its JSON example ("…" values left out)
    "evalrun": "0.2.0",
    "population": {"runs": 4000, "reported_failures": 883, "reported_passes": 3117},
    "sample": {"reported_failures": 100, "reported_passes": 120, "labelled": 220, "unlabelled": 0},
    "hand": {
        "true_run_failure_rate": 0.124,
        "ci95": [0.101, 0.149],
        "correct_among_reported_failures": 0.47,
        "correct_among_reported_failures_ci95": [0.375, 0.567],
        "wrong_among_reported_passes": 0.092,
        "wrong_among_reported_passes_ci95": [0.052, 0.157],
    },
    "measured": {"reported_run_failure_rate": 0.221, "true_run_failure_rate": 0.118},
    "agreement": {
        "runs": 220,
        "agree": 214,
        "rate": 0.973,
        "kappa": 0.94,
        "matrix": {"correct": {"pass": 160, "fail": 4}, "wrong": {"pass": 2, "fail": 54}},
    },
    "disagreements": [
        {
            "run_id": "r-9",
            "source": "traces/a.jsonl:9",
            "label": "correct",
            "evalrun": "fail",
            "lead": "missing rule, default or alternate",
            "detail": "…",
        }
    ],
    "errors": [],
}


def same_shape(spec, ours, where="$"):
    """Every key of SPEC's example is in ours, at the same place, with a value of the same kind."""
    if isinstance(spec, dict):
        assert isinstance(ours, dict), where
        for key, value in spec.items():
            assert key in ours, f"{where}.{key} is missing"
            same_shape(value, ours[key], f"{where}.{key}")
    elif isinstance(spec, list):
        assert isinstance(ours, list), where
        for value in ours:
            if spec:
                same_shape(spec[0], value, f"{where}[]")
    elif isinstance(spec, (int, float)) and not isinstance(spec, bool):
        assert isinstance(ours, (int, float)) and not isinstance(ours, bool), where
    else:
        assert type(ours) is type(spec), where


def test_the_json_has_specs_keys_in_specs_places(corpus):
    sample("--failures", "4", "--passes", "3", "--seed", "1")
    label(CENSUS_LABELS)
    doc, _ = score_json()
    same_shape(SPEC_EXAMPLE, doc)
    assert {d["lead"] for d in doc["disagreements"]} == {
        "missing rule, default or alternate",
        "a rule to doubt or a missing effect assertion",
    }


def test_the_page_says_what_to_score_the_downloaded_sheet_with(corpus):
    result = run(
        "sample",
        "--failures",
        "2",
        "--passes",
        "2",
        "--seed",
        "1",
        "--format",
        "html",
        "--output",
        "audit.html",
    )
    assert result.exit_code == 0, result.output
    said = " ".join(result.stderr.split())
    # the page writes no audit.jsonl beside itself: the browser downloads it
    assert "press Save (the browser downloads audit.jsonl), then: evalrun audit score " in said
    assert "~/Downloads/audit.jsonl (the path your browser saved it to)" in said
    assert not Path("audit.jsonl").exists()


@pytest.mark.parametrize(
    ("result", "shown"),
    [
        ('{"ok": true}', '{"ok":true}'),  # JSON text: shown as JSON, never as an escaped string
        ("not found", "not found"),
        ("{not json", "{not json"),
        ({"ok": True}, '{"ok":true}'),
        ([1, 2], "[1,2]"),
    ],
)
def test_the_page_shows_a_tool_reply_once_escaped(result, shown):
    from evalrunner.write.audit_page import _call

    assert _call({"tool": "t", "args": {}, "result": result})["result"] == shown


def test_sample_and_score_read_the_reported_check_as_told(tmp_path, monkeypatch):
    """The strata are the reported verdicts: `audit` read them per call whatever --reported or
    the `reported` setting said, so a sheet drawn for a `reported = "list"` project mixed two
    readings of exact-match. The reading is now the sheet's, and scoring keeps to it."""
    root = Path(__file__).parent.parent
    for name in ("tools", "cases", "traces"):
        shutil.copytree(root / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    sample("--failures", "3", "--passes", "3", "--seed", "1", output="per-call.jsonl")
    sample(
        "--failures", "3", "--passes", "3", "--seed", "1", "--reported", "list", output="list.jsonl"
    )
    per_call, _ = read("per-call.jsonl")
    listed, _ = read("list.jsonl")
    assert "reported" not in per_call["reading"]  # a per-call sheet is written as before
    assert listed["reading"]["reported"] == "list"
    # the example corpus's exact repeats fail the whole-list check (1,910 runs against 941)
    fails = per_call["population"]["reported_failures"], listed["population"]["reported_failures"]
    assert fails[1] > fails[0]
    assert run("score", "list.jsonl", "--format", "json").exit_code == 0
    refused = run("score", "list.jsonl", "--reported", "per-call")
    assert refused.exit_code == 2
    assert "sampled with --reported list" in " ".join(refused.output.split())
    (tmp_path / "evalrun.toml").write_text('reported = "list"\n')  # the setting is read too
    sample("--failures", "3", "--passes", "3", "--seed", "1", output="set.jsonl")
    assert read("set.jsonl")[0]["reading"]["reported"] == "list"
