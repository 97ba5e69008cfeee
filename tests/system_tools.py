"""The programs outside Python that some tests need: an X server, xdotool, Chromium, Node.js.

A test that needs one that is missing is skipped, with the reason and what to install,
so that a contributor without them (another Linux, macOS) still runs everything else.
In CI (``CI`` set, as ``.ci/run`` is run) it fails instead: there ``scripts/setup.sh``
installs them all, and a green run must not hide tests that did not run.
"""

from __future__ import annotations

import os
import shutil
from typing import NoReturn

import pytest

#: The Debian package of each program (``scripts/setup.sh`` installs them with apt-get).
DEBIAN_PACKAGE = {
    "Xvfb": "xvfb",
    "xdotool": "xdotool",
    "chromium": "chromium",
    "node": "nodejs",
    "soffice": "libreoffice-calc",
}


def unavailable(reason: str, fix: str) -> NoReturn:
    """Skip the test (fail it in CI), saying what is missing and how to get it."""
    message = f"{reason}. Suggested fix: {fix}"
    if os.environ.get("CI"):
        pytest.fail(f"{message} (CI must run every test: scripts/setup.sh installs it)")
    pytest.skip(message)


def program(name: str, *alternatives: str) -> str:
    """The path of ``name`` (or of the first of ``alternatives`` found), or the test skipped."""
    for candidate in (name, *alternatives):
        path = shutil.which(candidate)
        if path is not None:
            return path
    package = DEBIAN_PACKAGE.get(name, name)
    unavailable(
        f"{name} is not installed",
        f"run bash scripts/setup.sh (on Debian or Ubuntu), or install {name} yourself "
        f"(Debian: apt-get install {package})",
    )


def web_bundle() -> None:
    """The browser bundle that ``tol-web build`` copies, built from ``web/`` by Node.js."""
    from tol_tasks.web.build import WebBuildError, bundle_path

    try:
        bundle_path()
    except WebBuildError:
        unavailable(
            "the browser bundle is not built (tol_tasks/web/static/, made from web/ by Node.js)",
            "install Node.js 18 or newer with npm (Debian: apt-get install nodejs npm), then run "
            "npm --prefix web ci && npm --prefix web run build (bash scripts/setup.sh does both)",
        )
