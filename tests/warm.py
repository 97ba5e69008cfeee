"""A warm interpreter for the programs the tests start: PsychoPy paid for once per worker.

A ``tol-run`` or a PsychoPy script spends about 2 s of processor time importing PsychoPy and
the numpy, scipy and pandas it imports before its first frame, and the everyday loop starts
over a hundred of them. :func:`warm` turns the command line of such a program into one that
runs it in a child forked from a server that has already imported the modules that need no
display (:data:`WARM_MODULES`; the server runs without ``DISPLAY``, so none of them can
have opened it). The child then becomes the program as a started process would be: the
test's standard input, output and error (passed over a Unix socket), arguments, working
directory and environment, signals at their defaults (or ignored where the test's were),
fresh random seeds and PsychoPy clock, its own process group; and it ends as the program
would (``sys.exit``, uncaught exceptions and their traceback, ``atexit``, threads joined).
Its PsychoPy windows flip at a screen's refresh rate (:data:`REFRESH`), which Xvfb has not.

What the test starts is ``tests/warm_client.py``, a few milliseconds of standard library: it
passes on the signals it is sent and ends with the program's exit code or signal, and if it
is killed (a timeout's SIGKILL), the server kills the program's process group. A
command the server cannot play the same (another interpreter or options, an environment
whose import-time or start-time settings differ, see :data:`_SAME_AT_IMPORT` and
:data:`_SAME_AT_START`: a preloaded library, for one) is returned unchanged.

Not for what a fresh process is the point of: the tests of signals and kills
(tests/test_integrity.py, tests/test_faults.py), of what a program imports, and one test per
entry point start the real programs. ``TOL_TESTS_COLD=1`` makes :func:`warm` return every
command unchanged (the whole suite on real processes).

Run as a script (``python tests/warm.py SOCKET``) this module is the server.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import os
import re
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

#: What the server imports before it forks: PsychoPy's display-free part and what it pulls in
#: (scipy.interpolate and pandas through psychopy.monitors), and the runner's own modules up to
#: its PsychoPy windows, and PsychoPy's Builder compiler. pyglet.window (imported by
#: psychopy.visual) opens the X display at import for its hidden "shadow" window: the server
#: imports it with that window turned off, and each child opens it on its own display
#: (:func:`_become`), where the program's own import would have.
WARM_MODULES = (
    "numpy", "scipy.interpolate", "scipy.optimize", "pandas", "matplotlib", "json_tricks",
    "psychopy", "psychopy.preferences", "psychopy.logging", "psychopy.clock",
    "psychopy.monitors", "psychopy.core", "psychopy.event", "psychopy.visual",
    "psychopy.experiment", "psychopy.scripts.psyexpCompile",
    "tol_tasks.cli", "tol_tasks.runner.engine", "tol_tasks.builder.component",
)  # fmt: skip

#: What the plain server imports before it forks, for the commands that need no PsychoPy
#: (:data:`CONSOLE_SCRIPTS`): their entry points' modules (found from the entry points, not
#: named here) and the libraries a scoring, import or protocol check imports on its way (the
#: tables, figures and reports of ``tol-score``, the protocol model). Never PsychoPy: such a
#: command's child must import no more than the command itself does.
PLAIN_MODULES = (
    "numpy", "pandas", "pyarrow", "pydantic", "yaml", "jinja2", "matplotlib",
    "matplotlib.figure", "matplotlib.backends.backend_agg",
)  # fmt: skip

#: Environment variables read when those modules are imported (PsychoPy's and matplotlib's
#: settings folders, the locale, Python's own): a command whose environment differs from the
#: server's in one of them is run as a process of its own.
_SAME_AT_IMPORT = (
    "HOME", "PATH", "PYTHONPATH", "PYTHONHOME", "PYTHONHASHSEED", "PYTHONIOENCODING",
    "PYTHONUTF8", "PYTHONWARNINGS", "PYTHONDONTWRITEBYTECODE", "LANG", "LC_ALL", "LC_CTYPE",
    "LANGUAGE", "TZ", "MPLBACKEND", "MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
    "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "VIRTUAL_ENV",
)  # fmt: skip

#: Prefixes of environment variables read when a process starts, before any module: the
#: dynamic loader's (``LD_PRELOAD``: libfaketime, which tests/test_builder_clock.py uses to
#: step the wall clock, is loaded only into a process started with it), Python's, the C
#: library's and its allocator's. A command whose environment differs from the server's in
#: any of them (present in one, absent or different in the other) is run as a process of
#: its own.
_SAME_AT_START = ("LD_", "PYTHON", "GLIBC_", "MALLOC_", "FAKETIME")

#: The commands of this environment played warm (console scripts, by name), and the server
#: that plays each: ``psychopy`` (:data:`WARM_MODULES`, a live X display needed) or ``plain``
#: (:data:`PLAIN_MODULES`, no display: the commands that never import PsychoPy).
CONSOLE_SCRIPTS = {
    "tol-run": "psychopy", "tol-score": "plain", "tol-import": "plain", "tol-protocol": "plain",
}  # fmt: skip

#: The test modules whose programs are always processes of their own, and why.
REAL_PROCESS_MODULES = {
    "test_integrity": "signals, kills, locks and held files between processes",
    "test_faults": "kills at random moments and resumes",
    "test_one_session": "tol-run's console script end to end (the entry point's own test)",
    "test_input": "the X input listener, a child process of tol-run that a test kills",
}

#: The refresh rate (Hz) the PsychoPy windows of the programs :func:`warm` runs flip at
#: (``TOL_TESTS_REFRESH`` in the test's environment; 0: unpaced). Xvfb has no vertical
#: blank: unpaced, a window flips as fast as the processor lets it (about 420 frames a
#: second here) and each session played in real time keeps a core busy drawing frames no
#: screen shows. 120 Hz, a fast lab screen's rate: the everyday loop (4 workers, in turns)
#: took 545 s of CPU unpaced, 518 s at 120 Hz, 484 s at 60 Hz, where the simulated sessions
#: played faster than real time wait for their frames (two session tests, one worker:
#: 15.1 s of CPU and 15.9 s of wall unpaced, 10.6 and 15.9 s at 120 Hz, 9.5 and 17.5 s at
#: 60 Hz). The programs the tests start cold (``TOL_TESTS_COLD``,
#: :data:`REAL_PROCESS_MODULES`) stay unpaced.
REFRESH = 120.0

CLIENT = Path(__file__).with_name("warm_client.py")
_FORWARDED = ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2")


# --- the tests' side: one server per pytest(-xdist) worker, started when first asked ---


class _Server:
    def __init__(self, kind: str) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix=f"tol-warm-{kind}-"))
        self.path = str(self.folder / "socket")
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
        self.env = env
        self.proc = subprocess.Popen([sys.executable, __file__, self.path, kind], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)  # fmt: skip
        line = self.proc.stdout.readline()
        if line != b"ready\n":
            self.proc.wait(timeout=30)
            raise RuntimeError(f"the warm server did not start ({self.proc.returncode}): {line!r}")

    def stop(self) -> None:
        self.proc.stdin.close()  # the server ends at the end of its input
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        for path in self.folder.iterdir():
            path.unlink()
        self.folder.rmdir()


_servers: dict[str, _Server] = {}


def server(kind: str = "psychopy") -> _Server:
    """This worker's server of ``kind`` (``psychopy`` or ``plain``), started on first use
    (about 2 s of processor time for the first, 1 s for the second)."""
    if kind not in _servers:
        _servers[kind] = _Server(kind)
    return _servers[kind]


def stop() -> None:
    """Stop this worker's servers, if they were started (the end of the test session)."""
    while _servers:
        _servers.popitem()[1].stop()


