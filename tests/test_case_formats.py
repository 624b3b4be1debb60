"""Case sources from other harnesses (evalrunner/read/case_formats/): each read into the cases it
means, what it cannot express warned about by file and field, and `evalrun cases` printing what
reads back and grades identically."""

from __future__ import annotations

import dataclasses
import json
import re
import runpy
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from evalrunner.cli import app
from evalrunner.model import InputError, OneOf
from evalrunner.read.case_formats import CASE_FORMATS, CaseWarning, formats_table
from evalrunner.read.cases import case_to_json, load_cases, parse_case
from tests.conftest import EXPENSIVE, invoke, one_line, score_json

from .test_laws_case_keys import grade_all, keyed_worlds

DATA = Path(__file__).parent / "data" / "case_formats"
TOOLS = DATA / "tools"
RUNS = DATA / "traces" / "runs.jsonl"
SOURCES = (
    "adk",
    "adk_written",
    "agentevals",
    "bfcl",
    "deepeval",
    "mlflow",
    "promptfoo",
    "tau2",
    "taubench",
)
ROOT = Path(__file__).parent.parent


def read(name: str) -> tuple[dict, list[CaseWarning]]:
    warnings: list[CaseWarning] = []
    return load_cases(DATA / name, warnings=warnings), warnings


def fields(warnings: list[CaseWarning]) -> set[str]:
    return {w.field for w in warnings}


def test_adk_tool_uses_and_match_type_from_test_config() -> None:
    cases, warnings = read("adk")
    case = cases["adk-paris"]
    assert case.match == "contains"  # IN_ORDER
    assert [(s.tool, dict(s.args)) for s in case.accept[0]] == [
        ("get_weather", {"city": "Paris"}),
        ("book_flight", {"origin": "Paris", "destination": "Rome", "date": "2026-03-01"}),
    ]
    assert "eval_cases[0].conversation[0].final_response" in fields(warnings)
    assert "test_config.json criteria.response_match_score" in fields(warnings)
    events = cases["adk-events"]  # camelCase keys, and the calls in invocation events
    assert [(s.tool, dict(s.args)) for s in events.accept[0]] == [("get_weather", {"city": "Lyon"})]
    assert events.input == "Weather in Lyon?"
    legacy = [c for c in cases.values() if c.id.startswith("legacy-")]
    assert len(legacy) == 1 and legacy[0].accept[0][0].tool == "get_weather"


def test_adk_eval_set_and_config_as_adks_own_code_writes_them() -> None:
    """adk_written/ is written by google-adk 2.13's LocalEvalSetsManager and EvalConfig
    (scripts/case_fixtures.py): the config's match type is the Enum's number, `"match_type": 2`."""
    config = json.loads((DATA / "adk_written" / "test_config.json").read_text())
    assert config["criteria"]["tool_trajectory_avg_score"]["match_type"] == 2
    cases, warnings = read("adk_written")
    case = cases["adk_written_weather"]
    assert case.match == "contains_unordered"  # ANY_ORDER, not EXACT with a warning
    assert [dict(s.args) for s in case.accept[0]] == [{"city": "Madrid"}, {"city": "Seville"}]
    assert not any("match type" in w.message for w in warnings)


