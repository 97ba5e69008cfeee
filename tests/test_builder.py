"""The Tower component in PsychoPy Builder: found as a plugin, compiled by PsychoPy's own
compiler, run under Xvfb (simulated and with real clicks), bad settings, the online target.

Every experiment here is compiled the way Builder compiles it: PsychoPy activates its
plugins at start (Builder's app does; so does the script it writes), then
``psychopy.scripts.psyexpCompile.compileScript`` turns the ``.psyexp`` into a script.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
import time

import pandas as pd
import pytest

from tests.builder_tools import (
    EXAMPLE,
    PROBLEMS,
    RUN_SCRIPT,
    _wait_for,
    builder_csv,
    compile_example,
    running_example,
    tower_logs,
    wait_for_onset,
)
from tests.neuro_tools import PortReader, SerialScanner
from tests.reference import bfs, london_graph, optimal_first_moves
from tests.runner_tools import click_peg, tol_score, xdotool
from tests.warm import warm
from tol_tasks.session_data.detail import parse_detail
from tol_tasks.session_data.eventlog import read_event_log
from tol_tasks.session_data.sidecar import read_sidecar

# Every test here also runs on the oldest supported PsychoPy (scripts/test-psychopy-oldest.sh).
pytestmark = pytest.mark.psychopy_compat


# ------------------------------------------------------------------ discovery
_DISCOVER = """
import json
from psychopy import plugins
plugins.activatePlugins()
from psychopy.experiment.components import getAllComponents, getAllCategories
comps = getAllComponents()
cls = comps["TowerComponent"]
from psychopy import experiment
exp = experiment.Experiment()
c = cls(exp, "trial")
found = {
    "module": cls.__module__, "categories": sorted(cls.categories), "targets": cls.targets,
    "responses": "Responses" in getAllCategories(),
    "params": [[key, c.params[key].categ, bool(str(c.params[key].hint)),
                bool(str(c.params[key].label))] for key in c.order[c.order.index("mode"):]],
    "icon": c.iconFile.exists(),
}
print("TOWER-DISCOVERY " + json.dumps(found))
"""


def test_psychopy_finds_the_component_through_its_entry_point():
    # The findings are one marked line: whatever else PsychoPy or its plugins print on
    # standard output (a stray line made this test fail by position before) is left out.
    done = subprocess.run([sys.executable, "-c", _DISCOVER], capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("TOWER-DISCOVERY ")]
    found = json.loads(line.removeprefix("TOWER-DISCOVERY "))
    assert found["module"] == "tol_tasks.builder.component"
    assert found["categories"] == ["Custom", "Responses"]
    assert found["targets"] == ["PsychoPy", "PsychoJS"]
    assert found["responses"] is True
    params = found["params"]
    assert [p[0] for p in params] == [
        "mode", "protocol", "task", "size", "start", "goal", "timeLimit", "moveLimit",
        "copy", "copyUnsolved", "inputMode", "showGoal", "moveCounter", "pieceLabels",
        "feedback", "simulate", "simSpeed", "inputTiming", "triggerPort", "markerPort",
    ]  # fmt: skip
    assert all(p[2:] == [True, True] for p in params), params  # every one has hint, label
    assert {p[1] for p in params} == {"Basic", "Input", "Appearance", "Testing", "Hardware"}
    assert found["icon"] is True  # the icon ships with the package


# --------------------------------------------------------------- compile & run
def test_the_example_compiles_to_code_a_person_can_read(tmp_path):
    done = compile_example(tmp_path)
    assert done.returncode == 0, done.stderr
    script = (tmp_path / "tower_example.py").read_text(encoding="utf-8-sig")
    assert "tower = tol_builder.check_or_exit(tol_builder.TowerSettings(" in script
    assert "    conditions=[('conditions.csv', None)],\n" in script
    # the problem runs on Builder's window, data handler and clock, then ends the Routine
    assert "tower.run_problem(\n" in script
    assert "win, thisExp, expInfo, globalClock,\n" in script
    assert "start=start, goal=goal, time_limit=time_limit, move_limit=None," in script
    assert "thisExp.status = FINISHED" in script
    assert "tower.close()" in script
    compile(script, "tower_example.py", "exec")  # valid Python
    # the check comes before the window: it is written before setupWindow is called
    assert script.index("tol_builder.check_or_exit") < script.index("win = setupWindow(")


# The README's command: PsychoPy's own compiler on the example as committed. PsychoPy says
# "Alert 4051" when a file comes from a newer PsychoPy than the one running, and warns about
# parameters it does not know; the example must be silent on the oldest and on the newest
# supported PsychoPy (this module runs on both: marker psychopy_compat).
_OPEN_AND_COMPILE = """
import sys, xml.etree.ElementTree as ET
from psychopy import plugins
plugins.activatePlugins()
from psychopy.scripts.psyexpCompile import compileScript
import psychopy
compileScript("tower_example.psyexp", None, sys.argv[1])
saved_by = ET.parse("tower_example.psyexp").getroot().get("version")
print("TOWER-VERSIONS", psychopy.__version__, saved_by)
"""


def test_the_example_opens_and_compiles_without_an_alert_in_every_supported_psychopy(tmp_path):
    from packaging.version import Version

    done = subprocess.run([sys.executable, "-c", _OPEN_AND_COMPILE, str(tmp_path / "out.py")],
                          cwd=EXAMPLE, capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert "Alert" not in said, said
    assert "not known to this version" not in said, said
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("TOWER-VERSIONS ")]
    running, saved_by = map(Version, line.split()[1:])
    assert saved_by <= running
    # saved by the oldest supported Builder
    assert saved_by.release[:2] == _oldest_psychopy().release[:2]
    assert "tower.run_problem(\n" in (tmp_path / "out.py").read_text(encoding="utf-8-sig")


def _oldest_psychopy():
    """The oldest PsychoPy that ``tol-tasks[runner]`` accepts (its lower bound in pyproject)."""
    from tests.release_tools import oldest_psychopy

    return oldest_psychopy()


# An experiment whose "Use version" is older than a component's `version` loses that
# component in the legacy copy PsychoPy saves beside it (Experiment.sanitizeForVersion).
_LEGACY = """
import json, sys
from pathlib import Path
from psychopy import plugins
plugins.activatePlugins()
from psychopy import experiment
found = {}
for use in sys.argv[1:]:
    exp = experiment.Experiment()
    exp.loadFromXML("tower_example.psyexp")
    exp.settings.params["Use version"].val = use
    exp.saveToXML(f"{use}.psyexp")
    found[use] = "<TowerComponent" in Path(f"{use}_legacy.psyexp").read_text(encoding="utf-8-sig")