def warm(argv: list[str], env: dict | None = None) -> list[str]:
    """The command line that runs ``argv`` in a child of this worker's warm interpreter,
    or ``argv`` itself where it cannot be run the same there.

    Played warm: a console script of :data:`CONSOLE_SCRIPTS` beside this interpreter
    (``tol-run ARG...``, ``tol-score ARG...``), and this interpreter running a script or code
    (``python SCRIPT ARG...``, ``python -c CODE ARG...``), in an environment ``env``
    (default: this process's) whose import-time settings are the server's; a PsychoPy
    program (``tol-run``, a script, code) only where ``env``'s ``DISPLAY`` is a running local
    X server (the child opens its shadow window there, where the program's import of pyglet
    would have: a program given no display, or a wrong one, runs as a process of its own);
    not in the tests of :data:`REAL_PROCESS_MODULES`.
    """
    test = os.environ.get("PYTEST_CURRENT_TEST", "").split("::")[0]
    if os.environ.get("TOL_TESTS_COLD") or Path(test).stem in REAL_PROCESS_MODULES:
        return list(argv)
    request = _request_of([str(a) for a in argv])
    if request is None:
        return list(argv)
    kind = CONSOLE_SCRIPTS[request[1]] if request[0] == "console" else "psychopy"
    env = os.environ if env is None else env
    if kind == "psychopy" and not _live_display(env.get("DISPLAY", "")):
        return list(argv)
    current = server(kind)
    if _differs_at_start(env, current.env):
        return list(argv)
    return [sys.executable, "-I", "-S", str(CLIENT), current.path, *request]


