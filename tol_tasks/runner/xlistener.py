"""The X Input 2 listener process (``python -m tol_tasks.runner.xlistener X Y KEYS``).

It selects raw button and key events on the root window, stamps each one the
moment it is read with PsychoPy's clock function (``psychopy.clock.getTime``,
the same system-wide clock as the session's flips), queries the pointer, and
writes one line per event to standard output, ending with the X server's own
time of the event (milliseconds; the window's copy of the event carries the same,
which is how the two are paired)::

    P <time> <x> <y> <server>   left button pressed at window pixel x, y
    R <time> <x> <y> <server>   left button released
    T <time> <x> <y> <server>   a touch began (X Input 2.2 raw touch; the pointer's position)
    U <time> <x> <y> <server>   a touch ended
    K <time> <key> <server>     a key (X keysym name, lower case)

A line ``S <n> [<tag>:<server> | K:<key>:<server> ...]`` on its standard input asks it to
*sync*: it writes ``S <n>`` once every raw event that happened before the request has
been written. When it has already written the twin of each listed window event (the
same tag, key and server time) or an event of a later server time, that is at once;
otherwise after a round trip to the X server (every event the server sent before its
answer is then read and written). It ends when its standard input closes (the
session's process is gone).

Raw touch events are selected where the server offers X Input 2.2: a client
that selects only raw button events never hears of a touch, while the window
still gets an emulated click.

It runs in its own process so that the drawing loop never delays it (a thread
would wait for the interpreter lock). X and Y are the window's position on the
screen; KEYS is a comma-separated list of key names to report. With ``--no-pointer`` it
does not ask where the pointer is (a round trip to the server a press) and writes ``- -``
for x and y: the session takes the position from the window's own copy of the press.
"""

from __future__ import annotations

import os
import select
import struct
import sys
from collections import deque

LEFT_BUTTON = 1

#: X Input 2.2 raw touch event types (XI2.h; python-xlib does not name them).
RAW_TOUCH_BEGIN, RAW_TOUCH_END = 22, 24


def _raw(data) -> tuple[int, int]:
    """The X server time and the detail (button or key code) of a raw event."""
    # python-xlib leaves raw events unparsed: deviceid CARD16, time CARD32, detail CARD32.
    if not isinstance(data, (bytes, bytearray)):
        return int(getattr(data, "time", 0)), int(data.detail)
    _, time, detail = struct.unpack_from("=HII", data, 0)
    return time, detail


def _later(a: int, b: int) -> bool:
    """Whether server time ``a`` is after ``b`` (milliseconds, wrapping at 2**32)."""
    return 0 < (a - b) % 2**32 < 2**31


#: How far an X server time (whole milliseconds) may lag the instant it names: its
#: millisecond, or a coarse clock's tick.
SERVER_TICK_S = 0.002
#: How often the listener checks the X server's clock against its own (seconds), and at
#: most how many checks it makes in a row at its start.
PROBE_EVERY_S = 1.0
PROBES_AT_START = 16
#: The widest uncertainty of the clocks' offset for it to be used (seconds): an event is then
#: stamped at most this (and the server's tick) after it happened, however late it is read.
MAPPING_WITHIN_S = 0.02
#: A press taken from the server's time never more than this before it was read (seconds):
#: beyond that the mapping is not believed.
MAPPING_AT_MOST_S = 10.0


def _since(server: int, base: int) -> float:
    """Seconds from server time ``base`` to ``server`` (milliseconds wrapping at 2**32)."""
    return ((server - base + 2**31) % 2**32 - 2**31) / 1000


