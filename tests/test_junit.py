"""`--format junit`: valid against the JUnit XML schema Jenkins validates with, one test case per
run, true failures as failures, false failures as passes that say so, groups as suites."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema
from typer.testing import CliRunner

from evalrunner.cli import app

DATA = Path(__file__).parent / "data" / "cli"
BASE = ["--tools", str(DATA / "tools"), "--cases", str(DATA / "cases")]
SCHEMA = xmlschema.XMLSchema(Path(__file__).parent / "data" / "junit" / "jenkins-junit.xsd")
ROOT = Path(__file__).resolve().parent.parent


def score(*args: str, traces: str | Path = DATA / "traces") -> str:
    result = CliRunner().invoke(app, ["score", *BASE, str(traces), *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_schema_is_strict_enough_to_fail_a_bad_file():
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        SCHEMA.validate("<testsuites><testsuite><testcase/></testsuite></testsuites>")


def test_one_test_case_per_run_valid_against_the_jenkins_schema():
    xml = score("-f", "junit")
    SCHEMA.validate(xml)
    doc = json.loads(score("-f", "json"))
    root = ET.fromstring(xml)
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["evalrun", "unscoreable lines"]
    cases = suites[0].findall("testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        (r["case_id"], r["run_id"]) for r in doc["runs"]
    ]
    by_run = {c.get("name"): c for c in cases}
    for r in doc["runs"]:
        case = by_run[r["run_id"]]
        failure, out = case.find("failure"), case.find("system-out")
        if r["verdict"] in ("fail", "false_pass"):
            assert failure is not None and failure.get("type") == r["verdict"], r["run_id"]
            assert r["source"] in failure.text
        else:
            assert failure is None
        if r["verdict"] == "false_failure":
            assert out.text.startswith(f"false failure ({', '.join(r['shapes'])}): exact-match")
        elif r["verdict"] == "pass":
            assert len(case) == 0
    s = doc["summary"]
    assert int(suites[0].get("failures")) == s["true"]["failed_runs"]
    assert int(suites[0].get("tests")) == s["runs"]
    errors = suites[1].findall("testcase")
    assert [(e.get("name"), e.find("error").get("message")) for e in errors] == [
        (x["source"], x["error"]) for x in doc["errors"]
    ]
    assert int(root.get("errors")) == s["unscoreable"] == 2
    props = {p.get("name"): p.get("value") for p in suites[0].iter("property")}
    assert props["true.run_failure_rate"] == str(s["true"]["run_failure_rate"])
    assert props["verdicts.false_failure"] == str(s["verdicts"]["false_failure"])


def test_a_failure_explains_itself():
    xml = ET.fromstring(score("-f", "junit"))
    r5 = next(c for c in xml.iter("testcase") if c.get("name") == "r5")
    failure = r5.find("failure")
    assert failure.get("message") == (
        "false_pass (redundant_call): [1] get_customer: redundant (repeats call 0)"
    )
    assert "redundant (repeats call 0)" in failure.text


def test_groups_are_suites(tmp_path):
    traces = tmp_path / "t.jsonl"
    lines = []
    for n, line in enumerate((DATA / "traces" / "a.jsonl").read_text().splitlines()):
        try:
            record = json.loads(line)
            record["meta"] = {"model": "m-a" if n % 2 else "m-b"}
            lines.append(json.dumps(record))
        except (json.JSONDecodeError, TypeError):
            lines.append(line)
    traces.write_text("\n".join(lines) + "\n")
    xml = score("-f", "junit", "--group-by", "meta.model", traces=traces)
    SCHEMA.validate(xml)
    suites = ET.fromstring(xml).findall("testsuite")
    names = [s.get("name") for s in suites]
    assert names[:2] == ["meta.model=m-a", "meta.model=m-b"]
    doc = json.loads(score("-f", "json", "--group-by", "meta.model", traces=traces))
    for suite in suites[:2]:
        group = doc["summary"]["groups"][suite.get("name").split("=", 1)[1]]
        assert int(suite.get("tests")) == group["runs"]
        assert int(suite.get("failures")) == group["true"]["failed_runs"]
        props = {p.get("name"): p.get("value") for p in suite.iter("property")}
        assert props["group_by"] == "meta.model"


def test_a_group_past_the_bound_is_a_suite_without_figures(tmp_path):
    """Its runs are summed in the summary's "(other)": the suite of the group they name has
    no summary of its own, so its figures are empty and its counts 0."""
    record = json.loads((DATA / "traces" / "a.jsonl").read_text().splitlines()[0])
    traces = tmp_path / "t.jsonl"
    traces.write_text(
        "".join(
            json.dumps({**record, "run_id": f"r{i}", "meta": {"g": f"g{i:04}"}}) + "\n"
            for i in range(1002)
        )
    )
    xml = score("-f", "junit", "--group-by", "g", traces=traces)
    SCHEMA.validate(xml)
    suites = {s.get("name"): s for s in ET.fromstring(xml).findall("testsuite")}
    assert "g=(other)" in suites and "g=g0999" in suites

    def props(name: str) -> dict[str, str | None]:
        return {p.get("name"): p.get("value") for p in suites[name].iter("property")}

    past = props("g=g1001")
    assert suites["g=g1001"].get("tests") == "1"
    assert past["runs"] == past["true.run_failure_rate"] == ""
    assert past["verdicts.pass"] == past["false_failures.encoding"] == "0"
    assert props("g=(other)")["runs"] == "2" and props("g=g0999")["runs"] == "1"


def test_what_xml_cannot_hold_is_replaced_and_markup_escaped(tmp_path):
    record = json.loads((DATA / "traces" / "a.jsonl").read_text().splitlines()[2])
    record["run_id"] = 'r<&>"\x01\x1b'
    record["calls"][0]["args"]["month"] = "]]></failure><x/>\x00"
    traces = tmp_path / "t.jsonl"
    traces.write_text(json.dumps(record) + "\n")
    xml = score("-f", "junit", traces=traces)
    SCHEMA.validate(xml)
    case = ET.fromstring(xml).find("testsuite/testcase")
    assert case.get("name") == 'r<&>"\ufffd\ufffd'


@pytest.mark.skipif(not (ROOT / "traces").is_dir(), reason="the example corpus")
def test_the_example_corpus_is_valid_junit(tmp_path):
    out = tmp_path / "junit.xml"
    result = CliRunner().invoke(
        app,
        [
            "score",
            str(ROOT / "traces"),
            "--tools",
            str(ROOT / "tools"),
            "--cases",
            str(ROOT / "cases"),
            "-f",
            "junit",
            "-o",
            str(out),
            "--group-by",
            "meta.model",
        ],
    )
    assert result.exit_code == 0, result.output
    SCHEMA.validate(str(out))
    root = ET.parse(out).getroot()
    assert int(root.get("tests")) == 4044


def test_files_not_read_are_said_in_the_report_ci_shows(tmp_path):
    """A file the traces folder holds but score leaves out is runs in no number: the JUnit file
    says so in the main suite's system-err, and stays valid."""
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "a.jsonl").write_bytes((DATA / "traces" / "a.jsonl").read_bytes())
    (traces / "more.json").write_text("[]")
    xml = score("--format", "junit", traces=traces)
    SCHEMA.validate(xml)
    assert "<system-err>warning: " in xml and "more.json: a .json file" in xml
