"""Input timestamps: injected clicks are stamped on arrival, in order, within milliseconds."""

from __future__ import annotations

import time

import pytest

from tests.runner_tools import (
    key_over_window,
    running_tol_run,
    session_files,
    short_protocol,
    sidecar_of,
    wait_for_rows,
)
from tol_tasks.session_data.eventlog import read_event_log

PROTOCOL = short_protocol("timing", "CCC")


def _inject(env: dict, meta: dict, pegs: str, around=None, spans=None) -> list[float]:
    """Click each peg with XTest; return the time of each press on tol-tasks' clock.

    ``around``: a context manager factory wrapped around each press and its release (a
    process stopped meanwhile, say); ``spans``: a list that gets, for each press, the time
    just before it was sent and once the X server had taken it (a round trip after it).
    """
    import contextlib
    import os

    from psychopy.clock import getTime  # the clock tol-tasks stamps with
    from Xlib import X, display
    from Xlib.ext import xtest

    old = os.environ.get("DISPLAY")
    d = display.Display(env["DISPLAY"])
    wx, wy = meta["window"]["position"]
    rects = {r["peg"]: r for r in meta["layout"]["pegs"]}
    times = []
    try:
        for peg in pegs:
            r = rects[peg]
            x, y = int(wx + r["left"] + r["width"] / 2), int(wy + r["top"] + r["height"] * 0.6)
            xtest.fake_input(d, X.MotionNotify, x=x, y=y)
            d.sync()
            time.sleep(0.05)
            with around() if around is not None else contextlib.nullcontext():
                t = getTime()
                xtest.fake_input(d, X.ButtonPress, 1)
                d.sync()
                times.append(t)
                if spans is not None:
                    spans.append((t, getTime()))
                time.sleep(0.02)
                xtest.fake_input(d, X.ButtonRelease, 1)
                d.sync()
            time.sleep(0.12)
    finally:
        d.close()
        if old is not None:
            os.environ["DISPLAY"] = old
    return times


@pytest.mark.slow
def test_injected_clicks_are_stamped_on_arrival(xdisplay, tmp_path):
    proto = tmp_path / "timing.yaml"
    proto.write_text(PROTOCOL)
    out = tmp_path / "data"
    pegs = "ACABCBACBABCACAB"  # disk moves of the 3-disk solution, then two more clicks
    with running_tol_run(str(proto), "--participant", "T1", "--windowed", "--output", str(out),
                         env=xdisplay) as proc:  # fmt: skip
        wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows), proc=proc)
        meta = sidecar_of(out)
        injected = _inject(xdisplay, meta, pegs[:14])
        proc.communicate(timeout=30)
    assert proc.returncode == 0
    meta = sidecar_of(out)
    assert meta["timing"]["input_method"] == "xinput2-raw"
    assert meta["timing"]["input_fallback_reason"] is None
    zero = meta["timing"]["clock_zero"]
    rows = read_event_log(session_files(out)[0]).rows
    clicks = [r for r in rows if r["event"] in ("pick_up", "place")]
    assert [r["stamp"] for r in clicks] == ["arrival"] * len(clicks)
    assert len(clicks) == len(injected) == 14  # none lost, none doubled
    assert [r["event"] for r in clicks] == ["pick_up", "place"] * 7
    recorded = [float(r["time"]) + zero for r in clicks]
    lags_ms = [(rec - inj) * 1000 for rec, inj in zip(recorded, injected, strict=True)]
    assert recorded == sorted(recorded)
    assert min(lags_ms) >= 0, lags_ms  # never before the injection
    # How close, in milliseconds, is for benchmarks/bench_timing.py (this machine is shared).
    assert next(r for r in rows if r["event"] == "trial_end")["reason"] == "solved"
    assert meta["frames"]["total_frames"] > 0
    assert meta["frames"]["trials"][0]["problem_id"] == "p1"


@pytest.mark.psychopy_compat
def test_polled_fallback_is_warned_and_recorded(xdisplay, tmp_path):
    proto = tmp_path / "timing.yaml"
    proto.write_text(PROTOCOL)
    out = tmp_path / "data"
    with running_tol_run(str(proto), "--participant", "T2", "--windowed", "--input-timing", "polled",
                         "--output", str(out), env=xdisplay) as proc:  # fmt: skip
        wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows), proc=proc)
        meta = sidecar_of(out)
        _inject(xdisplay, meta, "AC")
        key_over_window(out, "Escape", xdisplay)
        key_over_window(out, "Escape", xdisplay)  # the second press confirms
        _, err = proc.communicate(timeout=30)
    assert "warning: input is polled once per frame" in err
    meta = sidecar_of(out)
    assert meta["timing"]["input_method"] == "polled"
    assert "requested" in meta["timing"]["input_fallback_reason"]
    rows = read_event_log(session_files(out)[0]).rows
    assert {r["stamp"] for r in rows if r["event"] in ("pick_up", "place")} == {"polled"}


@pytest.mark.psychopy_compat
def test_simulated_sessions_record_their_method(simulated_demo):
    # A simulated session asked for no input timing (its run succeeded: the fixture checks).
    assert sidecar_of(simulated_demo)["timing"]["input_method"] == "polled"
