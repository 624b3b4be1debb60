"""`evalrun score` end to end with CliRunner on the files in tests/data/cli."""

from __future__ import annotations

import gzip
import json
import shutil
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from evalrunner.cli import app
from evalrunner.summary import Summary
from evalrunner.summary.view import SummaryView
from evalrunner.write import wording
from tests.conftest import one_line

DATA = Path(__file__).parent / "data" / "cli"
BASE = ["--tools", str(DATA / "tools"), "--cases", str(DATA / "cases")]
SCHEMA = json.loads(resources.files("evalrunner").joinpath("results.schema.json").read_text())


def invoke(*args, input=None, env=None):
    runner = CliRunner()
    return runner.invoke(
        app, ["score", *args], input=input, env={"COLUMNS": "80", "NO_COLOR": "1", **(env or {})}
    )


def as_json(*args):
    result = invoke(*BASE, str(DATA / "traces"), "--format", "json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_json_document_numbers():
    doc = as_json()
    jsonschema.validate(doc, SCHEMA)
    s = doc["summary"]
    assert (s["runs"], s["unscoreable"], s["lines"], s["calls"]) == (7, 2, 9, 8)
    assert s["runs"] + s["unscoreable"] == s["lines"]
    assert s["verdicts"] == {"pass": 1, "fail": 2, "false_failure": 2, "false_pass": 2}
    assert s["reported"] == {
        "failed_runs": 4,
        "run_failure_rate": 0.5714,
        "failed_calls": 4,
        "call_failure_rate": 0.5,
    }
    assert s["true"] == {
        "failed_runs": 4,
        "run_failure_rate": 0.5714,
        "failed_calls": 3,
        "call_failure_rate": 0.375,
    }
    assert s["false_failures"] == {
        "alternate_path": 1,
        "errored_attempt": 0,
        "encoding": 1,
        "ordering": 0,
        "default": 0,
        "unjudged": 0,
    }
    assert s["false_passes"] == {
        "forbidden_call": 0,
        "redundant_call": 1,
        "rejected_call": 1,
        "effect_failed": 0,
    }
    assert s["effects"] == {"checked": 8, "failed": 2, "unverified": 2}
    assert s["coverage"] == {
        "tools": 4,
        "tools_with_norms": 2,
        "call_share_with_norms": 0.5,
        "absorbable_calls": 0,
    }
    verdicts = {r["run_id"]: (r["verdict"], r["shape"]) for r in doc["runs"]}
    assert verdicts == {
        "r1": ("pass", None),
        "r2": ("false_failure", "encoding"),
        "r3": ("fail", None),
        "r4": ("false_failure", "alternate_path"),
        "r5": ("false_pass", "redundant_call"),
        "r6": ("fail", None),
        "r8": ("false_pass", "rejected_call"),
    }
    r2 = next(r for r in doc["runs"] if r["run_id"] == "r2")
    assert r2["shapes"] == ["encoding", "ordering", "default"]
    assert r2["calls"][0]["params"]["month"] == {
        "kind": "equivalent",
        "shape": "encoding",
        "shapes": ["encoding"],
        "norm": "month",
        "actual": "2026-03-01",
        "expected": "2026-03",
        "actual_norm": "2026-03",
    }
    assert [e["source"].rsplit("/", 1)[1] for e in doc["errors"]] == ["a.jsonl:7", "a.jsonl:9"]
    assert doc["errors"][1]["error"] == "unknown case 'nope' (not in the cases directory)"


def test_jsonl_is_the_runs_then_the_summary():
    doc = as_json()
    result = invoke(*BASE, str(DATA / "traces"), "--format", "jsonl")
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[:-1] == doc["runs"]
    assert lines[-1] == {"errors": doc["errors"], "summary": doc["summary"], "warnings": []}


def test_output_is_deterministic_and_keys_sorted(tmp_path):
    out1, out2 = tmp_path / "1.json", tmp_path / "2.json"
    for out in (out1, out2):
        assert invoke(*BASE, str(DATA / "traces"), "-f", "json", "-o", str(out)).exit_code == 0
    assert out1.read_bytes() == out2.read_bytes()
    text = out1.read_text()
    assert (
        text.startswith('{"errors":[')
        and json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        + "\n"
        == text
    )


def test_the_table_at_80_columns_without_colour(monkeypatch):
    # from the data's folder, as a user types it: a table of sources holding the checkout's path
    # would wrap in a longer checkout and fail the test there
    monkeypatch.chdir(DATA)
    result = invoke("--tools", "tools", "--cases", "cases", "traces")
    assert result.exit_code == 0
    out = result.stdout
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "\x1b[" not in out
    assert "run failure rate                 57.1% (4)   57.1% (4)" in out
    assert "call failure rate                50.0% (4)   37.5% (3)" in out
    assert "False failures: 2 runs (50.0% of reported failures)" in out
    assert "  encoding              1   25.0%  same value, another encoding" in out
    assert 'e.g. refund-dana-march: search_invoices.month: "2026-03-01" → "2026-03"' in out
    assert "  redundant_call        1   33.3%  a correct call repeated (a loop)" in out
    assert "Effects: 8 assertions checked, 2 failed, 2 unverified (no world recorded)" in out
    assert "Coverage: 2 of 4 tools declare equivalence rules; they carry 50.0% of calls" in out
    assert "a.jsonl:7  line is not valid JSON" in out
    # stderr is not a terminal here: no progress bar, only the note on unscoreable lines
    assert result.stderr == (
        "2 of 9 trace records could not be scored (listed with file:line in the output)\n"
    )


def test_show_lists_the_runs_behind_a_number():
    result = invoke(*BASE, str(DATA / "traces"), "--show", "false-failures")
    out = result.stdout.split("Runs (false-failures)")[1]
    assert "r2  refund-dana-march" in out and "r4  refund-dana-march" in out
    assert "r3 " not in out
    assert 'month: "2026-03-01" ~ "2026-03" → "2026-03" by month (encoding)' in out
    assert "limit: 50 on the actual side only is the declared default (default)" in out
    result = invoke(*BASE, str(DATA / "traces"), "--show", "failures", "--limit", "1")
    assert "and 3 more runs" in result.stdout


def test_show_needs_the_table():
    result = invoke(*BASE, str(DATA / "traces"), "--show", "failures", "-f", "json")
    assert result.exit_code == 2
    assert "--show lists runs under the table" in result.stderr


def test_fail_above_exits_1():
    assert invoke(*BASE, str(DATA / "traces"), "--fail-above", "0.6").exit_code == 0
    result = invoke(*BASE, str(DATA / "traces"), "--fail-above", "0.5")
    assert result.exit_code == 1
    assert "true run failure rate 57.1% is above --fail-above 50.0%" in result.stderr


def test_strict_exits_2_on_an_unreadable_line(tmp_path):
    assert invoke(*BASE, str(DATA / "traces"), "--strict", "-f", "json").exit_code == 2
    clean = tmp_path / "clean.jsonl"
    clean.write_text(
        "".join(line + "\n" for line in (DATA / "traces" / "a.jsonl").read_text().splitlines()[:6])
    )
    assert invoke(*BASE, str(clean), "--strict").exit_code == 0


def test_stdin_and_gzip(tmp_path):
    raw = (DATA / "traces" / "a.jsonl").read_bytes()
    (tmp_path / "a.jsonl.gz").write_bytes(gzip.compress(raw))
    from_stdin = invoke(*BASE, "-", "-f", "json", input=raw)
    from_gz = invoke(*BASE, str(tmp_path / "a.jsonl.gz"), "-f", "json")
    a, b = json.loads(from_stdin.stdout), json.loads(from_gz.stdout)
    for doc in (a, b):
        del doc["summary"]["examples"]  # they name their source
    assert a["summary"] == b["summary"]
    assert a["summary"]["verdicts"] == as_json()["summary"]["verdicts"]
    assert a["runs"][0]["source"] == "<stdin>:1"


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda d: shutil.rmtree(d / "tools"), "tools directory"),
        (
            lambda d: (d / "tools" / "bad.json").write_text("{"),
            "bad.json: this tool file is not valid JSON",
        ),
        (
            lambda d: (d / "tools" / "x.json").write_text(
                json.dumps(
                    {"name": "x", "parameters": {"properties": {"a": {"x-eval-norm": "nope"}}}}
                )
            ),
            "x.json (x): parameter 'a': unknown normalizer 'nope'",
        ),
        (
            lambda d: (d / "cases" / "dup.json").write_text(
                json.dumps({"id": "legacy", "expected_tool": "t"})
            ),
            "case id 'legacy' is used twice",
        ),
        (
            lambda d: (d / "cases" / "m.json").write_text(
                json.dumps({"id": "m", "accept": [[{"tool": "t"}]], "match": "any"})
            ),
            "unknown match mode 'any'",
        ),
    ],
)
def test_unusable_input_exits_2_with_a_message(tmp_path, setup, message):
    d = tmp_path / "corpus"
    shutil.copytree(DATA, d)
    setup(d)
    result = invoke("--tools", str(d / "tools"), "--cases", str(d / "cases"), str(d / "traces"))
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stdout == ""


