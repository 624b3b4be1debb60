"""Reply evidence (SPEC "Normalizer suspects"): the tools' replies as a check on the declared
rules, in `summary.reply_evidence`; bounded, mergeable, and read by no verdict."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app
from evalrunner.grade import replies
from evalrunner.grade.grader import RunResult
from evalrunner.scoring import load_config, score
from evalrunner.summary import Summary
from evalrunner.write import Collect

D = Path(__file__).parent / "data" / "scenarios" / "reply_evidence"


def _results():
    config = load_config(D / "tools", D / "cases")
    items = Collect()
    summary = score(config, [D / "traces"], writer=items)
    return config, [r for r in items.items if isinstance(r, RunResult)], summary


def test_pairs_split_by_equal_and_different_replies():
    _, _, summary = _results()
    s = summary.to_json()
    (doubt,) = s["reply_evidence"]
    assert (doubt["tool"], doubt["param"], doubt["norm"]) == ("search_logs", "since", "date")
    # a1~a2 (same lines), a1~a3 and a2~a3 (an hour apart: other lines)
    assert (doubt["pairs_agree"], doubt["pairs_differ"], doubt["cases"]) == (1, 2, 1)
    assert doubt["sampled"] is False
    ex = doubt["example"]
    assert ex["case_id"] == "api-errors"
    assert [c["run_id"] for c in ex["calls"]] == ["a1", "a3"]
    assert [c["value"] for c in ex["calls"]] == [
        "2026-03-14T09:00:00Z",
        "2026-03-14T09:00:00+01:00",
    ]
    (confirmed,) = s["reply_confirmed"]
    # a1~a4 and d1~d2; d3 recorded no reply and takes no part
    assert (confirmed["param"], confirmed["pairs_agree"], confirmed["pairs_differ"]) == (
        "level",
        2,
        0,
    )


def _assert_any_order_and_split_agree(rng: random.Random, rounds: int) -> None:
    """The scenario's runs, shuffled and split in two summaries `rounds` times: merged, each
    gives the evidence one summary of them all gives."""
    config, results, whole = _results()
    want = whole.to_json()["reply_evidence"]
    for _ in range(rounds):
        order = list(enumerate(results))
        rng.shuffle(order)
        cut = rng.randint(0, len(order))
        parts = []
        for chunk in (order[:cut], order[cut:]):
            s = Summary.for_tools(config.tools)
            for n, r in chunk:
                s.add(r, (0, n))
            parts.append(s)
        assert parts[0].merge(parts[1]).finish().to_json()["reply_evidence"] == want


def test_any_order_and_any_split_give_the_same_evidence():
    _assert_any_order_and_split_agree(random.Random(7), 10)


@pytest.mark.parametrize("batch", [1, 2, 3])
@pytest.mark.parametrize("bound", ["MAX_GROUPS", "MAX_SPELLINGS", "MAX_REPLIES", None])
def test_batches_and_bounds_keep_what_one_count_in_any_order_keeps(monkeypatch, batch, bound):
    """Runs are counted in batches, and a full table remembers its largest key: at every batch
    boundary and every bound, the evidence is the same in any order and any split."""
    monkeypatch.setattr(replies, "_BATCH", batch)
    if bound is not None:
        monkeypatch.setattr(replies, bound, 1)
    _assert_any_order_and_split_agree(random.Random(batch), 6)


def _synthetic_runs(rng: random.Random, n: int) -> list[tuple[str, tuple, tuple, str, str]]:
    """Runs of two cases calling one tool with one rule, few groups and spellings and many
    replies, so that every bound is reached many times over."""
    rule = ("search_logs", "since", "date")
    runs = []
    for i in range(n):
        g, s = rng.randrange(6), rng.randrange(4)
        seen = ((rule, g, 10 * g + s, f"v{g}.{s}"),)
        reply = rng.randrange(40)
        runs.append((f"case-{i % 2}", ((seen, reply, {"r": reply}),), (0, i), f"r{i}", f"t:{i}"))
    return runs


@pytest.mark.parametrize("bounds", [(2, 2, 2), (3, 2, 5), (1, 3, 1)])
def test_full_tables_keep_the_same_sample_in_any_order_and_batching(monkeypatch, bounds):
    for name, value in zip(("MAX_GROUPS", "MAX_SPELLINGS", "MAX_REPLIES"), bounds):
        monkeypatch.setattr(replies, name, value)
    rng = random.Random(sum(bounds))
    runs = _synthetic_runs(rng, 400)

    def evidence(runs, batch):
        monkeypatch.setattr(replies, "_BATCH", batch)
        ev = replies.ReplyEvidence()
        for run in runs:
            ev.add(*run)
        return ev

    want = evidence(runs, 1).to_json()
    assert want[0] and want[0][0]["sampled"] is True
    for batch in (1, 7, 1000):
        shuffled = runs[:]
        rng.shuffle(shuffled)
        cut = rng.randrange(len(runs))
        whole = evidence(shuffled, batch)
        assert whole.to_json() == want
        first, second = evidence(shuffled[:cut], batch), evidence(shuffled[cut:], batch)
        first.merge(second)
        assert first.to_json() == want


def test_the_bound_is_said_when_reached(monkeypatch):
    monkeypatch.setattr(replies, "MAX_SPELLINGS", 2)
    _, _, summary = _results()
    (doubt,) = summary.to_json()["reply_evidence"]
    assert doubt["sampled"] is True
    assert doubt["pairs_agree"] + doubt["pairs_differ"] == 1  # two of the three spellings kept


def test_every_report_shows_the_rules_in_doubt(tmp_path):
    args = ["score", str(D / "traces"), "--tools", str(D / "tools"), "--cases", str(D / "cases")]
    table = CliRunner().invoke(app, args)
    assert table.exit_code == 0, table.output
    assert "Rules the replies put in doubt" in table.stdout
    assert "search_logs.since   date              2       1" in table.stdout
    markdown = CliRunner().invoke(app, [*args, "--format", "markdown"])
    assert "| search\\_logs.since | date | 2 | 1 |" in markdown.stdout
    page = tmp_path / "r.html"
    html = CliRunner().invoke(app, [*args, "--format", "html", "--output", str(page)])
    assert html.exit_code == 0, html.output
    assert "<section id=replies>" in page.read_text()
    junit = CliRunner().invoke(app, [*args, "--format", "junit"])
    assert 'name="reply_evidence.search_logs.since.date" value="2 pairs differ, 1 agree"' in (
        junit.stdout
    )
    doc = json.loads(CliRunner().invoke(app, [*args, "--format", "json"]).stdout)
    assert doc["summary"]["reply_evidence"][0]["pairs_differ"] == 2


def test_the_results_schema_describes_the_evidence():
    from importlib import resources

    import jsonschema

    schema = json.loads(resources.files("evalrunner").joinpath("results.schema.json").read_text())
    args = ["score", str(D / "traces"), "--tools", str(D / "tools"), "--cases", str(D / "cases")]
    doc = json.loads(CliRunner().invoke(app, [*args, "--format", "json"]).stdout)
    jsonschema.Draft202012Validator(schema).validate(doc)
    first = Path(__file__).parent / "data" / "scenarios" / "schema_rejects"
    args = ["score", str(first / "traces"), "--tools", str(first / "tools")]
    doc = json.loads(
        CliRunner().invoke(app, [*args, "--cases", str(first / "cases"), "--format", "json"]).stdout
    )
    jsonschema.Draft202012Validator(schema).validate(doc)
    breaks = {
        p.get("breaks")
        for r in doc["runs"]
        for c in r["calls"]
        for p in c.get("params", {}).values()
    }
    assert breaks >= {"type", "enum", "const", "pattern", "format"}


def test_two_spellings_in_one_run_whose_values_do_not_compare(tmp_path):
    """Found by the reply-evidence law: `"PT30M"` and `1800` in one run share the example's order,
    run id and source, and the example pair was chosen by sorting the values themselves (a
    TypeError in every output of a run like this)."""
    for d in ("tools", "cases", "traces"):
        (tmp_path / d).mkdir()
    (tmp_path / "tools" / "t.json").write_text(
        json.dumps(
            {
                "name": "wait",
                "parameters": {
                    "type": "object",
                    "properties": {"for": {"x-eval-norm": "duration_secs"}},
                },
                "x-eval-repeatable": True,
            }
        )
    )
    (tmp_path / "cases" / "c.json").write_text(
        json.dumps({"id": "c", "match": "contains", "accept": [[{"tool": "wait", "args": {}}]]})
    )
    calls = [
        {"tool": "wait", "args": {}},
        {"tool": "wait", "args": {"for": 1800}, "result": {"lines": 1}},
        {"tool": "wait", "args": {"for": "PT30M"}, "result": {"lines": 2}},
    ]
    (tmp_path / "traces" / "r.jsonl").write_text(
        json.dumps({"run_id": "r", "case_id": "c", "calls": calls}) + "\n"
    )
    result = CliRunner().invoke(
        app,
        [
            "score",
            "--tools",
            str(tmp_path / "tools"),
            "--cases",
            str(tmp_path / "cases"),
            str(tmp_path / "traces"),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    (doubt,) = json.loads(result.stdout)["summary"]["reply_evidence"]
    assert (doubt["param"], doubt["pairs_differ"]) == ("for", 1)
    # one run: the pair's order is the spellings' digests', the same on every run of evalrun
    assert sorted(str(c["value"]) for c in doubt["example"]["calls"]) == ["1800", "PT30M"]


def test_junit_gives_each_rule_in_doubt_its_example_pair():
    args = ["score", str(D / "traces"), "--tools", str(D / "tools"), "--cases", str(D / "cases")]
    junit = CliRunner().invoke(app, [*args, "--format", "junit"])
    assert junit.exit_code == 0, junit.output
    source = str(D / "traces" / "runs.jsonl")
    assert (
        '<property name="reply_evidence.search_logs.since.date.example" '
        f'value=\'"2026-03-14T09:00:00Z" ({source}:1) and "2026-03-14T09:00:00+01:00" '
        f"({source}:3) got different replies'/>"
    ) in junit.stdout
    # a rule the replies only confirm has no property
    assert "reply_evidence.search_logs.level" not in junit.stdout


HEAD = "x" * 100
CUT = [
    # (first reply, second reply, what each is shown as)
    ({"n": 1}, {"n": 2}, ('{"n":1}', '{"n":2}')),
    # the difference within the cut: cut from the start, as every other value is
    (
        "a" * 30 + "b" * 70,
        "a" * 30 + "c" * 70,
        ('"' + "a" * 30 + "b" * 48 + "…", '"' + "a" * 30 + "c" * 48 + "…"),
    ),
    # a long shared head: both cut from 20 characters before the difference
    (HEAD + "-09:00", HEAD + "-08:00", ("…" + "x" * 18 + '-09:00"', "…" + "x" * 18 + '-08:00"')),
    (
        {"lines": [HEAD, "a" * 200]},
        {"lines": [HEAD, "b" * 200]},
        ("…" + "x" * 17 + '","' + "a" * 58 + "…", "…" + "x" * 17 + '","' + "b" * 58 + "…"),
    ),
]


@pytest.mark.parametrize(("first", "second", "shown"), CUT)
def test_an_example_pairs_replies_are_cut_where_they_differ(first, second, shown):
    got = replies.reply_excerpts(first, second)
    assert got == shown
    assert all(len(x) <= replies.REPLY_CHARS for x in got)
    assert got[0] != got[1]


def test_replies_with_one_long_head_show_their_difference_in_the_results(tmp_path):
    for d in ("tools", "cases", "traces"):
        (tmp_path / d).mkdir()
    schema = {"type": "object", "properties": {"since": {"x-eval-norm": "date"}}}
    (tmp_path / "tools" / "t.json").write_text(json.dumps({"name": "logs", "parameters": schema}))
    step = {"tool": "logs", "args": {"since": "2026-03-14T09:00:00Z"}}
    (tmp_path / "cases" / "c.json").write_text(json.dumps({"id": "c", "accept": [[step]]}))
    lines = []
    for i, (since, line) in enumerate(
        [("2026-03-14T09:00:00Z", "09:00 disk full"), ("2026-03-14T09:00:00+01:00", "08:00 deploy")]
    ):
        query = "service:api level:error host:web-1 env:production"
        result = {"query": query, "window": "one hour", "z_lines": [line]}
        call = {"tool": "logs", "args": {"since": since}, "result": result}
        lines.append(json.dumps({"run_id": f"r{i}", "case_id": "c", "calls": [call]}))
    (tmp_path / "traces" / "r.jsonl").write_text("\n".join(lines) + "\n")
    args = ["--tools", str(tmp_path / "tools"), "--cases", str(tmp_path / "cases")]
    result = CliRunner().invoke(app, ["score", *args, str(tmp_path / "traces"), "-f", "json"])
    assert result.exit_code == 0, result.output
    (doubt,) = json.loads(result.stdout)["summary"]["reply_evidence"]
    # cut alike from the start, both would read '{"query":"service:api level:error host:…'
    assert [c["reply"] for c in doubt["example"]["calls"]] == [
        '… hour","z_lines":["09:00 disk full"]}',
        '… hour","z_lines":["08:00 deploy"]}',
    ]


def test_a_call_without_the_rules_parameter_is_neither_counted_nor_kept(tmp_path, monkeypatch):
    """With its parameter absent the rule changes nothing: the call's group holds its spelling
    alone, so it is in no pair. It is not among the rule's `calls`, and it takes no place in a
    bounded sample that a pair could have had (with one group kept, the absent-`level` calls
    would have held it, digests permitting, and the pair been lost)."""
    for d in ("tools", "cases", "traces"):
        (tmp_path / d).mkdir()
    (tmp_path / "tools" / "t.json").write_text(
        json.dumps(
            {
                "name": "search_logs",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "service": {"type": "string"},
                        "level": {"type": "string", "x-eval-norm": "casefold"},
                    },
                },
            }
        )
    )
    (tmp_path / "cases" / "c.json").write_text(
        json.dumps({"id": "c", "accept": [[{"tool": "search_logs", "args": {"service": "api"}}]]})
    )
    lines = [
        {
            "run_id": f"n{i}",
            "case_id": "c",
            "calls": [{"tool": "search_logs", "args": {"service": f"s{i}"}, "result": {"n": i}}],
        }
        for i in range(40)
    ] + [
        {
            "run_id": f"l{i}",
            "case_id": "c",
            "calls": [
                {"tool": "search_logs", "args": {"service": "api", "level": lv}, "result": {"n": i}}
            ],
        }
        for i, lv in enumerate(["ERROR", "error"])
    ]
    (tmp_path / "traces" / "r.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    monkeypatch.setattr(replies, "MAX_GROUPS", 1)
    args = ["--tools", str(tmp_path / "tools"), "--cases", str(tmp_path / "cases")]
    result = CliRunner().invoke(app, ["score", str(tmp_path / "traces"), *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    (doubt,) = json.loads(result.stdout)["summary"]["reply_evidence"]
    assert (doubt["param"], doubt["calls"], doubt["pairs_differ"]) == ("level", 2, 1)
    assert doubt["sampled"] is False