def adk_suite(folder: Path, criterion: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(DATA / "adk_written" / "weather_adk.evalset.json", folder)
    config = {"criteria": {"tool_trajectory_avg_score": criterion}}
    (folder / "test_config.json").write_text(json.dumps(config))
    return folder


# ADK's validator takes the Enum's number or its name in any case, `-` or a space for `_`
ADK_MATCH_TYPES = [
    (0, "exact"),
    (1, "contains"),
    (2, "contains_unordered"),
    ("EXACT", "exact"),
    ("IN_ORDER", "contains"),
    ("in_order", "contains"),
    ("in-order", "contains"),
    ("Any Order", "contains_unordered"),
]


@pytest.mark.parametrize(("given", "match"), ADK_MATCH_TYPES)
def test_adk_match_type_read_as_adk_reads_it(given: object, match: str, tmp_path: Path) -> None:
    for key in ("match_type", "matchType"):  # as written, and as dumped by alias
        suite = adk_suite(tmp_path / key, {"threshold": 1.0, key: given})
        result = invoke("cases", "--cases", suite)
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["match"] == match
        assert "match type" not in result.stderr


@pytest.mark.parametrize("given", [3, -1, True, "FUZZY", None, [1]])
def test_an_adk_match_type_adk_would_refuse_is_said_and_read_as_exact(
    given: object, tmp_path: Path
) -> None:
    result = invoke("cases", "--cases", adk_suite(tmp_path, {"match_type": given}))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["match"] == "exact"
    assert (
        f"test_config.json criteria.tool_trajectory_avg_score.match_type: unknown match type "
        f"{given!r}; read as EXACT" in result.stderr
    )


@pytest.mark.parametrize(
    ("criterion", "names_only"),
    [
        ({"match_type": "ANY_ORDER", "ignore_args": True}, True),
        ({"matchType": 2, "ignoreArgs": True}, True),
        ({"match_type": "ANY_ORDER", "ignore_args": False}, False),
        ({"match_type": "ANY_ORDER"}, False),
        (1.0, False),
    ],
)
def test_adk_ignore_args_judges_the_names_only(
    criterion: object, names_only: bool, tmp_path: Path
) -> None:
    """ADK's `ignore_args` compares the tools' names only: the run calling the tools with other
    cities passes then, and fails otherwise."""
    suite = adk_suite(tmp_path / "cases", criterion)
    runs = tmp_path / "runs.jsonl"
    calls = [{"tool": "get_weather", "args": {"city": c}} for c in ("Rome", "Oslo")]
    runs.write_text(json.dumps({"run_id": "r", "case_id": "adk_written_weather", "calls": calls}))
    doc = score_json(runs, tools=TOOLS, cases=suite)
    assert doc["runs"][0]["true"]["pass"] is names_only
    printed = json.loads(invoke("cases", "--cases", suite).stdout)
    assert all(("judge" in s) is names_only for s in printed["accept"][0])


def test_adk_rubrics_are_said_not_dropped(tmp_path: Path) -> None:
    data = json.loads((DATA / "adk_written" / "weather_adk.evalset.json").read_text())
    rubric = {"rubric_id": "r1", "rubric_content": {"text_property": "polite"}}
    data["eval_cases"][0]["rubrics"] = [rubric]
    data["eval_cases"][0]["conversation"][0]["rubrics"] = [rubric]
    (tmp_path / "set.evalset.json").write_text(json.dumps(data))
    result = invoke("cases", "--cases", tmp_path)
    assert result.exit_code == 0, result.output
    said = one_line(result.stderr)
    assert "eval_cases[0].rubrics: rubrics are judged by a model" in said
    assert "eval_cases[0].conversation[0].rubrics: rubrics are judged by a model" in said


def test_bfcl_possible_answers_become_one_of_and_omittable() -> None:
    cases, warnings = read("bfcl")
    simple = cases["simple_0"].accept[0][0]
    assert dict(simple.args) == {"base": 10, "height": 5}  # "unit" may be omitted: left out
    assert simple.judge["unit"] == OneOf(("units",))
    parallel = cases["parallel_1"]
    assert parallel.match == "unordered"
    assert parallel.accept[0][0].judge["city"] == OneOf(("Paris", "Paris, France"))
    multi = cases["multi_turn_base_0"]  # Python source, read and never run
    assert multi.match == "contains"
    assert [(s.tool, dict(s.args)) for s in multi.accept[0]] == [
        ("cd", {"folder": "document"}),
        ("ls", {}),
    ]
    assert "multi_turn_base_0.ground_truth" in fields(warnings)


@pytest.mark.parametrize(
    ("options", "expected", "said"),
    [
        (
            [True, ""],
            True,
            'opts.round: may be omitted ("" among its possible answers) inside an '
            "object; evalrun expects true there",
        ),
        ([""], None, None),  # only "": left out of the object, as at the top level
        ([True], True, None),
    ],
)
def test_bfcl_an_omittable_value_inside_an_object_is_said(
    options: list, expected: object, said: str | None, tmp_path: Path
) -> None:
    """Inside an object parameter BFCL's "" (may be omitted) has no judge to carry it: the value
    is expected, and a warning says so (it was made required without a word)."""
    record = {"id": "simple_9", "ground_truth": [{"geo": {"opts": [{"round": options}]}}]}
    (tmp_path / "BFCL_v4_simple_python.json").write_text(json.dumps(record) + "\n")
    result = invoke("cases", "--cases", tmp_path)
    assert result.exit_code == 0, result.output
    opts = json.loads(result.stdout)["accept"][0][0]["args"]["opts"]
    assert opts.get("round") == expected
    warned = [line for line in result.stderr.splitlines() if "opts.round" in line]
    assert [w.split("geo.", 1)[1] for w in warned] == ([said] if said else [])


def test_deepeval_saved_goldens() -> None:
    cases, warnings = read("deepeval")
    first, second = sorted(cases.values(), key=lambda c: len(c.accept[0]), reverse=True)
    assert [s.tool for s in first.accept[0]] == ["get_weather", "book_flight"]
    assert first.accept[0][1].args["destination"] == "Porto"
    assert second.accept[0][0].judge[""].name == "any"  # no input_parameters: names only
    assert "[0].expected_output" in fields(warnings)
    assert read("deepeval")[0].keys() == cases.keys()  # ids stable across reads


def test_mlflow_tau_agentevals_promptfoo() -> None:
    mlf, w = read("mlflow")
    assert dict(mlf["mlf-oslo"].accept[0][0].args) == {"city": "Oslo", "unit": "fahrenheit"}
    assert "[0].expectations.expected_response" in fields(w)
    tau2, w = read("tau2")
    case = tau2["tau2-cancel"]
    assert (case.grade, case.match) == ("writes", "unordered")
    assert [s.tool for s in case.accept[0]] == ["get_user_details", "cancel_reservation"]
    assert case.accept[0][1].judge["reason"].name == "any"  # outside compare_args
    assert "[0].evaluation_criteria.actions[2]" in fields(w)  # the user's action
    tau, _ = read("taubench")
    assert tau["0"].grade == "writes"
    ae, w = read("agentevals")
    assert ae["ae-rome"].match == "contains_unordered"  # superset
    assert ae["ae-subset"].accept[0][0].judge["city"].name == "any"
    assert ae["ae-langchain"].accept[0][0].args == {"city": "Nice"}  # LangChain's message dicts
    assert ae["ae-langchain"].input == "Weather in Nice?"
    assert "#1.trajectory_match_mode" in fields(w)
    pf, w = read("promptfoo")
    assert list(pf) == ["pf-weather-and-book"]
    assert [s.tool for s in pf["pf-weather-and-book"].accept[0]] == ["get_weather", "book_flight"]
    assert {"tests[0].assert[2]", "tests[1].assert[0]", "tests[1]"} <= fields(w)


def test_mlflow_dataset_as_mlflow_exports_it() -> None:
    """dataset.mlflow-*.jsonl is made by mlflow.genai.datasets and exported by its to_df()
    (scripts/case_fixtures.py): the ids are MLflow's own, the other expectations named."""
    file = next((DATA / "mlflow").glob("dataset.mlflow-*.jsonl"))
    warnings: list[CaseWarning] = []
    cases = load_cases(file, warnings=warnings)
    bergen, anywhere = cases.values()
    assert bergen.id.startswith("dr-") and bergen.input == "Weather in Bergen, in fahrenheit?"
    assert dict(bergen.accept[0][0].args) == {"city": "Bergen", "unit": "fahrenheit"}
    assert "" not in bergen.accept[0][0].judge
    assert anywhere.accept[0][0].judge[""].name == "any"  # no arguments: the name only
    assert [w.field for w in warnings] == ["[0].expectations.expected_facts"]


def test_mlflow_expected_call_without_arguments_is_judged_by_its_name(tmp_path: Path) -> None:
    """MLflow's ToolCallCorrectness documents `{"name": "search"}` as "only check tool name"; read
    as `args: {}` it failed every run that passed the tool any argument."""
    expected = [
        {"name": "get_weather"},
        {
            "name": "book_flight",
            "arguments": {"origin": "Oslo", "destination": "Rome", "date": "2026-03-02"},
        },
    ]
    record = {"inputs": {"q": "x"}, "expectations": {"expected_tool_calls": expected}}
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "records.json").write_text(json.dumps([{"dataset_record_id": "m", **record}]))
    runs = tmp_path / "runs.jsonl"
    rows = [
        ("names", "Bergen", "2026-03-02", True),
        ("wrong-date", "Bergen", "2026-03-03", False),  # arguments given are still judged
    ]
    runs.write_text(
        "".join(
            json.dumps(
                {
                    "run_id": run,
                    "case_id": "m",
                    "calls": [
                        {"tool": "get_weather", "args": {"city": city, "unit": "fahrenheit"}},
                        {
                            "tool": "book_flight",
                            "args": {"origin": "Oslo", "destination": "Rome", "date": date},
                        },
                    ],
                }
            )
            + "\n"
            for run, city, date, _ in rows
        )
    )
    doc = score_json(runs, tools=TOOLS, cases=cases)
    assert {r["run_id"]: r["true"]["pass"] for r in doc["runs"]} == {
        run: passes for run, _, _, passes in rows
    }