def test_missing_traces_path_exits_2(tmp_path):
    result = invoke(*BASE, str(tmp_path / "nowhere"))
    assert result.exit_code == 2 and "does not exist" in result.stderr


# ---------------------------------------------------------------------- a new user's first hour
# A new user's first hour (issue 13): CI that cannot go green on nothing, typos that cannot hide,
# messages that say what to fix. CliRunner on real files; each test failed before its fix.


RUN = (DATA / "traces" / "a.jsonl").read_text().splitlines()[0]


def score(*args: str):
    return CliRunner().invoke(app, ["score", *BASE, *args], env={"COLUMNS": "200", "NO_COLOR": "1"})


def test_an_empty_folder_is_exit_2_even_with_a_threshold(tmp_path):
    result = score(str(tmp_path), "--fail-above", "0.1")
    assert result.exit_code == 2
    assert "no run was scored: no trace file was found" in one_line(result.stderr)


def test_a_folder_of_json_files_names_each_and_exits_2(tmp_path):
    (tmp_path / "runs.json").write_text(json.dumps([json.loads(RUN)]))
    (tmp_path / "notes.txt").write_text("hello")
    result = score(str(tmp_path), "--format", "json")
    assert result.exit_code == 2
    err = one_line(result.stderr)
    assert (
        f"warning: {tmp_path / 'runs.json'}: a .json file, not read: traces are JSON Lines" in err
    )
    assert f"warning: {tmp_path / 'notes.txt'}: not a trace file" in err
    doc = json.loads(result.stdout)  # the document is still written, and says the same
    assert doc["warnings"] == [
        f"{tmp_path / 'notes.txt'}: not a trace file (.jsonl or .jsonl.gz), not read",
        f"{tmp_path / 'runs.json'}: a .json file, not read: traces are JSON Lines (.jsonl, one "
        "record a line); rename it to .jsonl, or name the file itself to read it",
    ]


