"""Sphinx configuration of the tol-tasks documentation site (built by scripts/docs.sh)."""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

from tol_tasks import __version__  # noqa: E402

project = "tol-tasks"
author = "tol-tasks developers"
copyright = "tol-tasks developers"
version = release = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "tol_docs",  # docs/_ext/tol_docs.py: the generated pages and the screenshots
]

root_doc = "index"
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = [
    "_build",
    # The committed copies of the two generated reference pages (kept for readers of the
    # repository, checked by tests/test_eventlog.py and tests/test_sidecar.py); the site
    # shows the ones generated in this build (_generated/).
    "event-log.md",
    "sidecar.md",
    # Generated fragments that pages include (platforms.md, troubleshooting.md), not pages.
    "_generated/system-packages.md",
    "_generated/first-mistakes.md",
    # Folders of example files, not pages.
    "builder",
    "web-example",
    "reports",
    "images",
    "launcher",
]

# MyST: Markdown pages; headings up to level 3 get anchors that [](#...) and [](page.md#...)
# links are checked against; dollar maths for the solver page.
myst_enable_extensions = ["colon_fence", "dollarmath", "deflist"]
myst_heading_anchors = 3

# Every warning is an error (scripts/docs.sh runs with -W --keep-going); a link to a page or
# an anchor that does not exist is such a warning (myst.xref_missing), and so is a
# cross-reference role to a Python object that does not exist.
nitpicky = True

# The API reference. Only the runner and the Builder component import PsychoPy; they are
# documented with PsychoPy (and pyglet, which PsychoPy's window pulls in) mocked, so the site
# builds without PsychoPy or a display.
autosummary_generate = True
autodoc_mock_imports = ["psychopy", "pyglet"]
autodoc_typehints = "none"
autodoc_default_options = {"members": True, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_validation_checks: set[str] = set()

html_theme = "pydata_sphinx_theme"
html_title = f"tol-tasks {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "navbar_end": ["theme-switcher"],
}
# The whole site's navigation in the left sidebar of every page (docs/_templates/site-nav.html),
# code blocks that scroll rather than overflow (docs/_static/site.css).
templates_path = ["_templates"]
html_sidebars = {"**": ["site-nav.html"]}
html_static_path = ["_static"]
html_css_files = ["site.css"]
html_show_sourcelink = False

# Set by the link-check test's quick build of a copy: no screenshots (no Xvfb runs).
tol_screenshots = True