class ServerClock:
    """The X server's time of an event on this process's clock, once checked.

    A raw event carries the X server's time (milliseconds) of the moment the server
    received it; on Linux the server and PsychoPy's ``getTime`` both read the system's
    monotonic clock, so the two differ by a fixed offset. Each check (:meth:`probe`) is a
    round trip that gets the server's time: the offset lies between the time the request
    was sent minus the server's tick and the time the answer was read. The checks narrow
    the offset down (the quickest round trip sets it, whenever it came); a check that
    disagrees with the ones before (another clock, a remote X server, a clock stepped)
    starts over from itself. While the offset is known to within :data:`MAPPING_WITHIN_S`,
    an event's time is at the latest its server time on this clock (:meth:`at`), which a
    listener kept from the processor by a loaded machine does not delay; otherwise it is the
    moment the event was read, as before.

    >>> c = ServerClock()
    >>> c.at(5000, 12.3456)  # no check yet: the moment it was read
    12.3456
    >>> c.probe(10.0005, 10.0015, 5000)  # server 5000 ms is about 10.000 s here
    >>> round(c.at(6000, 11.5), 4)  # a press at server 6000 ms read 0.5 s late
    11.0035
    >>> c.at(6000, 11.0021)  # read at once: the moment it was read
    11.0021
    >>> c.probe(20.0, 20.3, 15000)  # a slow round trip: agrees, changes nothing
    >>> round(c.at(6000, 11.5), 4)
    11.0035
    >>> c.probe(30.0, 30.001, 15000)  # disagrees by 10 s: starts over from it
    >>> round(c.at(16000, 31.5), 4)
    31.003
    """

    def __init__(self) -> None:
        self._base: int | None = None
        self._range: tuple[float, float] | None = None  # the offset's (low, high)
        self.checks = 0  #: checks since the last that disagreed
        self.disagreed = 0  #: checks that disagreed with the ones before

    def probe(self, sent: float, read: float, server: int) -> None:
        """A check: a request sent at ``sent`` was answered with server time ``server``,
        read at ``read`` (this process's clock, seconds)."""
        if self._base is None:
            self._base = server
        u = _since(server, self._base)
        low, high = sent - u - SERVER_TICK_S, read - u
        if self._range is not None:
            both = (max(low, self._range[0]), min(high, self._range[1]))
            if both[0] <= both[1]:
                self._range, self.checks = both, self.checks + 1
                return
            self.disagreed += 1
        self._range, self.checks = (low, high), 1

    @property
    def offset(self) -> tuple[float, float] | None:
        """The offset's range (server seconds since the first check to this clock), or
        None if it is not known closely enough to use."""
        found = self._range
        return found if found is not None and found[1] - found[0] <= MAPPING_WITHIN_S else None

    def at(self, server: int, read: float) -> float:
        """The time of the event the server stamped ``server``, read at ``read``: the
        latest moment it can have happened on the server's time, or ``read`` if that is
        sooner (as when the listener is not kept waiting), so never before the event."""
        found = self.offset
        if found is None or self._base is None:
            return read
        latest = _since(server, self._base) + found[1] + SERVER_TICK_S
        return read if latest < read - MAPPING_AT_MOST_S else min(latest, read)


def _take_all(d, handle) -> None:
    """Hand every queued event to ``handle(event, t)``, ``t`` the moment its bytes were read.

    Each read of the connection takes whatever has come; those events are stamped with the
    time of that read (after they came, as close to it as the listener can know) before any
    is handled, since handling one asks the server where the pointer is (a round trip during
    which more may come: they are read, and stamped, next).
    """
    from psychopy.clock import getTime

    while True:
        n = d.pending_events()  # reads what has come
        if not n:
            return
        t = getTime()
        for ev in [d.next_event() for _ in range(n)]:
            handle(ev, t)


def keysym_names() -> dict[int, str]:
    """X keysym -> its name as PsychoPy names keys once lower-cased (escape, space, a, 1, f1)."""
    from Xlib import XK

    names: dict[int, str] = {}
    for attr in dir(XK):
        if attr.startswith("XK_"):
            names.setdefault(getattr(XK, attr), attr[3:].lower())
    return names


