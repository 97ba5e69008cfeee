"""Helpers for the runner tests: run tol-run as a user would, wait for its files."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.system_tools import program
from tests.warm import warm
from tol_tasks.session_data.eventlog import EventLogError, read_event_log
from tol_tasks.session_data.sidecar import read_sidecar


def short_protocol(name: str, goal: str) -> str:
    """A protocol of one 3-disk Tower of Hanoi problem from AAA, no instruction pages, no
    pauses, no feedback."""
    return (
        f"format: 1\nname: {name}\ntask: {{type: hanoi, disks: 3}}\ninstructions: none\n"
        "display: {fullscreen: false, window_size: [800, 600]}\nfeedback: none\n"
        "timing: {inter_trial_interval: 0, feedback_duration: 0}\n"
        f"blocks:\n  - problems:\n      - {{id: p1, start: AAA, goal: {goal}}}\n"
    )


def start_xvfb(screen: str = "1280x1024x24") -> tuple[subprocess.Popen, dict]:
    """A new Xvfb server on a free display (its screen ``WIDTHxHEIGHTxDEPTH``); returns it and
    the environment that uses it.

    ``-noreset``: an X server resets when its last client closes, and a client connecting
    during the reset is refused ("Cannot connect", "Can't open display"). A killed session's
    window is often the last client, and the next session (a warm child connects within
    milliseconds) then failed at its first window: twice in a CI run, and 2-3 times in 60
    kills of a pyglet window followed at once by xdotool, at load 6 (0 with ``-noreset``).
    """
    import os

    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        [
            exe_x("Xvfb"),
            "-displayfd",
            str(write_fd),
            "-screen",
            "0",
            screen,
            "-nolisten",
            "tcp",
            "-noreset",
        ],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    with os.fdopen(read_fd) as f:
        number = f.readline().strip()
    env = dict(os.environ, DISPLAY=f":{number}")
    env.pop("WAYLAND_DISPLAY", None)
    return proc, env


def tol_score(*args: str) -> subprocess.CompletedProcess:
    """``tol-score ARG...`` to its end, its output captured; played by the worker's plain warm
    interpreter (:func:`tests.warm.warm`)."""
    command = [exe("tol-score"), *args]
    return subprocess.run(warm(command), capture_output=True, text=True, check=False)


#: Tables whose header the codebook describes by a pattern (a column per level, per problem).
_PATTERNED = {"sessions.csv", "wide.csv"}


def codebook_describes_every_table(out: Path) -> dict:
    """Check that every CSV table tol-score wrote in ``out`` is in its codebook.json, a table's
    header being the columns described there, in order (sessions.csv and wide.csv: their
    named columns before the patterned ones); return the codebook's tables."""
    book = json.loads((out / "codebook.json").read_text(encoding="utf-8"))["tables"]
    written = sorted(p.name for p in out.glob("*.csv"))
    assert sorted(book) == written
    for name in written:
        with (out / name).open(encoding="utf-8") as f:
            header = f.readline().rstrip("\n").split(",")
        described = [c["name"] for c in book[name]]
        if name in _PATTERNED:
            described = [n for n in described if "<" not in n]
            header = header[: len(described)]
        assert header == described, name
    return book


def key_over_window(folder: Path, key: str, env: dict) -> None:
    """Press ``key`` with the pointer over the session's window (read from its sidecar)."""
    wx, wy = sidecar_of(folder)["window"]["position"]
    # No --sync: it would wait forever for a motion when the pointer is already there.
    xdotool("mousemove", str(wx + 50), str(wy + 50), env=env)
    time.sleep(0.1)
    xdotool("key", key, env=env)


def exe(name: str) -> str:
    """The command ``name`` of the environment the tests run in (beside its Python).

    Looked up there first, then on PATH: under ``uv run`` PATH may lead to another
    environment's command (the oldest supported PsychoPy's tests would then run
    today's PsychoPy).
    """
    own = Path(sys.executable).with_name(name)
    return str(own) if own.is_file() else shutil.which(name) or str(own)


