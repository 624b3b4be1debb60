"""`--group-by KEY` on real files: a path into the record as logged, in any format; case tags;
the bound on the number of groups; `diff --group-by`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app
from evalrunner.summary import Summary
from tests.conftest import FRAMEWORKS, one_line, score_fixture

TOOL = {
    "name": "lookup",
    "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
}


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def jsonl(rows) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def invoke(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def anthropic(case_id: str, model: str, q: str, run_id: str) -> dict:
    """A Messages API log line: `model` at the top level, the ids under `metadata`."""
    return {
        "model": model,
        "metadata": {"case_id": case_id, "run_id": run_id},
        "messages": [
            {"role": "user", "content": "find it"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "lookup", "input": {"q": q}}],
            },
        ],
    }


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "tools" / "t.json", json.dumps([TOOL]))
    cases = [
        {"id": "a", "tags": ["billing"], "accept": [[{"tool": "lookup", "args": {"q": "a"}}]]},
        {
            "id": "b",
            "tags": ["billing", "refunds"],
            "accept": [[{"tool": "lookup", "args": {"q": "b"}}]],
        },
        {"id": "c", "accept": [[{"tool": "lookup", "args": {"q": "c"}}]]},
    ]
    write(tmp_path / "cases" / "c.json", json.dumps(cases))
    return tmp_path


def groups_of(*args: str) -> dict:
    result = invoke("score", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["summary"]["groups"]


def test_a_top_level_key_of_an_anthropic_log(project):
    rows = [
        anthropic("a", "claude-sonnet-4", "a", "r1"),
        anthropic("b", "claude-sonnet-4", "x", "r2"),
        anthropic("a", "claude-haiku-4", "a", "r3"),
    ]
    write(project / "traces" / "claude.jsonl", jsonl(rows))
    groups = groups_of("traces", "--group-by", "model")
    assert {k: (g["runs"], g["true"]["failed_runs"]) for k, g in groups.items()} == {
        "claude-haiku-4": (1, 0),
        "claude-sonnet-4": (2, 1),
    }
    # and a nested key of the record as logged
    assert set(groups_of("traces", "--group-by", "metadata.run_id")) == {"r1", "r2", "r3"}
    table = invoke("score", "traces", "--group-by", "model")
    assert "claude-haiku-4 1" in one_line(table.stdout)
    assert "(none)" not in table.stdout and "warning" not in table.stderr


def test_a_native_run_falls_back_to_meta(project):
    rows = [
        {
            "run_id": "r1",
            "case_id": "a",
            "calls": [{"tool": "lookup", "args": {"q": "a"}}],
            "meta": {"model": "m1"},
        },
        {
            "run_id": "r2",
            "case_id": "a",
            "calls": [{"tool": "lookup", "args": {"q": "a"}}],
            "meta": {"model": "m2"},
        },
        {"run_id": "r3", "case_id": "a", "calls": [{"tool": "lookup", "args": {"q": "a"}}]},
    ]
    write(project / "traces" / "t.jsonl", jsonl(rows))
    assert {k: g["runs"] for k, g in groups_of("traces", "--group-by", "model").items()} == {
        "(none)": 1,
        "m1": 1,
        "m2": 1,
    }
    assert set(groups_of("traces", "--group-by", "meta.model")) == {"(none)", "m1", "m2"}


def test_a_span_attribute_of_an_otel_trace(project):
    def span(trace: str, span_id: str, attrs: dict, parent: str | None = "0x00") -> dict:
        return {
            "name": "s",
            "context": {"trace_id": trace, "span_id": span_id},
            "parent_id": parent,
            "start_time": f"2026-01-01T00:00:0{span_id[-1]}Z",
            "attributes": attrs,
        }

    rows = []
    for trace, model in (("0xa1", "gpt-4.1"), ("0xa2", "gpt-4.1-mini")):
        rows.append(
            span(
                trace,
                "0x01",
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "lookup",
                    "gen_ai.tool.call.arguments": '{"q": "a"}',
                },
            )
        )
        rows.append(
            span(
                trace,
                "0x00",
                {
                    "gen_ai.operation.name": "invoke_agent",
                    "evalrun.case_id": "a",
                    "gen_ai.request.model": model,
                },
                parent=None,
            )
        )
    write(project / "traces" / "spans.jsonl", jsonl(rows))
    assert {
        k: g["runs"] for k, g in groups_of("traces", "--group-by", "gen_ai.request.model").items()
    } == {
        "gpt-4.1": 1,
        "gpt-4.1-mini": 1,
    }


# (fixture written by the framework, KEY, the groups): spans of one trace that disagree on KEY
# (LangGraph's CHAIN and LLM spans, its two ls_integration values; pydantic-ai's agent and chat
# spans) give the run the value of its earliest span, the outermost; the run is scored as it is
# without --group-by (these made every run unscoreable: "its spans disagree on ...").
SPAN_GROUPS = [
    ("langgraph-openinference.jsonl", "openinference.span.kind", {"CHAIN": 4}),
    ("langgraph-openinference.jsonl", "metadata.ls_integration", {"langgraph": 4}),
    ("pydantic-ai-spans-v5-flat.jsonl", "gen_ai.operation.name", {"invoke_agent": 4}),
    ("openai-client-openllmetry.jsonl", "gen_ai.request.model", {"gpt-4.1": 4}),
    ("vercel-ai-spans.jsonl", "ai.model.id", {"gpt-4.1": 4}),
    ("langfuse-spans.jsonl", "langfuse.observation.model.name", {"scripted": 4}),
    ("openai-agents-tracing.jsonl", "workflow_name", {"billing": 4}),
    # a resource attribute, which every span of the process carries: flat, and in OTLP batches
    ("langgraph-openinference.jsonl", "service.name", {"unknown_service:python": 4}),
    ("vercel-ai-spans.jsonl", "service.name", {"billing-agent": 4}),
]


@pytest.mark.parametrize(("fixture", "key", "groups"), SPAN_GROUPS)
def test_a_span_attribute_the_spans_disagree_on_groups_by_the_earliest(fixture, key, groups):
    plain = score_fixture(FRAMEWORKS / fixture)
    grouped = score_fixture(FRAMEWORKS / fixture, "--group-by", key)
    assert {k: g["runs"] for k, g in grouped["summary"]["groups"].items()} == groups
    assert grouped["errors"] == plain["errors"] == []
    assert [(r["run_id"], r["verdict"]) for r in grouped["runs"]] == [
        (r["run_id"], r["verdict"]) for r in plain["runs"]
    ]


def test_spans_that_disagree_on_the_case_id_stay_unscoreable_under_group_by(project):
    """A group is a label; a case id is not: spans naming two cases still make the run
    unscoreable, with --group-by on that very attribute too."""
    rows = [
        {
            "name": name,
            "context": {"trace_id": "0xb1", "span_id": span_id},
            "parent_id": parent,
            "start_time": f"2026-01-01T00:00:0{span_id[-1]}Z",
            "attributes": attrs,
        }
        for name, span_id, parent, attrs in (
            (
                "execute_tool lookup",
                "0x01",
                "0x00",
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "lookup",
                    "gen_ai.tool.call.arguments": '{"q": "a"}',
                    "evalrun.case_id": "b",
                },
            ),
            ("invoke_agent", "0x00", None, {"evalrun.case_id": "a"}),
        )
    ]
    write(project / "traces" / "spans.jsonl", jsonl(rows))
    for args in ((), ("--group-by", "evalrun.case_id")):
        result = invoke("score", "traces", "--format", "json", *args)
        assert result.exit_code == 2
        assert json.loads(result.stdout)["errors"] == [
            {
                "error": "otel: trace b1: its spans disagree on evalrun.case_id ('b', 'a')",
                "source": "traces/spans.jsonl:1",
            }
        ]


def test_a_key_found_in_no_run_warns_and_fails_under_strict(project):
    write(project / "traces" / "claude.jsonl", jsonl([anthropic("a", "m", "a", "r1")]))
    result = invoke("score", "traces", "--group-by", "modle")
    assert result.exit_code == 0
    assert (
        "warning: --group-by modle: no run has a value there, so every run is in (none)"
        in one_line(result.stderr)
    )
    strict = invoke("score", "traces", "--group-by", "modle", "--strict")
    assert strict.exit_code == 2
    assert "--strict: --group-by modle is found in no run" in one_line(strict.stderr)
    assert invoke("score", "traces", "--group-by", "model", "--strict").exit_code == 0
    # set in the settings file: named as the setting and its file, not a flag never typed
    (project / "evalrun.toml").write_text('group_by = "modle"\n')
    strict = invoke("score", "traces", "--strict")
    assert strict.exit_code == 2
    assert '--strict: group_by = "modle" in evalrun.toml is found in no run' in one_line(
        strict.stderr
    )


def test_case_tags_a_group_per_tag(project):
    rows = [
        {"run_id": "r1", "case_id": "a", "calls": [{"tool": "lookup", "args": {"q": "a"}}]},
        {"run_id": "r2", "case_id": "b", "calls": [{"tool": "lookup", "args": {"q": "x"}}]},
        {"run_id": "r3", "case_id": "c", "calls": [{"tool": "lookup", "args": {"q": "c"}}]},
    ]
    write(project / "traces" / "t.jsonl", jsonl(rows))
    result = invoke("score", "traces", "--group-by", "case.tags", "--format", "json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    groups = out["summary"]["groups"]
    # b counts in both of its tags' groups; c has no tags
    assert {k: (g["runs"], g["true"]["failed_runs"]) for k, g in groups.items()} == {
        "(none)": (1, 0),
        "billing": (2, 1),
        "refunds": (1, 1),
    }
    assert [r["group"] for r in out["runs"]] == [["billing"], ["billing", "refunds"], "(none)"]
    junit = invoke("score", "traces", "--group-by", "case.tags", "--format", "junit")
    assert 'name="case.tags=refunds" tests="1" failures="1"' in junit.stdout
    assert 'name="case.tags=billing" tests="2" failures="1"' in junit.stdout


def test_case_tags_must_be_a_list_of_names(project):
    write(
        project / "cases" / "c.json", json.dumps([{"id": "a", "tags": "billing", "accept": [[]]}])
    )
    write(project / "traces" / "t.jsonl", jsonl([{"run_id": "r1", "case_id": "a", "calls": []}]))
    result = invoke("score", "traces")
    assert result.exit_code == 2
    assert "'tags' must be a list of non-empty strings" in one_line(result.stderr)


def test_an_unknown_case_field_is_a_usage_error(project):
    write(project / "traces" / "t.jsonl", jsonl([{"run_id": "r1", "case_id": "a", "calls": []}]))
    result = invoke("score", "traces", "--group-by", "case.owner")
    assert result.exit_code == 2
    assert "a case is grouped by case.tags, case.id, case.match" in one_line(result.stderr)


# ------------------------------------------------------------------------------------- the bound


def test_groups_past_the_bound_are_summed_in_other_and_said(project):
    # 1,005 runs of a group each: the first 1,000 groups (by first run) are kept
    rows = [
        {
            "run_id": f"r{i}",
            "case_id": "a",
            "calls": [{"tool": "lookup", "args": {"q": "a" if i % 2 else "z"}}],
            "meta": {"g": f"g{i:04}"},
        }
        for i in range(1005)
    ]
    write(project / "traces" / "t.jsonl", jsonl(rows))
    result = invoke("score", "traces", "--group-by", "g", "--format", "json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)["summary"]
    groups = summary["groups"]
    assert len(groups) == 1001 and "g0999" in groups and "g1000" not in groups
    assert groups["(other)"]["runs"] == 5
    assert groups["(other)"]["true"]["failed_runs"] == 3  # r1000, r1002, r1004
    assert summary["groups_folded"] == 5
    assert (
        "warning: --group-by g: 5 groups past the first 1,000 (by their first run) are summed in "
        "the group (other)" in one_line(result.stderr)
    )
    parallel = invoke("score", "traces", "--group-by", "g", "--format", "json", "--jobs", "2")
    assert parallel.stdout == result.stdout


def test_merging_bounded_summaries_in_order_keeps_what_one_pass_keeps():
    from evalrunner.grade.grader import RunResult

    def run(group: str, passed: bool) -> RunResult:
        verdict = "pass" if passed else "fail"
        return RunResult(
            "r", "c", "s", verdict, None, (), passed, passed, 0, 0, (), (), (), (), group
        )

    names = ["a", "b", "a", "c", "d", "b", "e", "a", "f", "d", "g", "c"]
    whole = Summary(group_by="k", max_groups=3)
    for n, name in enumerate(names):
        whole.add_run(run(name, n % 3 != 0), (0, n))
    for cut in range(1, len(names)):
        merged = Summary(group_by="k", max_groups=3)
        for lo, hi in ((0, cut), (cut, len(names))):
            part = Summary(group_by="k", max_groups=None)
            for n in range(lo, hi):
                part.add_run(run(names[n], n % 3 != 0), (0, n))
            merged.merge(part)
        assert merged.to_json() == whole.to_json(), cut
    assert sorted(whole.groups) == ["(other)", "a", "b", "c"]
    assert whole.groups["(other)"].runs == 5


# ------------------------------------------------------------------------------ diff --group-by


def test_diff_group_by_gives_each_groups_rates_and_flips(project):
    def run(i: int, model: str, q: str, prefix: str = "o") -> dict:
        return anthropic("a" if i % 2 else "b", model, q, f"{prefix}{i}")

    models = ["m1", "m2", "m2", "m1"] * 2
    old = [run(i, m, "a" if i % 2 else "b") for i, m in enumerate(models)]
    # m2's runs of case b now fail; m1's do not
    new = [
        run(i, m, "x" if (m == "m2" and i % 2 == 0) else ("a" if i % 2 else "b"), "n")
        for i, m in enumerate(models)
    ]
    write(project / "old" / "t.jsonl", jsonl(old))
    write(project / "new" / "t.jsonl", jsonl(new))
    result = invoke("diff", "old", "new", "--group-by", "model", "--format", "json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["group_by"] == "model"
    groups = out["groups"]
    assert sorted(groups) == ["m1", "m2"]
    assert groups["m1"]["old"] == {"runs": 4, "true_failed_runs": 0}
    assert groups["m1"]["new"] == {"runs": 4, "true_failed_runs": 0}
    assert groups["m1"]["flips"] == []
    assert groups["m2"]["new"] == {"runs": 4, "true_failed_runs": 2}
    assert [f["key"] for f in groups["m2"]["flips"]] == ["b"]
    table = invoke("diff", "old", "new", "--group-by", "model")
    assert "By model" in table.stdout
    assert "m2 0.0% (0) 50.0% (2) +50.0 pts 1 0 1" in one_line(table.stdout)


def test_the_diff_page_has_each_groups_rates_flips_and_test(project):
    """The page drew no group: `diff --group-by model --format html` dropped them silently."""
    old = [anthropic("a", m, "a", f"o{i}") for i, m in enumerate(["m1", "m2", "m2", "m1"])]
    new = [
        anthropic("a", m, "x" if m == "m2" else "a", f"o{i}")
        for i, m in enumerate(["m1", "m2", "m2", "m1"])
    ]
    write(project / "old" / "t.jsonl", jsonl(old))
    write(project / "new" / "t.jsonl", jsonl(new))
    doc = json.loads(invoke("diff", "old", "new", "--group-by", "model", "-f", "json").stdout)
    assert (
        invoke("diff", "old", "new", "--group-by", "model", "-f", "html", "-o", "d.html").exit_code
        == 0
    )
    page = (project / "d.html").read_text()
    section = page.split("<section id=groups>", 1)[1].split("</section>", 1)[0]
    assert "<h2>By model</h2>" in section
    rows = [
        [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        for row in re.findall(r"<tr><td>.*?</tr>", section)
    ]
    assert rows == [
        ["m1", "2", "2", "0.0% (0)", "0.0% (0)", "0.0 pts", "0", "0", "0", "1"],
        ["m2", "2", "2", "0.0% (0)", "100.0% (2)", "+100.0 pts", "2", "0", "2", "0.5"],
    ]
    # each number the page marks is the JSON's
    for key, text in re.findall(r'data-k="([^"]+)">([^<]*)<', section):
        path = json.loads(key.replace("&quot;", '"'))
        value = doc
        for part in path:
            value = value[part]
        assert text == f"{value:,}", path
    assert "<section id=groups>" not in invoke("diff", "old", "new", "-f", "html").stdout


def test_diff_group_by_a_key_found_in_no_run_warns_as_score_does(project):
    """diff printed one group, (none), without a word: a typo read as a result."""
    write(project / "old" / "t.jsonl", jsonl([anthropic("a", "m1", "a", "r1")]))
    write(project / "new" / "t.jsonl", jsonl([anthropic("a", "m1", "x", "r1")]))
    typo = invoke("diff", "old", "new", "--group-by", "modle", "--format", "json")
    assert typo.exit_code == 0, typo.output
    assert list(json.loads(typo.stdout)["groups"]) == ["(none)"]
    assert (
        "warning: --group-by modle: no run has a value there, so every run is in (none)"
        in one_line(typo.stderr)
    )
    found = invoke("diff", "old", "new", "--group-by", "model", "--format", "json")
    assert list(json.loads(found.stdout)["groups"]) == ["m1"]
    assert "warning" not in found.stderr


def test_diff_group_by_with_a_results_file_scored_without_it_exits_2(project):
    write(project / "traces" / "t.jsonl", jsonl([anthropic("a", "m1", "a", "r1")]))
    assert invoke("score", "traces", "--format", "json", "--output", "plain.json").exit_code == 0
    result = invoke("diff", "plain.json", "traces", "--group-by", "model")
    assert result.exit_code == 2
    assert (
        "OLD (plain.json) is a results file scored without --group-by: its runs have no group by "
        "model; score it again with --group-by model" in one_line(result.stderr)
    )
    grouped = invoke(
        "score", "traces", "--group-by", "model", "--format", "json", "--output", "g.json"
    )
    assert grouped.exit_code == 0
    again = invoke("diff", "g.json", "traces", "--group-by", "model", "--format", "json")
    assert again.exit_code == 0, again.output
    assert list(json.loads(again.stdout)["groups"]) == ["m1"]


def test_the_help_says_where_key_is_looked_for():
    """It said "a field of each trace record ... of the native record they are read into",
    which is where --group-by looked before it read the record as logged."""
    shown = one_line(invoke("score", "--help").stdout)
    assert (
        "--group-by KEY Also summarize per value of KEY, a dotted path into each trace record "
        "as logged, in any format (model, metadata.prompt; a span or resource attribute for "
        "span formats, gen_ai.request.model), else the run's meta; case.tags groups by the "
        "cases' tags." in shown
    )
    assert "native record" not in shown
