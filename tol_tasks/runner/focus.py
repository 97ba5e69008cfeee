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

On X11 the X events themselves are read (a function put in front of pyglet's own for
FocusIn and FocusOut, as :mod:`.xwindow` does for presses), so that only a real change of
the keyboard focus counts: not a keyboard grab's (mode NotifyGrab or NotifyUngrab), nor
the pointer's or a child window's (detail NotifyPointer or NotifyInferior), which pyglet
reports as focus changes too. Elsewhere pyglet's ``on_activate`` and ``on_deactivate``
are used; where the window has no pyglet handle (another backend),
:meth:`FocusWatch.install` returns None and focus is not watched.
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
        self._restore: list[tuple[dict, int, object]] = []
        self._pushed = False

    @classmethod
    def install(cls, win, clock, write, lost: list[float]) -> FocusWatch | None:
        """Start watching ``win``'s focus, or None where its backend has no pyglet window."""
        handle = getattr(win, "winHandle", None)
        if not callable(getattr(handle, "push_handlers", None)):
            return None
        watch = cls(handle, clock, write, lost)
        if not watch._hook_x11():
            handle.push_handlers(on_activate=watch._back, on_deactivate=watch._gone)
            watch._pushed = True
        return watch

    def _hook_x11(self) -> bool:
        try:
            from pyglet.libs.x11 import xlib
        except Exception:  # not X11
            return False
        names = ("_view_event_handlers", "_event_handlers")
        tables = [getattr(self.handle, n, None) for n in names]
        tables = [t for t in tables if isinstance(t, dict) and xlib.FocusOut in t]
        for table in tables:
            for kind, event in ((xlib.FocusIn, "attention_back"),
                                (xlib.FocusOut, "attention_lost")):  # fmt: skip
                original = table.get(kind)
                if original is not None:
                    table[kind] = self._wrap(original, event, xlib)
                    self._restore.append((table, kind, original))
        return bool(tables)

    def _wrap(self, original, event: str, xlib):
        def noted(ev, original=original):
            try:
                f = ev.xfocus
                if f.mode in (xlib.NotifyNormal, xlib.NotifyWhileGrabbed) and f.detail not in (
                    xlib.NotifyInferior, xlib.NotifyPointer
                ):  # fmt: skip
                    self._changes.append(event)
            finally:
                original(ev)

        return noted

    def _gone(self) -> None:
        self._changes.append("attention_lost")

    def _back(self) -> None:
        self._changes.append("attention_back")

    def take(self, before: float | None = None) -> None:
        """Log the focus changes noted since the last look (called every frame), at the time
        of this look, or ``before`` if earlier (the time of the participant's first event
        read in the same look, e.g. the click that brought the focus back, whose row comes
        next: the log's times never go back). A change that repeats the state the window is
        in (a second FocusOut) is not logged again."""
        if not self._changes:
            return
        changes, self._changes = self._changes, []
        t = self.clock.getTime()
        if before is not None:
            t = min(t, before)
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
        for table, kind, original in self._restore:
            with contextlib.suppress(Exception):
                table[kind] = original
        self._restore = []
        if self._pushed:
            with contextlib.suppress(Exception):
                self.handle.remove_handlers(on_activate=self._back, on_deactivate=self._gone)