def _differs_at_start(env: Mapping[str, str], server_env: Mapping[str, str]) -> bool:
    """Whether ``env`` differs from the server's in a variable read at import
    (:data:`_SAME_AT_IMPORT`) or when a process starts (:data:`_SAME_AT_START`)."""
    keys = set(_SAME_AT_IMPORT) | {k for k in (*env, *server_env) if k.startswith(_SAME_AT_START)}
    return any(env.get(k) != server_env.get(k) for k in keys)


def _live_display(display: str) -> bool:
    """Whether ``display`` (``:N`` or ``:N.S``) is a local X server with its socket open."""
    found = re.fullmatch(r":(\d+)(\.\d+)?", display)
    return found is not None and Path(f"/tmp/.X11-unix/X{found[1]}").exists()


def _request_of(argv: list[str]) -> list[str] | None:
    here = Path(sys.executable).parent
    first = Path(argv[0])
    if first.parent == here and first.name in CONSOLE_SCRIPTS:
        return ["console", first.name, *argv[1:]]
    if argv[0] != sys.executable or len(argv) < 2:
        return None
    if argv[1] == "-c" and len(argv) >= 3:
        return ["code", argv[2], *argv[3:]]
    if not argv[1].startswith("-") and argv[1].endswith(".py"):
        return ["script", argv[1], *argv[2:]]
    return None


# --- the server's side ---


def _serve(path: str, kind: str):
    """Import :data:`WARM_MODULES` (``kind`` ``psychopy``) or :data:`PLAIN_MODULES` and the
    plain commands' entry points (``plain``), then fork a child for each connection; return
    (in the child only) its request."""
    if kind == "psychopy":
        import pyglet

        pyglet.options["shadow_window"] = False  # (no display here: each child opens its own)
        names = WARM_MODULES
    else:
        from importlib.metadata import entry_points

        points = entry_points(group="console_scripts")
        plain = [n for n, k in CONSOLE_SCRIPTS.items() if k == "plain"]
        names = (*PLAIN_MODULES, *(points[n].module for n in plain))
    for name in names:
        importlib.import_module(name)
    # What the imports made is never collected here: the collector leaves it alone in every
    # child too (not touched, so not copied page by page, nor walked at the child's exit).
    gc.freeze()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    jobs = selectors.DefaultSelector()
    jobs.register(listener, selectors.EVENT_READ, ("accept", None))
    jobs.register(0, selectors.EVENT_READ, ("stdin", None))
    os.write(1, b"ready\n")
    while True:
        for key, _ in jobs.select():
            what, job = key.data
            if what == "stdin":
                if not os.read(0, 4096):  # the tests ended (or their worker died): and so
                    # do the programs still running (a session left to itself under Xvfb
                    # draws ~550 frames a second: one ran on for 54 min after a killed run)
                    for other in jobs.get_map().values():
                        if other.data[0] == "exit":
                            with contextlib.suppress(ProcessLookupError, PermissionError):
                                os.killpg(other.data[1]["pid"], signal.SIGKILL)
                    return None
            elif what == "accept":
                conn, _ = listener.accept()
                request, fds = _receive(conn)
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:
                    for other in list(jobs.get_map().values()):
                        if other.fileobj not in (0, conn):
                            _close(other.fileobj)
                    jobs.close()
                    return request, fds, conn
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.setpgid(pid, pid)  # (the child does it too: whichever runs first)
                for fd in fds:
                    os.close(fd)
                job = {"pid": pid, "conn": conn, "pidfd": os.pidfd_open(pid)}
                jobs.register(conn, selectors.EVENT_READ, ("signal", job))
                jobs.register(job["pidfd"], selectors.EVENT_READ, ("exit", job))
            elif what == "signal":
                sent = job["conn"].recv(64)
                if not sent:  # the client was killed: so is the program, children and all
                    jobs.unregister(job["conn"])
                    job["conn"].close()
                    job["conn"] = None
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(job["pid"], signal.SIGKILL)
                for signum in sent:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(job["pid"], signum)
            else:  # the child ended
                _, status = os.waitpid(job["pid"], 0)
                jobs.unregister(job["pidfd"])
                os.close(job["pidfd"])
                if job["conn"] is not None:
                    jobs.unregister(job["conn"])
                    with contextlib.suppress(OSError):
                        job["conn"].sendall(b"%d\n" % os.waitstatus_to_exitcode(status))
                    job["conn"].close()


