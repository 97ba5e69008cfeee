"""No press lost: on-arrival sources reconciled with the window's own events (issue 13).

Real windows under Xvfb and real X events injected with XTest. Each test breaks
the on-arrival source a different way (a listener killed mid-trial, a listener
that misses one press) or uses the other source (PsychoPy's ioHub server), and
checks that every click is in the log with the stamp it deserves.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.runner_tools import (
    IOHUB_FIRST_TRIAL_S,
    running_tol_run,
    session_files,
    sidecar_of,
    wait_for_rows,
)
from tests.test_timing import PROTOCOL, _inject
from tol_tasks.runner.events import MATCH_AFTER_S, InputEvent, Reconciler
from tol_tasks.session_data.eventlog import read_event_log

HANOI3 = "ACABCBACBABCAC"  # the 7 moves of the optimal 3-disk solution, as 14 peg clicks
BACK_AND_FORTH = "ABBA" * 8  # the smallest disk to B and back, eight times (32 clicks)
DROP_PRESS = Path(__file__).parent / "data" / "drop_press"
#: The UDP port ioHub's server listens on when not told otherwise (its default_config.yaml).
IOHUB_DEFAULT_PORT = 9036


# ---------------------------------------------------------------- pairing logic
#: A participant's presses: (kind, time, key): clicks (press, release) and keys, some close.
PRESSES = [("press", 0.10, None), ("release", 0.18, None), ("press", 0.30, None),
           ("release", 0.34, None), ("key", 0.40, "space"), ("press", 0.45, None),
           ("release", 0.47, None), ("key", 0.60, "escape"), ("press", 0.61, None),
           ("release", 0.70, None), ("press", 1.20, None), ("release", 1.21, None)]  # fmt: skip
FRAME = 1 / 60


def _session(mode: str, delay: float, window_late: bool, missed=(), dies_at=None):
    """A Reconciler polled once a frame, as a session polls it; each press reaches it twice,
    one copy ``delay`` seconds after the other (the window's when ``window_late``). The
    on-arrival source answers a sync as late as it delivers its events (one pipe). Returns
    the handled events and the reconciler."""
    r = Reconciler(mode=mode)
    source_lag = 0.0 if window_late else delay
    deliveries = []  # (when it comes, stream, event)
    for i, (kind, t, key) in enumerate(PRESSES):
        ident = round(t * 1000) if mode.startswith("ident") else None
        a = InputEvent(kind, t + 0.0004, 5, 5, key=key, stamp="arrival", ident=ident)
        w = InputEvent(kind, t + 0.012, 5, 5, key=key, stamp="polled", ident=ident)
        if i not in missed:
            deliveries.append((t + 0.001 + source_lag, "a", a))
        deliveries.append((t + 0.001 + (delay if window_late else 0.0), "w", w))
    answers: list[tuple[float, int]] = []
    handled, before, now = [], -1.0, 0.0
    while now < 1.3 + delay + 0.5:
        alive = dies_at is None or now < dies_at
        arrived = [e for d, s, e in deliveries if s == "a" and before < d <= now and alive]
        window = [e for d, s, e in deliveries if s == "w" and before < d <= now]
        synced = max((n for at, n in answers if before < at <= now), default=None)
        handled += r.add(arrived, window, now, source_alive=alive, synced=synced)
        if r.request is not None:
            answers.append((now + source_lag + 0.001, r.request))
        before, now = now, now + FRAME
    return handled, r


def _press_of(e: InputEvent) -> int:
    """Which of PRESSES an event is a copy of."""
    return min(
        range(len(PRESSES)), key=lambda i: (PRESSES[i][0] != e.kind, abs(PRESSES[i][1] - e.t))
    )


@pytest.mark.parametrize("mode", ["ident", "ident-hold", "time"])
@pytest.mark.parametrize("window_late", [True, False], ids=["window-late", "arrival-late"])
def test_every_press_is_handled_once_whatever_the_delay(mode, window_late):
    for ms in range(0, 1001):  # every delay from 0 to 1 s, a millisecond apart
        handled, r = _session(mode, ms / 1000, window_late)
        which = [_press_of(e) for e in handled]
        assert which == list(range(len(PRESSES))), (ms, which)  # each once, in order
        assert (r.unmatched_presses, r.unmatched_keys) == (0, 0), ms
        if mode == "ident":  # the window's copy waits for the listener's word: no guessing
            assert {e.stamp for e in handled} == {"arrival"}, ms
            assert r.late_twins == 0, ms
        else:  # a twin later than HOLD_S: the window's copy went first, the twin is dropped
            # (known by its identity with ident-hold, by its stamp with time)
            polled = sum(e.stamp == "polled" for e in handled)
            assert r.late_twins == (polled if not window_late else 0), ms


@pytest.mark.parametrize("mode", ["ident", "ident-hold", "time"])
def test_a_press_the_source_missed_is_handled_once_as_polled_and_counted(mode):
    for ms in (0, 30, 250, 700):
        handled, r = _session(mode, ms / 1000, window_late=False, missed=(2, 4))
        assert [_press_of(e) for e in handled] == list(range(len(PRESSES))), ms
        assert [e.stamp for e in handled if _press_of(e) in (2, 4)] == ["polled", "polled"]
        assert (r.unmatched_presses, r.unmatched_keys) == (1, 1), ms
        late = sum(e.stamp == "polled" for e in handled) - 2  # by time: twins after HOLD_S
        assert r.late_twins == (0 if mode == "ident" else late), ms


@pytest.mark.parametrize("mode", ["ident", "ident-hold", "time"])
def test_when_the_source_dies_the_window_events_go_through_once(mode):
    for ms in (0, 100, 500):
        handled, r = _session(mode, ms / 1000, window_late=False, dies_at=0.5)
        assert [_press_of(e) for e in handled] == list(range(len(PRESSES))), ms
        assert {e.stamp for e in handled if e.t > 0.5 + ms / 1000} <= {"polled"}
        if mode == "ident":  # the window's copies waited: handled once the source was gone
            assert (r.unmatched_presses, r.unmatched_keys) == (0, 0)


#: A quick participant's moves: each two presses (pick up, place), the second 30-90 ms after
#: the first; the moves 0.7 s apart.
MOVES = [(0.10, 0.03), (0.80, 0.06), (1.50, 0.09), (2.20, 0.03), (2.90, 0.06)]


def _held_back(mode: str, lags: tuple[float, float], idents: bool):
    """A Reconciler polled once a frame while the on-arrival source (ioHub's server) is kept
    from the processor: it reads (and stamps: it stamps what it reads when it reads it) the
    first press of each move ``lags[0]`` s after it was made, the second ``lags[1]`` s after,
    in the order they came, each release with its press or after. The window's copies come a
    millisecond after each press, stamped 12 ms after it. ``idents``: both copies carry the
    X server's time of the press. Returns the handled events, the press times, and the
    reconciler."""
    r = Reconciler(mode=mode)
    deliveries, presses, read = [], [], 0.0
    for first, gap in MOVES:
        for t, lag in ((first, lags[0]), (first + gap, lags[1])):
            presses.append(t)
            for kind, at in (("press", t), ("release", t + 0.01)):
                read = max(read, at + lag)  # when ioHub reads (and stamps) it
                ident = round(at * 1000) if idents else None
                a = InputEvent(kind, read, stamp="arrival", ident=ident)
                w = InputEvent(kind, at + 0.012, ident=ident)
                deliveries += [(read + 0.001, "a", a), (at + 0.001, "w", w)]
    handled, before, now = [], -1.0, 0.0
    while now < MOVES[-1][0] + max(lags) + 1.0:
        arrived = [e for d, s, e in deliveries if s == "a" and before < d <= now]
        window = [e for d, s, e in deliveries if s == "w" and before < d <= now]
        handled += r.add(arrived, window, now)
        before, now = now, now + FRAME
    return handled, presses, r


#: How late ioHub reads the two presses of a move: on time, a little late (its copy still
#: awaited, stamped after the window's copy of the next press), or hundreds of ms late.
LAGS = [(0.0005, 0.0005), (0.05, 0.5), (0.05, 0.2), (0.5, 0.5), (0.3, 0.05), (0.02, 0.1)]


@pytest.mark.parametrize("lags", LAGS, ids=[f"{a * 1000:g}-{b * 1000:g}ms" for a, b in LAGS])
def test_iohub_held_back_neither_loses_nor_doubles_nor_swaps_close_presses(lags):
    # ioHub on X11: both copies carry the X server's time. Its copies come late and are
    # stamped late: paired by identity, each press is handled once, in the order pressed,
    # never before it happened; a copy too late to be waited for is dropped as a late twin.
    handled, presses, r = _held_back("ident-hold", lags, idents=True)
    got = [e for e in handled if e.kind == "press"]
    assert len(got) == len(presses), [(e.t, e.stamp) for e in got]
    assert [e.ident for e in got] == [round(t * 1000) for t in presses]  # each once, in order
    assert all(e.t >= t for e, t in zip(got, presses, strict=True))
    assert len([e for e in handled if e.kind == "release"]) == len(presses)
    assert r.unmatched_presses == 0  # every twin came, some late
    assert r.late_twins == sum(e.stamp == "polled" for e in handled)


def test_without_identities_a_source_on_time_is_paired_by_time():
    # ioHub on Windows or macOS (no server time): copies close in time are paired by stamps.
    handled, presses, r = _held_back("time", (0.0005, 0.0005), idents=False)
    got = [e for e in handled if e.kind == "press"]
    assert [e.stamp for e in got] == ["arrival"] * len(presses)
    assert [e.t for e in got] == [t + 0.0005 for t in presses]
    assert r.unmatched_presses == 0


def test_a_window_event_waits_for_the_sync_and_holds_later_events_back():
    r = Reconciler(mode="ident")
    w = InputEvent("press", 1.010, ident=1000)
    assert r.add([], [w], now=1.02) == []
    assert r.request == 1  # ask the listener
    later = InputEvent("release", 1.05, stamp="arrival", ident=1040)
    assert r.add([later], [], now=1.06) == []  # the press came first: the release waits
    assert r.request is None  # one request covers it
    assert r.add([], [], now=1.07, synced=1) == [w, later]  # the listener had no twin
    assert (r.unmatched_presses, r.late_twins) == (1, 0)
    assert r.add([InputEvent("press", 1.0004, stamp="arrival", ident=1000)], [], now=2.0) == []
    assert r.late_twins == 1  # a twin after all (a source that broke its word): dropped


def test_a_press_takes_its_place_from_the_window_and_its_time_from_the_source():
    # The listener asks where the pointer is when it reads a press (late, on a loaded
    # machine: the pointer may have moved on); the window's copy says where it was.
    r = Reconciler(mode="ident")
    a = InputEvent("press", 1.000, 600, 300, stamp="arrival", ident=1000)
    w = InputEvent("press", 1.016, 170, 310, ident=1000)
    (out,) = r.add([a], [w], now=1.02)
    assert (out.t, out.x, out.y, out.stamp) == (1.000, 170, 310, "arrival")
    w2 = InputEvent("press", 2.016, 171, 311, ident=2000)
    assert r.add([], [w2], now=2.02) == []
    (out,) = r.add([InputEvent("press", 2.0, 600, 300, stamp="arrival", ident=2000)], [], now=2.05)
    assert (out.t, out.x, out.y, out.stamp) == (2.0, 171, 311, "arrival")


def test_keys_pair_by_name_and_an_old_arrival_does_not_swallow_a_later_press():
    r = Reconciler(mode="time")
    arrived = [InputEvent("key", 1.00, key="space", stamp="arrival")]
    assert r.add(arrived, [InputEvent("key", 1.01, key="escape")], now=1.02) == arrived
    assert r.add([], [], now=1.2) == [InputEvent("key", 1.01, key="escape")]
    assert (r.unmatched_presses, r.unmatched_keys) == (0, 1)
    r.add([InputEvent("press", 3.0, stamp="arrival")], [], now=3.0)
    late = InputEvent("press", 3.0 + MATCH_AFTER_S + 0.1)
    assert r.add([], [late], now=5.0) == []
    assert r.add([], [], now=5.1) == [late]
    assert r.unmatched_presses == 1


# ---------------------------------------------------------------- real sessions
def _children_running(pid: int, module: str) -> list[int]:
    """Process ids of children of ``pid`` one of whose arguments names ``module``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if any(module.encode() in arg for arg in cmd) and int(stat[1]) == pid:
            found.append(int(entry.name))
    return found


def _clicks(out: Path) -> tuple[list[dict], list[dict]]:
    rows = read_event_log(session_files(out)[0]).rows
    return rows, [r for r in rows if r["event"] in ("pick_up", "place")]


def _ended(proc, out: Path, timeout: float = 180) -> str:
    """Wait for the session to end on its own after its last click; its stderr. Still running
    after ``timeout`` s, it fails with what the log holds: the press rows made, and whether
    the problem was solved (a lost click leaves it unsolved; a slow end has them all)."""
    try:
        return proc.communicate(timeout=timeout)[1]
    except subprocess.TimeoutExpired:
        rows = read_event_log(session_files(out)[0]).rows
        made = [(r["event"], r["from_peg"] or r["to_peg"]) for r in rows
                if r["event"] in PRESS_ROWS]  # fmt: skip
        ends = [r["reason"] for r in rows if r["event"] == "trial_end"]
        raise AssertionError(f"the session did not end within {timeout} s of its last click: "
                             f"{len(made)} press rows {made}, trial_end {ends}") from None  # fmt: skip


def _start(tmp_path: Path, participant: str, *extra: str, env: dict):
    proto = tmp_path / "timing.yaml"
    proto.write_text(PROTOCOL)
    out = tmp_path / "data"
    args = (str(proto), "--participant", participant, "--windowed", "--output", str(out), *extra)
    return out, running_tol_run(*args, env=env)


@pytest.mark.slow
def test_listener_killed_mid_trial_loses_no_click(xdisplay, tmp_path):
    out, running = _start(tmp_path, "K1", env=xdisplay)
    with running as proc:
        wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows), proc=proc)
        meta = sidecar_of(out)
        assert meta["timing"]["input_method"] == "xinput2-raw"
        _inject(xdisplay, meta, HANOI3[:6])
        wait_for_rows(out, lambda rows: sum(r["event"] == "place" for r in rows) == 3, proc=proc)
        (listener,) = _children_running(proc.pid, "tol_tasks.runner.xlistener")
        os.kill(listener, signal.SIGKILL)
        killed_at = time.monotonic()
        wait_for_rows(out, lambda rows: any(r["event"] == "input_lost" for r in rows), proc=proc)
        _inject(xdisplay, meta, HANOI3[6:])
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "on-arrival input lost" in err
    rows, clicks = _clicks(out)
    assert len(clicks) == 14  # every click, before and after the kill
    assert [r["stamp"] for r in clicks] == ["arrival"] * 6 + ["polled"] * 8
    assert next(r for r in rows if r["event"] == "trial_end")["reason"] == "solved"
    lost = next(r for r in rows if r["event"] == "input_lost")
    assert "X Input 2 listener stopped" in lost["detail"]
    assert "now=polled" in lost["detail"]
    assert float(clicks[5]["time"]) < float(lost["time"]) < float(clicks[6]["time"])
    meta = sidecar_of(out)
    info = meta["timing"]["input_lost"]
    assert info["method_before"] == "xinput2-raw"
    assert info["method_after"] == "polled"
    assert info["time"] == pytest.approx(float(lost["time"]))
    assert "exit status -9" in info["reason"]
    assert time.monotonic() - killed_at < 60


