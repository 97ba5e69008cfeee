"""The documentation site as a reader sees it: each page in headless Chromium at a width.

Used by tests/test_site.py, and on its own to take the screenshots a person looks at
before a release (docs/development.md)::

    uv run --frozen python -m tests.site_tools docs/_build/html SHOTS_FOLDER

writes one full-page PNG per page and width, and prints what :func:`look` found wrong.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: The widths looked at: a phone, a laptop, a desktop screen (CSS pixels).
WIDTHS = {"phone": 390, "laptop": 1280, "desktop": 1920}

#: The built pages a reader opens (not the theme's own assets).
_NOT_PAGES = ("_static", "_sources", "_modules", "_images")

#: Measured in the page: how wide the document is against the window, the site
#: navigation's links, each code block that is wider than its box yet cannot scroll, and
#: each sidebar whose contents run past its edge (a long command in a heading, cut off).
_MEASURE = """() => {
  const nav = document.querySelector('nav.bd-docs-nav');
  const sides = [...document.querySelectorAll('.bd-sidebar-primary, .bd-sidebar-secondary')]
      .filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
      .map(e => e.className.split(' ')[0]);
  const blocks = [...document.querySelectorAll('.bd-article pre')];
  const cut = blocks.filter(p => p.scrollWidth > p.clientWidth + 1
      && !['auto', 'scroll'].includes(getComputedStyle(p).overflowX));
  const wide = [...document.querySelectorAll('.bd-article *')].filter(e => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.right > window.innerWidth + 1
        && !e.closest('pre, .table-wrapper, table, .MathJax, mjx-container');
  }).map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : ''));
  return {
    scroll: document.documentElement.scrollWidth, window: window.innerWidth,
    navLinks: nav ? nav.querySelectorAll('a').length : 0,
    navToggle: !!document.querySelector('.primary-toggle, label.sidebar-toggle.primary-toggle'),
    cut: cut.map(p => p.textContent.slice(0, 60)), wide: wide.slice(0, 5), sides,
  };
}"""


def pages(site: Path) -> list[Path]:
    """Every HTML page of the built ``site``, sorted."""
    return sorted(
        p
        for p in site.rglob("*.html")
        if not any(part in _NOT_PAGES for part in p.relative_to(site).parts)
    )


def look(browser, url: str, width: int, shot: Path | None = None) -> dict:
    """Open ``url`` at ``width`` CSS pixels; what :data:`_MEASURE` finds (and a screenshot)."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        page.goto(url, wait_until="load")
        found = page.evaluate(_MEASURE)
        if shot is not None:
            page.screenshot(path=str(shot), full_page=True)
        return found
    finally:
        context.close()


def problems(found: dict, width: int) -> list[str]:
    """What a reader would trip over on a page, from :func:`look`'s measures."""
    out = []
    if found["scroll"] > found["window"] + 1:
        out.append(f"the page scrolls sideways ({found['scroll']} px wide in {width}): "
                   f"{found['wide']}")  # fmt: skip
    if found["cut"]:
        out.append(f"code blocks cut off: {found['cut']}")
    if found["sides"]:
        out.append(f"sidebar contents run past its edge: {found['sides']}")
    if found["navLinks"] < 10:
        out.append(f"the site navigation has {found['navLinks']} links")
    return out


def main(site: str, shots: str) -> int:
    from tests.browser_tools import StaticServer, chromium_browser

    root, folder = Path(site), Path(shots)
    folder.mkdir(parents=True, exist_ok=True)
    bad = 0
    with StaticServer(root) as server, chromium_browser() as browser:
        for page in pages(root):
            rel = page.relative_to(root).as_posix()
            for name, width in WIDTHS.items():
                shot = folder / f"{rel.replace('/', '_').removesuffix('.html')}-{name}.png"
                for problem in problems(look(browser, server.url(rel), width, shot), width):
                    bad += 1
                    print(f"{rel} at {width} px: {problem}")
    print(f"{len(pages(root))} pages at {', '.join(map(str, WIDTHS.values()))} px: "
          f"{bad} problems; screenshots in {folder}")  # fmt: skip
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
