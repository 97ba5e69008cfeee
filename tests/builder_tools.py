"""Helpers for the tests of the Builder example (docs/builder): compile it with PsychoPy's own
compiler, run the script as PsychoPy's runner does, find the files it writes.

Each takes the Python to use, so that the example runs in another environment too (the
built wheel installed beside the oldest supported PsychoPy: tests/test_release.py).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd

from tests.runner_tools import running, xdotool
from tests.warm import warm
from tol_tasks.session_data.eventlog import read_event_log
from tol_tasks.session_data.sidecar import read_sidecar

HERE = Path(__file__).parent
EXAMPLE = HERE.parent / "docs" / "builder"
PROBLEMS = [("GR|B|", "|RB|G"), ("GR|B|", "G|R|B"), ("GR|B|", "B|GR|")]  # conditions.csv

# Loads an experiment with PsychoPy's API (plugins active, as in Builder), changes some
# Tower parameters, saves it and compiles it with PsychoPy's compiler.
_EDIT_AND_COMPILE = """
import sys
from psychopy import plugins
plugins.activatePlugins()
from psychopy import experiment
from psychopy.scripts.psyexpCompile import compileScript
src, dst, out = sys.argv[1:4]
exp = experiment.Experiment()
exp.loadFromXML(src)
for pair in sys.argv[4:]:
    key, value = pair.split("=", 1)
    if key.startswith("@"):  # an experiment setting, e.g. @Enable Escape
        exp.settings.params[key[1:]].val = eval(value)
    else:
        exp.routines["problem"].getComponentFromName("tower").params[key].val = eval(value)
exp.saveToXML(dst)
compileScript(dst, None, out)
"""


def compile_example(
    folder: Path,
    target: str = "py",
    python: str = sys.executable,
    settings: dict | None = None,
    env: dict | None = None,
    **params,
) -> subprocess.CompletedProcess:
    """Copy the example into ``folder``, set Tower ``params`` (and the experiment's
    ``settings``, e.g. ``{"Enable Escape": False}``), compile it to ``target`` with the
    PsychoPy of ``python`` (by default the tests' own), in ``env`` (by default this
    process's environment): played by the worker's warm interpreter where ``env`` has a
    running X display (:func:`tests.warm.warm`)."""
    for name in ("tower_example.psyexp", "conditions.csv"):
        if not (folder / name).exists():
            shutil.copy(EXAMPLE / name, folder / name)
    edits = [f"{k}={v!r}" for k, v in params.items()]
    edits += [f"@{k}={v!r}" for k, v in (settings or {}).items()]
    command = [python, "-c", _EDIT_AND_COMPILE, "tower_example.psyexp", "edited.psyexp",
               str(folder / f"tower_example.{target}"), *edits]  # fmt: skip
    return subprocess.run(warm(command, env), cwd=folder, capture_output=True, text=True,
                          timeout=300, check=False, env=env)  # fmt: skip


RUN_SCRIPT = HERE / "data" / "experiments" / "run_builder_script.py"


@contextmanager
def running_example(
    folder: Path, env: dict, python: str = sys.executable
) -> Iterator[subprocess.Popen]:
    """The compiled script, run as PsychoPy's runner runs it (dialog bypassed), as P001,
    by ``python``, with its welcome screen passed (space); killed if still running after."""
    with running([python, str(RUN_SCRIPT), "tower_example.py", "P001"], env=env,
                 cwd=folder) as proc:  # fmt: skip
        _press_space_when_shown(folder, proc, env)
        yield proc


def wait_for_onset(folder: Path, proc) -> dict:
    """Wait until the Tower's first problem is on screen; return its sidecar."""
    _wait_for(lambda: bool(tower_logs(folder)) and any(
        r["event"] == "trial_onset" for r in read_event_log(tower_logs(folder)[0]).rows),
        proc, "the problem's onset")  # fmt: skip
    time.sleep(0.5)
    return read_sidecar(tower_logs(folder)[0].with_suffix(".json"))


def _press_space_when_shown(folder: Path, proc, env: dict, timeout: float = 150) -> None:
    """The welcome Routine waits for space: press it (a real X key event) once it is shown.

    Pressed once the experiment's window is mapped, and again every few seconds
    until the Tower Routine has begun (its new event log appears): on a loaded machine
    the Routine may start a little after the window.
    """

    def window_shown() -> bool:
        found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "."], env=env,
                               capture_output=True, text=True, check=False)  # fmt: skip
        return bool(found.stdout.strip())

    before = len(tower_logs(folder))  # an earlier run's logs, if any
    _wait_for(window_shown, proc, "the experiment's window", timeout)
    end = time.monotonic() + 90
    while len(tower_logs(folder)) == before and time.monotonic() < end:
        time.sleep(2)
        # X sends keys to the window under the pointer (no window manager): the screen's
        # centre is inside PsychoPy's centred window.
        xdotool("mousemove", "640", "512", env=env)
        time.sleep(0.3)
        xdotool("key", "space", env=env)
        time.sleep(1)


def _wait_for(predicate, proc, what: str, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        if proc.poll() is not None:
            raise AssertionError(f"the experiment ended before {what}:\n{proc.communicate()}")
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def builder_csv(folder: Path) -> pd.DataFrame:
    (path,) = list((folder / "data").glob("P001_tower_example_*.csv"))
    return pd.read_csv(path)


def tower_logs(folder: Path) -> list[Path]:
    return sorted((folder / "data").glob("P001_tower_example-tower_*.csv"))
