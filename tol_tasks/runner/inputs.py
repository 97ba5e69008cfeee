"""Where input comes from: the declared interface every source implements, and polled input.

Every source (:class:`PolledInput`, the reconciled on-arrival input of
:mod:`.arrival`, the simulated participant of :mod:`.simulated_participant`)
produces the same :class:`~tol_tasks.runner.events.InputEvent` objects,
which the session loop handles in one place, so a simulated session goes
through the same code as a person's.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Callable

from psychopy import event
from psychopy.tools.monitorunittools import convertToPix

from .events import InputEvent

#: pyglet's left mouse button (``pyglet.window.mouse.LEFT``).
_LEFT = 1


class InputSource(ABC):
    """What the session asks of an input source.

    Attributes
    ----------
    method : str
        How presses are stamped, as the sidecar records it: ``polled``,
        ``xinput2-raw`` or ``iohub``.
    on_lost : callable or None
        Called once as ``on_lost(t, reason)`` if an on-arrival source dies
        mid-session (the session goes on polled). Set by the session.
    """

    method: str = "polled"
    on_lost: Callable[[float, str], None] | None = None

    @abstractmethod
    def poll(self) -> list[InputEvent]:
        """The presses, releases and keys since the last poll, in time order."""

    @abstractmethod
    def pointer(self) -> tuple[float, float]:
        """The pointer in height units (the task's), whatever the window's units."""

    @property
    def unmatched_presses(self) -> int:
        """Presses only the window saw (an on-arrival source missed them)."""
        return 0

    @property
    def unmatched_keys(self) -> int:
        """Keys only the window saw (an on-arrival source missed them)."""
        return 0

    @property
    def late_twins(self) -> int:
        """On-arrival copies dropped because their press was already handled as polled."""
        return 0

    # The simulated participant reacts to these; a person needs no notice.
    def on_page(self, now: float) -> None:  # noqa: B027 - a hook; most sources ignore it
        """An instruction page is shown."""

    def on_pause(self, now: float, key: str) -> None:  # noqa: B027 - a hook; most sources ignore it
        """A pause only the examiner ends (with ``key``) is shown."""

    def on_trial(self, trial, areas, now: float) -> None:  # noqa: B027
        """A trial (problem attempt or copy) begins on the board ``areas``."""

    def after(self, trial, now: float) -> None:  # noqa: B027
        """A frame of ``trial`` was handled."""

    def close(self) -> None:  # noqa: B027
        """Stop the source (its process, its server); never raises."""


class PolledInput(InputSource):
    """PsychoPy's ``event.Mouse`` and ``event.getKeys``, polled once per frame.

    A press is stamped when the window is handed it (at a poll or a flip), so up to one
    frame late (the method recorded in the sidecar as ``polled``). In a pyglet window
    (PsychoPy's default) every press and release is kept, in order, as the window is
    handed it (:meth:`_listen`): two presses between two polls (a quick participant on a
    machine that draws late) are two presses. Elsewhere the mouse's state is read at each
    poll, which keeps the last press between two polls only.
    """

    method = "polled"

    #: Events a window keeps for a source that nobody polls (one replaced by another).
    MAX_QUEUED = 10_000

    def __init__(self, win, screen, clock, keys: list[str], *, listen: bool = True):
        self.mouse = event.Mouse(win=win, visible=True)
        self.screen = screen
        self.clock = clock
        self.keys = keys
        self._down = False
        event.clearEvents()
        self.mouse.clickReset()
        self._reset_at = self.clock.getTime()
        self._queue: list[InputEvent] | None = None
        self._handlers: dict[str, Callable] = {}
        if listen:  # (False: a subclass that reads the window's events another way)
            self._listen(win)

    def _listen(self, win) -> None:
        """Keep each left-button press and release the pyglet window is handed (before
        PsychoPy's own handlers, which still get them), stamped then, where the pointer
        then is."""
        handle = getattr(win, "winHandle", None)
        if getattr(win, "winType", None) != "pyglet" or not hasattr(handle, "push_handlers"):
            return
        queue: list[InputEvent] = []

        def keep(kind: str, button: int) -> None:
            if button & _LEFT and len(queue) < self.MAX_QUEUED:
                queue.append(InputEvent(kind, self.clock.getTime(), *self._pointer_pixels()))

        self._handlers = {
            "on_mouse_press": lambda x, y, button, modifiers: keep("press", button),
            "on_mouse_release": lambda x, y, button, modifiers: keep("release", button),
        }
        handle.push_handlers(**self._handlers)
        self._queue = queue
        self._handle = handle

    def close(self) -> None:
        if self._queue is not None:  # the window stops keeping presses for this source
            with contextlib.suppress(Exception):
                self._handle.remove_handlers(**self._handlers)
            self._queue = None

    def poll(self) -> list[InputEvent]:
        now = self.clock.getTime()
        out = []
        for k in event.getKeys(keyList=self.keys):  # (hands the window its events)
            out.append(InputEvent("key", now, key=k, source="key"))
        if self._queue is not None:
            out.extend(self._queue)
            self._queue.clear()
            return out
        # getPressed(getTime=True) keeps the dispatch time of a press even when the
        # button is already up again (a click shorter than a frame, a touch tap).
        buttons, times = self.mouse.getPressed(getTime=True)
        px, py = self._pointer_pixels()
        if times[0] > 0:
            out.append(InputEvent("press", self._reset_at + times[0], px, py))
            self._down = True
            self.mouse.clickReset()
            self._reset_at = self.clock.getTime()
        if self._down and not buttons[0]:
            out.append(InputEvent("release", now, px, py))
            self._down = False
        return out

    def _pointer_pixels(self) -> tuple[float, float]:
        """The pointer in window pixels from the top-left, whatever the window's units."""
        x, y = self.pointer()
        return self.screen.to_pixels(x, y)

    def pointer(self) -> tuple[float, float]:
        """The pointer in height units (the task's), whatever the window's units."""
        x, y = (float(v) for v in self.mouse.getPos())
        units = self.mouse.win.units
        if units == "height":
            return x, y
        cx, cy = convertToPix([0.0, 0.0], [x, y], units, self.mouse.win)
        return float(cx) / self.screen.H, float(cy) / self.screen.H
