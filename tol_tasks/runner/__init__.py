"""The PsychoPy runner: the only part of tol-tasks that imports PsychoPy.

Importing this package does not import PsychoPy; :func:`run_session` does.
Install it with ``pip install "tol-tasks[runner]"``.
"""

from __future__ import annotations

from .files import RunConfig, session_paths

__all__ = ["RunConfig", "run_session", "session_paths"]


def run_session(config: RunConfig):
    """Run one participant session (see :mod:`tol_tasks.runner.run`)."""
    try:
        from .run import run_session as _run
    except ImportError as exc:  # pragma: no cover - depends on the installation
        if "psychopy" in str(exc).lower() or "pyglet" in str(exc).lower():
            raise ImportError(
                f"the runner needs PsychoPy ({exc}). Install it with: "
                'pip install "tol-tasks[runner]"  (or: uv sync --all-extras)'
            ) from exc
        raise
    return _run(config)
