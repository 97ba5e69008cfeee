"""Runner layer: the PsychoPy session and its drawing and input, the only code that imports PsychoPy; imports every layer below it.

Importing this package does not import PsychoPy: the settings
(:class:`RunSettings`), the checks made before a window opens
(:func:`prepare`) and the simulated participant's times need none.
:class:`TowerTask` (the engine a PsychoPy experiment embeds) and
:func:`run_session` import PsychoPy on first use, and say how to get it, or a
screen, when there is none. Install it with ``pip install "tol-tasks[runner]"``.
"""

from __future__ import annotations

from pathlib import Path

from tol_tasks.errors import TolTasksError
from tol_tasks.protocol_format.model import LoadedProtocol

from .files import session_paths
from .prepare import Prepared, prepare
from .results import EXPERIMENT_COLUMNS, ProblemResult, RunResult
from .settings import RunSettings, SettingsError
from .simulation import SimulatedTimes

__all__ = [
    "EXPERIMENT_COLUMNS",
    "DisplayError",
    "MissingPsychoPyError",
    "Prepared",
    "ProblemResult",
    "RunResult",
    "RunSettings",
    "SettingsError",
    "SimulatedTimes",
    "TaskSetupError",
    "TowerTask",
    "prepare",
    "run_session",
    "session_paths",
]

#: Names served from modules that import PsychoPy, imported on first use.
_LAZY = {"TowerTask": "engine", "TaskSetupError": "experiment"}


class DisplayError(TolTasksError, RuntimeError):
    """No screen to open a window on."""


class MissingPsychoPyError(TolTasksError, ImportError):
    """PsychoPy is not installed (an analyst's environment): how to get it.

    An :class:`ImportError` too, so code that tries the runner and falls back still can.
    """


def _import_psychopy_part(module: str):
    """A runner module that imports PsychoPy, or the project's own error with the fix."""
    import importlib

    from .interrupt import signals_held

    try:
        with signals_held():  # a signal is handled once the import is whole
            return importlib.import_module(f"{__name__}.{module}")
    except ImportError as exc:
        if (exc.name or "").split(".")[0] in ("psychopy", "pyglet"):  # the module not found
            raise MissingPsychoPyError(
                f"the runner needs PsychoPy, which is not installed here ({exc}).",
                fix='pip install "tol-tasks[runner]" into this Python (PsychoPy 2025.2 or '
                "later; a PsychoPy already installed is kept), or: uv sync --all-extras",
            ) from None
        raise
    except Exception as exc:
        if type(exc).__name__ == "NoSuchDisplayException":
            raise DisplayError(
                f"no screen to show the task on ({exc}).",
                fix="run it on a computer with a display, or on a virtual one: "
                'xvfb-run -a -s "-screen 0 1280x1024x24" tol-run ...',
            ) from None
        raise


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(_import_psychopy_part(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run_session(settings: RunSettings, protocol: str | Path | LoadedProtocol | None = None,
                interrupts=None) -> RunResult:  # fmt: skip
    """Run one participant session in a window of its own (see :mod:`tol_tasks.runner.run`).

    Everything that can be checked without a screen is checked first
    (:func:`~tol_tasks.runner.prepare.prepare`, which reads the protocol once and
    takes the session's lock); nothing is written if it fails. ``interrupts``: an
    :class:`~tol_tasks.runner.interrupt.Interrupts` the caller's signal handlers
    feed (``tol-run``).
    """
    prepared = prepare(settings, protocol)
    try:
        run = _import_psychopy_part("run")
    except BaseException:
        prepared.release()
        raise
    return run.run_session(prepared, interrupts)
