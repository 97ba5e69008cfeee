"""What some tests need beyond the core: programs (an X server, xdotool, Chromium, Node.js)
and tol-tasks' optional extras (:func:`extra`).

A test that needs one that is missing is skipped, with the reason and what to install,
so that a contributor without them (another Linux, macOS) still runs everything else.
In CI (``CI`` set, as ``.ci/run`` is run) it fails instead: there ``scripts/setup.sh``
installs them all, and a green run must not hide tests that did not run.
"""

from __future__ import annotations

import importlib
import os
import shutil
from types import ModuleType
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


def unavailable(reason: str, fix: str, *, module_level: bool = False) -> NoReturn:
    """Skip the test (fail it in CI), saying what is missing and how to get it.

    ``module_level``: called at a test module's top (every test of it skipped).
    """
    message = f"{reason}. Suggested fix: {fix}"
    if os.environ.get("CI"):
        pytest.fail(f"{message} (CI must run every test: scripts/setup.sh installs it)",
                    pytrace=False)  # fmt: skip
    pytest.skip(message, allow_module_level=module_level)


def extra(module: str, name: str, *, module_level: bool = False) -> ModuleType:
    """``module``, which tol-tasks' optional extra ``name`` installs; missing, the test is
    skipped with the install hint (failed in CI, where every extra is installed)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        how = (
            "uv sync --all-extras (the dev group; bash scripts/setup.sh)"
            if name == "dev"
            else f'pip install "tol-tasks[{name}]", or uv sync --all-extras (bash scripts/setup.sh)'
        )
        unavailable(f"{module} is not installed (tol-tasks' {name!r} dependencies)", how,
                    module_level=module_level)  # fmt: skip


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
