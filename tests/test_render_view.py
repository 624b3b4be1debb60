"""The summary view every score renderer reads (`evalrunner.summary.view`): built from a saved
results file and from the live scoring of the same traces, it is the same view."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from evalrunner.scoring import load_config
from evalrunner.scoring import score as run_scoring
from evalrunner.summary.view import SummaryView
from evalrunner.write import Collect, Output, Writer
from evalrunner.write.json import JsonWriter
from evalrunner.write.jsonl import JsonlWriter
from evalrunner.write.markdown import MarkdownWriter
from evalrunner.write.report import ReportWriter, render_saved

ROOT = Path(__file__).resolve().parent.parent
CONFIG = load_config(ROOT / "tools", ROOT / "cases")


def _saved(tmp_path: Path, writer_class: type, suffix: str, group_by: str | None) -> Path:
    out = io.BytesIO()
    run_scoring(CONFIG, [ROOT / "traces"], writer=writer_class(out), group_by=group_by)
    path = tmp_path / f"results{suffix}"
    path.write_bytes(out.getvalue())
    return path


@pytest.mark.parametrize("group_by", [None, "meta.model"])
@pytest.mark.parametrize(
    ("writer_class", "suffix"), [(JsonWriter, ".json"), (JsonlWriter, ".jsonl")]
)
def test_the_view_of_a_saved_file_is_the_view_of_the_live_scoring(
    tmp_path, writer_class, suffix, group_by
):
    collect = Collect()
    run_scoring(CONFIG, [ROOT / "traces"], writer=collect, group_by=group_by)
    assert collect.summary is not None
    live = SummaryView.of(collect.summary)

    path = _saved(tmp_path, writer_class, suffix, group_by)
    last = json.loads(path.read_text().splitlines()[-1])
    saved = SummaryView.from_json(last["summary"], warnings=last["warnings"])
    assert saved == live
    # and through the report path, which validates the file against the results schema
    seen = render_saved(path, MarkdownWriter(Output(io.BytesIO())))
    assert SummaryView.from_json(seen, warnings=last["warnings"]) == live

    assert live.runs == collect.summary.runs > 0
    assert live.true.failed_runs == collect.summary.true_failed_runs
    assert (live.groups is not None) == (group_by is not None)
    if live.groups is not None:
        assert sum(g.runs for g in live.groups.values()) == live.runs


def test_a_file_of_an_older_evalrun_reads_without_the_keys_it_lacks(tmp_path):
    """`falsely_failed_calls` is newer than some files: the most calls one shape explains."""
    path = _saved(tmp_path, JsonWriter, ".json", None)
    summary = json.loads(path.read_text())["summary"]
    for t in summary["by_tool"]:
        del t["falsely_failed_calls"]
    for key in ("all_calls", "lines", "reported_reading", "examples", "trials"):
        summary.pop(key, None)
    view = SummaryView.from_json(summary)
    assert view.all_calls is None and view.trials is None and view.examples == {}
    for t in view.by_tool:
        assert t.falsely_failed_calls == max(t.false_failures.values(), default=0)


def test_every_writer_is_one_protocols():
    """One `Writer` protocol: the report writers implement it, not a second interface."""
    assert Writer in ReportWriter.__mro__
    writer: Writer = MarkdownWriter(Output(io.BytesIO()))  # mypy checks the rest
    assert writer.encoder is not None


def test_a_report_writer_is_given_the_same_view_live_and_saved(tmp_path):
    """`finish` takes the summary's view, from a live scoring and from a saved file alike."""

    class Seen(MarkdownWriter):
        def finish(self, summary: SummaryView) -> None:
            self.seen = summary

    live = Seen(Output(io.BytesIO()))
    run_scoring(CONFIG, [ROOT / "traces"], writer=live, group_by="meta.model")
    saved = Seen(Output(io.BytesIO()))
    render_saved(_saved(tmp_path, JsonlWriter, ".jsonl", "meta.model"), saved)
    assert isinstance(live.seen, SummaryView) and saved.seen == live.seen
