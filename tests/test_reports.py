"""Groups, repeated trials and the report writers (markdown, junit, html) rendered from live
results and from a saved results file alike."""

from __future__ import annotations

import json
import re
from math import comb
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from evalrunner.cli import app
from evalrunner.model import InputError
from evalrunner.summary import Summary
from evalrunner.summary.groups import NO_GROUP, group_of, parse_key
from evalrunner.summary.trials import CaseTrials, all_pass, pass_hat_k, trials_json
from evalrunner.write import html as html_writer
from evalrunner.write.markdown import md
from tests.conftest import EXPENSIVE
from tests.test_cli_score import SCHEMA
from tests.test_summary import CONFIG, POOL, snapshot, summarize

DATA = Path(__file__).parent / "data" / "cli"
BASE = ["--tools", str(DATA / "tools"), "--cases", str(DATA / "cases")]


def invoke(*args: str, command: str = "score"):
    return CliRunner().invoke(app, [command, *args], env={"COLUMNS": "100", "NO_COLOR": "1"})


def score(*args: str):
    result = invoke(*BASE, str(DATA / "traces"), *args)
    assert result.exit_code == 0, result.output
    return result.stdout


# ------------------------------------------------------------------------------------- groups


def test_group_of_reads_a_dotted_path_and_names_a_missing_value():
    record = {"meta": {"model": "m-1", "n": 3, "flag": True, "tags": ["a", "b"], "none": None}}
    assert group_of(record, parse_key("meta.model")) == "m-1"
    assert group_of(record, parse_key("meta.n")) == "3"
    assert group_of(record, parse_key("meta.flag")) == "true"
    assert group_of(record, parse_key("meta.tags.1")) == "b"
    assert group_of(record, parse_key("meta.tags")) == '["a","b"]'
    for absent in ("meta.none", "meta.other", "meta.model.x", "other", "meta.tags.9"):
        assert group_of(record, parse_key(absent)) == NO_GROUP
    for bad in ("", "meta..model", ".meta"):
        with pytest.raises(InputError, match="dotted path"):
            parse_key(bad)


def test_group_by_summarizes_each_group_and_names_runs_without_the_field(tmp_path):
    lines = (DATA / "traces" / "a.jsonl").read_text().splitlines()
    traces = tmp_path / "t.jsonl"
    # the first three runs say their model, the rest do not
    out = []
    for i, line in enumerate(lines):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            out.append(line)
            continue
        if isinstance(record, dict) and i < 3:
            record["meta"] = {"model": "a" if i < 2 else "b"}
        out.append(json.dumps(record))
    traces.write_text("\n".join(out) + "\n")
    result = invoke(*BASE, str(traces), "-f", "json", "--group-by", "meta.model")
    doc = json.loads(result.stdout)
    jsonschema.validate(doc, SCHEMA)  # groups, trials and each run's group are in the schema
    s = doc["summary"]
    assert s["group_by"] == "meta.model"
    assert sorted(s["groups"]) == [NO_GROUP, "a", "b"]
    assert [s["groups"][g]["runs"] for g in ("a", "b")] == [2, 1]
    assert sum(g["runs"] for g in s["groups"].values()) == s["runs"]
    for key in ("verdicts", "false_failures", "false_passes"):
        for name, count in s[key].items():
            assert sum(g[key][name] for g in s["groups"].values()) == count, (key, name)
    assert {r["run_id"]: r["group"] for r in doc["runs"][:2]} == {"r1": "a", "r2": "a"}
    assert all(g["unscoreable"] == 0 for g in s["groups"].values())  # lines have no group


def test_without_group_by_there_are_no_groups():
    doc = json.loads(score("-f", "json"))
    assert "groups" not in doc["summary"] and "group" not in doc["runs"][0]


def test_a_bad_group_by_is_unusable_input():
    result = invoke(*BASE, str(DATA / "traces"), "--group-by", "meta..model")
    assert result.exit_code == 2
    assert "--group-by 'meta..model': give a dotted path like meta.model" in result.output


def _grouped_pool():
    """The summary tests' pool, each run given one of three groups."""
    return [
        (order, item._replace(group="abc"[n % 3]) if hasattr(item, "verdict") else item)
        for n, (order, item) in enumerate(POOL)
    ]


GROUPED = _grouped_pool()


def _summarize_grouped(items) -> Summary:
    s = Summary.for_tools(CONFIG.tools, group_by="k")
    for order, item in items:
        s.add(item, order)
    return s.finish()


