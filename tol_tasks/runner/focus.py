"""When the task's window loses the participant's attention: another window takes the
keyboard and mouse (raised by the system, Alt-Tab, a click outside a window that is not
full screen).

PsychoPy's window (pyglet) is told when it loses and gets back the input focus
(``on_deactivate`` and ``on_activate``; on X11 the FocusOut and FocusIn events).
:class:`FocusWatch` notes each change with the session clock and, at the next poll of the
input (every frame of every screen: it is one of the input's taps,
:class:`~tol_tasks.runner.scanner.TappedInput`), writes an ``attention_lost`` or
``attention_back`` row (``why=focus``, stamp ``polled``: seen when pyglet dispatched the
window's events: the time of the frame's poll, up to a frame late), the same rows a browser writes when its page is
hidden, and keeps the times of the losses in the sidecar (``window.focus_lost``), which the
end-of-run warnings count (:mod:`tol_tasks.session_data.quality`).

Where the window has no pyglet handle (another backend), :meth:`FocusWatch.install`
returns None and focus is not watched.
"""

from __future__ import annotations

import contextlib

from tol_tasks.session_data.detail import format_detail


class FocusWatch:
    """Notes the window's focus changes and logs them at each poll (see the module).

    Parameters
    ----------
    handle
        The window's pyglet window (``win.winHandle``).
    clock
        The session clock (``getTime()``).
    write
        The record's ``write(event, **values)``.
    lost : list of float
        The sidecar's ``window.focus_lost``: each loss's time is appended to it.
    """

    def __init__(self, handle, clock, write, lost: list[float]) -> None:
        self.handle, self.clock, self.write, self.lost = handle, clock, write, lost
        self._changes: list[str] = []
        self._away = False

    @classmethod
    def install(cls, win, clock, write, lost: list[float]) -> FocusWatch | None:
        """Start watching ``win``'s focus, or None where its backend has no pyglet window."""
        handle = getattr(win, "winHandle", None)
        if not callable(getattr(handle, "push_handlers", None)):
            return None
        watch = cls(handle, clock, write, lost)
        handle.push_handlers(on_activate=watch._back, on_deactivate=watch._gone)
        return watch

    def _gone(self) -> None:
        self._changes.append("attention_lost")

    def _back(self) -> None:
        self._changes.append("attention_back")

    def take(self) -> None:
        """Log the focus changes noted since the last look (called every frame), at the time
        of this look (the log's times never go back). A change that repeats the state the
        window is in (a second FocusOut) is not logged again."""
        if not self._changes:
            return
        changes, self._changes = self._changes, []
        t = self.clock.getTime()
        for event in changes:
            away = event == "attention_lost"
            if away == self._away:
                continue
            self._away = away
            if away:
                self.lost.append(round(t, 6))
            self.write(event, time=t, stamp="polled", detail=format_detail(why="focus"))

    def close(self) -> None:
        """Stop watching (pyglet's other handlers stay as they were)."""
        with contextlib.suppress(Exception):
            self.handle.remove_handlers(on_activate=self._back, on_deactivate=self._gone)