@pytest.mark.parametrize(
    ("expectations", "warned"),
    [
        ({"model": None, "eval_mode": None, "must": ["cite the forecast"], "must_not": []}, True),
        ({"model": None, "eval_mode": None, "must": [], "must_not": ["promise refunds"]}, True),
        ({"model": None, "eval_mode": None, "must": [], "must_not": []}, False),
        (None, False),
    ],
)
def test_deepeval_expectations_are_said_when_they_hold_conditions(
    expectations: object, warned: bool, tmp_path: Path
) -> None:
    """DeepEval 4's `Expectations` (`must`, `must_not`) are judged by a model: named, not dropped."""
    goldens = json.loads(next((DATA / "deepeval").glob("goldens.deepeval-*.json")).read_text())
    goldens[0]["expectations"] = expectations
    (tmp_path / "goldens.json").write_text(json.dumps(goldens))
    result = invoke("cases", "--cases", tmp_path)
    assert result.exit_code == 0, result.output
    assert ("[0].expectations: not a tool call" in result.stderr) is warned


PROMPTFOO_SHARED_LABELS = """
tests:
  - description: weather
    vars: {question: "Weather in Paris?"}
    assert: [{type: tool-call-f1, value: [get_weather]}]
  - description: booking
    vars: {question: Book Paris to Rome}
    assert: [{type: tool-call-f1, value: [book_flight]}]
  - description: weather
    vars: {question: "Weather in Rome?"}
    assert: [{type: tool-call-f1, value: get_weather}]
"""