@EXPENSIVE
@given(parts=st.lists(st.integers(0, 3), min_size=len(GROUPED), max_size=len(GROUPED)))
def test_groups_and_trials_merge_exactly_whatever_the_split(parts):
    whole = _summarize_grouped(GROUPED)
    merged = Summary()
    for p in range(4):
        merged.merge(_summarize_grouped([x for x, q in zip(GROUPED, parts) if q == p]))
    merged.finish()
    assert merged.to_json() == whole.to_json()
    assert set(whole.to_json()["groups"]) == {"a", "b", "c"}


def test_a_groups_summary_is_the_summary_of_its_runs():
    whole = _summarize_grouped(GROUPED).to_json()
    for name in "abc":
        only = [
            (o, r) for (o, r), (_, g) in zip(POOL, GROUPED) if getattr(g, "group", None) == name
        ]
        alone = snapshot(summarize(only))[0]
        alone.pop("unscoreable"), alone.pop("lines")
        group = dict(whole["groups"][name])
        group.pop("unscoreable"), group.pop("lines")
        assert group == alone


# ------------------------------------------------------------------------------------- trials


def test_all_pass_is_drawing_without_replacement():
    assert all_pass(3, 4, 1) == 3 / 4
    assert all_pass(3, 4, 2) == pytest.approx(3 / 6)  # C(3,2)/C(4,2)
    assert all_pass(3, 4, 3) == pytest.approx(1 / 4)
    assert all_pass(3, 4, 4) == 0.0
    assert all_pass(5, 5, 5) == 1.0
    assert all_pass(0, 2, 1) == 0.0
    for c, n_, k in ((7, 10, 3), (10, 20, 5), (1, 9, 1)):
        assert all_pass(c, n_, k) == pytest.approx(comb(c, k) / comb(n_, k))
    with pytest.raises(ValueError):
        all_pass(1, 2, 3)


def test_pass_hat_k_by_hand():
    # case x: 2 of 3 pass; case y: 3 of 3; case z: 1 of 4 (reported: 1, 2 and 0 passes)
    cases = {
        "x": CaseTrials(runs=3, reported_passes=1, true_passes=2),
        "y": CaseTrials(runs=3, reported_passes=2, true_passes=3),
        "z": CaseTrials(runs=4, reported_passes=0, true_passes=1),
    }
    # k = 1: (2/3 + 1 + 1/4) / 3;  k = 2: (1/3 + 1 + 0) / 3;  k = 3: (0 + 1 + 0) / 3
    assert pass_hat_k(cases, "true") == pytest.approx([23 / 36, 4 / 9, 1 / 3])
    # k = 1: (1/3 + 2/3 + 0) / 3;  k = 2: (0 + 1/3 + 0) / 3;  k = 3: 0
    assert pass_hat_k(cases, "reported") == pytest.approx([1 / 3, 1 / 9, 0])
    j = trials_json(cases)
    assert (j["min_trials"], j["max_trials"]) == (3, 4)
    assert j["pass_hat_k"] == [
        {"k": 1, "reported": 0.3333, "true": 0.6389},
        {"k": 2, "reported": 0.1111, "true": 0.4444},
        {"k": 3, "reported": 0.0, "true": 0.3333},
    ]
    assert j["cases"]["z"] == {"runs": 4, "reported_passes": 0, "true_passes": 1}


def test_trials_in_the_summary_and_the_table():
    doc = json.loads(score("-f", "json"))
    t = doc["summary"]["trials"]
    runs = doc["runs"]
    by_case: dict[str, list] = {}
    for r in runs:
        by_case.setdefault(r["case_id"], []).append(r)
    for case_id, rs in by_case.items():
        assert t["cases"][case_id] == {
            "runs": len(rs),
            "reported_passes": sum(r["reported"]["pass"] for r in rs),
            "true_passes": sum(r["true"]["pass"] for r in rs),
        }
    assert t["min_trials"] == min(len(rs) for rs in by_case.values())
    assert len(t["pass_hat_k"]) == t["min_trials"]
    table = score()
    assert "Repeated trials" in table and "pass^1" in table


# ----------------------------------------------------------------------------------- markdown


def test_markdown_escapes_what_could_break_a_table_or_open_html():
    assert md("a|b") == r"a\|b"
    assert md("`x`") == r"\`x\`"
    assert md("<script>") == r"\<script\>"
    assert md("[x](javascript:y)") == r"\[x\](javascript:y)"
    assert md("two\nlines") == "two lines"
    assert md("snake_case") == r"snake\_case"


def test_markdown_is_the_table_in_gfm():
    text = score("-f", "markdown", "--group-by", "meta.model")
    lines = text.splitlines()
    assert lines[0].startswith("### evalrun · 7 runs · 8 calls")
    assert "| run failure rate | 57.1% (4) | **57.1% (4)** |" in lines
    assert "**By meta.model**" in lines
    # every table row has as many cells as its header
    rows = [line for line in lines if line.startswith("|")]
    assert rows and all(len(re.findall(r"(?<!\\)\|", r)) >= 3 for r in rows)
    assert "**Unscoreable lines** (2, counted, not scored):" in lines