def _close(thing) -> None:
    if isinstance(thing, int):
        os.close(thing)
    else:
        thing.close()


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    head, fds, _, _ = socket.recv_fds(conn, 4, 3)
    while len(head) < 4:
        head += conn.recv(4 - len(head))
    (size,) = struct.unpack("!I", head)
    body = b""
    while len(body) < size:
        body += conn.recv(size - len(body))
    return json.loads(body), fds


def _become(request: dict, fds: list[int], conn: socket.socket, kind: str) -> None:
    """Make this forked child the process the test asked for (all but running it)."""
    with contextlib.suppress(PermissionError):
        os.setpgid(0, 0)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    conn.close()
    for name in _FORWARDED:
        signum = getattr(signal, name)
        if name in request["ignored"]:
            signal.signal(signum, signal.SIG_IGN)
        elif signum == signal.SIGINT:
            signal.signal(signum, signal.default_int_handler)
        else:
            signal.signal(signum, signal.SIG_DFL)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    # A started process draws new seeds and starts PsychoPy's clock at its imports.
    import random

    import numpy

    random.seed()
    numpy.random.seed()
    if kind != "psychopy":
        return
    import time

    import psychopy.clock

    # PsychoPy's clock starts at the program's start (its zero and its date), not the server's.
    psychopy.clock.monotonicClock._timeAtLastReset = psychopy.clock.getTime()
    psychopy.clock.monotonicClock._epochTimeAtLastReset = time.time()
    import pyglet.gl

    pyglet.options["shadow_window"] = True
    pyglet.gl._create_shadow_window()  # what importing pyglet.window does on a display
    rate = float(os.environ.get("TOL_TESTS_REFRESH", REFRESH))
    if rate > 0:
        _pace_flips(rate)


def _pace_flips(rate: float) -> None:
    """Make every PsychoPy window's flip wait for the next tick of a ``rate`` Hz clock, as a
    lab screen's vertical blank makes it wait (a frame whose drawing takes longer than a
    period misses a tick: a dropped frame, as on a screen)."""
    import math
    import time

    from psychopy import visual

    flip, period = visual.Window.flip, 1.0 / rate

    def paced(self, *args, **kwargs):
        now = time.perf_counter()
        time.sleep((math.floor(now / period) + 1) * period - now)
        return flip(self, *args, **kwargs)

    paced.__wrapped__ = flip
    visual.Window.flip = paced


def _run(request: dict) -> None:
    """Run the program of ``request`` as ``__main__``: ``sys.exit`` and ``KeyboardInterrupt``
    left to the interpreter, as in a started process, and an uncaught exception's traceback
    printed from the program's first frame (this module's and runpy's left out), exit code 1."""
    try:
        _start(request)
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as exc:  # printed, exit code 1: what Python does
        import runpy

        ours = (_run.__code__.co_filename, runpy.__file__)
        trace = exc.__traceback__
        while trace is not None and trace.tb_frame.f_code.co_filename in ours:
            trace = trace.tb_next
        sys.excepthook(type(exc), exc.with_traceback(trace), trace)
        sys.exit(1)


def _start(request: dict) -> None:
    import runpy
    import types
    from importlib.metadata import entry_points

    kind, target, args = request["kind"], request["target"], request["args"]
    if kind == "console":
        (point,) = entry_points(group="console_scripts", name=target)
        sys.argv = [str(Path(sys.executable).with_name(target)), *args]
        sys.path.insert(0, str(Path(sys.executable).parent))
        sys.exit(point.load()())
    if kind == "script":
        sys.argv = [target, *args]
        sys.path.insert(0, str(Path(target).resolve().parent))
        runpy.run_path(target, run_name="__main__")
        return
    sys.argv = ["-c", *args]
    sys.path.insert(0, "")
    main = types.ModuleType("__main__")
    sys.modules["__main__"] = main
    exec(compile(target, "<string>", "exec"), main.__dict__)


if __name__ == "__main__":
    del sys.path[0]  # this folder (tests/): the child puts its program's there
    _kind = sys.argv[2] if len(sys.argv) > 2 else "psychopy"
    _child = _serve(sys.argv[1], _kind)
    if _child is None:
        sys.exit(0)
    _become(*_child, _kind)
    _run(_child[0])
