"""The session clock against a change of the computer's time: a real process whose wall clock
is stepped by libfaketime (as NTP, a resumed virtual machine or someone setting the date
steps it), its times compared with the system's monotonic clock, which nothing sets.
PsychoPy's own clock is the wall clock on Linux (Psychtoolbox's GetSecs): checked here too,
so the test says why the session needs its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests.system_tools import extra

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="libfaketime is for Linux")

_PROBE = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from psychopy import clock as pclock
    from tol_tasks.runner.clock import SessionClock

    offset = Path(sys.argv[1])
    ours, theirs = SessionClock(), pclock.Clock()
    m0 = time.monotonic()
    a = ours.getTime(), theirs.getTime()
    offset.write_text("+30\\n")  # 30 s forward
    time.sleep(0.2)
    offset.write_text("-20\\n")  # then 50 s back
    time.sleep(0.2)
    b = ours.getTime(), theirs.getTime()
    m1 = time.monotonic()
    # A PsychoPy time (an event's) converted as PsychoPy converts: less getLastResetTime().
    before = ours.getTime()
    event = pclock.getTime()
    converted = event - ours.getLastResetTime()
    now = ours.getTime()
    ours.reset(newT=5.0)
    theirs.reset(newT=5.0)
    reset = ours.getTime(), theirs.getTime()
    ours.addTime(2.0)
    theirs.addTime(2.0)
    added = ours.getTime(), theirs.getTime()
    print(json.dumps({"monotonic": m1 - m0, "ours": b[0] - a[0], "psychopy": b[1] - a[1],
                      "before": before, "converted": converted, "now": now, "reset": reset, "added": added}))
    """
)


@pytest.fixture(scope="module")
def stepped(tmp_path_factory):
    libfaketime = extra("libfaketime", "dev")
    offset = tmp_path_factory.mktemp("clock") / "offset"
    offset.write_text("+0\n")
    _, preload = libfaketime.get_reload_information()
    env = {**os.environ, **preload, "FAKETIME_TIMESTAMP_FILE": str(offset),
           "FAKETIME_NO_CACHE": "1"}  # fmt: skip
    done = subprocess.run([sys.executable, "-c", _PROBE, str(offset)], capture_output=True,
                          text=True, timeout=120, env=env, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_psychopys_clock_moves_with_the_wall_clock(stepped):
    # The premise: without the session clock, the step shows in every time read after it.
    assert stepped["psychopy"] < stepped["monotonic"] - 10


def test_the_session_clock_keeps_real_time_when_the_wall_clock_is_stepped(stepped):
    # Its interval lies inside the monotonic one read around it (the same counter), and holds
    # the two sleeps: a step (30 s forward, then 50 s back) would put it outside. Not within
    # 0.05 s of it: the loaded machine once slept 0.07 s between the reads.
    assert 0.4 <= stepped["ours"] <= stepped["monotonic"]


def test_a_psychopy_time_converted_as_psychopy_does_lands_on_the_session_clock(stepped):
    # After the steps, an event stamped by PsychoPy's (stepped) clock, less
    # getLastResetTime(), is the session time it happened at.
    # Between the session times read just before and after it (less 0.05 s: getLastResetTime
    # reads PsychoPy's clock and the counter one after the other).
    assert stepped["before"] - 0.05 <= stepped["converted"] <= stepped["now"]


def test_reset_and_add_time_behave_as_psychopys_clock(stepped):
    ours, theirs = stepped["reset"]
    assert ours == pytest.approx(theirs, abs=0.05)
    ours, theirs = stepped["added"]
    assert ours == pytest.approx(theirs, abs=0.05)
