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
(``unmatched_presses`` and ``unmatched_keys`` in the sidecar); a copy from the
source that comes after its press was handled as polled is dropped
(``late_twins``). On an X11 window both copies carry the X server's time of
the event (the window's through :mod:`.xwindow`; the listener's from the raw
event, ioHub's as its ``device_time``), so they are paired exactly, whatever
the delay between them. A window event without its twin waits for the
listener to confirm, by a round trip to the X server, that it has none; with
ioHub (which cannot be asked) it waits a moment, then is handled as polled,
and a twin that comes later is known by its time at the server and dropped.
Where the copies carry no server time (ioHub on Windows and macOS) they are
paired by how close their stamps are. If the source dies mid-session (or leaves a request
unanswered for :data:`SYNC_TIMEOUT_S`) the session goes on with the window's
events alone, and the engine logs when and why (an ``input_lost`` row).
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys

from psychopy import event

from .events import InputEvent, Reconciler
from .inputs import PolledInput
from .iohub_input import start_iohub
from .xwindow import XWindowEvents

#: Seconds to wait for the X listener to start.
START_TIMEOUT_S = 20.0
#: Seconds the listener may leave a sync unanswered before it is taken for dead (it answers
#: in milliseconds, even on a loaded machine).
SYNC_TIMEOUT_S = 5.0


class ReconciledInput(PolledInput):
    """The window's events (:class:`PolledInput`, or :class:`~.xwindow.XWindowEvents` with
    the X server's times) reconciled with an on-arrival source.

    ``on_lost(t, reason)`` is called once if the source dies; polling goes on.
    """

    def __init__(self, win, screen, clock, keys, source, window_events=None):
        # The window's events from window_events (the X server's), else polled.
        super().__init__(win, screen, clock, keys, listen=window_events is None)
        self.source = source
        self.method = source.method
        self.window_events = window_events
        # By identity where both streams carry the X server's time, waiting for the source's
        # word where it can sync (the listener), else a moment (ioHub); else by time.
        if window_events is None or not source.idents:
            mode = "time"
        else:
            mode = "ident" if source.syncs else "ident-hold"
        self.reconciler = Reconciler(mode=mode)
        self.lost: tuple[float, str] | None = None
        self.on_lost = None

    def _window(self, arrived: list[InputEvent]) -> list[InputEvent]:
        """The window's events; read after the source's (``arrived``), so that the window's
        copy of each press the source reported is among them, if the window got one: a
        round trip to the X server first makes sure of it (a press outside the window has
        none). The window's copy says exactly where the press was."""
        if self.window_events is None:
            return super().poll()
        if any(e.kind != "key" for e in arrived):
            self.window_events.sync()
        event.clearEvents("keyboard")  # pyglet hands the window its events (noted) now
        return self.window_events.drain()

    def poll(self) -> list[InputEvent]:
        arrived: list[InputEvent] = []
        synced = None
        alive = self.lost is None
        now = self.clock.getTime()
        if alive:
            try:
                arrived, synced = self.source.read(self.clock)
            except Exception as exc:  # a source that breaks is a source that died
                self.source.reason = self.source.reason or f"it failed ({exc})"
                self.source.alive = False
            since = self.reconciler.waiting
            if (
                self.source.alive
                and since is not None
                and self.reconciler.syncs
                and (now - since > SYNC_TIMEOUT_S)
            ):
                self.source.alive = False
                self.source.reason = (
                    f"the X Input 2 listener did not answer for {SYNC_TIMEOUT_S:.0f} s"
                )
            if not self.source.alive:
                alive = False
        window = self._window(arrived)
        out = self.reconciler.add(arrived, window, now, alive, synced)
        if not alive and self.lost is None:
            # Logged before the caller writes this poll's events: at a time no later than
            # the earliest of them (the window's held events come out now), so that the
            # log's times never go backwards.
            self.lost = (min([now, *(e.t for e in out)]), self.source.reason or "it stopped")
            if self.on_lost is not None:
                self.on_lost(*self.lost)
        if alive and self.reconciler.request is not None:
            self.source.request_sync(self.reconciler.request, self.reconciler.requested)
        return out

    @property
    def unmatched_presses(self) -> int:
        return self.reconciler.unmatched_presses

    @property
    def unmatched_keys(self) -> int:
        return self.reconciler.unmatched_keys

    @property
    def late_twins(self) -> int:
        return self.reconciler.late_twins

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.source.close()
        if self.window_events is not None:
            self.window_events.close()
        super().close()


#: The listener's tag of each kind of event (a touch is asked for as a press or a release).
_TAGS = {"press": "P", "release": "R", "key": "K"}


class XListenerSource:
    """Events from the X Input 2 listener process, converted to the session clock."""

    method = "xinput2-raw"
    #: It answers sync requests (:meth:`request_sync`), and its events carry the X server's time.
    syncs = True
    idents = True

    def __init__(self, proc: subprocess.Popen, version: str = ""):
        self.proc = proc
        self.version = version
        self._fd = proc.stdout.fileno()
        os.set_blocking(self._fd, False)
        self._buf = b""
        self.alive = True
        self.reason: str | None = None

    def request_sync(self, n: int, events=()) -> None:
        """Ask the listener to answer ``S n`` once it has written every earlier event; it may
        answer at once for ``events`` (the window's copies waiting) whose twins, or a later
        event, it has already written."""
        items = " ".join(f"{_TAGS[e.kind]}:{e.key}:{e.ident}" if e.kind == "key"
                         else f"{_TAGS[e.kind]}:{e.ident}" for e in events)  # fmt: skip
        try:
            self.proc.stdin.write(f"S {n} {items}\n".encode())
            self.proc.stdin.flush()
        except (OSError, ValueError):
            self.alive = False
            self.reason = self.reason or "the X Input 2 listener stopped reading its requests"

    def read(self, clock) -> tuple[list[InputEvent], int | None]:
        """The events written since the last read, and the last sync answer among them."""
        try:
            chunk = os.read(self._fd, 65536)
        except BlockingIOError:
            return [], None
        if not chunk:  # end of file: the listener is gone
            code = self.proc.poll()
            self.alive = False
            self.reason = (
                f"the X Input 2 listener stopped (exit status {code})"
                if code is not None
                else "the X Input 2 listener closed its output"
            )
            return [], None
        self._buf += chunk
        *lines, self._buf = self._buf.split(b"\n")
        zero = clock.getLastResetTime()
        out, synced = [], None
        for line in lines:
            parts = line.decode(errors="replace").split()
            if len(parts) == 2 and parts[0] == "S":
                synced = int(parts[1])
                continue
            if len(parts) < 3:
                continue
            t = float(parts[1]) - zero
            tag = parts[0]
            if tag in ("P", "R", "T", "U") and len(parts) >= 4:
                kind = "press" if tag in ("P", "T") else "release"
                source = "touch" if tag in ("T", "U") else "mouse"
                ident = int(parts[4]) if len(parts) > 4 else None
                x, y = (None, None) if parts[2] == "-" else (float(parts[2]), float(parts[3]))
                out.append(InputEvent(kind, t, x, y, source=source, stamp="arrival",
                                      ident=ident))  # fmt: skip
            elif tag == "K":
                ident = int(parts[3]) if len(parts) > 3 else None
                out.append(InputEvent("key", t, key=parts[2], source="key", stamp="arrival",
                                      ident=ident))  # fmt: skip
        return out, synced

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.proc.stdin.close()  # the listener ends when its input closes
        with contextlib.suppress(Exception):
            self.proc.terminate()
            self.proc.wait(timeout=5)
        with contextlib.suppress(Exception):
            self.proc.stdout.close()


def _start_xlistener(win, keys, pointer: bool = True) -> tuple[XListenerSource | None, str | None]:
    """The listener process, or None and why not. ``pointer``: it asks the server where the
    pointer is at each press (not needed when the window's copies say it: a round trip a
    press saved, which on a loaded machine delays the stamps of the presses behind it)."""
    if not os.environ.get("DISPLAY") or not sys.platform.startswith("linux"):
        return None, "no X display (not Linux/X11)"
    try:
        x, y = (int(v) for v in win.winHandle.get_location())
    except Exception as exc:  # pragma: no cover - a backend without window positions
        return None, f"the window position is unknown ({exc})"
    # A session of its own: Ctrl-C or a closed terminal reach the session, which ends it (and
    # so the listener, whose input then closes), not the listener behind the session's back.
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tol_tasks.runner.xlistener",
            str(x),
            str(y),
            ",".join(keys),
            *([] if pointer else ["--no-pointer"]),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
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


def open_arrival_input(win, screen, clock, keys, method: str = "auto"):
    """The reconciled on-arrival input, or polled input and the reason it could not be had.

    ``method``: ``auto`` (the X Input 2 listener on Linux/X11, else iohub),
    ``xinput2`` or ``iohub``.
    """
    reasons = []
    order = {"auto": ("xinput2", "iohub"), "xinput2": ("xinput2",), "iohub": ("iohub",)}[method]
    for name in order:
        # The window's copies with the X server's time, for either source (None: not X11).
        hook = XWindowEvents.install(win, clock, keys)
        if name == "xinput2":
            source, reason = _start_xlistener(win, keys, pointer=hook is None)
        else:
            source, reason = start_iohub(win, keys)
        if source is not None:
            return ReconciledInput(win, screen, clock, keys, source, hook), None
        if hook is not None:
            hook.close()
        reasons.append(reason)
    return PolledInput(win, screen, clock, keys), "; ".join(reasons)