# ------------------------------------------------------------------------------ saved results


@pytest.mark.parametrize("fmt", ["markdown", "junit"])
@pytest.mark.parametrize("saved_as", ["json", "jsonl"])
def test_report_renders_a_saved_results_file_as_score_renders_it(tmp_path, fmt, saved_as):
    saved = tmp_path / f"results.{saved_as}"
    saved.write_text(score("-f", saved_as, "--group-by", "meta.model"))
    live = score("-f", fmt, "--group-by", "meta.model")
    result = invoke(str(saved), "-f", fmt, command="report")
    assert result.exit_code == 0, result.output
    if fmt == "markdown":  # the header names the inputs: traces or the results file
        live = live.split("\n", 1)[1]
        assert result.stdout.split("\n", 1)[1] == live
    else:
        assert result.stdout == live


def test_report_renders_the_same_page(tmp_path):
    saved = tmp_path / "results.json"
    saved.write_text(score("-f", "json"))
    live = score("-f", "html")
    result = invoke(str(saved), "-f", "html", command="report")
    assert result.exit_code == 0
    cut = lambda page: page[page.index("</nav>") :]  # noqa: E731 (the header names the inputs)
    assert cut(result.stdout) == cut(live)


def test_report_refuses_what_is_not_a_results_file(tmp_path):
    traces = DATA / "traces" / "a.jsonl"
    result = invoke(str(traces), "-f", "html", command="report")
    assert result.exit_code == 2
    assert "not an evalrun results file" in result.output and "a.jsonl" in result.output
    missing = invoke(str(tmp_path / "nope.json"), "-f", "html", command="report")
    assert missing.exit_code == 2 and "cannot read" in missing.output


# --------------------------------------------------------------------------------------- html


def test_html_page_embeds_every_run_that_is_not_a_pass():
    page = score("-f", "html")
    data = re.search(
        r'<script type="application/json" id="evalrun-runs">(.*?)</script>', page, re.S
    )
    runs = json.loads(data.group(1))
    doc = json.loads(score("-f", "json"))
    assert [r["run_id"] for r in runs] == [
        r["run_id"] for r in doc["runs"] if r["verdict"] != "pass"
    ]
    assert "All 6 runs that are not a plain pass are here" in page
    assert "http://" not in page.replace("http-equiv", "") and "https://" not in page


def test_html_escapes_trace_content(tmp_path):
    evil = "</script><script>alert(1)</script><img src=x onerror=alert(2)>"
    record = json.loads((DATA / "traces" / "a.jsonl").read_text().splitlines()[1])
    record["run_id"] = evil
    record["calls"][0]["args"]["month"] = evil
    record["meta"] = {"model": evil}
    traces = tmp_path / "t.jsonl"
    traces.write_text(json.dumps(record) + "\n")
    page = invoke(*BASE, str(traces), "-f", "html", "--group-by", "meta.model").stdout
    assert "<script>alert" not in page and "<img src=x" not in page
    assert page.count("</script>") == page.count("<script")  # nothing closed early
    data = re.search(r'id="evalrun-runs">(.*?)</script>', page, re.S).group(1)
    assert json.loads(data)[0]["run_id"] == evil  # the same text, escaped as JSON


def test_html_samples_by_stratum_when_the_runs_are_many(monkeypatch):
    monkeypatch.setattr(html_writer, "MAX_RUNS", 3)
    page = score("-f", "html")
    data = re.search(r'id="evalrun-runs">(.*?)</script>', page, re.S).group(1)
    runs = json.loads(data)
    assert len(runs) == 3
    assert "A sample." in page and "this page holds 3 of them" in page
    # one of each stratum (4 of them: fail, 2 false-failure shapes, 2 false-pass shapes...),
    # never two of a stratum while another has none
    strata = [f"{r['verdict']}/{r['shapes'][0]}" if r["shapes"] else r["verdict"] for r in runs]
    assert len(set(strata)) == 3
    assert page == score("-f", "html")  # the same sample every time


def test_shares_fill_small_strata_first():
    assert html_writer._shares({"a": 1, "b": 100, "c": 100}, 11) == {"a": 1, "b": 5, "c": 5}
    assert html_writer._shares({"a": 2, "b": 3}, 10) == {"a": 2, "b": 3}
    assert sum(html_writer._shares({"a": 50, "b": 7, "c": 90}, 60).values()) == 60


