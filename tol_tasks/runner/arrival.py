"""Presses and keys stamped on arrival, reconciled with the window's own events.

Two on-arrival sources stamp an event the moment it reaches the computer, each
in a process of its own so that drawing never delays it:

- **xinput2-raw** (Linux/X11): a listener process (:mod:`tol_tasks.runner.xlistener`)
  selects X Input 2 *raw* button, touch and key events on the root window
  (raw events can be selected by any number of clients, so PsychoPy's window
  keeps its own) and stamps each with ``psychopy.clock.getTime``.
- **iohub** (Windows, macOS and Linux): PsychoPy's ioHub server process stamps
  mouse and keyboard events on arrival, on PsychoPy's monotonic clock.

Neither is trusted alone. Every poll also reads the presses, releases and keys
that PsychoPy's window received, and :class:`Reconciler` pairs them: an event
seen by both is handled once, with the on-arrival stamp (``stamp`` =
``arrival``); one only the window saw (a touch the source did not report, a
source that lost it) is still handled, stamped ``polled``, and counted
(``unmatched_presses`` in the sidecar). If the source dies mid-session the
session goes on with the window's events alone, and the engine logs when and
why (an ``input_lost`` row).
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys

from .events import InputEvent, Reconciler
from .inputs import PolledInput

#: Seconds to wait for the X listener to start.
START_TIMEOUT_S = 20.0


class ReconciledInput(PolledInput):
    """The window's events (:class:`PolledInput`) reconciled with an on-arrival source.

    ``on_lost(t, reason)`` is called once if the source dies; polling goes on.
    """

    def __init__(self, win, screen, clock, keys, source):
        super().__init__(win, screen, clock, keys)
        self.source = source
        self.method = source.method
        self.reconciler = Reconciler()
        self.lost: tuple[float, str] | None = None
        self.on_lost = None

    def poll(self) -> list[InputEvent]:
        window = super().poll()
        arrived: list[InputEvent] = []
        alive = self.lost is None
        if alive:
            try:
                arrived = self.source.read(self.clock)
            except Exception as exc:  # a source that breaks is a source that died
                self.source.reason = self.source.reason or f"it failed ({exc})"
                self.source.alive = False
            if not self.source.alive:
                alive = False
                self.lost = (self.clock.getTime(), self.source.reason or "it stopped")
                if self.on_lost is not None:
                    self.on_lost(*self.lost)
        return self.reconciler.add(arrived, window, self.clock.getTime(), alive)

    @property
    def unmatched_presses(self) -> int:
        return self.reconciler.unmatched_presses

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.source.close()


class XListenerSource:
    """Events from the X Input 2 listener process, converted to the session clock."""

    method = "xinput2-raw"

    def __init__(self, proc: subprocess.Popen, version: str = ""):
        self.proc = proc
        self.version = version
        self._fd = proc.stdout.fileno()
        os.set_blocking(self._fd, False)
        self._buf = b""
        self.alive = True
        self.reason: str | None = None

    def read(self, clock) -> list[InputEvent]:
        try:
            chunk = os.read(self._fd, 65536)
        except BlockingIOError:
            return []
        if not chunk:  # end of file: the listener is gone
            code = self.proc.poll()
            self.alive = False
            self.reason = (
                f"the X Input 2 listener stopped (exit status {code})"
                if code is not None
                else "the X Input 2 listener closed its output"
            )
            return []
        self._buf += chunk
        *lines, self._buf = self._buf.split(b"\n")
        zero = clock.getLastResetTime()
        out = []
        for line in lines:
            parts = line.decode(errors="replace").split()
            if len(parts) < 3:
                continue
            t = float(parts[1]) - zero
            tag = parts[0]
            if tag in ("P", "R", "T", "U") and len(parts) >= 4:
                kind = "press" if tag in ("P", "T") else "release"
                source = "touch" if tag in ("T", "U") else "mouse"
                out.append(InputEvent(kind, t, float(parts[2]), float(parts[3]),
                                      source=source, stamp="arrival"))  # fmt: skip
            elif tag == "K":
                out.append(InputEvent("key", t, key=parts[2], source="key", stamp="arrival"))
        return out

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.proc.terminate()
            self.proc.wait(timeout=5)
        with contextlib.suppress(Exception):
            self.proc.stdout.close()


class IohubSource:
    """Mouse and keyboard events stamped on arrival by PsychoPy's ioHub server process."""

    method = "iohub"

    def __init__(self, io, win, keys: list[str]):
        from psychopy import core
        from psychopy.iohub.constants import EventConstants

        self.io = io
        self.mouse = io.devices.mouse
        self.keyboard = io.devices.keyboard
        self.keys = set(keys)
        self.alive = True
        self.reason: str | None = None
        self._press = EventConstants.MOUSE_BUTTON_PRESS
        self._release = EventConstants.MOUSE_BUTTON_RELEASE
        self._monotonic_zero = core.monotonicClock.getLastResetTime()
        # ioHub reports positions on the display, in the window's units (height here),
        # origin at the display's centre; the window's pixels are found from its place.
        self._win = win
        screen = win.winHandle.screen
        self._display_size = (int(screen.width), int(screen.height))

    def _to_window_pixels(self, x: float, y: float) -> tuple[float, float]:
        dw, dh = self._display_size
        px, py = x * dh + dw / 2, dh / 2 - y * dh
        try:
            wx, wy = self._win.winHandle.get_location()
        except Exception:  # pragma: no cover - a backend without window positions
            wx, wy = 0, 0
        return px - wx, py - wy

    def read(self, clock) -> list[InputEvent]:
        # ioHub times are on PsychoPy's monotonic clock; the session clock's zero differs.
        offset = self._monotonic_zero - clock.getLastResetTime()
        out = []
        for e in self.mouse.getEvents():
            if e.type not in (self._press, self._release) or e.button_id != 1:
                continue
            x, y = self._to_window_pixels(e.x_position, e.y_position)
            kind = "press" if e.type == self._press else "release"
            out.append(InputEvent(kind, e.time + offset, x, y, stamp="arrival"))
        for e in self.keyboard.getPresses():
            key = str(e.key).lower()
            if key in self.keys:
                out.append(InputEvent("key", e.time + offset, key=key, source="key",
                                      stamp="arrival"))  # fmt: skip
        out.sort(key=lambda ev: ev.t)
        return out

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.io.quit()