def tol_run(
    *args: str, env: dict | None = None, timeout: float = 180, real: bool = False
) -> subprocess.CompletedProcess:
    """``tol-run ARG...`` to its end, its output captured; played by the worker's warm
    interpreter (:func:`tests.warm.warm`) unless ``real`` (a process of its own)."""
    command = [exe("tol-run"), *args]
    return subprocess.run(
        command if real else warm(command, env),
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _as_from_a_terminal(args: list[str]) -> list[str]:
    """``args`` run with SIGHUP at its default, as from a terminal: a suite started under
    ``nohup`` gives its children an ignored SIGHUP, which tol-run keeps ignoring (as ``nohup``
    asks), and its signal tests would then test ``nohup`` (they failed so, in a full suite
    started with ``nohup``). Coreutils' ``env`` resets it and runs the program in its place."""
    if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN and sys.platform.startswith("linux"):
        return ["env", "--default-signal=HUP", *args]
    return args


@contextmanager
def running(
    args: list[str], env: dict, cwd: Path | None = None, real: bool = False
) -> Iterator[subprocess.Popen]:
    """A program in the background (text pipes), in a process group of its own; if still
    running after, the whole group is killed (its children too: an ioHub server left behind
    holds the pipes open, and reading them to the end would wait for it).

    Played by the worker's warm interpreter where it can be (:func:`tests.warm.warm`: the
    process started is then its stand-in, which passes on signals and ends as the program
    does; killed, the program's process group is killed), unless ``real``: a test that
    kills the program and at once reads or resumes what it left asks for the real one.
    """
    args = args if real else warm(args, env)
    proc = subprocess.Popen(_as_from_a_terminal(args), env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, process_group=0)  # fmt: skip
    try:
        yield proc
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
        # A program the test ended itself (kill(), already reaped) kept its pipes open: left
        # to the garbage collector, their ResourceWarning failed whichever test ran next
        # (test_quality's focus test, after its xmessage window was killed).
        for pipe in (proc.stdout, proc.stderr):
            pipe.close()


def running_tol_run(*args: str, env: dict, real: bool = False):
    """tol-run in the background (see :func:`running`)."""
    return running([exe("tol-run"), *args], env=env, real=real)


def click_peg(peg: str, meta: dict, env: dict) -> None:
    """A real click (xdotool) on ``peg`` of the session whose sidecar is ``meta``."""
    rect = next(r for r in meta["layout"]["pegs"] if r["peg"] == peg)
    wx, wy = meta["window"]["position"]
    x = int(wx + rect["left"] + rect["width"] / 2)
    y = int(wy + rect["top"] + rect["height"] * 0.6)
    # No --sync: it waits for a motion that never comes when the pointer is already there.
    xdotool("mousemove", str(x), str(y), env=env)
    time.sleep(0.15)
    xdotool("click", "1", env=env)
    time.sleep(0.25)


def session_files(folder: Path) -> tuple[Path, Path]:
    logs = sorted(folder.glob("*.csv"))
    sidecars = sorted(folder.glob("*.json"))
    assert len(logs) == 1, logs
    assert len(sidecars) == 1, sidecars
    return logs[0], sidecars[0]


#: Seconds an ioHub session may take to its first trial: two processes import PsychoPy
#: first (tol-run and ioHub's server); at load 30-50 on two cores that took over 120 s.
IOHUB_FIRST_TRIAL_S = 300.0


def wait_for_rows(folder: Path, predicate, timeout: float = 120.0, proc=None):
    """Wait until the session's log has rows satisfying ``predicate(rows)``; return the rows
    (a tol-run took over 60 s to its first move at load 18: a session that ends early still
    fails at once, through ``proc``)."""
    end = time.monotonic() + timeout
    unread = None
    while time.monotonic() < end:
        logs = list(folder.glob("*.csv"))
        if logs:
            try:
                rows, unread = read_event_log(logs[0]).rows, None
            except EventLogError as exc:  # created, its header not written yet (a loaded machine)
                unread = exc
                rows = None
            if rows is not None and predicate(rows):
                return rows
        if proc is not None and proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"tol-run ended early ({proc.returncode}):\n{out}\n{err}")
        time.sleep(0.05)
    raise AssertionError(
        f"timed out waiting for rows in {folder}" + (f" ({unread})" if unread else "")
    )


def make_golden():
    """``tests/data/golden/make_golden.py``, the script that recorded the golden sessions, as
    a module: its own functions run the sessions the way it ran them."""
    import importlib.util

    path = Path(__file__).parent / "data" / "golden" / "make_golden.py"
    spec = importlib.util.spec_from_file_location("make_golden", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def copy_session(folder: Path, to: Path) -> tuple[Path, Path]:
    """Copy a session's log and sidecar from ``folder`` (a shared, read-only session such
    as the ``simulated_demo`` fixture's) into ``to``, made if missing; return the copies."""
    to.mkdir(parents=True, exist_ok=True)
    return tuple(Path(shutil.copy2(f, to)) for f in session_files(folder))


def sidecar_of(folder: Path) -> dict:
    return read_sidecar(session_files(folder)[1])


def xdotool(*args: str, env: dict, timeout: float = 10) -> None:
    subprocess.run([exe_x("xdotool"), *args], env=env, check=True, timeout=timeout)


def exe_x(name: str) -> str:
    """An X program the test needs (Xvfb, xdotool), or the test skipped (see system_tools)."""
    return program(name)
