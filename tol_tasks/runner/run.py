"""``tol-run``'s session: it opens the window, runs :class:`~tol_tasks.runner.engine.TowerTask`, closes.

Everything the participant sees and every row of the log comes from the
engine, the same code a PsychoPy experiment embeds.
"""

from __future__ import annotations

import contextlib
import os
import sys

from psychopy import visual

from tol_tasks.session_data.sidecar import write_sidecar

from .engine import RunResult, TowerTask, _now_iso
from .files import RunConfig
from .prepare import Prepared, prepare

#: Exit status of tol-run when the display is lost mid-session.
EXIT_DISPLAY_LOST = 3


def run_session(config: RunConfig, prepared: Prepared | None = None) -> RunResult:
    """Run a session in a window of its own. Bad protocols, ids and folders are refused first.

    Raises
    ------
    TolTasksError
        From :func:`~tol_tasks.runner.prepare.prepare`, before the window opens.
    """
    p = prepared or prepare(config)
    d = p.protocol.model.display
    fullscr = d.fullscreen and not config.windowed
    config.owns_window = True
    win = visual.Window(
        size=list(d.window_size), fullscr=fullscr, screen=d.screen, units="height",
        color=d.background, allowGUI=not fullscr, checkTiming=False,
    )  # fmt: skip
    try:
        task = TowerTask(win, p.protocol, participant=config.participant, _config=config,
                         _prepared=p)  # fmt: skip
        handler = _on_display_loss(task)  # noqa: F841 - kept alive while the session runs
        return task.run()
    finally:
        with contextlib.suppress(Exception):
            win.close()


def _on_display_loss(task: TowerTask):
    """Replace Xlib's fatal-error exit with a clear message and a marked sidecar.

    When the X server goes away, Xlib calls this handler and then exits the
    process; the handler records the loss (every event written so far is
    already on disk) and says how to continue. Returns the handler (kept
    alive by the caller), or None where Xlib is not used.
    """
    try:
        from pyglet.libs.x11 import xlib
    except Exception:  # pragma: no cover - not X11
        return None

    def handler(_display) -> int:
        try:
            rows = task.log.rows_written
            task.meta.update(status="crashed", end_time=_now_iso(), rows_written=rows,
                             error="the X display was lost")  # fmt: skip
            with contextlib.suppress(Exception):
                write_sidecar(task.json_path, task.meta)
            print(
                f"tol-run: the display was lost (the X server closed the connection); every "
                f"event up to row {rows} of {task.csv_path} is kept. Suggested fix: restore "
                f"the display, then continue with: tol-run --resume {task.csv_path}",
                file=sys.stderr,
                flush=True,
            )
        finally:
            os._exit(EXIT_DISPLAY_LOST)
        return 0  # pragma: no cover - never reached

    c_handler = xlib.XIOErrorHandler(handler)
    xlib.XSetIOErrorHandler(c_handler)
    return c_handler
