"""The browser the HTML tests use works here: it loads a page, runs its script, clicks, and
records what a broken page would show (console errors, requests that leave the page)."""

from __future__ import annotations

from tests.browser import browser, page, screenshot  # noqa: F401 (fixtures)


def test_the_browser_runs_a_page_and_reports_its_errors(page, tmp_path):  # noqa: F811
    html = tmp_path / "p.html"
    html.write_text(
        "<!doctype html><title>t</title><button id=b onclick=\"document.title='clicked'\">go"
        "</button><script>console.error('seen'); fetch('http://127.0.0.1:9/x').catch(()=>{})"
        "</script>"
    )
    page.goto(html.as_uri())
    page.click("#b")
    assert page.title() == "clicked"
    page.wait_for_timeout(200)
    assert "console: seen" in page.errors
    assert any(e.startswith("network: http://127.0.0.1:9/x") for e in page.errors)
    assert screenshot(page, "browser-smoke").stat().st_size > 0
