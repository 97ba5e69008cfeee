"""Runner layer: the PsychoPy session and its drawing and input, the only code that imports PsychoPy; imports every layer below it.

Importing this package does not import PsychoPy; :func:`run_session` and
:class:`TowerTask` (the engine a PsychoPy experiment embeds) do, on first use.
Install it with ``pip install "tol-tasks[runner]"``.
"""

from __future__ import annotations

from tol_tasks.errors import TolTasksError

from .files import RunConfig, session_paths
from .prepare import prepare
from .simulation import SimulatedTimes

__all__ = [
    "DisplayError",
    "ProblemResult",
    "RunConfig",
    "SimulatedTimes",
    "TaskSetupError",
    "TowerTask",
    "prepare",
    "run_session",
    "session_paths",
]

#: Names served from the engine module, imported (with PsychoPy) on first use.
_ENGINE_NAMES = ("TowerTask", "ProblemResult", "TaskSetupError", "RunResult")


def __getattr__(name: str):
    if name in _ENGINE_NAMES:
        try:
            from . import engine
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise ImportError(
                f"tol_tasks.runner.{name} needs PsychoPy ({exc}). Install it with: "
                'pip install "tol-tasks[runner]"'
            ) from exc
        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class DisplayError(TolTasksError, RuntimeError):
    """No screen to open a window on."""


def run_session(config: RunConfig):
    """Run one participant session (see :mod:`tol_tasks.runner.run`).

    Everything that can be checked without a screen is checked first
    (:func:`~tol_tasks.runner.prepare.prepare`); nothing is written if it fails.
    """
    prepared = prepare(config)
    try:
        from .run import run_session as _run
    except ImportError as exc:  # pragma: no cover - depends on the installation
        if "psychopy" in str(exc).lower() or "pyglet" in str(exc).lower():
            raise ImportError(
                f"the runner needs PsychoPy ({exc}). Install it with: "
                'pip install "tol-tasks[runner]"  (or: uv sync --all-extras)'
            ) from exc
        raise
    except Exception as exc:
        if type(exc).__name__ == "NoSuchDisplayException":
            raise DisplayError(
                f"no screen to show the task on ({exc}). Suggested fix: run it on a computer "
                'with a display, or on a virtual one: xvfb-run -a -s "-screen 0 1280x1024x24" tol-run ...'
            ) from None
        raise
    return _run(config, prepared)
