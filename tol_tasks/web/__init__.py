"""The same protocols online: ``tol-web build`` compiles a protocol for the browser.

Pure (no PsychoPy): :func:`~tol_tasks.web.compile.compile_protocol` turns a
checked protocol into the data the jsPsych page plays,
:func:`~tol_tasks.web.build.build_experiment` writes the static experiment
folder. The JavaScript itself (the tower plugin and the session runner) lives
in the repository's ``web/`` folder and travels in this package, built, as
``static/tol-tasks.js`` and ``static/plugin-tower.js``. See ``docs/web.md``.
"""

from __future__ import annotations

from .build import BuildResult, WebBuildError, WebSettings, build_experiment, bundle_path
from .compile import browser_issues, compile_protocol

__all__ = [
    "BuildResult",
    "WebBuildError",
    "WebSettings",
    "browser_issues",
    "build_experiment",
    "bundle_path",
    "compile_protocol",
]
