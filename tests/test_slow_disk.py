"""A slow disk never holds the screen: the event log's rows are forced to the disk by a thread
of its own (``tol_tasks.session_data.livelog``).

On a USB stick, a network share or a disk busy with another program's writes an ``fsync``
takes tens or hundreds of milliseconds. Made on the frame loop, it held the screen still for
as long after every press (``benchmarks/bench_timing.py --fsync-delay 0,100``: frame work
p99 213 ms, polled stamps up to 202 ms late). Here a real session runs with every ``fsync``
of its process made 1 s slow (``tests/slow_disk.py``) and is played with real clicks.
"""

from __future__ import annotations

import errno
import json
import os
import sys
import threading
from pathlib import Path

import pytest

from tests.runner_tools import (
    click_peg,
    exe,
    running,
    session_files,
    short_protocol,
    sidecar_of,
    wait_for_rows,
)
from tol_tasks.session_data.eventlog import EventLogWriteError, read_event_log
from tol_tasks.session_data.livelog import EventLog

ROOT = Path(__file__).resolve().parents[1]
#: How slow each fsync of the slow disk is, ms.
SLOW_MS = 1000


@pytest.mark.slow  # a session whose start waits on four 1 s syncs; the unit tests below are quick
def test_a_slow_disk_never_holds_the_screen_and_loses_no_press(xdisplay, tmp_path):
    proto = tmp_path / "short.yaml"
    proto.write_text(short_protocol("slow", "ACC"))  # 1 A->B, 2 A->C, 1 B->C
    out, report = tmp_path / "data", tmp_path / "fsyncs.json"
    env = {**xdisplay, "SLOW_DISK_REPORT": str(report)}
    command = [sys.executable, "-m", "tests.slow_disk", str(SLOW_MS), "tol-run", str(proto),
               "--participant", "P01", "--windowed", "--output", str(out)]  # fmt: skip
    assert Path(exe("tol-run")).is_file()  # the entry point tests.slow_disk runs is installed
    with running(command, env=env, cwd=ROOT, real=True) as proc:
        wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows),
                      timeout=240, proc=proc)  # fmt: skip
        meta = sidecar_of(out)
        for peg in "ABABACBC":  # the second press on A->B is illegal (2 on 1)
            click_peg(peg, meta, xdisplay)
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    rows = read_event_log(session_files(out)[0]).rows
    between = ("trial_onset", "trial_end")
    trial = [r for r in rows if r["problem_id"] == "p1" and r["event"] not in between]
    assert [(r["event"], r["from_peg"], r["to_peg"]) for r in trial] == [
        ("pick_up", "A", ""), ("place", "A", "B"), ("pick_up", "A", ""), ("illegal", "A", "B"),
        ("pick_up", "A", ""), ("place", "A", "C"), ("pick_up", "B", ""), ("place", "B", "C"),
        ("solved", "", ""),
    ]  # fmt: skip
    side = sidecar_of(out)
    assert side["status"] == "completed"
    assert side["rows_written"] == len(rows) == int(rows[-1]["row"])
    # The disk was slow, and the rows' syncs were made off the frame loop.
    calls = json.loads(report.read_text())["threads"]
    syncer = sum(n for name, n in calls.items() if name.startswith("tol-tasks fsync"))
    assert syncer >= 1, calls
    # Each of the 9 presses' rows would have held the screen for a whole second.
    (frames,) = [t for t in side["frames"]["trials"] if t["problem_id"] == "p1"]
    assert frames["frame_work_max_ms"] < SLOW_MS / 2, frames


@pytest.fixture
def disk(monkeypatch):
    """``os.fsync`` made to wait for ``gate`` (open at first), counting its calls, or to fail
    with ``fail`` (an ``OSError``) once set."""
    state = {"gate": threading.Event(), "calls": 0, "fail": None}
    state["gate"].set()
    real = os.fsync

    def fsync(fd):
        state["calls"] += 1
        assert state["gate"].wait(30), "the test never opened the gate"
        if state["fail"] is not None:
            raise state["fail"]
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return state


def test_a_row_is_in_the_file_when_write_returns_and_on_the_disk_by_sync(disk, tmp_path):
    log = EventLog(tmp_path / "log.csv")
    assert disk["calls"] == 1  # the header, before the constructor returns
    disk["gate"].clear()  # the disk stalls
    for n in range(1, 6):
        assert log.write(event="pick_up", time=n * 0.1) == n  # returns: the disk is not waited on
    # Every row is in the file already (a kill now loses none of them).
    assert [r["row"] for r in read_event_log(log.path).rows] == ["1", "2", "3", "4", "5"]
    synced = threading.Event()
    waiter = threading.Thread(target=lambda: (log.sync(), synced.set()))
    waiter.start()
    assert not synced.wait(0.3)  # sync waits for the disk
    disk["gate"].set()
    assert synced.wait(30)
    waiter.join()
    # One sync was under way for row 1 when the others came: at most one more covers them.
    assert 2 <= disk["calls"] <= 3
    log.close()
    assert disk["calls"] <= 3  # nothing left to sync at close


def test_a_failed_fsync_stops_the_next_row_and_names_the_rows_on_the_disk(disk, tmp_path):
    log = EventLog(tmp_path / "log.csv")
    log.write(event="session_start", time=0.0)
    log.sync()
    disk["fail"] = OSError(errno.EIO, os.strerror(errno.EIO))
    log.write(event="pick_up", time=0.5)  # in the file; its sync fails behind it
    with pytest.raises(EventLogWriteError, match=r"the rows after row 1 could not be forced to "
                       r"the disk \(Input/output error\); every row up to 1 is kept"):  # fmt: skip
        log.sync()
    with pytest.raises(EventLogWriteError) as caught:
        log.write(event="place", time=0.9)
    assert "event 'place' could not be written" in str(caught.value)
    assert "check the disk" in caught.value.fix
    log.close()  # never raises
    assert [r["event"] for r in read_event_log(log.path).rows] == ["session_start", "pick_up"]
