"""The X Input 2 listener process (``python -m tol_tasks.runner.xlistener X Y KEYS``).

It selects raw button and key events on the root window, stamps each one the
moment it is read with PsychoPy's clock function (``psychopy.clock.getTime``,
the same system-wide clock as the session's flips), queries the pointer, and
writes one line per event to standard output::

    P <time> <x> <y>      left button pressed at window pixel x, y
    R <time> <x> <y>      left button released
    T <time> <x> <y>      a touch began (X Input 2.2 raw touch; the pointer's position)
    U <time> <x> <y>      a touch ended
    K <time> <key>        a key (X keysym name, lower case)

Raw touch events are selected where the server offers X Input 2.2: a client
that selects only raw button events never hears of a touch, while the window
still gets an emulated click.

It runs in its own process so that the drawing loop never delays it (a thread
would wait for the interpreter lock). X and Y are the window's position on the
screen; KEYS is a comma-separated list of key names to report.
"""

from __future__ import annotations

import select
import struct
import sys

LEFT_BUTTON = 1

#: X Input 2.2 raw touch event types (XI2.h; python-xlib does not name them).
RAW_TOUCH_BEGIN, RAW_TOUCH_END = 22, 24


def _detail(data) -> int:
    # python-xlib leaves raw events unparsed: deviceid CARD16, time CARD32, detail CARD32.
    if not isinstance(data, (bytes, bytearray)):
        return int(data.detail)
    return struct.unpack_from("=HII", data, 0)[2]


def main(argv: list[str]) -> int:
    from psychopy.clock import getTime
    from Xlib import XK, display
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
    # X keysym names, as PsychoPy names keys once lower-cased: escape, space, a, 1, f1.
    keysym_names: dict[int, str] = {}
    for attr in dir(XK):
        if attr.startswith("XK_"):
            keysym_names.setdefault(getattr(XK, attr), attr[3:])
    fd = d.fileno()
    while True:
        if d.pending_events() == 0:
            select.select([fd], [], [])  # sleep until the X server sends something
        t = getTime()  # on arrival: the moment the bytes are readable, before parsing
        ev = d.next_event()
        kind = getattr(ev, "evtype", None)
        if kind in (xinput.RawButtonPress, xinput.RawButtonRelease):
            if _detail(ev.data) != LEFT_BUTTON:
                continue
            p = root.query_pointer()
            tag = "P" if kind == xinput.RawButtonPress else "R"
            out.write(f"{tag} {t:.7f} {p.root_x - ox} {p.root_y - oy}\n")
        elif kind in (RAW_TOUCH_BEGIN, RAW_TOUCH_END):
            p = root.query_pointer()
            tag = "T" if kind == RAW_TOUCH_BEGIN else "U"
            out.write(f"{tag} {t:.7f} {p.root_x - ox} {p.root_y - oy}\n")
        elif kind == xinput.RawKeyPress:
            code = _detail(ev.data)
            if code not in names:
                names[code] = keysym_names.get(d.keycode_to_keysym(code, 0), "").lower()
            if names[code] in keys:
                out.write(f"K {t:.7f} {names[code]}\n")
        else:
            continue
        out.flush()


if __name__ == "__main__":
    try:
        raise SystemExit(main(sys.argv[1:]))
    except (BrokenPipeError, KeyboardInterrupt):
        raise SystemExit(0) from None
