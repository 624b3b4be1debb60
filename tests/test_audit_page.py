"""The reviewer's page (`audit sample --format html`), used as a person would, in a real headless
browser: it loads without errors or network requests, shows a run's calls beside its accepted
sequences, takes labels by click and by key, saves through the browser's download, and the saved
file is what `audit score` reads, with the numbers computed by hand in tests/test_audit_cli.py.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app
from tests.browser import browser, page, screenshot  # noqa: F401 (fixtures)
from tests.test_audit_cli import CENSUS_LABELS

DATA = Path(__file__).parent / "data" / "cli"
ENV = {"COLUMNS": "100", "NO_COLOR": "1"}


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    for name in ("tools", "cases", "traces"):
        shutil.copytree(DATA / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def audit(*args):
    result = CliRunner().invoke(app, ["audit", *args], env=ENV)
    assert result.exit_code == 0, result.output
    return result


def make_page(*args, output="sheet.html") -> Path:
    audit(
        "sample",
        "--failures",
        "4",
        "--passes",
        "3",
        "--seed",
        "1",
        "--format",
        "html",
        *args,
        "--output",
        output,
    )
    return Path(output).resolve()


def text(on, selector) -> str:
    return on.locator(selector).inner_text()


def test_a_reviewer_labels_every_run_saves_and_audit_score_reads_it(page, corpus):  # noqa: F811
    page.goto(make_page().as_uri())
    assert page.title() == "evalrun audit · 0/7"
    assert text(page, "#progress-text") == "0 of 7 labelled · 0 correct · 0 wrong"
    assert text(page, "#position") == "Run 1 of 7"
    assert page.locator("#verdict").is_hidden()  # blind
    assert "Blind" in text(page, "#blind")

    seen = []
    for i in range(7):
        run_id = text(page, "#run-id")
        seen.append(run_id)
        assert text(page, "#position") == f"Run {i + 1} of 7"
        if run_id == "r2":
            # the run's calls beside the accepted sequences, and the tools' descriptions
            assert '"month": "2026-03-01"' in text(page, "#calls")
            assert '"month": "2026-03"' in text(page, "#accept")
            assert "canonical" in text(page, "#accept")
            assert "match: contains" in text(page, "#match")
            assert "search_invoices" in text(page, "#tools")
            assert "x-eval-norm" not in page.content()  # blind to evalrun's rules too
        if run_id == "r8":
            assert "rejected by the tool" in text(page, "#calls")
            assert "timeout" in text(page, "#calls")
        label, note = (
            CENSUS_LABELS[run_id]
            if isinstance(CENSUS_LABELS[run_id], tuple)
            else (CENSUS_LABELS[run_id], "")
        )
        if note:
            page.keyboard.press("e")  # the note field, by its key
            page.keyboard.type(note)
            page.keyboard.press("Escape")
        if i % 2 == 0:
            page.click(f"#{label}")  # the button
        else:
            page.keyboard.press(label[0])  # c or w
    assert sorted(seen) == sorted(CENSUS_LABELS)
    assert text(page, "#progress-text") == "7 of 7 labelled · 3 correct · 4 wrong"
    assert page.title() == "evalrun audit · 7/7"

    # go back and check a label stuck, then change one's mind and back
    page.click("#strip button:nth-child(1)")
    assert text(page, "#position") == "Run 1 of 7"
    first = CENSUS_LABELS[seen[0]]
    first = first[0] if isinstance(first, tuple) else first
    assert page.locator(f"#{first}").get_attribute("aria-pressed") == "true"
    page.keyboard.press("x")
    assert text(page, "#progress-text").startswith("6 of 7 labelled")
    page.click(f"#{first}")

    page.set_viewport_size({"width": 1280, "height": 1200})  # the whole run, the bar below it
    screenshot(page, "audit-page")
    with page.expect_download() as download:
        page.click("#save")
    assert download.value.suggested_filename == "sheet.jsonl"
    saved = corpus / "saved.jsonl"
    download.value.save_as(saved)
    assert "Saved sheet.jsonl (7 of 7 labelled)" in text(page, "#status")
    assert page.errors == []  # no console error, no uncaught exception, no request out

    # The saved file is the JSONL sheet as sampled, byte for byte, with labels and notes set.
    audit("sample", "--failures", "4", "--passes", "3", "--seed", "1", "--output", "sheet.jsonl")
    sampled = Path("sheet.jsonl").read_text().splitlines()
    lines = saved.read_text().splitlines()
    assert lines[0] == sampled[0]
    for got, want in zip(lines[1:], sampled[1:], strict=True):
        assert got.rsplit(',"label":', 1)[0] == want.rsplit(',"label":', 1)[0]

    doc = json.loads(audit("score", str(saved), "--format", "json").stdout)
    assert doc["hand"]["true_run_failure_rate"] == 0.5714
    assert doc["hand"]["correct_among_reported_failures_ci95"] == [0.15, 0.85]
    assert doc["agreement"] == {
        "runs": 7,
        "agree": 5,
        "rate": 0.7143,
        "kappa": 0.4167,
        "matrix": {"correct": {"pass": 2, "fail": 1}, "wrong": {"pass": 1, "fail": 3}},
        "left_out_changed": 0,
    }
    notes = {d["run_id"]: d["note"] for d in doc["disagreements"]}
    assert notes == {
        "r2": "the month is [bold]not[/bold] March",
        "r3": "March 1st, 00:40 in Berlin is March",
    }


def test_labels_are_kept_in_the_browser_and_read_back_from_a_saved_sheet(page, corpus):  # noqa: F811
    uri = make_page().as_uri()
    page.goto(uri)
    page.keyboard.press("w")
    page.keyboard.press("c")
    page.reload()  # a closed tab, reopened: the labels are still there
    assert text(page, "#progress-text") == "2 of 7 labelled · 1 correct · 1 wrong"
    assert "Restored 2 labels" in text(page, "#status")
    with page.expect_download() as download:
        page.keyboard.press("s")
    saved = corpus / "half.jsonl"
    download.value.save_as(saved)

    # Another browser (a fresh context): open the saved labels to go on.
    other = page.context.browser.new_context()
    try:
        fresh = other.new_page()
        fresh.goto(uri)
        assert text(fresh, "#progress-text").startswith("0 of 7")
        fresh.set_input_files("#load", str(saved))
        # a locator's expectation, not wait_for_function: Playwright can evaluate a string
        # predicate through eval, which the page's CSP refuses (EvalError, twice in full runs
        # on a busy machine); the same 30 s to wait
        from playwright.sync_api import expect  # imported where the browser is (tests/browser.py)

        expect(fresh.locator("#progress-text")).to_have_text(re.compile(r"^2 of 7"), timeout=30_000)
        assert "Read 7 runs' labels from half.jsonl" in text(fresh, "#status")
    finally:
        other.close()
    assert page.errors == []


def test_the_page_with_verdicts_shows_them(page, corpus):  # noqa: F811
    page.goto(make_page("--show-verdict").as_uri())
    assert page.locator("#verdict").is_visible()
    assert text(page, "#verdict").startswith("evalrun: ")
    assert "Not blind" in text(page, "#blind")
    assert page.errors == []


HOSTILE = '</script><script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">'


def test_trace_content_is_shown_as_text_and_runs_nothing(page, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.chdir(tmp_path)
    for name in ("tools", "cases", "traces"):
        (tmp_path / name).mkdir()
    (tmp_path / "tools" / "t.json").write_text(
        json.dumps({"name": "lookup", "description": HOSTILE, "parameters": {"type": "object"}})
    )
    (tmp_path / "cases" / "c.json").write_text(
        json.dumps({"id": "x", "input": HOSTILE, "accept": [[{"tool": "lookup", "args": {}}]]})
    )
    run = {
        "run_id": HOSTILE,
        "case_id": "x",
        "calls": [{"tool": "lookup", "args": {"q": HOSTILE, "amount": 42.0}, "result": HOSTILE}],
        "world": {"note": HOSTILE, "\u2028": "\u2029"},
    }
    (tmp_path / "traces" / "t.jsonl").write_text(json.dumps(run) + "\n")
    path = make_page()
    html = path.read_text()
    assert "</script><script>window.pwned" not in html
    assert html.count("<script") == 2  # the data block and the page's own script
    page.goto(path.as_uri())
    assert page.evaluate("window.pwned") is None
    assert page.locator("img").count() == 0
    assert text(page, "#run-id") == HOSTILE
    assert HOSTILE in text(page, "#input")
    assert json.dumps(HOSTILE) in text(page, "#calls")  # a JSON string, shown as JSON
    assert '"amount": 42.0' in text(page, "#calls")  # as recorded: a float, not the integer 42
    assert HOSTILE in text(page, "#tools")
    page.keyboard.press("e")
    page.keyboard.type(HOSTILE)
    page.keyboard.press("Escape")
    page.keyboard.press("c")  # evalrun fails it (its arguments are not the case's)
    with page.expect_download() as download:
        page.click("#save")
    saved = tmp_path / "saved.jsonl"
    download.value.save_as(saved)
    assert page.errors == []
    doc = json.loads(audit("score", str(saved), "--format", "json").stdout)
    assert doc["disagreements"][0]["run_id"] == HOSTILE
    assert doc["disagreements"][0]["note"] == HOSTILE