@contextlib.contextmanager
def _stopped(pid: int, stop: float):
    """Process ``pid`` stopped (SIGSTOP) from now until ``stop`` s after the block."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
        time.sleep(stop)
    finally:
        os.kill(pid, signal.SIGCONT)


@pytest.mark.slow
def test_a_listener_kept_from_the_processor_stamps_each_press_when_it_came(xdisplay, tmp_path):
    # A loaded machine keeps the listener process waiting for a core: here it is stopped
    # from just before each press to half a second after. Each press is still stamped on
    # arrival with its time at the X server (the listener's clock checked against the
    # server's), not when the listener could read it; none lost, none doubled, in order.
    stop = 0.5
    out, running = _start(tmp_path, "S1", env=xdisplay)
    with running as proc:
        wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows), proc=proc)
        meta = sidecar_of(out)
        (listener,) = _children_running(proc.pid, "tol_tasks.runner.xlistener")
        spans: list = []
        _inject(xdisplay, meta, HANOI3, around=lambda: _stopped(listener, stop), spans=spans)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    rows, clicks = _clicks(out)
    assert len(clicks) == len(spans) == 14
    assert [r["stamp"] for r in clicks] == ["arrival"] * 14
    times = [float(r["time"]) for r in rows if r["time"]]
    assert times == sorted(times)
    zero = sidecar_of(out)["timing"]["clock_zero"]
    late = [(float(r["time"]) + zero - before, float(r["time"]) + zero - taken)
            for r, (before, taken) in zip(clicks, spans, strict=True)]  # fmt: skip
    # Never before the press was sent; at most a few milliseconds after the server took it
    # (its clock's tick and the check's uncertainty), where the moment the listener read
    # it was half a second later (the old stamp).
    assert all(since_sent >= 0 for since_sent, _ in late), late
    assert all(after_taken < stop / 5 for _, after_taken in late), late
    assert next(r for r in rows if r["event"] == "trial_end")["reason"] == "solved"


@pytest.mark.slow
def test_a_press_the_listener_missed_is_still_handled(xdisplay, tmp_path):
    env = dict(xdisplay, PYTHONPATH=str(DROP_PRESS), TOL_DROP_PRESS="3")
    out, running = _start(tmp_path, "D1", env=env)
    with running as proc:
        wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows), proc=proc)
        _inject(xdisplay, sidecar_of(out), HANOI3)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    rows, clicks = _clicks(out)
    assert len(clicks) == 14
    stamps = [r["stamp"] for r in clicks]
    assert stamps == ["arrival"] * 2 + ["polled"] + ["arrival"] * 11  # the 3rd press only
    assert next(r for r in rows if r["event"] == "trial_end")["reason"] == "solved"
    meta = sidecar_of(out)
    assert meta["timing"]["input_method"] == "xinput2-raw"
    assert meta["timing"]["unmatched_presses"] == 1
    assert meta["timing"]["input_lost"] is None


@pytest.mark.slow
@pytest.mark.psychopy_compat
def test_iohub_stamps_real_clicks_on_arrival(xdisplay, tmp_path):
    # ioHub's default port held, as by another session's ioHub server on the machine (or a
    # test worker beside this one): this session's server must not share it.
    held = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    with contextlib.suppress(OSError):  # already held by someone else: the same situation
        held.bind(("", IOHUB_DEFAULT_PORT))
    out, running = _start(tmp_path, "I1", "--input-timing", "iohub", env=xdisplay)
    with held, running as proc:
        # Two Python processes import PsychoPy before the first trial (how fast is not this
        # test's): IOHUB_FIRST_TRIAL_S.
        wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows),
                      timeout=IOHUB_FIRST_TRIAL_S, proc=proc)  # fmt: skip
        meta = sidecar_of(out)
        injected = _inject(xdisplay, meta, HANOI3)
        err = _ended(proc, out)
    assert proc.returncode == 0, err
    meta = sidecar_of(out)
    assert meta["timing"]["input_method"] == "iohub"
    assert meta["timing"]["input_fallback_reason"] is None
    assert meta["timing"]["unmatched_presses"] == 0
    rows, clicks = _clicks(out)
    assert len(clicks) == 14
    assert [r["stamp"] for r in clicks] == ["arrival"] * 14
    assert next(r for r in rows if r["event"] == "trial_end")["reason"] == "solved"
    zero = meta["timing"]["clock_zero"]
    lags_ms = [(float(r["time"]) + zero - t) * 1000 for r, t in zip(clicks, injected, strict=True)]
    assert min(lags_ms) >= 0, lags_ms  # how close: benchmarks/bench_timing.py


#: The rows a press makes in a problem (codebook: tol_tasks/session_data/codebook).
PRESS_ROWS = ("pick_up", "place", "illegal", "same_peg_drop", "empty_pick", "cancel")
#: Moments between the two presses of a move, when both are sent while ioHub is stopped:
#: close clicks, as a quick participant makes them.
CLOSE_GAPS_S = (0.03, 0.06, 0.09)
#: Between moves: the session and ioHub's server idle again, as before a participant's move.
SETTLE_S = 0.6


def _inject_close_pairs(env: dict, meta: dict, pegs: str, around) -> list[tuple[float, float]]:
    """Click the pegs two at a time (a move: pick up, place), the second press 30-90 ms after
    the first, both inside ``around()`` (a process stopped meanwhile). Returns, for each
    press, the time just before it was sent and once the X server had taken it, on
    tol-tasks' clock."""
    from psychopy.clock import getTime  # the clock tol-tasks stamps with
    from Xlib import X, display
    from Xlib.ext import xtest

    d = display.Display(env["DISPLAY"])
    wx, wy = meta["window"]["position"]
    rects = {r["peg"]: r for r in meta["layout"]["pegs"]}
    spans = []

    def click(peg: str) -> None:
        r = rects[peg]
        x, y = int(wx + r["left"] + r["width"] / 2), int(wy + r["top"] + r["height"] * 0.6)
        xtest.fake_input(d, X.MotionNotify, x=x, y=y)
        before = getTime()
        xtest.fake_input(d, X.ButtonPress, 1)
        d.sync()
        spans.append((before, getTime()))
        time.sleep(0.01)
        xtest.fake_input(d, X.ButtonRelease, 1)
        d.sync()

    try:
        for i in range(0, len(pegs), 2):
            with around():
                click(pegs[i])
                time.sleep(CLOSE_GAPS_S[i // 2 % len(CLOSE_GAPS_S)] - 0.01)
                click(pegs[i + 1])
            time.sleep(SETTLE_S)
    finally:
        d.close()
    return spans


@contextlib.contextmanager
def _runner_first(runner: int, server: int, runner_at: float, server_at: float):
    """The session (``runner``) and ioHub's server stopped from now; after the block, the
    session goes on ``runner_at`` s later (it draws, and so takes the window's copies of
    what was pressed, then asks ioHub for its events and waits), ioHub's server
    ``server_at`` s later (it reads the presses, and stamps them, only then)."""
    os.kill(runner, signal.SIGSTOP)
    os.kill(server, signal.SIGSTOP)
    try:
        yield
        time.sleep(runner_at)
        os.kill(runner, signal.SIGCONT)
        time.sleep(server_at - runner_at)
    finally:
        os.kill(runner, signal.SIGCONT)
        os.kill(server, signal.SIGCONT)


@pytest.mark.slow
def test_an_iohub_server_slow_to_start_is_waited_for(xdisplay, tmp_path):
    # ioHub's own wait for its server is 30 s; at load 50 the server (which imports PsychoPy)
    # took longer and the session went on without ioHub. Here the server is stopped for 40 s
    # from its start: the session waits for it and takes its events.
    out, running = _start(tmp_path, "S1", "--input-timing", "iohub", env=xdisplay)
    with running as proc:
        end = time.monotonic() + 240
        while not (server := _children_running(proc.pid, "start_iohub_process")):
            assert proc.poll() is None, "the session ended before ioHub's server started"
            assert time.monotonic() < end, "no ioHub server started"
            time.sleep(0.005)
        os.kill(server[0], signal.SIGSTOP)
        try:
            time.sleep(40)
        finally:
            os.kill(server[0], signal.SIGCONT)
        wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows),
                      timeout=IOHUB_FIRST_TRIAL_S, proc=proc)  # fmt: skip
        meta = sidecar_of(out)
        assert meta["timing"]["input_method"] == "iohub", meta["timing"]["input_fallback_reason"]