print("TOWER-LEGACY " + json.dumps(found))
"""


def test_use_version_keeps_the_tower_back_to_the_oldest_supported_psychopy(tmp_path):
    oldest = _oldest_psychopy()
    shutil.copy(EXAMPLE / "tower_example.psyexp", tmp_path)
    shutil.copy(EXAMPLE / "conditions.csv", tmp_path)
    uses = [f"{oldest.major}.{oldest.minor}", f"{oldest.major}.{oldest.minor - 1}"]
    done = subprocess.run([sys.executable, "-c", _LEGACY, *uses], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("TOWER-LEGACY ")]
    # kept for the oldest supported release; dropped for the one before (the check can fail)
    assert json.loads(line.removeprefix("TOWER-LEGACY ")) == {uses[0]: True, uses[1]: False}


@pytest.mark.slow
def test_the_example_runs_simulated_and_scores_like_tol_run(xdisplay, tmp_path):
    # With a yoked copy trial after each problem (the participant's own moves).
    done = compile_example(tmp_path, env=xdisplay, simulate=True, simSpeed=20.0, copy="own")
    assert done.returncode == 0, done.stderr
    with running_example(tmp_path, xdisplay) as proc:
        _out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    table = builder_csv(tmp_path)
    rows = table[table["tower.problem_id"].notna()]
    assert len(rows) == 3  # one row per conditions row, written by Builder's loop
    assert list(zip(rows["start"], rows["goal"], strict=True)) == PROBLEMS
    assert list(rows["tower.start"]) == [s for s, _ in PROBLEMS]
    assert rows["tower.solved"].astype(bool).all()
    graph = london_graph()
    expected = [bfs(graph, g)[0][s] for s, g in PROBLEMS]  # independent BFS
    assert list(rows["tower.min_moves"]) == expected
    assert (rows["tower.moves"] >= rows["tower.min_moves"]).all()
    # the event log and sidecar sit beside Builder's data file and tol-score reads them
    (log,) = tower_logs(tmp_path)
    meta = read_sidecar(log.with_suffix(".json"))
    assert meta["window"]["owner"] == "caller"
    assert meta["status"] == "completed"
    events = read_event_log(log).rows
    assert [r["event"] for r in events].count("trial_end") == 3
    assert [r["event"] for r in events].count("copy_end") == 3
    assert events[-1]["event"] == "session_end"
    scored = tol_score(str(tmp_path / "data"), "--output", str(tmp_path / "scored"))
    assert scored.returncode == 0, scored.stderr
    trials = pd.read_csv(tmp_path / "scored" / "trials.csv")
    assert list(trials["min_moves"]) == expected
    assert list(trials["moves"]) == list(rows["tower.moves"])
    # the copies: in Builder's own rows and in the scores
    assert list(rows["tower.copy_outcome"]) == ["copied"] * 3
    assert list(rows["tower.copy_moves"]) == list(trials["copy_moves"])
    assert list(trials["copy_moves"]) == list(trials["placements"])
    assert trials["initial_thinking_time"].notna().all()


@pytest.mark.slow
def test_running_the_example_again_is_a_new_attempt_of_the_session(xdisplay, tmp_path):
    # Builder's data files are per run and Builder has no resume: running the experiment
    # again for the same participant and session starts a new attempt, said on the console
    # and recorded in the sidecar, so that the scorer can tell the two logs apart.
    done = compile_example(tmp_path, env=xdisplay, simulate=True, simSpeed=30.0)
    assert done.returncode == 0, done.stderr
    for _ in range(2):
        with running_example(tmp_path, xdisplay) as proc:
            _out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
    first, second = tower_logs(tmp_path)
    assert "already has a log of session 1 of tower_example-tower" in err
    assert "recorded as a new attempt of the session" in err
    metas = [read_sidecar(log.with_suffix(".json")) for log in (first, second)]
    assert [(m["session_attempt"], m["earlier_attempts"]) for m in metas] == [
        (1, []), (2, [first.name])]  # fmt: skip
    assert all(m["status"] == "completed" for m in metas)


@pytest.mark.slow
def test_the_example_runs_with_real_clicks(xdisplay, tmp_path):
    # One problem; the participant (xdotool) solves it along a shortest path found by BFS.
    (tmp_path / "conditions.csv").write_text("start,goal,time_limit\nGR|B|,|RB|G,60\n")
    done = compile_example(tmp_path, env=xdisplay)
    assert done.returncode == 0, done.stderr
    with running_example(tmp_path, xdisplay) as proc:
        meta = wait_for_onset(tmp_path, proc)
        graph = london_graph()
        dist, _ = bfs(graph, "|RB|G")
        state, pegs = "GR|B|", "ABC"
        while state != "|RB|G":
            i, j = optimal_first_moves(graph, dist, state)[0]
            for peg in (pegs[i], pegs[j]):
                click_peg(peg, meta, xdisplay)
            state = next(v for _, a, b, v in graph[state] if (a, b) == (i, j))
        _out, err = proc.communicate(timeout=90)
    assert proc.returncode == 0, err
    rows = builder_csv(tmp_path)
    row = rows[rows["tower.problem_id"].notna()].iloc[0]
    assert bool(row["tower.solved"])
    assert row["tower.moves"] == row["tower.min_moves"] == dist["GR|B|"]
    events = read_event_log(tower_logs(tmp_path)[0]).rows
    stamps = {r["stamp"] for r in events if r["event"] in ("pick_up", "place")}
    assert stamps == {"arrival"}  # real clicks, stamped on arrival


# ------------------------------------------------------------------ hardware ports
_SCAN_PROTOCOL = """\
format: 1
name: builder-scan
task: {type: hanoi, disks: 3}
instructions: none
feedback: none
timing: {inter_trial_interval: 0, feedback_duration: 0}
scanner: {trigger: serial, byte: 53, dummy_volumes: 1, tr: 0.4}
markers: {pulse: 0.005}
blocks:
  - problems:
      - {id: p1, start: AAA, goal: AAB}
