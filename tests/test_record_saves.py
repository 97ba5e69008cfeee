"""The sidecar's saves of a running session (tol_tasks.runner.session.SessionRecord): a save
written beside the session (a scan's start) reaches the disk before any save asked for
after it, and its failure stops the session at its next save or at its end, with the error
and the rescue copy any failed save gives. Driven directly, in a process of its own (the
runner's modules load PsychoPy), on a copy of a real session's files; the disk's faults are
played at ``os.fsync``, as a slow or full disk gives them."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.runner_tools import copy_session
from tests.warm import warm

#: The scenarios, in a process of their own: ``CODE SCENARIO FOLDER`` prints what the test
#: checks, as JSON.
CODE = r"""
import json, os, sys, threading, time
from pathlib import Path
from tol_tasks.runner.prepare import Prepared
from tol_tasks.runner.rescue import SidecarWriteError
from tol_tasks.runner.session import SessionRecord
from tol_tasks.runner.settings import RunSettings
from tol_tasks.session_data.livelog import EventLog
from tol_tasks.session_data.sidecar import Sidecar

scenario, folder = sys.argv[1], Path(sys.argv[2])
log, side = sorted(folder.glob("*.csv"))[0], sorted(folder.glob("*.json"))[0]
settings = RunSettings(participant="S1", output=folder, rescue=folder.parent / "rescue")
prepared = Prepared(protocol=None, log=log, sidecar=side, settings=settings)
record = SessionRecord(prepared, EventLog.append(log, fsync=True), Sidecar.read(side),
                       type("Clock", (), {"getTime": staticmethod(time.monotonic)})())
real, main = os.fsync, threading.main_thread()
out = {"rows": record.log.rows_written}


class Closed:
    def close(self):
        pass


class NoFrames:
    def summary(self):
        return {}


if scenario == "slow":  # the thread beside syncs half a second late
    def fsync(fd):
        if threading.current_thread() is not main:
            time.sleep(0.5)
        return real(fd)
    os.fsync = fsync
    record.sidecar.error = "first"
    began = time.monotonic()
    record.save(beside=True)
    out["returned_after"] = time.monotonic() - began
    record.sidecar.error = "second"
    record.save()
    out["error_saved"] = json.loads(side.read_text())["error"]
    out["temporary"] = [p.name for p in folder.glob("*.tmp")]
elif scenario == "full":  # the disk full for the save beside, then freed
    def fsync(fd):
        if threading.current_thread() is not main:
            raise OSError(28, "No space left on device")
        return real(fd)
    os.fsync = fsync
    record.save(beside=True)
    record.write("attention_lost", detail="the session goes on")
    record._saving.join()
    os.fsync = real
    stopped = record.finish("completed", input_source=Closed(), frames=NoFrames())
    out["stopped"] = str(stopped)
    out["rescue"] = str(stopped.rescue)
    out["rescue_exists"] = stopped.rescue.exists()
    out["status"] = record.sidecar.status
    out["sidecar_error"] = record.sidecar.error
elif scenario == "gone":  # the data folder gone before the save beside
    for f in folder.iterdir():
        f.rename(folder.parent / f.name)
    folder.rmdir()
    record.save(beside=True)
    try:
        record.save()
    except SidecarWriteError as exc:
        out["raised"] = exc.message
record.log.close()
print(json.dumps(out))
"""


def _scenario(name: str, simulated_demo, tmp_path, xdisplay) -> dict:
    copy_session(simulated_demo, tmp_path / "data")
    done = subprocess.run(warm([sys.executable, "-c", CODE, name, str(tmp_path / "data")], xdisplay),
                          env=xdisplay, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_save_beside_reaches_the_disk_before_the_saves_after_it(
    simulated_demo, tmp_path, xdisplay
):
    """The save beside syncs half a second late (a slow disk): it returns at once, and the
    save asked for after it waits for it, so the file ends with the later contents (were
    the first renamed last, the sidecar would go back to the older text)."""
    got = _scenario("slow", simulated_demo, tmp_path, xdisplay)
    assert got["returned_after"] < 0.25  # the caller did not wait for the disk
    assert got["error_saved"] == "second"
    assert got["temporary"] == []


def test_a_save_beside_that_fails_stops_the_session_at_its_end_with_a_rescue_copy(
    simulated_demo, tmp_path, xdisplay
):
    """The save beside cannot be written (a full disk): the session goes on (a row written
    after it) until its end, which stops it with the sidecar's error and saves every row and
    the sidecar to the rescue folder."""
    got = _scenario("full", simulated_demo, tmp_path, xdisplay)
    assert "the sidecar could not be written (No space left on device)" in got["stopped"]
    assert f"every row up to {got['rows']} is kept" in got["stopped"]
    assert "The session stopped" in got["stopped"]
    assert got["rescue_exists"], got["rescue"]
    assert got["status"] == "crashed"
    assert "No space left on device" in got["sidecar_error"]


def test_a_save_beside_that_failed_is_raised_by_the_next_save(simulated_demo, tmp_path, xdisplay):
    got = _scenario("gone", simulated_demo, tmp_path, xdisplay)
    assert "the sidecar could not be written" in got["raised"]