@EXPENSIVE
@given(
    st.lists(
        st.integers(1, 30).flatmap(
            lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(0, n))
        ),
        min_size=1,
        max_size=6,
    )
)
def test_pass_hat_k_is_the_mean_of_each_cases_chance(counts):
    cases = {f"c{i}": CaseTrials(n, r, t) for i, (n, r, t) in enumerate(counts)}
    fewest = min(n for n, _, _ in counts)
    for check, at in (("reported", 1), ("true", 2)):
        got = pass_hat_k(cases, check)
        assert len(got) == fewest
        for k in range(1, fewest + 1):
            want = sum(comb(c[at], k) / comb(c[0], k) for c in counts) / len(counts)
            assert got[k - 1] == pytest.approx(want, abs=1e-12)


def test_the_table_prints_group_values_as_text_not_markup(tmp_path):
    record = json.loads((DATA / "traces" / "a.jsonl").read_text().splitlines()[0])
    record["meta"] = {"model": "[bold red]m[/bold red] [link=x]y"}
    traces = tmp_path / "t.jsonl"
    traces.write_text(json.dumps(record) + "\n")
    result = invoke(*BASE, str(traces), "--group-by", "meta.model")
    assert result.exit_code == 0, result.output
    assert "[bold red]m[/bold red] [link=x]y" in result.stdout.replace("\n", "")


def test_falsely_failed_calls_are_counted_once_per_call_in_every_format(tmp_path):
    """A call that shows two shapes (a casefold difference and a restated default) is one falsely
    failed call: the JSON, the table, the Markdown and the HTML say 1, never the shapes' sum."""
    tool = {
        "name": "t",
        "parameters": {
            "type": "object",
            "properties": {
                "a": {"type": "string", "x-eval-norm": "casefold"},
                "b": {"type": "integer", "default": 5},
            },
        },
    }
    (tmp_path / "tools.json").write_text(json.dumps(tool))
    (tmp_path / "cases.json").write_text(
        json.dumps({"id": "c", "accept": [[{"tool": "t", "args": {"a": "X"}}]]})
    )
    (tmp_path / "t.jsonl").write_text(
        json.dumps({"case_id": "c", "calls": [{"tool": "t", "args": {"a": "x", "b": 5}}]}) + "\n"
    )
    base = [
        str(tmp_path / "t.jsonl"),
        "--tools",
        str(tmp_path / "tools.json"),
        "--cases",
        str(tmp_path / "cases.json"),
    ]

    def out(fmt: str) -> str:
        result = CliRunner().invoke(app, ["score", *base, "--format", fmt], env={"COLUMNS": "120"})
        assert result.exit_code == 0, result.output
        return result.stdout

    [entry] = json.loads(out("json"))["summary"]["by_tool"]
    assert entry["falsely_failed_calls"] == 1 and sum(entry["false_failures"].values()) == 2
    assert "| t | 1 | 1 | 0 | 1 | `encoding` |" in out("markdown")
    assert re.search(r"<td[^>]*>1</td><td[^>]*>encoding</td>", out("html"))
    assert re.search(r"^t\s+1\s+1\s+1\s+0\s+encoding", out("table"), re.M)


def test_files_not_read_are_said_in_every_report_live_and_saved(tmp_path):
    """HTML and Markdown name a file the traces folder holds but score leaves out, live and
    when a saved results file is rendered (`evalrun report`)."""
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "a.jsonl").write_bytes((DATA / "traces" / "a.jsonl").read_bytes())
    (traces / "more.json").write_text("[]")
    base = ["--tools", str(DATA / "tools"), "--cases", str(DATA / "cases")]

    def run(*args: str) -> str:
        result = CliRunner().invoke(app, [*args], env={"COLUMNS": "120"})
        assert result.exit_code == 0, result.output
        return result.stdout

    saved = tmp_path / "results.json"
    run("score", *base, str(traces), "--format", "json", "-o", str(saved))
    for fmt in ("html", "markdown"):
        for text in (
            run("score", *base, str(traces), "--format", fmt),
            run("report", str(saved), "--format", fmt),
        ):
            assert "Warnings" in text and "more.json: a .json file" in text


def test_a_group_by_key_no_run_has_is_a_warning():
    base = [
        "score",
        str(DATA / "traces"),
        "--tools",
        str(DATA / "tools"),
        "--cases",
        str(DATA / "cases"),
    ]
    result = CliRunner().invoke(app, [*base, "--group-by", "model", "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert list(doc["summary"]["groups"]) == ["(none)"]
    [warning] = [w for w in doc["warnings"] if w.startswith("--group-by model")]
    assert "every run is in (none)" in warning and "warning: --group-by model" in result.stderr
    found = CliRunner().invoke(app, [*base, "--group-by", "case_id", "--format", "json"])
    assert not [w for w in json.loads(found.stdout)["warnings"] if w.startswith("--group-by")]