"""


def test_the_ports_compile_into_the_script_as_run_settings(tmp_path):
    (tmp_path / "scan.yaml").write_text(_SCAN_PROTOCOL)
    done = compile_example(tmp_path, mode="protocol", protocol="scan.yaml",
                           triggerPort="/dev/ttyUSB0", markerPort="COM4")  # fmt: skip
    assert done.returncode == 0, done.stderr
    script = (tmp_path / "tower_example.py").read_text(encoding="utf-8-sig")
    assert "trigger_port='/dev/ttyUSB0'," in script
    assert "marker_port='COM4'," in script
    compile(script, "tower_example.py", "exec")


@pytest.mark.slow
def test_the_ports_reach_the_run_a_scanner_and_a_trigger_box_on_real_lines(xdisplay, tmp_path):
    # A whole protocol run by the component: the scanner's trigger bytes come from one
    # pseudo-terminal (Scanner trigger port), the event markers go out on another (Marker port).
    (tmp_path / "scan.yaml").write_text(_SCAN_PROTOCOL)
    scanner, box = SerialScanner(53, 7, 0.4), PortReader()

    def logs() -> list:  # a whole protocol's log is named by the protocol
        return sorted((tmp_path / "data").glob("P001_builder-scan_*.csv"))

    try:
        done = compile_example(tmp_path, env=xdisplay, mode="protocol", protocol="scan.yaml", simulate=True,
                               simSpeed=10.0, triggerPort=scanner.path, markerPort=box.path)  # fmt: skip
        assert done.returncode == 0, done.stderr
        with running_example(tmp_path, xdisplay) as proc:
            _wait_for(lambda: any("block_start" in p.read_text() for p in logs()), proc,
                      "the block's start")  # fmt: skip
            scanner.start()
            _out, err = proc.communicate(timeout=180)
            sent = scanner.stop()
        assert proc.returncode == 0, err
        time.sleep(0.2)  # the last marker's reset byte
    finally:
        scanner.close()
        box.close()
    (log,) = logs()
    rows = read_event_log(log).rows
    # The protocol played once, although the Routine is in a loop of three repeats.
    assert [r["event"] for r in rows].count("block_start") == 1
    assert rows[-1]["event"] == "session_end"
    volumes = [int(parse_detail(r["detail"])["volume"]) for r in rows if r["event"] == "trigger"]
    assert volumes == list(range(1, len(volumes) + 1))  # in order, none twice
    assert 2 <= len(volumes) <= sent  # the dummy and the first counted volume at least
    meta = read_sidecar(log.with_suffix(".json"))
    assert meta["scanner"]["trigger"] == "serial"
    sent_codes = [int(d["marker"]) for r in rows if "marker" in (d := parse_detail(r["detail"]))]
    assert sent_codes, "markers were sent"
    received = [b for b, _ in box.bytes if b != 0]  # each code, then 0 after its pulse
    assert received == sent_codes
    assert meta["markers"]["serial_port"] == box.path


# ---------------------------------------------------------------- bad settings
@pytest.mark.parametrize(
    ("rows", "params", "expected"),
    [
        ("GR|B|,|RB|G,60\nGR|B|,|RB|G,60\nGR|X|,|RB|G,60\n", {},
         ['Tower component "tower", parameter "Start" (row 4 of conditions.csv): ',
          "\"GR|X|\": ball 'X' on peg B", "write each peg's balls bottom to top"]),
        pytest.param("GR|B|,GR|B|,60\n", {},
         ['parameter "Goal" (row 2 of conditions.csv)', "the goal GR|B| equals the start",
          "Suggested fix: choose a different goal."], marks=pytest.mark.slow),
        pytest.param("GR|B|,|RB|G,-5\n", {},
         ['parameter "Time limit (s)" (row 2 of conditions.csv): -5', "above 0"],
         marks=pytest.mark.slow),
        pytest.param("GR|B|,|RB|G,60\n", {"mode": "protocol", "protocol": "no-such-battery"},
         ['Tower component "tower", parameter "Protocol": ',
          "no-such-battery: no such file, and no bundled protocol has that name",
          "london-shallice"], marks=pytest.mark.slow),
        pytest.param("GR|B|,|RB|G,60\n", {"mode": "protocol", "protocol": "demo",
                                            "triggerPort": "/dev/ttyUSB0"},
         ['parameter "Scanner trigger port": \'/dev/ttyUSB0\' has no effect',
          "trigger: serial"], marks=pytest.mark.slow),
        pytest.param("GR|B|,|RB|G,60\n", {"goal": "$target"},
         ['parameter "Goal": \'$target\' names a column that no loop around this Routine',
          "add a column 'target'"], marks=pytest.mark.slow),
    ],
)  # fmt: skip
def test_bad_settings_stop_the_script_before_any_window(xdisplay, tmp_path, rows, params,
                                                        expected):  # fmt: skip
    shutil.copy(EXAMPLE / "tower_example.psyexp", tmp_path)
    (tmp_path / "conditions.csv").write_text("start,goal,time_limit\n" + rows)
    done = compile_example(tmp_path, env=xdisplay, **params)
    assert done.returncode == 0, done.stderr
    run = subprocess.run(warm([sys.executable, str(RUN_SCRIPT), "tower_example.py", "P001"],
                              xdisplay), cwd=tmp_path, env=xdisplay,
                         capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith("tol-tasks: error: "), run.stderr
    for text in expected:
        assert text in run.stderr, run.stderr
    assert "Traceback" not in run.stderr
    # Builder's script makes its data folder and log (setupData, setupLogging) before it opens
    # the window (setupWindow): no data folder means it stopped before any window.
    assert not (tmp_path / "data").exists()


# ------------------------------------------------------------------- online
def test_compiling_for_psychojs_stops_with_a_message(tmp_path):
    done = compile_example(tmp_path, target="js")
    assert done.returncode != 0
    assert 'The Tower component "tower" (tol-tasks) runs only in PsychoPy (Python)' in done.stderr
    assert "Suggested fix: run the experiment locally" in done.stderr
    assert not (tmp_path / "tower_example.js").exists()  # no broken script left behind


def test_conditions_file_of_the_example_is_valid():
    with (EXAMPLE / "conditions.csv").open() as f:
        assert [(r["start"], r["goal"]) for r in csv.DictReader(f)] == PROBLEMS


@pytest.mark.slow
@pytest.mark.parametrize("escape", [True, False])
def test_the_quit_key_ends_the_experiment_as_builder_escape_does(escape, xdisplay, tmp_path):
    # Escape (a real key press) ends the experiment as Builder's Escape does; with the
    # experiment's "Enable Escape" off it ends neither the experiment nor the Tower's
    # problem, which ends by its time limit instead.
    (tmp_path / "conditions.csv").write_text("start,goal,time_limit\nGR|B|,|RB|G,4\n")
    done = compile_example(tmp_path, env=xdisplay, settings={"Enable Escape": escape})
    assert done.returncode == 0, done.stderr
    assert f"escape={escape}" in (tmp_path / "tower_example.py").read_text()
    with running_example(tmp_path, xdisplay) as proc:
        wait_for_onset(tmp_path, proc)
        xdotool("key", "Escape", env=xdisplay)
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    table = builder_csv(tmp_path)
    events = read_event_log(tower_logs(tmp_path)[0]).rows
    if escape:
        assert list(table["tower.outcome"].dropna()) == ["aborted"]  # the first problem only
        assert "goodbye.started" not in table.columns  # the experiment ended there
        assert [r["event"] for r in events][-2:] == ["abort", "session_end"]
        assert events[-1]["reason"] == "aborted"
    else:
        assert list(table["tower.outcome"].dropna()) == ["time_out"]
        assert "abort" not in [r["event"] for r in events]
        assert events[-1]["reason"] == "completed"