def _start_xlistener(win, keys) -> tuple[XListenerSource | None, str | None]:
    if not os.environ.get("DISPLAY") or not sys.platform.startswith("linux"):
        return None, "no X display (not Linux/X11)"
    try:
        x, y = (int(v) for v in win.winHandle.get_location())
    except Exception as exc:  # pragma: no cover - a backend without window positions
        return None, f"the window position is unknown ({exc})"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tol_tasks.runner.xlistener", str(x), str(y), ",".join(keys)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    ready, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT_S)
    first = proc.stdout.readline().decode().strip() if ready else ""
    if first.startswith("ready"):
        return XListenerSource(proc, first[6:]), None
    proc.kill()
    _, err = proc.communicate()
    reason = (
        first[2:]
        if first.startswith("E ")
        else (err.decode().strip().splitlines() or ["no answer"])[-1]
    )
    return None, f"the X Input 2 listener could not start: {reason}"


def _start_iohub(win, keys) -> tuple[IohubSource | None, str | None]:
    try:
        from psychopy.iohub import launchHubServer

        io = launchHubServer(window=win)
    except Exception as exc:
        return None, f"the ioHub server could not start ({type(exc).__name__}: {exc})"
    if io is None:
        return None, "the ioHub server could not start"
    try:
        return IohubSource(io, win, keys), None
    except Exception as exc:
        with contextlib.suppress(Exception):
            io.quit()
        return None, f"the ioHub devices could not be used ({exc})"


def open_arrival_input(win, screen, clock, keys, method: str = "auto"):
    """The reconciled on-arrival input, or polled input and the reason it could not be had.

    ``method``: ``auto`` (the X Input 2 listener on Linux/X11, else iohub),
    ``xinput2`` or ``iohub``.
    """
    reasons = []
    order = {"auto": ("xinput2", "iohub"), "xinput2": ("xinput2",), "iohub": ("iohub",)}[method]
    for name in order:
        start = _start_xlistener if name == "xinput2" else _start_iohub
        source, reason = start(win, keys)
        if source is not None:
            return ReconciledInput(win, screen, clock, keys, source), None
        reasons.append(reason)
    return PolledInput(win, screen, clock, keys), "; ".join(reasons)
