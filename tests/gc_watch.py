"""Python's garbage collections in one of tol-tasks' commands, timed: run the command with a
callback on every collection of its process.

Usage (a tool of the tests)::

    python -m tests.gc_watch REPORT COMMAND [ARGUMENTS...]

``COMMAND`` is one of the package's commands (``tol-run``, ...), run in this process from its
entry point. At exit, ``REPORT`` gets one JSON object: ``collections``, a list of
``[generation, start, cpu_ms, wall_ms, frozen]`` for every collection (``start`` on
:func:`time.monotonic`, the clock a session's sidecar ties its clock to with
``clock_zero_monotonic``; ``cpu_ms`` the thread's own processor time, which a loaded machine
does not stretch as it does ``wall_ms``; ``frozen`` the objects :func:`gc.freeze` kept out
of it).
"""

from __future__ import annotations

import atexit
import gc
import json
import sys
import time
from importlib.metadata import entry_points


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: python -m tests.gc_watch REPORT COMMAND [ARGUMENTS...]", file=sys.stderr)
        return 2
    report, name = argv[0], argv[1]
    (point,) = [e for e in entry_points(group="console_scripts") if e.name == name]
    seen: list[list] = []
    began: list[float] = [0.0, 0.0, 0.0]

    def on_collection(phase: str, info: dict) -> None:
        if phase == "start":
            began[:] = [time.monotonic(), time.thread_time(), time.perf_counter()]
        else:
            seen.append([info["generation"], began[0], (time.thread_time() - began[1]) * 1000,
                         (time.perf_counter() - began[2]) * 1000, gc.get_freeze_count()])  # fmt: skip

    def write() -> None:
        with open(report, "w", encoding="utf-8") as f:
            json.dump({"collections": seen}, f)

    gc.callbacks.append(on_collection)
    atexit.register(write)
    sys.argv = argv[1:]
    return point.load()()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
