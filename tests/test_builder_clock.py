"""A Builder session against a change of the computer's time: the example experiment, compiled by
PsychoPy's Builder compiler and run under Xvfb, its wall clock stepped by libfaketime (as NTP,
a resumed virtual machine or someone setting the date steps it) while the Tower plays. The
Tower's event log keeps real time (the system's monotonic clock, which nothing sets, read
by this test); Builder's own globalClock, PsychoPy's wall clock, moves (checked too, so the
test says why the Tower needs its own)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from tests.builder_tools import builder_csv, compile_example, running_example, tower_logs
from tests.system_tools import extra
from tol_tasks.session_data.eventlog import read_event_log
from tol_tasks.session_data.sidecar import read_sidecar

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform != "linux", reason="libfaketime is for Linux"),
]

#: The steps of the wall clock: at the first problem's onset 30 s forward, at the second's
#: 20 s back (libfaketime's offsets from the real time).
STEPS = ("+30", "+10")


def _watch(folder: Path, proc, offset: Path) -> list[tuple[dict, float]]:
    """Every row of the Tower's log with the test's ``time.monotonic()`` when it was first
    read; the wall clock stepped (``STEPS``) as the first and second problems are shown."""
    seen: list[tuple[dict, float]] = []
    steps = list(STEPS)
    end = time.monotonic() + 300
    while time.monotonic() < end:
        running = proc.poll() is None
        logs = tower_logs(folder)
        rows = read_event_log(logs[0]).rows if logs else []
        now = time.monotonic()
        seen += [(row, now) for row in rows[len(seen) :]]
        onsets = sum(r["event"] == "trial_onset" for r, _ in seen)
        if steps and onsets > len(STEPS) - len(steps):
            offset.write_text(f"{steps.pop(0)}\n")
        if not running:
            return seen
        time.sleep(0.05)
    raise AssertionError("the experiment did not end in 300 s")


@pytest.fixture(scope="module")
def stepped(xdisplay, tmp_path_factory):
    libfaketime = extra("libfaketime", "dev")
    folder = tmp_path_factory.mktemp("builder-clock")
    done = compile_example(folder, simulate=True, simSpeed=2.0)
    assert done.returncode == 0, done.stderr
    offset = folder / "wall-clock-offset"
    offset.write_text("+0\n")
    _, preload = libfaketime.get_reload_information()
    env = {**xdisplay, **preload, "FAKETIME_TIMESTAMP_FILE": str(offset),
           "FAKETIME_NO_CACHE": "1"}  # fmt: skip
    with running_example(folder, env) as proc:
        seen = _watch(folder, proc, offset)
        _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    # the steps were taken (the experiment did not end before the second problem)
    assert offset.read_text().strip() == STEPS[-1]
    (log,) = tower_logs(folder)
    return folder, seen, read_sidecar(log.with_suffix(".json"))


def test_the_towers_times_keep_real_time_when_the_wall_clock_is_stepped(stepped):
    _, seen, meta = stepped
    times = [float(r["time"]) for r, _ in seen]
    assert times == sorted(times)  # 20 s back would have sent them backwards
    # Each row is on the system's monotonic clock through the sidecar's zero: no row is
    # stamped after the moment this test read it (30 s forward would have put them there).
    zero = meta["timing"]["clock_zero_monotonic"]
    late = [(r["event"], t + zero - read) for (r, read), t in zip(seen, times, strict=True)
            if t + zero > read]  # fmt: skip
    assert late == []
    # and the session's span is the real span (the steps total 10 s forward)
    onsets = [(t, read) for (r, read), t in zip(seen, times, strict=True)
              if r["event"] == "trial_onset"]  # fmt: skip
    assert len(onsets) == 3
    (t1, _), (t3, read3) = onsets[0], onsets[-1]
    assert t3 - t1 <= read3 - (t1 + zero)  # stamped before it was read, after the first one


def test_the_sidecar_says_the_clock_started_at_builders_globalclock(stepped):
    _, _, meta = stepped
    clock = meta["timing"]["clock"]
    assert "SessionClock" in clock
    assert "started at the caller's clock's reading" in clock
    assert "time.monotonic() at the event" in clock


def test_builders_globalclock_moved_and_agreed_with_the_log_before_the_step(stepped):
    # The premise: Builder's own times (globalClock, PsychoPy's wall clock) moved with the
    # steps; before them, the log and Builder's data file were on one time line.
    folder, seen, _ = stepped
    table = builder_csv(folder)
    started = list(table[table["tower.problem_id"].notna()]["problem.started"])
    onsets = [float(r["time"]) for r, _ in seen if r["event"] == "trial_onset"]
    # the first Routine started before its problem was shown, on the same time line
    assert started[0] <= onsets[0] < started[0] + 30
    # the last started 10 s (the steps' sum) later on Builder's clock than on the log's
    assert started[2] > onsets[2] + 5


def test_the_generated_code_says_what_the_towers_clock_is(stepped):
    folder, _, _ = stepped
    script = (folder / "tower_example.py").read_text(encoding="utf-8-sig")
    assert "# Its rows are stamped on a session clock that starts at globalClock's" in script
    compile(script, "tower_example.py", "exec")