def test_a_json_file_named_explicitly_is_read(tmp_path):
    """Named on the command line, a pretty-printed array of runs is read record by record."""
    records = [json.loads(RUN), {**json.loads(RUN), "run_id": "r9"}]
    (tmp_path / "runs.json").write_text(json.dumps(records, indent=2))
    result = score(str(tmp_path / "runs.json"), "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [(r["run_id"], r["source"]) for r in doc["runs"]] == [
        ("r1", f"{tmp_path / 'runs.json'}:2"),
        ("r9", f"{tmp_path / 'runs.json'}:27"),  # the line its object opens on
    ]


def test_a_file_whose_every_line_is_unscoreable_is_exit_2(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"case_id": "nope", "calls": []}\nnot json\n')
    result = score(str(tmp_path))
    assert result.exit_code == 2
    assert (
        f"no run was scored: read 1 trace file(s), 2 record(s), none of them a run that can be "
        f"scored, e.g. {tmp_path / 'a.jsonl'}:1: unknown case 'nope'" in one_line(result.stderr)
    )


def test_strict_on_an_empty_file_is_exit_2(tmp_path):
    (tmp_path / "a.jsonl").write_text("\n\n")
    result = score(str(tmp_path), "--strict")
    assert result.exit_code == 2
    assert "read 1 trace file(s), 0 record(s); the files are empty" in one_line(result.stderr)


def test_strict_names_itself(tmp_path):
    (tmp_path / "a.jsonl").write_text(RUN + "\nnot json\n")
    result = score(str(tmp_path), "--strict")
    assert result.exit_code == 2
    assert "error: --strict: 1 trace record could not be scored" in one_line(result.stderr)


def test_a_case_step_naming_an_unknown_tool_is_a_warning(tmp_path):
    shutil.copytree(DATA, tmp_path / "d")
    cases = tmp_path / "d" / "cases" / "more.jsonl"
    step = {"tool": "serach_invoices", "args": {}}
    cases.write_text(json.dumps({"id": "typo", "accept": [[step]]}) + "\n")
    result = CliRunner().invoke(
        app,
        [
            *("score", str(tmp_path / "d" / "traces"), "--format", "json"),
            *("--tools", str(tmp_path / "d" / "tools"), "--cases", str(tmp_path / "d" / "cases")),
        ],
    )
    assert result.exit_code == 0, result.output
    expected = (
        "case 'typo': accept[0][0] calls 'serach_invoices', which no tool schema defines; "
        "did you mean 'search_invoices'?"
    )
    assert f"warning: {expected}" in one_line(result.stderr)
    assert json.loads(result.stdout)["warnings"] == [expected]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("39", "--fail-above takes a fraction from 0 to 1, not 39: for 39%, write 0.39"),
        ("-0.5", "--fail-above takes a fraction from 0 to 1, not -0.5"),
    ],
)
def test_fail_above_takes_a_fraction(value, message):
    result = score(str(DATA / "traces"), "--fail-above", value)
    assert result.exit_code == 2
    assert f"error: {message}" in one_line(result.stderr)


