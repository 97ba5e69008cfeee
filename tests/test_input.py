"""No press lost: on-arrival sources reconciled with the window's own events (issue 13).

Real windows under Xvfb and real X events injected with XTest. Each test breaks
the on-arrival source a different way (a listener killed mid-trial, a listener
that misses one press) or uses the other source (PsychoPy's ioHub server), and
checks that every click is in the log with the stamp it deserves.
"""

from __future__ import annotations

import os
import signal
import statistics
import time
from pathlib import Path

import pytest

from tests.runner_tools import running_tol_run, session_files, sidecar_of, wait_for_rows
from tests.test_timing import PROTOCOL, _inject
from tol_tasks.runner.events import HOLD_S, MATCH_AFTER_S, InputEvent, Reconciler
from tol_tasks.session_data.eventlog import read_event_log

HANOI3 = "ACABCBACBABCAC"  # the 7 moves of the optimal 3-disk solution, as 14 peg clicks
DROP_PRESS = Path(__file__).parent / "data" / "drop_press"


# ---------------------------------------------------------------- pairing logic
def _arr(kind, t, key=None):
    return InputEvent(kind, t, 10, 10, key=key, stamp="arrival")


def _win(kind, t, key=None):
    return InputEvent(kind, t, 10, 10, key=key, stamp="polled")


def test_a_press_seen_by_both_is_handled_once_with_its_arrival_stamp():
    r = Reconciler()
    assert r.add([_arr("press", 1.000)], [], now=1.001) == [_arr("press", 1.000)]
    # the window's copy comes a frame later and is swallowed
    assert r.add([], [_win("press", 1.017)], now=1.020) == []
    assert r.add([], [], now=2.0) == []
    assert r.unmatched_presses == 0


def test_the_window_copy_may_come_first_and_waits_for_its_twin():
    r = Reconciler()
    assert r.add([], [_win("press", 1.010)], now=1.012) == []  # held
    assert r.add([_arr("press", 1.000)], [], now=1.030) == [_arr("press", 1.000)]
    assert r.add([], [], now=2.0) == []
    assert r.unmatched_presses == 0


def test_a_press_only_the_window_saw_is_handled_as_polled_and_counted():
    r = Reconciler()
    assert r.add([], [_win("press", 1.0)], now=1.01) == []
    assert r.add([], [], now=1.0 + HOLD_S) == [_win("press", 1.0)]
    assert r.unmatched_presses == 1


def test_without_a_source_window_events_go_through_at_once():
    r = Reconciler()
    assert r.add([], [_win("press", 1.0), _win("key", 1.0, "escape")], now=1.0,
                 source_alive=False) == [_win("press", 1.0), _win("key", 1.0, "escape")]  # fmt: skip
    assert (r.unmatched_presses, r.unmatched_keys) == (1, 1)


def test_two_quick_presses_pair_one_to_one_and_keys_pair_by_name():
    r = Reconciler()
    arrived = [_arr("press", 1.00), _arr("press", 1.05), _arr("key", 1.06, "space")]
    assert r.add(arrived, [], now=1.07) == arrived
    window = [_win("press", 1.02), _win("press", 1.07), _win("key", 1.08, "escape")]
    assert r.add([], window, now=1.09) == []
    assert r.add([], [], now=1.2) == [_win("key", 1.08, "escape")]  # no twin: a different key
    assert (r.unmatched_presses, r.unmatched_keys) == (0, 1)


def test_an_old_arrival_does_not_swallow_a_much_later_window_press():
    r = Reconciler()
    r.add([_arr("press", 1.0)], [], now=1.0)
    assert r.add([], [_win("press", 1.0 + MATCH_AFTER_S + 0.1)], now=2.0) == [
        _win("press", 1.0 + MATCH_AFTER_S + 0.1)
    ]
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
    out, running = _start(tmp_path, "I1", "--input-timing", "iohub", env=xdisplay)
    with running as proc:
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
    assert min(lags_ms) >= 0, lags_ms
    assert statistics.median(lags_ms) < 3, lags_ms
    assert max(lags_ms) < 15, lags_ms
