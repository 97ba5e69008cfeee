"""PsychoPy's ioHub as an on-arrival source of presses and keys (see :mod:`.arrival`).

ioHub's server process stamps mouse and keyboard events on arrival, on
PsychoPy's monotonic clock, on Windows, macOS and Linux. On Linux/X11 its
events also keep the X server's time of the event (``device_time``), which
the window's copies carry too: :class:`IohubSource` gives it to them as
``ident``, so that the two copies of a press are paired exactly.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys

from .events import InputEvent

#: ioHub's names of keys that PsychoPy's window (and so a protocol) names otherwise: on Linux
#: ioHub names the space bar by its character.
_KEY_NAMES = {" ": "space"}

#: How long tol-run waits for ioHub's server to say it runs (ioHub's own wait is 30 s, which
#: a loaded machine passed: the server imports PsychoPy, and at load 50 it took longer).
START_WAIT_S = 180.0


class IohubSource:
    """Mouse and keyboard events stamped on arrival by PsychoPy's ioHub server process.

    On Linux/X11 ioHub reads the X server's events (its pyXHook, through the RECORD
    extension) and keeps each one's X server time as ``device_time`` (seconds: the server's
    milliseconds times 0.001); it is given to the events as ``ident``, the time the window's
    copies carry (:class:`~.xwindow.XWindowEvents`), so that the two copies of a press are
    paired exactly. Elsewhere ``device_time`` is another clock and ``ident`` stays None.
    """

    method = "iohub"
    #: ioHub cannot be asked to sync: a window event waits :data:`~.events.HOLD_S` for its twin.
    syncs = False

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
        #: Every event carries the X server's time (``ident``): Linux/X11, and the keyboard
        #: view made to keep it (else none does, so that all are paired and ordered by time).
        self.idents = _x11() and _keep_device_time(self.keyboard, EventConstants.KEYBOARD_PRESS)
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

    def request_sync(self, n: int, events=()) -> None:  # pragma: no cover - syncs is False
        """ioHub cannot be asked to sync."""

    def _ident(self, device_time) -> int | None:
        """The X server's time of an event (milliseconds) from its ``device_time``, or None."""
        if not self.idents or device_time is None:
            return None
        return round(float(device_time) * 1000)

    def read(self, clock) -> tuple[list[InputEvent], None]:
        """The events since the last read (no sync answers: ioHub has none)."""
        # ioHub times are on PsychoPy's monotonic clock; the session clock's zero differs.
        offset = self._monotonic_zero - clock.getLastResetTime()
        out = []
        for e in self.mouse.getEvents():
            if e.type not in (self._press, self._release) or e.button_id != 1:
                continue
            x, y = self._to_window_pixels(e.x_position, e.y_position)
            kind = "press" if e.type == self._press else "release"
            out.append(InputEvent(kind, e.time + offset, x, y, stamp="arrival",
                                  ident=self._ident(e.device_time)))  # fmt: skip
        for e in self.keyboard.getPresses():
            key = _KEY_NAMES.get(str(e.key), str(e.key).lower())
            if key in self.keys:
                ident = self._ident(getattr(e, "device_time", None))
                out.append(InputEvent("key", e.time + offset, key=key, source="key",
                                      stamp="arrival", ident=ident))  # fmt: skip
        out.sort(key=lambda ev: ev.t)
        return out, None

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.io.quit()


def _x11() -> bool:
    """Whether this is Linux with an X display (ioHub's events then carry the X server's
    time)."""
    return sys.platform.startswith("linux") and bool(os.environ.get("DISPLAY"))


def _keep_device_time(keyboard, press_type: int) -> bool:
    """Have ioHub's keyboard view keep each press's ``device_time``.

    The view (``psychopy.iohub.client.keyboard.Keyboard``) makes its press events from
    ioHub's event arrays through its ``_type2class`` table, and they drop ``device_time``;
    the table given to this view makes them keep it. A view without that table (another
    PsychoPy) is left as it is, and False returned.
    """
    from psychopy.iohub.devices import DeviceEvent

    table = getattr(keyboard, "_type2class", None)
    if not isinstance(table, dict) or press_type not in table:
        return False
    base = table[press_type]
    index = DeviceEvent.EVENT_DEVICE_TIME_INDEX

    class _PressWithDeviceTime(base):
        def __init__(self, ioe_array):
            super().__init__(ioe_array)
            self.device_time = ioe_array[index]

    keyboard._type2class = {**table, press_type: _PressWithDeviceTime}
    return True


def iohub_port() -> int:
    """A UDP port free on this machine, for this session's ioHub server.

    ioHub's server listens on one fixed port (9036) unless told otherwise: a second session on
    the machine (or a test worker beside another) would then talk to the first session's
    server and read its events, or none (on macOS, ioHub even kills the process holding the
    port). Each session's server gets a port of its own.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("", 0))
        return probe.getsockname()[1]


def launch(win, port: int, **devices):
    """ioHub's ``launchHubServer`` for ``win`` on ``port`` (and ``devices``, as it takes them),
    waiting :data:`START_WAIT_S` for its server.

    ioHub reads that wait from its configuration (``start_process_timeout``), which
    ``launchHubServer`` does not pass on: the connection it makes is given the key on the way.
    """
    from psychopy.iohub.client import connect

    made = connect.ioHubConnection

    class _Patient(made):
        def __init__(self, config, *args, **kwargs):
            config.setdefault("start_process_timeout", START_WAIT_S)
            super().__init__(config, *args, **kwargs)

    connect.ioHubConnection = _Patient
    try:
        return connect.launchHubServer(window=win, udp_port=port, **devices)
    finally:
        connect.ioHubConnection = made


def start_iohub(win, keys) -> tuple[IohubSource | None, str | None]:
    try:
        io = launch(win, iohub_port())
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
