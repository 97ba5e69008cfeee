"""Pointer and key events stamped on arrival, by an X Input 2 listener process.

The listener (:mod:`tol_tasks.runner.xlistener`) holds its own connection to
the X server and selects *raw* button and key events on the root window
(unlike core button events, raw events can be selected by any number of
clients, so PsychoPy's window keeps its own). It stamps each event the moment
it is read with PsychoPy's clock function, the clock of the screen flips, and
sends it here through a pipe; the session loop converts the stamp to session
time exactly (``stamp - clock.getLastResetTime()``). It is a separate process
so that drawing never delays it: a thread must wait for the interpreter lock,
which put a few milliseconds on one click in a hundred.

Linux/X11 only. Elsewhere, or when the X server lacks XInput 2,
:func:`open_arrival_input` says why and the runner falls back to polled
input. On Windows and macOS the documented path to on-arrival stamps is
PsychoPy's iohub, whose server process stamps events on arrival (not built in yet).
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys

from psychopy import event

from .inputs import InputEvent, PolledInput

#: Seconds to wait for the listener to start.
START_TIMEOUT_S = 20.0


class ArrivalInput(PolledInput):
    """:class:`PolledInput` whose presses, releases and keys come from the listener process."""

    method = "xinput2-raw"

    def __init__(self, win, screen, clock, keys, proc: subprocess.Popen):
        super().__init__(win, screen, clock, keys)
        self.proc = proc
        self._fd = proc.stdout.fileno()
        os.set_blocking(self._fd, False)
        self._buf = b""

    def poll(self) -> list[InputEvent]:
        # Keep PsychoPy's own queues drained so they do not grow; use only the listener's.
        self.mouse.getPressed()
        event.getKeys()
        try:
            chunk = os.read(self._fd, 65536)
        except BlockingIOError:
            chunk = b""
        if not chunk:
            return []
        self._buf += chunk
        *lines, self._buf = self._buf.split(b"\n")
        zero = self.clock.getLastResetTime()
        out = []
        for line in lines:
            parts = line.decode().split()
            t = float(parts[1]) - zero
            if parts[0] in ("P", "R"):
                kind = "press" if parts[0] == "P" else "release"
                out.append(InputEvent(kind, t, float(parts[2]), float(parts[3]), stamp="arrival"))
            elif parts[0] == "K":
                out.append(InputEvent("key", t, key=parts[2], source="key", stamp="arrival"))
        return out

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.proc.terminate()
            self.proc.wait(timeout=5)
        with contextlib.suppress(Exception):
            self.proc.stdout.close()


def open_arrival_input(win, screen, clock, keys) -> tuple[PolledInput, str | None]:
    """The on-arrival input, or polled input and the reason it could not be had."""
    if not os.environ.get("DISPLAY"):
        return PolledInput(win, screen, clock, keys), "no X display (not Linux/X11)"
    try:
        x, y = (int(v) for v in win.winHandle.get_location())
    except Exception as exc:  # pragma: no cover - a backend without window positions
        return PolledInput(win, screen, clock, keys), f"the window position is unknown ({exc})"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tol_tasks.runner.xlistener", str(x), str(y), ",".join(keys)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    ready, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT_S)
    first = proc.stdout.readline().decode().strip() if ready else ""
    if first == "ready":
        return ArrivalInput(win, screen, clock, keys, proc), None
    proc.kill()
    _, err = proc.communicate()
    reason = (
        first[2:]
        if first.startswith("E ")
        else (err.decode().strip().splitlines() or ["no answer"])[-1]
    )
    return PolledInput(
        win, screen, clock, keys
    ), f"the X Input 2 listener could not start: {reason}"
