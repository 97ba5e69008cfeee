"""The documentation site as a reader sees it, in headless Chromium (Debian's).

Every page, at a phone's width and at 1280 and 1920 px: the page never scrolls sideways
(a code block or a table scrolls inside itself), no code block is cut off, and the
site's navigation is on it. The troubleshooting page holds the messages the commands
print, each with its fix.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser_tools import StaticServer
from tests.site_tools import WIDTHS, look, pages, problems

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built as scripts/docs.sh builds it (without the screenshots' sessions)."""
    out = tmp_path_factory.mktemp("site") / "html"
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         str(ROOT / "docs"), str(out), "-D", "tol_screenshots=0"],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    others = [w for w in done.stderr.splitlines()
              if "WARNING" in w and "image file not readable" not in w]  # fmt: skip
    assert others == [], done.stderr  # (screenshots: only when no earlier build left them)
    return out


@pytest.mark.slow
def test_every_page_fits_and_has_the_navigation_at_every_width(site, chromium):
    found = {}
    browser = chromium  # the worker's one browser: Playwright's sync API cannot nest a second
    with StaticServer(site) as server:
        for page in pages(site):
            rel = page.relative_to(site).as_posix()
            for width in WIDTHS.values():
                said = problems(look(browser, server.url(rel), width), width)
                if said:
                    found[f"{rel} at {width} px"] = said
    assert len(pages(site)) > 40
    assert found == {}


@pytest.mark.slow
def test_the_check_finds_a_page_a_reader_would_trip_over(site, tmp_path, chromium):
    wide = "x" * 400
    (site / "planted.html").write_text(
        '<html><body><div class="bd-article">'
        f'<pre style="overflow: hidden; width: 300px">{wide}</pre>'
        '<div style="width: 3000px">a table too wide</div></div>'
        f'<div class="bd-sidebar-secondary" style="width: 200px; overflow-x: auto">'
        f'<code style="white-space: nowrap">{wide}</code></div></body></html>',
        encoding="utf-8",
    )
    with StaticServer(site) as server:
        said = problems(look(chromium, server.url("planted.html"), 1280), 1280)
    assert [s.split(" ")[0:3] for s in said] == [
        ["the", "page", "scrolls"],
        ["code", "blocks", "cut"],
        ["sidebar", "contents", "run"],
        ["the", "site", "navigation"],
    ]


@pytest.mark.slow
def test_the_troubleshooting_page_shows_each_message_with_its_fix(site):
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        from tol_docs import FIRST_MISTAKES, _said
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    page = (site / "troubleshooting.html").read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", page))  # as read (highlighting left out)
    for _what, files, command in FIRST_MISTAKES:
        said = _said(files, command)
        assert f"$ {command}" in text
        for line in said.splitlines():  # the message as the command prints it, fix included
            assert line.strip() in text, line
        # each names its fix: a suggested fix, or the option or argument it lacks
        assert "Suggested fix" in said or "is required" in said or "give a protocol" in said
