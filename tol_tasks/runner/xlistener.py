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

A line ``S <n>`` on its standard input asks it to *sync*: it makes a round
trip to the X server, writes every event the server sent before the answer,
then ``S <n>``; so once ``S <n>`` is read, every raw event that happened
before the request has been written. It ends when its standard input closes
(the session's process is gone).

Raw touch events are selected where the server offers X Input 2.2: a client
that selects only raw button events never hears of a touch, while the window
still gets an emulated click.

It runs in its own process so that the drawing loop never delays it (a thread
would wait for the interpreter lock). X and Y are the window's position on the
screen; KEYS is a comma-separated list of key names to report.
"""

from __future__ import annotations

import os
import select
import struct
import sys

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


def keysym_names() -> dict[int, str]:
    """X keysym -> its name as PsychoPy names keys once lower-cased (escape, space, a, 1, f1)."""
    from Xlib import XK

    names: dict[int, str] = {}
    for attr in dir(XK):
        if attr.startswith("XK_"):
            names.setdefault(getattr(XK, attr), attr[3:].lower())
    return names


def main(argv: list[str]) -> int:
    from psychopy.clock import getTime
    from Xlib import display
    from Xlib.ext import xinput

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
    d.sync()
    out = sys.stdout
    out.write(f"ready {version[0]}.{version[1]}\n")
    out.flush()
    names: dict[int, str] = {}
    keysyms = keysym_names()

    def handle(ev, t: float) -> None:
        kind = getattr(ev, "evtype", None)
        if kind in (xinput.RawButtonPress, xinput.RawButtonRelease):
            server, button = _raw(ev.data)
            if button != LEFT_BUTTON:
                return
            p = root.query_pointer()
            tag = "P" if kind == xinput.RawButtonPress else "R"
            out.write(f"{tag} {t:.7f} {p.root_x - ox} {p.root_y - oy} {server}\n")
        elif kind in (RAW_TOUCH_BEGIN, RAW_TOUCH_END):
            server, _ = _raw(ev.data)
            p = root.query_pointer()
            tag = "T" if kind == RAW_TOUCH_BEGIN else "U"
            out.write(f"{tag} {t:.7f} {p.root_x - ox} {p.root_y - oy} {server}\n")
        elif kind == xinput.RawKeyPress:
            server, code = _raw(ev.data)
            if code not in names:
                names[code] = keysyms.get(d.keycode_to_keysym(code, 0), "")
            if names[code] in keys:
                out.write(f"K {t:.7f} {names[code]} {server}\n")

    fd, inp = d.fileno(), sys.stdin.fileno()
    requests = b""
    while True:
        waiting = [fd, inp] if d.pending_events() == 0 else [inp]
        ready, _, _ = select.select(waiting, [], [], None if fd in waiting else 0)
        while d.pending_events():
            # On arrival: the moment the event is taken, before parsing (never before it came:
            # reading the queue reads what came meanwhile, which gets its own, later, time).
            t = getTime()
            handle(d.next_event(), t)
        if inp in ready:
            chunk = os.read(inp, 4096)
            if not chunk:
                return 0  # the session's process is gone
            *lines, requests = (requests + chunk).split(b"\n")
            for line in lines:
                if line.startswith(b"S "):
                    d.sync()  # a round trip: every event sent before it is now queued
                    while d.pending_events():
                        t = getTime()
                        handle(d.next_event(), t)
                    out.write(f"S {int(line[2:])}\n")
        out.flush()


if __name__ == "__main__":
    try:
        raise SystemExit(main(sys.argv[1:]))
    except (BrokenPipeError, KeyboardInterrupt):
        raise SystemExit(0) from None
