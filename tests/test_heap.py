"""No full garbage collection of the start-up's objects inside a trial
(``tol_tasks.runner.heap``).

Without the freeze, a full collection walked the 190,000 objects PsychoPy, pyglet and numpy
leave behind: 22-116 ms of processor time each, and in one of three demo sessions played by
the simulated participant one fell inside a trial (86 ms: the frame loop held as long).
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys

from tests.runner_tools import short_protocol
from tests.warm import warm
from tol_tasks.runner.heap import FrozenHeap
from tol_tasks.session_data.eventlog import read_event_log
from tol_tasks.session_data.sidecar import read_sidecar

#: Two 3-disk problems, no pages, no pauses.
PROTOCOL = short_protocol("heap", "CCC") + "      - {id: p2, start: CCC, goal: AAA}\n"

#: An experiment (Coder) that runs a session, each collection timed, the collector as a fresh
#: process has it.
SCRIPT = r"""
import gc, json, sys, time
from psychopy import visual
from tol_tasks.runner import TowerTask

gc.unfreeze()  # as in a fresh process (the tests' warm interpreter froze its imports)
proto, out = sys.argv[1], sys.argv[2]
win = visual.Window(size=(400, 300), checkTiming=False)
seen, began = [], []
def timed(phase, info):
    if phase == "start":
        began[:] = [time.monotonic(), time.thread_time()]
    else:
        seen.append([info["generation"], began[0], (time.thread_time() - began[1]) * 1000,
                     gc.get_freeze_count()])
gc.callbacks.append(timed)
before = gc.get_freeze_count()
task = TowerTask(win, proto, participant="Q", output=out, simulate=True, speed=20)
task.run()
print("RESULT " + json.dumps({"before": before, "after": gc.get_freeze_count(),
                              "collections": seen, "log": str(task.csv_path)}))
"""


def _in_trials(log: str, collections: list) -> list:
    """The collections that started between a trial's onset and its end."""
    zero = read_sidecar(log.replace(".csv", ".json"))["timing"]["clock_zero_monotonic"]
    spans, onset = [], None
    for r in read_event_log(log).rows:
        if r["event"] == "trial_onset":
            onset = float(r["time"]) + zero
        elif r["event"] == "trial_end":
            spans.append((onset, float(r["time"]) + zero))
    assert len(spans) == 2
    return [c for c in collections if any(a <= c[1] <= b for a, b in spans)]


def test_no_full_collection_of_the_start_up_in_a_trial_and_the_collector_given_back(
    xdisplay, tmp_path
):
    proto = tmp_path / "heap.yaml"
    proto.write_text(PROTOCOL)
    command = [sys.executable, "-c", SCRIPT, str(proto), str(tmp_path / "data")]
    done = subprocess.run(warm(command, xdisplay), env=xdisplay, capture_output=True, text=True,
                          timeout=180, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (line,) = [ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")]
    run = json.loads(line[len("RESULT ") :])
    assert run["before"] == 0
    inside = _in_trials(run["log"], run["collections"])
    assert inside, "no collection inside the trials: nothing was checked"
    # Each walked only what the session made: the start-up's objects were frozen.
    assert all(frozen > 100_000 for *_, frozen in inside), inside
    assert max(cpu for _, _, cpu, _ in inside) < 10, inside
    assert run["after"] == 0  # the collector given back as it was


def test_an_experiment_that_froze_its_objects_keeps_them_frozen():
    assert gc.get_freeze_count() == 0  # as the test process starts (nothing frozen)
    gc.collect()
    gc.freeze()
    try:
        heap = FrozenHeap()
        assert gc.get_freeze_count() > 0
        heap.release()
        assert gc.get_freeze_count() > 0  # the experiment's freeze, not the session's
    finally:
        gc.unfreeze()
    heap = FrozenHeap()
    assert gc.get_freeze_count() > 0
    heap.release()
    heap.release()  # once
    assert gc.get_freeze_count() == 0