def test_promptfoo_descriptions_several_tests_share_are_made_unique(tmp_path: Path) -> None:
    """promptfoo does not ask descriptions to be unique; taken as ids, a shared one stopped the
    whole suite ("case id 'weather' is used twice", exit 2)."""
    first, moved = tmp_path / "first", tmp_path / "moved"
    for folder, text in ((first, PROMPTFOO_SHARED_LABELS), (moved, None)):
        folder.mkdir()
        if text is None:  # the same tests, in another order
            lines = PROMPTFOO_SHARED_LABELS.strip().splitlines()
            text = "\n".join([lines[0], *lines[7:10], *lines[1:7]]) + "\n"
        (folder / "promptfooconfig.yaml").write_text(text)
    read = {}
    for folder in (first, moved):
        result = invoke("cases", "--cases", folder)
        assert result.exit_code == 0, result.output
        read[folder] = {
            json.loads(line)["input"]: json.loads(line)["id"] for line in result.stdout.splitlines()
        }
    ids = read[first]
    assert read[moved] == ids  # stable across reads, whatever the tests' order
    assert ids['{"question":"Book Paris to Rome"}'] == "booking"  # a label of its own stays
    shared = [ids['{"question":"Weather in Paris?"}'], ids['{"question":"Weather in Rome?"}']]
    assert len(set(shared)) == 2
    assert all(re.fullmatch(r"weather-[0-9a-f]{12}", i) for i in shared)


