"""The HTML pages in a real headless browser: they load without errors or network requests,
the numbers they show are the JSON's, the filters change what is shown, and trace content stays
text. Screenshots are kept in tests/artifacts/; `EVALRUN_UPDATE_SCREENSHOT=1` also refreshes
docs/report.png, the README's picture."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app
from tests.browser import browser, page, screenshot  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data" / "cli"


def _corpus() -> Path:
    """The example corpus when the repository has it, else the CLI tests' files."""
    return ROOT if (ROOT / "traces").is_dir() and (ROOT / "tools").is_dir() else DATA


def cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "100", "NO_COLOR": "1"})
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def score(corpus: Path, *args: str) -> str:
    return cli(
        "score",
        str(corpus / "traces"),
        "--tools",
        str(corpus / "tools"),
        "--cases",
        str(corpus / "cases"),
        *args,
    )


def at(value: Any, path: list[Any]) -> Any:
    for key in path:
        value = value[key]
    return value


def shown(value: Any, path: list[Any]) -> str:
    """How the page writes a summary value: counts with separators, rates as percentages."""
    last = next((k for k in reversed(path) if isinstance(k, str)), "")
    if "rate" in last or last in ("call_share_with_norms", "reported", "true"):
        return f"{100 * value:.1f}%"
    return f"{value:,}"


