"""``tol-run``'s session: it opens the window, runs :class:`~tol_tasks.runner.engine.TowerTask`, closes.

Everything the participant sees and every row of the log comes from the
engine, the same code a PsychoPy experiment embeds.
"""

from __future__ import annotations

import contextlib
import os
import sys

from psychopy import visual

from .engine import RunResult, TowerTask
from .interrupt import Interrupts
from .prepare import Prepared

#: Exit status of tol-run when the display is lost mid-session.
EXIT_DISPLAY_LOST = 3


def run_session(prepared: Prepared, interrupts: Interrupts | None = None) -> RunResult:
    """Run a checked session (:func:`~tol_tasks.runner.prepare.prepare`) in a window of its own.

    ``interrupts``: where the caller's signal handlers note a signal (:mod:`.interrupt`);
    the session then ends at its next frame, ``interrupted``.
    """
    try:
        for log in prepared.never_started:
            print(f"tol-run: note: {log} never started (it was cut off before its first event; "
                  "kept, it counts as no session).", file=sys.stderr)  # fmt: skip
        d = prepared.protocol.model.display
        fullscr = d.fullscreen and not prepared.settings.windowed
        win = visual.Window(
            size=list(d.window_size), fullscr=fullscr, screen=d.screen, units="height",
            color=d.background, allowGUI=not fullscr, checkTiming=False,
        )  # fmt: skip
        try:
            task = TowerTask.from_prepared(win, prepared, owns_window=True, interrupts=interrupts)
            handler = _on_display_loss(task)  # noqa: F841 - kept alive while the session runs
            return task.run()
        finally:
            with contextlib.suppress(Exception):
                win.close()
    finally:
        prepared.release()  # whatever happened (the window could not open...), the lock goes


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
            record = task.record
            rows = record.log.rows_written if record else 0
            if record is not None:
                record.mark_crashed("the X display was lost")
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