@pytest.mark.parametrize("expected", [None, []])
def test_deepeval_golden_without_expected_tools_is_said(expected: object, tmp_path: Path) -> None:
    """save_as writes a golden's empty expected_tools as null, as it writes an unset one: read as
    expecting no call, which fails every run that calls a tool, so a warning says so."""
    goldens = json.loads(next((DATA / "deepeval").glob("goldens.deepeval-*.json")).read_text())
    goldens[1]["expected_tools"] = expected
    (tmp_path / "goldens.json").write_text(json.dumps(goldens))
    result = invoke("cases", "--cases", tmp_path)
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["accept"] for line in result.stdout.splitlines()][1] == [[]]
    said = one_line(result.stderr)
    assert "[1].expected_tools: none (save_as writes an empty list and none alike as null)" in said
    assert "[0].expected_tools" not in said


def test_agentevals_reads_langchains_every_serialization() -> None:
    """examples.langchain-core-*.jsonl holds one trajectory serialized by langchain-core's own
    dumpd(), messages_to_dict() and model_dump() (scripts/case_fixtures.py); dumpd()'s
    `{"lc": 1, "type": "constructor", ...}` messages were not recognised at all."""
    file = next((DATA / "agentevals").glob("examples.langchain-core-*.jsonl"))
    cases = load_cases(file)
    assert sorted(cases) == ["ae-dumpd", "ae-messages-to-dict", "ae-model-dump"]
    read = {
        (c.input, c.match, tuple((s.tool, tuple(s.args.items())) for s in c.accept[0]))
        for c in cases.values()
    }
    assert read == {
        (
            "Weather in Nice and in Cannes?",
            "unordered",
            (("get_weather", (("city", "Nice"),)), ("get_weather", (("city", "Cannes"),))),
        )
    }


TELECOM_TOOLS = [
    {
        "name": "get_customer",
        "x-eval-readonly": True,
        "parameters": {"type": "object", "properties": {"customer_id": {"type": "string"}}},
    },
    {
        "name": "enable_roaming",
        "parameters": {
            "type": "object",
            "properties": {"customer_id": {"type": "string"}, "line_id": {"type": "string"}},
        },
    },
]