def test_fail_above_shows_the_digits_that_differ(tmp_path):
    # 4 true failures of 7 runs: 57.142857...% against 57.14%
    result = score(str(DATA / "traces"), "--fail-above", "0.5714")
    assert result.exit_code == 1
    assert "true run failure rate 57.143% is above --fail-above 57.140%" in one_line(result.stderr)


def test_limit_without_show_is_refused():
    result = score(str(DATA / "traces"), "--limit", "3")
    assert result.exit_code == 2
    assert "--limit counts the runs --show lists: add --show" in one_line(result.stderr)


def test_a_missing_path_is_named_as_a_file_or_directory(tmp_path):
    result = score(str(tmp_path / "nothere.jsonl"))
    assert result.exit_code == 2
    assert "trace file or directory" in result.stderr and "traces directory" not in result.stderr


def test_a_flag_given_a_value_says_flags_take_none():
    result = score(str(DATA / "traces"), "--strict", "true")
    assert result.exit_code == 2
    assert "flags such as --strict take no value" in one_line(result.stderr)


def test_boolean_flags_show_as_flags_and_there_is_a_version():
    help_text = CliRunner().invoke(app, ["score", "--help"], env={"COLUMNS": "100"}).stdout
    assert "--strict " in help_text and "<bool>" not in help_text
    version = CliRunner().invoke(app, ["--version"])
    assert version.exit_code == 0 and version.stdout.startswith("evalrun 0.")


def test_an_empty_tools_folder_is_unusable_input(tmp_path):
    """Scoring without a single tool would drop every rule, default and repeatable tool and
    report a failure rate that means nothing: exit 2, saying what to set."""
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "README.md").write_text("the schemas live elsewhere")
    data = Path(__file__).parent / "data" / "cli"
    result = CliRunner().invoke(
        app,
        [
            "score",
            str(data / "traces"),
            "--tools",
            str(tmp_path / "tools"),
            "--cases",
            str(data / "cases"),
        ],
    )
    assert result.exit_code == 2
    assert "no tool is defined in" in result.stderr and "set --tools" in result.stderr


FIRST = Path(__file__).parent / "data" / "scenarios" / "first_contact"


def _first_contact(*extra: str) -> str:
    result = CliRunner().invoke(
        app,
        [
            "score",
            str(FIRST / "traces"),
            "--tools",
            str(FIRST / "tools"),
            "--cases",
            str(FIRST / "cases"),
            *extra,
        ],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    return result.stdout


def test_few_rules_make_the_headline_a_lower_bound_that_names_suggest(tmp_path):
    """Rules cover 1 of 8 calls: the false-failure count is what the declared rules find, and
    the next line names `evalrun suggest` with the failing calls a built-in rule would absorb
    (d2 casefold, l1 instant, l2 unordered_list; not l4, whose value breaks its schema's
    format, nor d3 and l3, which name another deployment and service)."""
    lower = (
        "Of 7 runs exact-match failed, the declared rules find 1 correct (false failures): a "
        "lower bound, since the tools that declare rules carry only 12.5% of calls"
    )
    then = (
        "Run `evalrun suggest`: 3 failing calls differ from their step only where a built-in "
        "rule would absorb the difference."
    )
    table = _first_contact()
    assert lower in table and then in table
    markdown = _first_contact("--format", "markdown")
    assert lower in markdown and "**Run \\`evalrun suggest\\`: 3 failing calls" in markdown
    page = tmp_path / "r.html"
    _first_contact("--format", "html", "--output", str(page))
    text = page.read_text()
    assert lower in text and "Run `evalrun suggest`: 3 failing calls" in text
    doc = json.loads(_first_contact("--format", "json"))
    assert doc["summary"]["coverage"]["absorbable_calls"] == 3


def test_with_rules_on_most_calls_the_headline_states_a_fact():
    counts = Summary().to_json()
    counts["runs"] = 10
    counts["reported"]["failed_runs"] = 4
    counts["verdicts"].update(false_failure=2, false_pass=0, fail=2)
    counts["coverage"].update(call_share_with_norms=0.5, absorbable_calls=9)
    summary = SummaryView.from_json(counts)
    assert wording.headline(summary) == (
        "Of 4 runs exact-match failed, 2 were correct (false failures); of 6 it passed, 0 were "
        "wrong (false passes). 2 runs failed both checks."
    )
    assert wording.suggest_line(summary) is None
