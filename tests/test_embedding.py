"""The engine inside an experiment the caller owns: a Coder script, bad input, drawing economy."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.runner_tools import click_peg, running
from tests.warm import warm
from tol_tasks.session_data.eventlog import read_event_log
from tol_tasks.session_data.sidecar import read_sidecar

# Every test here also runs on the oldest supported PsychoPy (scripts/test-psychopy-oldest.sh).
pytestmark = pytest.mark.psychopy_compat

HERE = Path(__file__).parent
CODER_BATTERY = HERE / "data" / "experiments" / "coder_battery.py"


def _event_log(out: Path) -> Path | None:
    logs = sorted(out.glob("P001_london-shallice_*.csv"))
    return logs[0] if logs else None


def _wait_for_onset(out: Path, problem_id: str, proc, timeout: float = 90) -> list[dict]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        log = _event_log(out)
        if log is not None:
            rows = read_event_log(log).rows
            if any(r["event"] == "trial_onset" and r["problem_id"] == problem_id for r in rows):
                return rows
        if proc.poll() is not None:
            raise AssertionError(f"the experiment ended early:\n{proc.communicate()}")
        time.sleep(0.05)
    raise AssertionError(f"no onset of {problem_id} in {out}")


def test_a_coder_experiment_runs_two_problems_with_real_clicks(xdisplay, tmp_path):
    out = tmp_path / "data"
    with running([sys.executable, str(CODER_BATTERY), str(out)], env=xdisplay) as proc:
        _wait_for_onset(out, "easy", proc)
        assert (out / "welcome-shown").exists()  # the experiment's own screen came first
        time.sleep(0.3)
        meta = read_sidecar(_event_log(out).with_suffix(".json"))
        assert meta["window"]["owner"] == "caller"
        for peg in "AB":  # R: A -> B
            click_peg(peg, meta, xdisplay)
        _wait_for_onset(out, "harder", proc)
        time.sleep(0.3)
        for peg in "BCBACB":  # R: B -> C, B: B -> A, R: C -> B
            click_peg(peg, meta, xdisplay)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    # The engine never closed the window: the experiment drew its goodbye screen on it.
    assert (out / "goodbye-shown").read_text() == "window still open: True"
    rows = read_event_log(_event_log(out)).rows
    places = [(r["problem_id"], r["piece"], r["from_peg"], r["to_peg"]) for r in rows
              if r["event"] == "place"]  # fmt: skip
    assert places == [
        ("easy", "R", "A", "B"),
        ("harder", "R", "B", "C"),
        ("harder", "B", "B", "A"),
        ("harder", "R", "C", "B"),
    ]
    assert [r["event"] for r in rows].count("illegal") == 0
    ends = [(r["problem_id"], r["reason"], r["moves"]) for r in rows if r["event"] == "trial_end"]
    assert ends == [("easy", "solved", "1"), ("harder", "solved", "3")]
    assert rows[-1]["event"] == "session_end"
    assert rows[-1]["reason"] == "completed"
    meta = read_sidecar(_event_log(out).with_suffix(".json"))
    assert meta["status"] == "completed"
    assert meta["experiment"]["data_file"].endswith("P001_battery")
    # The ExperimentHandler's own data file: one row per problem, the engine's columns.
    import csv

    with (out / "P001_battery.csv").open(newline="") as f:
        exp_rows = list(csv.DictReader(f))
    assert [r["tower.problem_id"] for r in exp_rows] == ["easy", "harder"]
    # Minimums by hand: GR|B| -> G|BR| is one move; G|BR| -> GB|R| takes three
    # (B is under R, and C holds one ball).
    assert [r["tower.min_moves"] for r in exp_rows] == ["1", "3"]
    assert [r["tower.moves"] for r in exp_rows] == ["1", "3"]
    assert [r["tower.solved"] for r in exp_rows] == ["True", "True"]
    assert [r["tower.start"] for r in exp_rows] == ["GR|B|", "G|BR|"]
    assert [r["tower.goal"] for r in exp_rows] == ["G|BR|", "GB|R|"]
    assert all(r["tower.event_log"] == _event_log(out).name for r in exp_rows)
    first_pick = next(float(r["trial_time"]) for r in rows
                  if r["event"] == "pick_up" and r["problem_id"] == "easy")  # fmt: skip
    assert float(exp_rows[0]["tower.planning_time"]) == pytest.approx(first_pick, abs=1e-6)
    # No copy trial followed: its columns are empty cells, not the text None.
    copies = [c for c in exp_rows[0] if c.startswith("tower.copy_")]
    assert len(copies) == 6
    assert all(r[c] == "" for r in exp_rows for c in copies)
    assert not any(v == "None" for r in exp_rows for v in r.values())


_BAD_INPUT = r"""
import json, sys
from pathlib import Path
from psychopy import visual
from tol_tasks.errors import TolTasksError
from tol_tasks.runner import TowerTask