@pytest.mark.parametrize(
    ("basis", "match", "grade", "warned"),
    [
        (["DB", "COMMUNICATE"], "unordered", "writes", False),
        (["ACTION"], "contains_unordered", None, False),
        (["ENV_ASSERTION"], "contains_unordered", None, True),  # tau2's telecom tasks
        (["NL_ASSERTION"], "contains_unordered", None, True),
    ],
)
def test_tau2_reward_basis_decides_whether_other_calls_count(
    basis: list, match: str, grade: str | None, warned: bool, tmp_path: Path
) -> None:
    """Only tau2's database check makes a call the task does not list matter. A task judged on
    env assertions (telecom) was read `unordered` without `grade: writes`: the agent's every
    look-up failed it."""
    task = {
        "id": "telecom-1",
        "user_scenario": {"instructions": {"reason_for_call": "no data abroad"}},
        "evaluation_criteria": {
            "actions": [
                {
                    "action_id": "a0",
                    "requestor": "assistant",
                    "name": "enable_roaming",
                    "arguments": {"customer_id": "C1001", "line_id": "L1002"},
                },
                {
                    "action_id": "a1",
                    "requestor": "user",
                    "name": "toggle_airplane_mode",
                    "arguments": {},
                },
            ],
            "env_assertions": [{"func_name": "assert_mobile_data_status", "expected_status": True}],
            "reward_basis": basis,
        },
    }
    cases, tools = tmp_path / "cases", tmp_path / "tools"
    cases.mkdir()
    tools.mkdir()
    (cases / "tasks.json").write_text(json.dumps([task]))
    (tools / "tools.json").write_text(json.dumps(TELECOM_TOOLS))
    printed = invoke("cases", "--cases", cases)
    case = json.loads(printed.stdout)
    assert (case["match"], case.get("grade")) == (match, grade)
    assert ("judges neither the actions nor the database" in printed.stderr) is warned
    calls = [
        {"tool": "get_customer", "args": {"customer_id": "C1001"}},
        {"tool": "enable_roaming", "args": {"customer_id": "C1001", "line_id": "L1002"}},
    ]
    runs = tmp_path / "runs.jsonl"
    records = [
        {"run_id": "done", "case_id": "telecom-1", "calls": calls},
        {"run_id": "looked-only", "case_id": "telecom-1", "calls": calls[:1]},  # never enabled it
    ]
    runs.write_text("".join(json.dumps(r) + "\n" for r in records))
    doc = score_json(runs, tools=tools, cases=cases)
    assert {r["run_id"]: r["true"]["pass"] for r in doc["runs"]} == {
        "done": True,
        "looked-only": False,
    }


def test_forced_format_and_unknown_name() -> None:
    with pytest.raises(InputError, match="unknown case format 'nope'"):
        load_cases(DATA / "bfcl", case_format="nope")
    with pytest.raises(InputError):  # BFCL records are not evalrun cases
        load_cases(DATA / "bfcl", case_format="native")
    assert "simple_0" in load_cases(DATA / "bfcl", case_format="bfcl")


OWN_FORMAT = {
    "adk": "adk",
    "adk_written": "adk",
    "agentevals": "agentevals",
    "bfcl": "bfcl",
    "deepeval": "deepeval",
    "mlflow": "mlflow",
    "promptfoo": "promptfoo",
    "tau2": "tau",
    "taubench": "tau",
}


@pytest.mark.parametrize("fmt", [f for f in CASE_FORMATS if f != "native"])
@pytest.mark.parametrize("name", SOURCES)
def test_a_forced_format_reads_its_own_files_and_says_so_of_others(fmt: str, name: str) -> None:
    """`--case-format NAME` on a file in another shape handed it to NAME's reader all the same:
    a traceback (KeyError 'id', AssertionError, …) or cases with nothing expected, exit 0. It
    is now an input error naming the file and the format."""
    result = invoke("cases", "--cases", DATA / name, "--case-format", fmt)
    assert isinstance(result.exception, (SystemExit, type(None))), result.exception
    if OWN_FORMAT[name] == fmt:
        assert result.exit_code == 0 and result.stdout
        return
    assert result.stdout == ""
    if any(f.name.endswith(CASE_FORMATS[fmt].suffixes) for f in (DATA / name).iterdir()):
        assert result.exit_code == 2
        said = one_line(result.stderr)
        assert f"this file is not in the case format {fmt!r} that --case-format" in said
        assert CASE_FORMATS[fmt].looks_like in said
    else:  # no file the format reads (its suffixes): nothing read
        assert result.exit_code == 0


def _score(cases: Path) -> list[dict]:
    result = CliRunner().invoke(
        app,
        ["score", str(RUNS), "--tools", str(TOOLS), "--cases", str(cases), "--format", "jsonl"],
    )
    lines = [json.loads(x) for x in result.stdout.splitlines()]
    return [x for x in lines if "summary" not in x]


