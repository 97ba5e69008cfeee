"""A slow disk's ``fsync``: run one of tol-tasks' commands with every ``os.fsync`` and
``os.fdatasync`` of its process made to wait first, as on a USB stick, a network share or a
disk busy with another program's writes.

Usage (a tool of the tests and of ``benchmarks/bench_timing.py --fsync-delay``)::

    python -m tests.slow_disk MS COMMAND [ARGUMENTS...]

``COMMAND`` is one of the package's commands (``tol-run``, ...), run in this process from its
entry point, or a Python script (``....py``: a PsychoPy experiment of ``tests/data``), run in
this process as ``python SCRIPT`` would. Each sync waits ``MS`` milliseconds (the wait
releases the interpreter's lock, as the real call does), then does the real call: the data
are written and made durable as before, only later. The process's own calls are the only ones slowed (tol-tasks makes every
one of its syncs through ``os``); its child processes are not.

Every call is counted, with the thread that made it: at exit the counts are written, as one
line of JSON, to the file named by the environment variable ``SLOW_DISK_REPORT`` if it is
set (``{"calls": N, "threads": {name: N}}``), so that a test can tell that the slow disk was
there and which thread waited on it.
"""

from __future__ import annotations

import atexit
import json
import os
import runpy
import sys
import threading
import time
from collections import Counter
from importlib.metadata import entry_points

#: Calls made, by the name of the thread that made them.
_CALLS: Counter[str] = Counter()


def _slowed(real, seconds: float):
    def call(fd):
        _CALLS[threading.current_thread().name] += 1
        time.sleep(seconds)
        return real(fd)

    call.__name__ = real.__name__
    return call


def _report() -> None:
    path = os.environ.get("SLOW_DISK_REPORT")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"calls": sum(_CALLS.values()), "threads": dict(_CALLS)}, f)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(
            "usage: python -m tests.slow_disk MS COMMAND|SCRIPT.py [ARGUMENTS...]", file=sys.stderr
        )
        return 2
    seconds = float(argv[0]) / 1000
    script = argv[1].endswith(".py")
    if not script:
        (point,) = [e for e in entry_points(group="console_scripts") if e.name == argv[1]]
    os.fsync = _slowed(os.fsync, seconds)
    if hasattr(os, "fdatasync"):
        os.fdatasync = _slowed(os.fdatasync, seconds)
    atexit.register(_report)
    sys.argv = argv[1:]
    if script:
        runpy.run_path(argv[1], run_name="__main__")
        return 0
    return point.load()()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