out = Path(sys.argv[1])
win = visual.Window(size=(400, 300), checkTiming=False)
flips = []
real_flip = win.flip
win.flip = lambda *a, **k: (flips.append(1), real_flip(*a, **k))[1]
errors = {}
def attempt(name, make):
    try:
        make()
    except TolTasksError as exc:
        errors[name] = [type(exc).__name__, str(exc), exc.field,
                        repr(exc.value) if exc.has_value else None, exc.fix]
attempt("protocol", lambda: TowerTask(win, "london-shalice", participant="P1", output=out))
attempt("experiment", lambda: TowerTask(win, "demo", participant="P1", output=out,
                                        experiment={"name": "not one"}))
task = TowerTask(win, "london-shallice", participant="P1", output=out)
attempt("state", lambda: task.run_problem(start="GRX|B|", goal="|RB|G"))
attempt("same", lambda: task.run_problem(start="GR|B|", goal="GR|B|"))
closed = visual.Window(size=(200, 200), checkTiming=False)
closed.close()
attempt("closed", lambda: TowerTask(closed, "demo", participant="P1", output=out))
task.close()  # the session's lock, held while the task could run, goes
print(json.dumps({"errors": errors, "flips": len(flips),
                  "files": sorted(p.name for p in out.iterdir()) if out.exists() else []}))
"""


def test_bad_input_to_the_engine_is_refused_before_anything_is_drawn_or_written(xdisplay, tmp_path):
    out = tmp_path / "data"
    done = subprocess.run(warm([sys.executable, "-c", _BAD_INPUT, str(out)], xdisplay), env=xdisplay,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    errors = got["errors"]
    assert errors["protocol"][0] == "ProtocolError"
    assert "london-shalice" in errors["protocol"][1]
    assert "Did you mean 'london-shallice'" in errors["protocol"][1]
    assert errors["experiment"][0] == "TaskSetupError"
    assert "is not a psychopy.data.ExperimentHandler" in errors["experiment"][1]
    assert "Builder's `thisExp`" in errors["experiment"][1]
    assert errors["state"][0] == "TaskSetupError"
    assert 'run_problem: start: "GRX|B|": ball' in errors["state"][1]
    # The facts are attributes too: the field, the value and the fix, never parsed from text.
    assert errors["state"][2:4] == ["start", "'GRX|B|'"]
    assert errors["state"][4] == "write a valid state of London(balls='RGB', capacities=(3, 2, 1))."
    assert errors["experiment"][2:4] == ["experiment", "{'name': 'not one'}"]
    assert "ball 'X' on peg A is not one of this puzzle's balls" in errors["state"][1]
    assert "write each peg's balls bottom to top" in errors["state"][1]  # the fix
    assert "run_problem: goal: the goal GR|B| equals the start" in errors["same"][1]
    assert "already been closed" in errors["closed"][1]
    assert got["flips"] == 0  # nothing was drawn
    assert got["files"] == []  # nothing was written


STIMULUS_SPY = HERE / "data" / "experiments" / "stimulus_spy.py"


def test_a_frame_without_input_writes_no_stimulus_attribute(xdisplay, tmp_path):
    out = tmp_path / "data"
    done = subprocess.run(warm([sys.executable, str(STIMULUS_SPY), str(out)], xdisplay), env=xdisplay,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["outcome"] == "time_out"  # 1.5 s with no input
    trial = [writes for writes, in_trial in got["per_frame"] if in_trial]
    assert trial[0] > 0  # the first frame builds and places the stimuli (the spy sees writes)
    assert len(trial) > 20
    assert trial[1:] == [0] * (len(trial) - 1)


def test_run_plays_the_protocol_once_and_refuses_a_second_call(xdisplay, tmp_path):
    # A Builder loop around a whole-protocol Tower called run() at each repeat: the second
    # run wrote after the session's end (issue 35). It is refused, the log left as it was.
    (tmp_path / "one.yaml").write_text(
        "format: 1\nname: once\ntask: {type: hanoi, disks: 2}\ninstructions: none\n"
        "display: {fullscreen: false}\nfeedback: none\n"
        "timing: {inter_trial_interval: 0, feedback_duration: 0}\n"
        "blocks:\n  - problems: [{id: a, start: AA, goal: CC}]\n"
    )
    script = (
        "from psychopy import visual\n"
        "from tol_tasks.runner import TowerTask, TaskSetupError\n"
        "win = visual.Window(size=(400, 300), checkTiming=False)\n"
        f"task = TowerTask(win, {str(tmp_path / 'one.yaml')!r}, participant='Q', "
        f"output={str(tmp_path / 'data')!r}, simulate=True, speed=20)\n"
        "print(task.run().status)\n"
        "try:\n"
        "    task.run()\n"
        "except TaskSetupError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run(warm([sys.executable, "-c", script], xdisplay), env=xdisplay,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.strip().splitlines()[-2:]
    assert first == "completed"
    assert "the session has ended (completed); run() plays the protocol once" in second
    assert "Suggested fix: create a new TowerTask (another session number)" in second
    (log,) = (tmp_path / "data").glob("*.csv")
    events = [r["event"] for r in read_event_log(log).rows]
    assert events.count("session_start") == 1
    assert events[-1] == "session_end"
    assert events.count("session_end") == 1