@pytest.mark.parametrize("name", SOURCES)
def test_printed_cases_read_back_and_grade_identically(name: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["cases", "--cases", str(DATA / name)])
    assert result.exit_code == 0, result.output
    printed = tmp_path / "cases.jsonl"
    printed.write_text(result.stdout)
    again = CliRunner().invoke(app, ["cases", "--cases", str(printed)])
    assert again.stdout == result.stdout
    assert load_cases(printed).keys() == load_cases(DATA / name).keys()
    original, back = _score(DATA / name), _score(printed)
    assert any(r.get("verdict") for r in original)  # some run of the corpus is this source's
    assert back == original


def test_sources_grade_as_their_harness_means() -> None:
    verdicts = {}
    for name in SOURCES:
        for r in _score(DATA / name):
            if "verdict" in r:
                verdicts[r["run_id"]] = r["true"]["pass"]
    assert verdicts["bfcl-1"] and verdicts["bfcl-2"] and verdicts["bfcl-3"]
    assert not verdicts["bfcl-4"]  # height 6 is not a possible answer
    assert verdicts["adk-1"]  # IN_ORDER: another call between is fine; ids never compared
    assert verdicts["adkw-1"]  # ANY_ORDER, as ADK's EvalConfig writes it (match_type 2)
    assert verdicts["pf-1"] and verdicts["de-1"]  # names only
    assert verdicts["tau2-1"]  # graded on writes; the reason is not compared
    assert verdicts["mlf-1"] and verdicts["tau-1"] and verdicts["ae-1"]
    assert verdicts["ae-2"]  # unordered, from LangChain's dumpd() messages
    assert verdicts["mlfd-1"] and verdicts["mlfd-2"]  # MLflow's own export; a name-only call


def test_docs_are_the_registry() -> None:
    text = (ROOT / "docs" / "case-formats.md").read_text()
    assert formats_table() in text
    for name in CASE_FORMATS:
        assert re.search(rf"^## `{name}`", text, re.M), (
            f"docs/case-formats.md: no section for {name}"
        )
    doc = runpy.run_path(str(ROOT / "scripts" / "case_formats_doc.py"))
    assert doc["render"]() == text, "run python scripts/case_formats_doc.py"


@EXPENSIVE
@given(keyed_worlds(), st.booleans())
def test_law_a_printed_case_reads_back_to_the_same_case_and_grades(world, whole) -> None:
    """For any case (every key, any judge, the whole arguments judged or not), the line `evalrun
    cases` prints reads back to an equal case, which grades every run the same."""
    tools_json, case_json, records = world
    if whole:
        case_json["accept"][0][0]["judge"] = {"": "any"}
    case = parse_case(case_json, "generated")
    back = parse_case(json.loads(json.dumps(case_to_json(case))), "printed")
    assert back == dataclasses.replace(case, source="printed")
    assert grade_all(tools_json, case_to_json(case), records) == grade_all(
        tools_json, case_json, records
    )


def test_what_cannot_be_read_is_said(tmp_path: Path) -> None:
    (tmp_path / "promptfooconfig.yaml").write_text("prompts: [x]\ntests: file://tests/*.yaml\n")
    (tmp_path / "possible_answer.json").write_text(
        '{"id": "multi_turn_1", "ground_truth": [["mv(a, b)", "rm(path=open(\'x\'))", "ls()"]]}\n'
    )
    warnings: list[CaseWarning] = []
    cases = load_cases(tmp_path, warnings=warnings)
    said = [str(w) for w in warnings]
    assert any("promptfooconfig.yaml: tests: the tests in 'file://tests/*.yaml'" in w for w in said)
    assert any("ground_truth[0][0]: 'mv(a, b)': positional arguments" in w for w in said)
    assert any("ground_truth[0][1]" in w and "not a literal" in w for w in said)
    assert [s.tool for s in cases["multi_turn_1"].accept[0]] == ["ls"]


