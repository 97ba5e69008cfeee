"""The examiner told what went wrong at the end of a run (issue 34): the sentences of
tol_tasks.session_data.quality from a sidecar, and tol-run saying them in a real window
after real key input."""

from __future__ import annotations

import time

from tests.runner_tools import key_over_window, running_tol_run, wait_for_rows
from tol_tasks.session_data.quality import run_warnings


def test_a_clean_run_says_nothing():
    meta = {"frames": {"total_frames": 1000, "total_dropped_frames": 50},
            "timing": {"input_method": "xinput2-raw", "unmatched_presses": 0},
            "refresh_rate_hz": 59.95, "page": {"hidden": [{"time": 1.0, "state": "visible"}]}}  # fmt: skip
    assert run_warnings(meta, declared_refresh=60) == []  # 5 % dropped is not beyond 5 %


def test_each_fault_gets_its_sentence():
    meta = {
        "frames": {"total_frames": 1000, "total_dropped_frames": 370},
        "timing": {"input_method": "polled", "input_fallback_reason": "no X Input 2",
                   "unmatched_presses": 2, "input_lost": {"time": 12.25, "reason": "died"}},
        "refresh_rate_hz": 75.0,
        "page": {"hidden": [{"time": 3.0, "state": "hidden"}, {"time": 4.0, "state": "visible"},
                            {"time": 5.0, "state": "hidden"}], "fullscreen_exits": [6.0]},
    }  # fmt: skip
    got = run_warnings(meta, declared_refresh=60)
    assert got == [
        "370 of 1000 frames (37%) were dropped (more than 5%): the screen was not redrawn in "
        "time, so onsets may be late by a frame or more. Close other programs or check the "
        "graphics driver.",
        "Every press was stamped by polling once per frame (up to a frame late): no X Input 2.",
        "2 presses seen only by the window were stamped by polling (up to a frame late).",
        "On-arrival input stopped at 12.2 s (died); later presses were stamped by polling.",
        "The task was hidden 2 times (another tab or window was in front): the participant may "
        "have looked away.",
        "Full screen was left 1 time.",
        "The screen refreshed at 75.0 Hz, not the 60 Hz the protocol declares "
        "(display.refresh_rate): check the monitor's settings.",
    ]


PROTOCOL = """format: 1
name: summary
task: {type: london}
display: {fullscreen: false, window_size: [800, 600], refresh_rate: 144}
instructions: {pages: {en: [{text: Hello.}]}}
blocks:
  - problems:
      - {id: p1, start: "GR|B|", goal: "G|BR|"}
"""


def test_tol_run_tells_the_examiner_at_the_end(xdisplay, tmp_path):
    proto = tmp_path / "summary.yaml"
    proto.write_text(PROTOCOL, encoding="utf-8")
    out = tmp_path / "data"
    with running_tol_run(str(proto), "--participant", "Q01", "--windowed", "--quit-at-once", "--input-timing",
                         "polled", "--output", str(out), env=xdisplay) as proc:  # fmt: skip
        wait_for_rows(out, lambda rows: any(r["event"] == "page_shown" for r in rows),
                      timeout=240, proc=proc)  # fmt: skip
        time.sleep(0.3)
        key_over_window(out, "space", xdisplay)
        wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows),
                      timeout=60, proc=proc)  # fmt: skip
        time.sleep(0.3)
        key_over_window(out, "Escape", xdisplay)  # Escape ends the session (aborted)
        _, err = proc.communicate(timeout=120)
    warnings = [line for line in err.splitlines() if line.startswith("tol-run: warning: ")]
    assert any("stamped by polling" in w for w in warnings), err
    assert any("144 Hz" in w for w in warnings), err
