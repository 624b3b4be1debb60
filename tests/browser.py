"""A real headless browser for the tests of evalrun's HTML pages: Debian's chromium, driven by
Playwright (its own browser downloads cannot work here, so it launches the system's).

Use the `page` fixture (import it in the test module: `from tests.browser import page  # noqa`).
Without chromium the tests are skipped locally; `.ci/run` installs it and sets
EVALRUN_REQUIRE_BROWSER=1, so in CI a missing browser fails instead of skipping. Every page
records its console errors and uncaught exceptions in `page.errors`; screenshots go to
`tests/artifacts/` (gitignored), kept as test artefacts.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ARTIFACTS = Path(__file__).parent / "artifacts"
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# As root, with the network closed: no sandbox, and no background connections that would fail.
FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def find_chromium() -> str | None:
    explicit = os.environ.get("EVALRUN_CHROMIUM")
    if explicit:
        return explicit
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _missing(why: str) -> None:
    if os.environ.get("EVALRUN_REQUIRE_BROWSER"):
        pytest.fail(f"{why} (EVALRUN_REQUIRE_BROWSER is set: CI must have it)")
    pytest.skip(why)


_LAUNCHED: list[Any] = []
"""The one browser of this test process. Each module that imports the fixtures gets its own
copy of them, and Playwright's sync API cannot run twice at once in a thread: they share it."""


@pytest.fixture(scope="session")
def browser(request: pytest.FixtureRequest) -> Iterator[Any]:
    if _LAUNCHED:
        yield _LAUNCHED[0]
        return
    executable = find_chromium()
    if executable is None:
        _missing("no chromium on PATH (apt-get install chromium, or set EVALRUN_CHROMIUM)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install -e '.[dev]')")
    p = sync_playwright().start()
    launched = p.chromium.launch(executable_path=executable, args=list(FLAGS))
    _LAUNCHED.append(launched)

    def stop() -> None:
        _LAUNCHED.clear()
        launched.close()
        p.stop()

    request.config.add_cleanup(stop)  # at the end of the session, whichever module started it
    yield launched


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page with `page.errors`: console errors and uncaught exceptions, as text. Requests
    that leave the page (anything but file: and data: URLs) are blocked and recorded as errors:
    a self-contained page needs no network."""
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))

    def block(route: Any) -> None:
        url = route.request.url
        if url.startswith(("file:", "data:", "blob:", "about:")):
            route.continue_()
        else:
            errors.append(f"network: {url}")
            route.abort()

    page.route("**/*", block)
    page.errors = errors
    yield page
    context.close()


def screenshot(page: Any, name: str) -> Path:
    """Keep a full-page screenshot as a test artefact; returns its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