def numbers(p: Any) -> list[tuple[list[Any], str]]:
    return p.eval_on_selector_all(
        "[data-k]", "els => els.map(e => [JSON.parse(e.dataset.k), e.textContent])"
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    corpus = _corpus()
    out = tmp_path_factory.mktemp("report")
    page_file = out / "report.html"
    here = os.getcwd()
    os.chdir(corpus)  # the page names its inputs as given: traces/, as in the README
    try:
        score(Path(), "-f", "html", "-o", str(page_file), "--group-by", "meta.model")
        summary = json.loads(score(Path(), "-f", "json", "--group-by", "meta.model"))["summary"]
    finally:
        os.chdir(here)
    return page_file, summary


def test_the_report_loads_clean_and_shows_the_jsons_numbers(page, report):  # noqa: F811
    page_file, summary = report
    page.set_viewport_size({"width": 1200, "height": 1500})
    page.goto(page_file.as_uri())
    page.wait_for_selector("#run-list .run")
    assert page.errors == []
    found = numbers(page)
    keys = {json.dumps(k) for k, _ in found}
    for path, text in found:
        assert text == shown(at(summary, path), path), path
    wanted = [
        ["runs"],
        ["calls"],
        ["unscoreable"],
        ["reported", "run_failure_rate"],
        ["true", "run_failure_rate"],
        ["reported", "failed_runs"],
        ["true", "failed_runs"],
        ["reported", "call_failure_rate"],
        ["true", "call_failure_rate"],
        *(["verdicts", v] for v in summary["verdicts"]),
        *(["false_failures", s] for s in summary["false_failures"]),
        *(["false_passes", s] for s in summary["false_passes"]),
        ["effects", "checked"],
        ["effects", "failed"],
        ["effects", "unverified"],
        ["coverage", "tools"],
        ["coverage", "tools_with_norms"],
        ["coverage", "call_share_with_norms"],
        ["by_tool", 0, "calls"],
        *(["groups", g, "true", "run_failure_rate"] for g in summary["groups"]),
    ]
    if summary["normalizer_suspects"]:
        wanted.append(["normalizer_suspects", 0, "runs"])
    if "trials" in summary:
        wanted.append(["trials", "pass_hat_k", 0, "true"])
    missing = [w for w in wanted if json.dumps(w) not in keys]
    assert missing == []
    path = screenshot(page, "report")
    page.screenshot(path=str(path.with_name("report-top.png")))  # the first screen
    if os.environ.get("EVALRUN_UPDATE_SCREENSHOT"):
        shutil.copy(path.with_name("report-top.png"), ROOT / "docs" / "report.png")


def _cards(p: Any) -> list[dict[str, str]]:
    return p.eval_on_selector_all(
        "#run-list .run",
        "els => els.map(e => ({verdict: e.dataset.verdict, text: e.textContent}))",
    )


def _matching(p: Any) -> int:
    return int(p.text_content("#n-match").replace(",", ""))


def test_the_filters_change_what_is_shown(page, report):  # noqa: F811
    page_file, summary = report
    page.goto(page_file.as_uri())
    page.wait_for_selector("#run-list .run")
    not_pass = sum(v for k, v in summary["verdicts"].items() if k != "pass")
    assert _matching(page) == not_pass  # the example corpus is small enough to embed them all
    assert len(_cards(page)) == min(100, not_pass)

    page.select_option("#f-verdict", "false_pass")
    assert _matching(page) == summary["verdicts"]["false_pass"]
    assert {c["verdict"] for c in _cards(page)} == {"false_pass"}

    page.select_option("#f-verdict", "")
    page.select_option("#f-shape", "encoding")
    cards = _cards(page)
    assert cards and all("encoding" in c["text"] for c in cards)
    assert _matching(page) < not_pass

    page.click("#reset")
    tool = page.eval_on_selector_all("#f-tool option", "os => os.map(o => o.value)")[1]
    page.select_option("#f-tool", tool)
    assert all(tool in c["text"] for c in _cards(page))

    page.click("#reset")
    first = _cards(page)[0]["text"]
    case_id = page.text_content("#run-list .run .case")
    page.fill("#f-case", case_id)
    assert 0 < _matching(page) < not_pass
    assert all(case_id in c["text"] for c in _cards(page))
    assert first

    page.click("#reset")
    groups = page.eval_on_selector_all("#f-group option", "os => os.map(o => o.value)")[1:]
    assert groups == sorted(summary["groups"])
    page.select_option("#f-group", groups[0])
    group = summary["groups"][groups[0]]
    assert _matching(page) == sum(v for k, v in group["verdicts"].items() if k != "pass")

    page.click("#reset")
    if not_pass > 100:
        page.click("#more")
        assert len(_cards(page)) == min(200, not_pass)
    assert page.errors == []


def test_trace_content_stays_text_in_the_browser(page, tmp_path):  # noqa: F811
    evil = "</script><script>window.pwned=1</script><img src=x onerror=window.pwned=2>"
    record = json.loads((DATA / "traces" / "a.jsonl").read_text().splitlines()[1])
    record["run_id"] = evil
    record["case_id"] = "refund-dana-march"
    record["calls"][0]["args"]["month"] = evil
    traces = tmp_path / "t.jsonl"
    traces.write_text(json.dumps(record) + "\n")
    out = tmp_path / "p.html"
    cli(
        "score",
        str(traces),
        "--tools",
        str(DATA / "tools"),
        "--cases",
        str(DATA / "cases"),
        "-f",
        "html",
        "-o",
        str(out),
    )
    page.goto(out.as_uri())
    page.wait_for_selector("#run-list .run")
    assert page.evaluate("window.pwned") is None
    assert page.text_content("#run-list .run .id") == evil
    assert evil[:20] in page.text_content("#run-list .run")
    # the only request the page made was for itself (the broken <img> would have been one)
    assert page.errors == []


def test_the_diff_page(page, tmp_path):  # noqa: F811
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(score(DATA, "-f", "json"))
    tools = tmp_path / "tools"
    shutil.copytree(DATA / "tools", tools)
    billing = tools / "billing.json"
    billing.write_text(billing.read_text().replace('"x-eval-norm": "month"', '"description": "m"'))
    new.write_text(
        cli(
            "score",
            str(DATA / "traces"),
            "--tools",
            str(tools),
            "--cases",
            str(DATA / "cases"),
            "-f",
            "json",
        )
    )
    diff = json.loads(cli("diff", str(old), str(new), "-f", "json"))
    out = tmp_path / "diff.html"
    cli("diff", str(old), str(new), "-f", "html", "-o", str(out))
    page.goto(out.as_uri())
    page.wait_for_selector("#flip-list tr")
    assert page.errors == []
    for path, text in numbers(page):
        value = at(diff, path)
        if path[0] == "delta":
            assert text == ("0.0 pts" if value == 0 else f"{100 * value:+.1f} pts")
        elif path == ["flips"]:
            assert text == f"{len(value):,}"
        else:
            assert text == shown(value, path), path
    rows = page.eval_on_selector_all("#flip-list tr", "rs => rs.map(r => r.textContent)")
    assert len(rows) == len(diff["flips"]) > 0
    page.fill("#f-text", "no such cause anywhere")
    assert page.eval_on_selector_all("#flip-list tr", "rs => rs.length") == 0
    screenshot(page, "diff")