def test_promptfoo_what_lives_elsewhere_is_said(tmp_path: Path) -> None:
    """A `defaultTest` kept in another file, and `scenarios`, hold assertions and tests evalrun
    does not read: they were passed over without a word."""
    (tmp_path / "promptfooconfig.yaml").write_text(
        "defaultTest: file://default.yaml\n"
        "scenarios:\n  - config: [{vars: {city: Paris}}]\n    tests: [{vars: {q: x}}]\n"
        "tests:\n  - description: w\n    assert: [{type: tool-call-f1, value: [get_weather]}]\n"
    )
    result = invoke("cases", "--cases", tmp_path)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["id"] == "w"
    said = one_line(result.stderr)
    assert "defaultTest: the default test in 'file://default.yaml' is in another file" in said
    assert "scenarios: scenarios (tests crossed with configurations) are not read" in said


def test_a_case_file_named_like_adks_config_is_still_read(tmp_path: Path) -> None:
    case = {"id": "mine", "accept": [[{"tool": "get_weather", "args": {"city": "Oslo"}}]]}
    (tmp_path / "test_config.json").write_text(json.dumps(case))
    assert list(load_cases(tmp_path)) == ["mine"]


@pytest.mark.parametrize("command", ["score", "suggest", "diff"])
@pytest.mark.parametrize("given", ["flag", "setting"])
def test_every_command_that_grades_reads_cases_in_the_forced_format(
    command, given, tmp_path, monkeypatch
):
    """suggest and diff had no --case-format and passed over the `case_format` setting (they
    detected each file's format whatever the file said): the cases they graded by could differ
    from the ones score read."""
    cases = tmp_path / "cases"
    shutil.copytree(DATA / "agentevals", cases)
    monkeypatch.chdir(tmp_path)
    args = [command, *([str(RUNS), str(RUNS)] if command == "diff" else [str(RUNS)])]
    args += ["--tools", str(TOOLS), "--cases", str(cases)]
    assert invoke(*args).exit_code in (0, 1)  # detected: agentevals
    if given == "flag":
        args += ["--case-format", "bfcl"]
    else:
        (tmp_path / "evalrun.toml").write_text('case_format = "bfcl"\n')
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert "not in the case format 'bfcl'" in one_line(result.stderr)


def test_a_jsonl_case_file_is_parsed_one_record_at_a_time(tmp_path, monkeypatch):
    """A JSONL file's records are parsed as they are read, never held all at once (issue 31:
    112,700 cases parsed whole were 250 MB, the peak of loading the suite); its lines are
    checked as JSON before any case is read, and each is let go once read."""
    from evalrunner.read import cases as cases_module
    from evalrunner.read.case_formats import Records, decode

    lines = [
        json.dumps({"id": f"c{i}", "expected_tool": "t", "expected_args": {}}) for i in range(5)
    ]
    file = tmp_path / "many.jsonl"
    file.write_text("\n".join([lines[0], "", *lines[1:]]) + "\n")
    source = decode(file)
    assert isinstance(source.data, Records) and source.lines == (1, 3, 4, 5, 6)
    assert list(source.data) == [json.loads(x) for x in lines] and source.data[1:3][0]["id"] == "c1"
    parsed = []
    real = parse_case

    def spy(data, where, **kw):
        # while a case is parsed, the records before it are let go and the later ones unread
        parsed.append([x is None for x in source.data._lines])
        return real(data, where, **kw)

    monkeypatch.setattr(cases_module, "parse_case", spy)
    read = list(cases_module._native(source))
    assert [c.id for c in read] == [f"c{i}" for i in range(5)]
    assert [c.line for c in read] == [1, 3, 4, 5, 6]
    assert parsed == [[j <= i for j in range(5)] for i in range(5)]
    file.write_text(lines[0] + "\n" + lines[1][:-1] + "\n")
    with pytest.raises(InputError, match=r"many\.jsonl:2: this case line is not valid JSON"):
        decode(file)