@pytest.mark.slow
@pytest.mark.psychopy_compat
def test_iohub_held_back_neither_loses_nor_doubles_close_clicks(xdisplay, tmp_path):
    # A loaded machine keeps ioHub's server process waiting for a core longer than the
    # session: here both are stopped from just before each move (two presses 30-90 ms
    # apart); the session goes on 50-200 ms after it, ioHub 0.5 s after, so that ioHub
    # reads and stamps the presses hundreds of milliseconds after the window's copies were
    # taken, as often as the session took them before it asked ioHub for its events (where
    # the session was stopped decides it: 23 moves). Paired by stamps (before), a click
    # was then lost or doubled in about one run of two with 7 moves; each is now handled
    # once: none lost, none added, in the order made.
    out, running = _start(tmp_path, "H1", "--input-timing", "iohub", env=xdisplay)
    with running as proc:
        wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows),
                      timeout=IOHUB_FIRST_TRIAL_S, proc=proc)  # fmt: skip
        meta = sidecar_of(out)
        # ioHub's server must have started (within its own 30 s; at load 50 it once did not,
        # and the session went on without it, saying why in the sidecar).
        assert meta["timing"]["input_method"] == "iohub", meta["timing"]["input_fallback_reason"]
        (server,) = _children_running(proc.pid, "start_iohub_process")
        heads = itertools.cycle((0.05, 0.1, 0.2))
        around = lambda: _runner_first(proc.pid, server, next(heads), 0.5)  # noqa: E731
        spans = _inject_close_pairs(xdisplay, meta, BACK_AND_FORTH + HANOI3, around)
        err = _ended(proc, out)
    assert proc.returncode == 0, err
    meta = sidecar_of(out)
    assert meta["timing"]["input_method"] == "iohub"
    assert meta["timing"]["input_lost"] is None
    rows, _ = _clicks(out)
    # Every row a press made: each click once (a doubled one would be an empty pick or a
    # piece put back), none added or lost, in the order made (each move's peg, then where).
    clicks = [r for r in rows if r["event"] in PRESS_ROWS]
    pegs = BACK_AND_FORTH + HANOI3
    assert len(spans) == len(pegs)
    made = [(r["event"], r["from_peg"] if r["event"] == "pick_up" else r["to_peg"]) for r in clicks]
    assert made == [("pick_up" if i % 2 == 0 else "place", peg) for i, peg in enumerate(pegs)]
    assert next(r for r in rows if r["event"] == "trial_end")["reason"] == "solved"
    zero = meta["timing"]["clock_zero"]
    since_sent = [
        float(r["time"]) + zero - before for r, (before, _) in zip(clicks, spans, strict=True)
    ]
    assert all(s >= 0 for s in since_sent), since_sent  # never before the press was sent
    # ioHub's copies all came (late): none is counted as a press only the window saw.
    assert meta["timing"]["unmatched_presses"] == 0