def main(argv: list[str]) -> int:
    from Xlib import display
    from Xlib.ext import xinput

    pointer = "--no-pointer" not in argv
    argv = [a for a in argv if a != "--no-pointer"]
    ox, oy = int(argv[0]), int(argv[1])
    keys = set(filter(None, argv[2].split(","))) if len(argv) > 2 else set()
    d = display.Display()
    if not d.has_extension("XInputExtension"):
        print("E the X server has no XInput extension", flush=True)
        return 1
    # Announce 2.2, the first version with touch; the server answers with what it has.
    v = xinput.XIQueryVersion(display=d.display, opcode=d.display.get_extension_major(xinput.extname),
                              major_version=2, minor_version=2)  # fmt: skip
    version = (v.major_version, v.minor_version)
    if version < (2, 0):
        print(f"E XInput {v.major_version}.{v.minor_version} is older than 2.0", flush=True)
        return 1
    root = d.screen().root
    mask = xinput.RawButtonPressMask | xinput.RawButtonReleaseMask | xinput.RawKeyPressMask
    if version >= (2, 2):
        mask |= (1 << RAW_TOUCH_BEGIN) | (1 << RAW_TOUCH_END)
    root.xinput_select_events([(xinput.AllMasterDevices, mask)])
    # The X server's clock, checked against this one: a property changed on a window of
    # the listener's own (never shown) comes back as an event with the server's time.
    from psychopy.clock import getTime
    from Xlib import X, Xatom

    clock = ServerClock()
    checker = root.create_window(-1, -1, 1, 1, 0, X.CopyFromParent, X.InputOnly,
                                 X.CopyFromParent, event_mask=X.PropertyChangeMask)  # fmt: skip
    atom = d.intern_atom("_TOL_TASKS_CLOCK")
    probe = {"sent": None, "next": 0.0}

    def send_probe() -> None:
        probe["sent"] = getTime()
        checker.change_property(atom, Xatom.INTEGER, 32, [0])
        d.flush()

    d.sync()
    out = sys.stdout
    out.write(f"ready {version[0]}.{version[1]}\n")
    out.flush()
    names: dict[int, str] = {}
    keysyms = keysym_names()

    def where() -> str:
        if not pointer:
            return "- -"  # the window's copy says where
        p = root.query_pointer()
        return f"{p.root_x - ox} {p.root_y - oy}"

    written: deque = deque(maxlen=1024)  # (tag, server time) of the events written
    latest = [None]  # the latest server time of any raw event read

    def handle(ev, t: float) -> None:
        if ev.type == X.PropertyNotify:
            if ev.window.id == checker.id and probe["sent"] is not None:
                clock.probe(probe["sent"], t, int(ev.time))
                probe["sent"], probe["next"] = None, t + PROBE_EVERY_S
            return
        kind = getattr(ev, "evtype", None)
        if kind not in (xinput.RawButtonPress, xinput.RawButtonRelease, RAW_TOUCH_BEGIN,
                        RAW_TOUCH_END, xinput.RawKeyPress):  # fmt: skip
            return
        server, detail = _raw(ev.data)
        if latest[0] is None or _later(server, latest[0]):
            latest[0] = server
        t = clock.at(server, t)
        if kind in (xinput.RawButtonPress, xinput.RawButtonRelease, RAW_TOUCH_BEGIN, RAW_TOUCH_END):
            if kind in (xinput.RawButtonPress, xinput.RawButtonRelease) and detail != LEFT_BUTTON:
                return
            tag = {xinput.RawButtonPress: "P", xinput.RawButtonRelease: "R",
                   RAW_TOUCH_BEGIN: "T", RAW_TOUCH_END: "U"}[kind]  # fmt: skip
            out.write(f"{tag} {t:.7f} {where()} {server}\n")
            written.append(("P" if tag in "PT" else "R", str(server)))
            return
        if detail not in names:
            names[detail] = keysyms.get(d.keycode_to_keysym(detail, 0), "")
        if names[detail] in keys:
            out.write(f"K {t:.7f} {names[detail]} {server}\n")
            written.append((f"K:{names[detail]}", str(server)))

    def answered(items: list[bytes]) -> bool:
        """Whether every listed window event's twin, or a later event, was written."""
        for item in items:
            *tag, server = item.decode(errors="replace").split(":")
            if (":".join(tag), server) in written:
                continue
            if latest[0] is None or not server.isdigit() or not _later(latest[0], int(server)):
                return False
        return True

    fd, inp = d.fileno(), sys.stdin.fileno()
    # The first checks, in a row, before the session is told the listener is ready.
    started = getTime()
    while (clock.offset is None or clock.offset[1] - clock.offset[0] > 2 * SERVER_TICK_S) and (
        clock.checks < PROBES_AT_START and getTime() - started < 1
    ):
        send_probe()
        while probe["sent"] is not None:
            select.select([fd], [], [], 0.1)
            _take_all(d, handle)
    requests = b""
    while True:
        if probe["sent"] is None and getTime() >= probe["next"]:
            send_probe()
        waiting = [fd, inp] if d.pending_events() == 0 else [inp]
        wait = max(0.0, probe["next"] - getTime()) if probe["sent"] is None else None
        ready, _, _ = select.select(waiting, [], [], wait if fd in waiting else 0)
        _take_all(d, handle)
        if inp in ready:
            chunk = os.read(inp, 4096)
            if not chunk:
                return 0  # the session's process is gone
            *lines, requests = (requests + chunk).split(b"\n")
            for line in lines:
                if line.startswith(b"S "):
                    n, *items = line[2:].split()
                    _take_all(d, handle)
                    if not answered(items):
                        d.sync()  # a round trip: every event sent before it is now queued
                        _take_all(d, handle)
                    out.write(f"S {int(n)}\n")
        out.flush()


if __name__ == "__main__":
    try:
        raise SystemExit(main(sys.argv[1:]))
    except (BrokenPipeError, KeyboardInterrupt):
        raise SystemExit(0) from None
