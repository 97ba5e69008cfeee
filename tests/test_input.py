"""No press lost: on-arrival sources reconciled with the window's own events (issue 13).

Real windows under Xvfb and real X events injected with XTest. Each test breaks
the on-arrival source a different way (a listener killed mid-trial, a listener
that misses one press) or uses the other source (PsychoPy's ioHub server), and
checks that every click is in the log with the stamp it deserves.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
from pathlib import Path

import pytest

from tests.runner_tools import running_tol_run, session_files, sidecar_of, wait_for_rows
from tests.test_timing import PROTOCOL, _inject
from tol_tasks.runner.events import MATCH_AFTER_S, InputEvent, Reconciler
from tol_tasks.session_data.eventlog import read_event_log

HANOI3 = "ACABCBACBABCAC"  # the 7 moves of the optimal 3-disk solution, as 14 peg clicks
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
        ident = round(t * 1000) if mode == "ident" else None
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


@pytest.mark.parametrize("mode", ["ident", "time"])
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
            polled = sum(e.stamp == "polled" for e in handled)
            assert r.late_twins == (polled if not window_late else 0), ms


@pytest.mark.parametrize("mode", ["ident", "time"])
def test_a_press_the_source_missed_is_handled_once_as_polled_and_counted(mode):
    for ms in (0, 30, 250, 700):
        handled, r = _session(mode, ms / 1000, window_late=False, missed=(2, 4))
        assert [_press_of(e) for e in handled] == list(range(len(PRESSES))), ms
        assert [e.stamp for e in handled if _press_of(e) in (2, 4)] == ["polled", "polled"]
        assert (r.unmatched_presses, r.unmatched_keys) == (1, 1), ms
        late = sum(e.stamp == "polled" for e in handled) - 2  # by time: twins after HOLD_S
        assert r.late_twins == (0 if mode == "ident" else late), ms


@pytest.mark.parametrize("mode", ["ident", "time"])
def test_when_the_source_dies_the_window_events_go_through_once(mode):
    for ms in (0, 100, 500):
        handled, r = _session(mode, ms / 1000, window_late=False, dies_at=0.5)
        assert [_press_of(e) for e in handled] == list(range(len(PRESSES))), ms
        assert {e.stamp for e in handled if e.t > 0.5 + ms / 1000} <= {"polled"}
        if mode == "ident":  # the window's copies waited: handled once the source was gone
            assert (r.unmatched_presses, r.unmatched_keys) == (0, 0)


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
    """Process ids of descendants of ``pid`` whose command line names ``module``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if module.encode() in cmd and int(stat[1]) == pid:
            found.append(int(entry.name))
    return found


def _clicks(out: Path) -> tuple[list[dict], list[dict]]:
    rows = read_event_log(session_files(out)[0]).rows
    return rows, [r for r in rows if r["event"] in ("pick_up", "place")]


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
        wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows),
                      timeout=120, proc=proc)  # fmt: skip
        meta = sidecar_of(out)
        injected = _inject(xdisplay, meta, HANOI3)
        _, err = proc.communicate(timeout=60)
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