@pytest.mark.slow
def test_polled_input_loses_no_press_of_two_made_within_one_frame(xdisplay, tmp_path):
    # A loaded machine can keep the session from drawing for longer than a quick
    # participant takes between two presses: here the session is stopped from just before
    # each move (two presses 30-90 ms apart) to 0.1 s after it, so that both presses come
    # to the window between two of its polls. PsychoPy's mouse state keeps the last press
    # only (one move's pick-up was lost); each press must be handled once, in order.
    out, running = _start(tmp_path, "P1", "--input-timing", "polled", env=xdisplay)
    with running as proc:
        wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows), proc=proc)
        meta = sidecar_of(out)
        assert meta["timing"]["input_method"] == "polled"
        around = lambda: _stopped(proc.pid, 0.1)  # noqa: E731
        spans = _inject_close_pairs(xdisplay, meta, HANOI3, around)
        err = _ended(proc, out)
    assert proc.returncode == 0, err
    rows, _ = _clicks(out)
    clicks = [r for r in rows if r["event"] in PRESS_ROWS]
    assert len(spans) == len(HANOI3)
    made = [(r["event"], r["from_peg"] if r["event"] == "pick_up" else r["to_peg"]) for r in clicks]
    assert made == [("pick_up" if i % 2 == 0 else "place", peg) for i, peg in enumerate(HANOI3)]
    assert next(r for r in rows if r["event"] == "trial_end")["reason"] == "solved"
    zero = sidecar_of(out)["timing"]["clock_zero"]
    since_sent = [
        float(r["time"]) + zero - before for r, (before, _) in zip(clicks, spans, strict=True)
    ]
    assert all(s >= 0 for s in since_sent), since_sent  # never before the press was sent
    times = [float(r["time"]) for r in clicks]
    assert times == sorted(times)
