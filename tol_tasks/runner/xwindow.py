"""The window's own presses and keys with the X server's time of each (Linux/X11, pyglet).

PsychoPy's window (pyglet) receives every X button and key event of its
window; pyglet keeps, per window, a table of the functions that handle each
kind of X event. :class:`XWindowEvents` puts a function in front of those for
button presses, releases and keys that notes each event, with the X server's
time (``ident``) that the X Input 2 listener reports for its copy of the same
event, and then lets pyglet (and so PsychoPy) handle it as before. So the two
copies of a press are paired exactly (:class:`~tol_tasks.runner.events.Reconciler`,
``mode="ident"``) instead of by how close their stamps are.

Where pyglet's tables are not there (another backend, another pyglet),
:meth:`XWindowEvents.install` returns None and the window's events are
polled as before (paired by time).
"""

from __future__ import annotations

import contextlib

from .events import InputEvent
from .xlistener import LEFT_BUTTON, keysym_names


class XWindowEvents:
    """Notes the window's button and key events with their X server time (see the module)."""

    def __init__(self, win, clock, keys: list[str], xlib) -> None:
        self.win = win
        self.clock = clock
        self.keys = set(keys)
        self._xlib = xlib
        self._events: list[InputEvent] = []
        self._down: set[int] = set()  # keys held (a held key repeats; only its press counts)
        self._names: dict[int, str] = {}
        self._keysyms: dict[int, str] | None = None
        self._restore: list[tuple[dict, int, object]] = []

    @classmethod
    def install(cls, win, clock, keys: list[str]) -> XWindowEvents | None:
        """Start noting the window's events, or None where that cannot be done."""
        try:
            from pyglet.libs.x11 import xlib
        except Exception:  # not X11
            return None
        handle = getattr(win, "winHandle", None)
        tables = [
            getattr(handle, name, None) for name in ("_view_event_handlers", "_event_handlers")
        ]
        tables = [t for t in tables if isinstance(t, dict)]
        kinds = (xlib.ButtonPress, xlib.ButtonRelease, xlib.KeyPress, xlib.KeyRelease)
        if not any(xlib.ButtonPress in t for t in tables):
            return None
        hook = cls(win, clock, keys, xlib)
        for table in tables:
            for kind in kinds:
                original = table.get(kind)
                if original is not None:
                    table[kind] = hook._wrap(original)
                    hook._restore.append((table, kind, original))
        return hook

    def _wrap(self, original):
        def noted(ev, original=original):
            try:
                self._note(ev)
            finally:
                original(ev)

        return noted

    def _note(self, ev) -> None:
        x = self._xlib
        t = self.clock.getTime()
        if ev.type in (x.ButtonPress, x.ButtonRelease):
            b = ev.xbutton
            if b.button != LEFT_BUTTON:
                return
            kind = "press" if ev.type == x.ButtonPress else "release"
            self._events.append(InputEvent(kind, t, float(b.x), float(b.y), ident=int(b.time)))
        elif ev.type == x.KeyRelease:
            self._down.discard(int(ev.xkey.keycode))
        elif ev.type == x.KeyPress:
            k = ev.xkey
            code = int(k.keycode)
            if code in self._down:
                return  # the key held down, repeating
            self._down.add(code)
            name = self._name(code)
            if name in self.keys:
                self._events.append(InputEvent("key", t, key=name, source="key",
                                               ident=int(k.time)))  # fmt: skip

    def _name(self, code: int) -> str:
        """A key code's name, as the X Input 2 listener names it."""
        if code not in self._names:
            if self._keysyms is None:
                self._keysyms = keysym_names()
            display = self.win.winHandle._x_display
            sym = self._xlib.XKeycodeToKeysym(display, code, 0)
            self._names[code] = self._keysyms.get(int(sym), "")
        return self._names[code]

    def sync(self) -> None:
        """A round trip to the X server, then pyglet's dispatch: every event the server sent
        the window before now is noted."""
        handle = self.win.winHandle
        with contextlib.suppress(Exception):
            self._xlib.XSync(handle._x_display, False)
            handle.dispatch_events()

    def drain(self) -> list[InputEvent]:
        """The events noted since the last call, in the order the window got them."""
        out, self._events = self._events, []
        return out

    def close(self) -> None:
        """Give pyglet its own handlers back."""
        for table, kind, original in self._restore:
            with contextlib.suppress(Exception):
                table[kind] = original
        self._restore = []
