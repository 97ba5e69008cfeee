"""tol-import: data written by other tower tools, imported and scored like tol-tasks' own sessions.

The fixtures in tests/data/import were made by running the Experiment Factory's
Tower of London and the jsPsych-contrib plugin in headless Chromium, and from
PEBL's documented output format (tests/data/import/make_fixtures.py). Every
expected value here comes from the files' raw rows (tests/import_tools.py) and
the independent BFS of tests/reference.py, never from tol_tasks.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path

import pytest

from tests.import_tools import (
    FIXTURES,
    expfactory_expected,
    jspsych_expected,
    number,
    pebl_expected,
    run,
    scored_trials,
)

EF = FIXTURES / "expfactory"
JP = FIXTURES / "jspsych"
PB = FIXTURES / "pebl"

# The imported folder and its scores are made once: every test of this module on one worker.


def _import(out: Path, *args) -> None:
    """tol-import, in this process (its command line; test_import_errors runs the command)."""
    from tol_tasks.importers.cli import main

    assert main([*map(str, args), "--output", str(out)]) == 0


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> Path:
    """Every importable fixture in one folder, as a lab would gather them."""
    out = tmp_path_factory.mktemp("imported")
    _import(out, EF / "tower_of_london.csv")  # several workers, pandas notation
    _import(out, EF / "W1001.csv", "--participant", "W1001")  # jsPsych 5's own CSV export
    _import(out, JP / "J01.csv", "--capacities", "3,2,1", "--end-delay", "500")
    _import(out, JP / "J02.json")  # parameters saved with save_trial_parameters
    _import(out, *sorted(PB.glob("to[lh]-[0-9]*.csv")))
    return out


@pytest.fixture(scope="module")
def scored(imported, tmp_path_factory) -> dict[str, list[dict]]:
    """trials.csv under both planning-time conventions."""
    tables = {}
    for ends in ("pick_up", "move"):
        out = tmp_path_factory.mktemp(f"scored-{ends}")
        done = run("tol-score", imported, "--output", out, "--planning-ends", ends)
        assert done.returncode == 0, done.stderr
        tables[ends] = scored_trials(out)
    return tables


def _by(trials: list[dict], participant: str) -> dict:
    return {(t["problem_id"], t["attempt"]): t for t in trials if t["participant"] == participant}


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, abs_tol=1e-4)


def test_every_session_is_written_with_a_sidecar_naming_its_source(imported):
    logs = sorted(p.name for p in imported.glob("*.csv"))
    assert logs == [
        "101_ses-1_pebl-tol.csv", "103_ses-1_pebl-tol.csv", "104_ses-1_pebl-tol.csv",
        "201_ses-1_pebl-toh.csv", "202_ses-1_pebl-toh.csv",
        "J01_ses-1_jspsych-tol.csv", "J02_ses-1_jspsych-tol.csv",
        "W1001_ses-1_expfactory-tol.csv", "W1002_ses-1_expfactory-tol.csv",
        "W1003_ses-1_expfactory-tol.csv",
    ]  # fmt: skip
    side = json.loads((imported / "W1002_ses-1_expfactory-tol.json").read_text())
    source = EF / "tower_of_london.csv"
    assert side["source"]["format"] == "expfactory-tol"
    assert side["source"]["files"] == ["tower_of_london.csv"]
    assert side["source"]["sha256"] == [hashlib.sha256(source.read_bytes()).hexdigest()]
    assert side["recorder"]["name"] == "tol-import"
    assert side["import"]["importer_version"] >= 1
    assert side["protocol"]["name"] == "expfactory-tol"
    # A PEBL log's summary is named beside it
    pebl = json.loads((imported / "101_ses-1_pebl-tol.json").read_text())
    assert pebl["source"]["files"] == ["tol-101.csv", "tol-summary-101.csv"]
    assert side["participant"] == "W1002"
    assert side["session"] == 1
    # Which field gives each time, and its resolution
    assert "time_elapsed" in side["import"]["times"]["clock"]
    assert side["timing"]["expected_resolution_s"] == 0.001
    # What the source cannot give is listed, with what the scores then mean
    measures = {u["measure"] for u in side["import"]["unavailable"]}
    assert "illegal attempts" in measures
    assert set(side["unavailable"]) == measures
    jp = json.loads((imported / "J01_ses-1_jspsych-tol.json").read_text())
    assert "pick-ups" in {u["measure"] for u in jp["import"]["unavailable"]}


def test_every_sidecar_validates_against_the_shipped_json_schema(imported):
    import jsonschema

    from tol_tasks.session_data.sidecar import SIDECAR_VERSION

    schema = json.loads((Path(__file__).parents[1] / "tol_tasks" / "session_data" / "codebook"
                         / f"sidecar-v{SIDECAR_VERSION}.schema.json").read_text())  # fmt: skip
    sides = sorted(imported.glob("*.json"))
    assert len(sides) == 10
    for side in sides:
        jsonschema.validate(json.loads(side.read_text()), schema)


def test_the_logs_pass_tol_score_verify(imported):
    done = run("tol-score", imported, "--verify")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "10 log(s) OK, 0 problem(s)" in done.stdout


@pytest.mark.parametrize("source", ["tower_of_london.csv", "W1001.csv"])
def test_experiment_factory_trials_match_the_raw_rows(scored, source):
    expected = expfactory_expected(EF / source, participant="W1001")
    assert expected, "the fixture has test problems"
    for (who, problem), want in expected.items():
        got = _by(scored["pick_up"], who)[(problem, "1")]
        assert int(got["min_moves"]) == want["min_moves"], (who, problem)
        assert (got["solved"] == "true") == want["solved"], (who, problem)
        assert int(got["placements"]) == want["moves"], (who, problem)
        assert (got["time_out"] == "true") == want["time_out"], (who, problem)
        # The Experiment Factory's planning time: the latency of the first pick-up
        assert _close(number(got["planning_time"]), want["planning_time"]), (who, problem)


def test_experiment_factory_fixture_holds_a_time_out_with_a_ball_in_hand():
    rows = json.loads((EF / "W1002.json").read_text())
    timeouts = [r for r in rows if r.get("mouse_click") == -1 or r.get("mouse_click") == "-1"]
    assert timeouts
    assert timeouts[0]["trial_id"] == "to_board"


@pytest.mark.parametrize(("source", "capacities"), [("J01.csv", [3, 2, 1]), ("J02.json", None)])
def test_jspsych_contrib_trials_match_the_raw_rows(scored, source, capacities):
    expected = jspsych_expected(JP / source, capacities)
    assert len(expected) == 5
    for (who, index), want in expected.items():
        got = _by(scored["move"], who)[(index, "1")]
        assert int(got["min_moves"]) == want["min_moves"], (who, index)
        assert (got["solved"] == "true") == want["solved"], (who, index)
        assert int(got["moves"]) == want["moves"], (who, index)
        # No pick-ups: planning time is the time to the first completed move, under either
        # convention (issue 22: the default falls back to it, and says so in planning_ends;
        # it was empty before)
        assert _close(number(got["planning_time"]), want["planning_time"]), (who, index)
        default = _by(scored["pick_up"], who)[(index, "1")]
        assert _close(number(default["planning_time"]), want["planning_time"]), (who, index)
        assert default["planning_ends"] == ("move" if want["planning_time"] is not None else "")


@pytest.mark.parametrize(
    ("log", "capacities"),
    [("tol-101.csv", (3, 2, 1)), ("tol-103.csv", (5, 5, 5)), ("tol-104.csv", (3, 2, 1)),
     ("toh-201.csv", None), ("toh-202.csv", None)],
)  # fmt: skip
def test_pebl_trials_match_the_raw_rows(scored, log, capacities):
    expected = pebl_expected(PB / log, capacities)
    for (who, trial, attempt), want in expected.items():
        got = _by(scored["move"], who)[(trial, attempt)]
        assert int(got["min_moves"]) == want["min_moves"], (who, trial, attempt)
        assert (got["solved"] == "true") == want["solved"], (who, trial, attempt)
        assert int(got["placements"]) == want["moves"], (who, trial, attempt)
        assert _close(number(got["planning_time"]), want["planning_time"]), (who, trial)


def test_pebl_summary_planning_time_is_pebl_firsttime(scored):
    """PEBL's own firsttime (summary file) is tol-score's planning time to the first move,
    for attempts whose first step moved a ball."""
    import csv

    trials = _by(scored["move"], "101")
    with (PB / "tol-summary-101.csv").open() as f:
        for row in csv.DictReader(f):
            got = trials[(row["trial"], row["tries"])]
            first_step_moved = number(got["planning_time"]) is not None
            if first_step_moved and got["same_peg_drops"] == "0":
                assert _close(number(got["planning_time"]), int(row["firsttime"]) / 1000)


def test_pebl_limits_resets_and_time_outs_are_read_as_pebl_meant_them(scored):
    tol101 = _by(scored["move"], "101")
    # PEBL's Shallice set ends an unsolved attempt when its steps reach the stated shortest
    limited = [t for t in tol101.values() if t["move_limit_reached"] == "true"]
    assert limited
    assert all(t["solved"] == "false" for t in limited)
    # tol-104 waits past the 120 s limit on trial 3
    assert _by(scored["move"], "104")[("3", "1")]["time_out"] == "true"
    assert math.isclose(
        number(_by(scored["move"], "104")[("3", "1")]["total_time"]), 120, abs_tol=0.2
    )
    # tol-103 pressed reset on trial 2: two attempts, the first unsolved and complete
    first, second = _by(scored["move"], "103")[("2", "1")], _by(scored["move"], "103")[("2", "2")]
    assert first["solved"] == "false"
    assert first["complete"] == "true"
    assert second["solved"] == "true"


def test_a_stated_minimum_that_disagrees_with_the_solver_is_flagged_not_used(imported, scored):
    side = json.loads((imported / "103_ses-1_pebl-tol.json").read_text())
    flagged = {(d["problem_id"], d["source_min_moves"], d["min_moves"])
               for d in side["import"]["min_moves_disagreements"]}  # fmt: skip
    # Phillips et al. (1999) set C as PEBL types it: items 2 and 4 are wrong (a BFS finds 8, 6)
    assert flagged == {("2", 5, 8), ("4", 7, 6)}
    trials = _by(scored["move"], "103")
    assert trials[("2", "1")]["min_moves"] == "8"
    assert trials[("4", "1")]["min_moves"] == "6"
    # The source's own value stays on the trial's onset row
    log = (imported / "103_ses-1_pebl-tol.csv").read_text().splitlines()
    assert any(",trial_onset," in line and "source_min_moves=5" in line for line in log)
    # jsPsych-contrib: the typed optimal_moves (saved) and the plugin's optimal flag
    j02 = json.loads((imported / "J02_ses-1_jspsych-tol.json").read_text())
    assert [(d["problem_id"], d["source_min_moves"], d["min_moves"])
            for d in j02["import"]["min_moves_disagreements"]] == [("0", 3, 2)]  # fmt: skip
    j01 = json.loads((imported / "J01_ses-1_jspsych-tol.json").read_text())
    [flag] = j01["import"]["min_moves_disagreements"]
    assert flag["problem_id"] == "2"
    assert flag["source_optimal"] is False
    assert flag["min_moves"] == 3


def test_importing_the_same_file_again_writes_nothing_new(imported):
    before = {p.name: p.read_bytes() for p in imported.iterdir()}
    done = run("tol-import", EF / "tower_of_london.csv", "--output", imported)
    assert done.returncode == 0, done.stderr
    assert "0 session(s) written" in done.stdout
    assert "2 already imported" in done.stdout
    assert {p.name: p.read_bytes() for p in imported.iterdir()} == before


@pytest.mark.slow
def test_imported_sessions_export_to_bids_spss_reports_and_plots(imported, tmp_path):
    out = tmp_path / "scored"
    done = run("tol-score", imported, "--output", out, "--bids", "--spss", "--report", "--plots")
    assert done.returncode == 0, done.stderr
    assert (out / "wide.sav").is_file()
    assert (out / "trials.sav").is_file()
    assert len(list((out / "reports").glob("*.html"))) == 11  # ten sessions and the index
    assert list((out / "plots").glob("*.png"))
    check = run("bids-validator-deno", out / "bids", "--format", "json")
    issues = json.loads(check.stdout)["issues"]["issues"]
    assert [i for i in issues if i["severity"] == "error"] == []
    behs = sorted(p.name for p in (out / "bids").rglob("*_beh.tsv"))
    assert "sub-W1002_ses-1_task-expfactorytol_beh.tsv" in behs
    assert "sub-201_ses-1_task-pebltoh_beh.tsv" in behs


def test_the_python_api_imports_without_the_command_line(tmp_path):
    from tol_tasks.importers import ImportOptions, import_files

    report = import_files([PB / "toh-202.csv"], tmp_path, options=ImportOptions(session=3))
    assert [p.name for p in report.written] == ["202_ses-3_pebl-toh.csv"]
    assert report.trials == 6
    shutil.rmtree(tmp_path)


def test_jspsych_contrib_limits_and_the_done_button(scored, imported):
    j02 = _by(scored["move"], "J02")
    assert j02[("2", "1")]["move_limit_reached"] == "true"  # max_moves 6, saved
    assert j02[("4", "1")]["time_out"] == "true"  # time_limit 4000 ms, saved
    assert math.isclose(number(j02[("4", "1")]["total_time"]), 4.0)
    log = (imported / "J01_ses-1_jspsych-tol.csv").read_text().splitlines()
    ends = [line for line in log if ",trial_end," in line]
    assert ",gave_up," in ends[-1]  # the done button, pressed unsolved


def test_a_session_cut_off_mid_problem_is_imported_incomplete(tmp_path):
    """The participant closed the browser during a problem: no feedback row, no end row."""
    rows = json.loads((EF / "W1003.json").read_text())
    last_onset = max(i for i, r in enumerate(rows) if r.get("trial_id") == "feedback")
    cut = rows[: last_onset - 3]  # inside the last problem, before its feedback
    src = tmp_path / "cut.json"
    src.write_text(json.dumps(cut))
    out = tmp_path / "out"
    _import(out, src, "--participant", "W1003")
    side = json.loads((out / "W1003_ses-1_expfactory-tol.json").read_text())
    assert side["status"] == "incomplete"
    log = (out / "W1003_ses-1_expfactory-tol.csv").read_text()
    assert ",session_end," not in log
    done = run("tol-score", out, "--output", tmp_path / "scored")
    assert done.returncode == 0, done.stderr
    trials = scored_trials(tmp_path / "scored")
    assert trials[-1]["complete"] == "false"
    assert trials[-2]["complete"] == "true"


def test_a_participant_whose_clock_starts_again_gets_the_next_session(tmp_path):
    """The same worker twice in one file (the task was run again): sessions 1 and 2."""
    rows = json.loads((EF / "W1003.json").read_text())
    src = tmp_path / "twice.json"
    src.write_text(json.dumps([{**r, "worker_id": "W9"} for r in rows + rows]))
    out = tmp_path / "out"
    _import(out, src)
    assert sorted(p.name for p in out.glob("*.csv")) == [
        "W9_ses-1_expfactory-tol.csv", "W9_ses-2_expfactory-tol.csv"]  # fmt: skip


def test_a_whole_log_is_what_eventlog_writes_row_by_row(tmp_path):
    from tol_tasks.session_data import EventLog
    from tol_tasks.session_data.whole import write_event_log

    rows = [
        {"participant": "P", "session": 1, "event": "session_start", "time": 0.0},
        {"participant": "P", "session": 1, "event": "trial_onset", "time": 1.5, "trial": 1,
         "state": "GR|B|", "goal": "G|BR|", "detail": "a=1;b=x\ny"},
        {"participant": "P", "session": 1, "event": "place", "time": 2.25, "moves": 1,
         "input": "mouse", "x": None},
    ]  # fmt: skip
    with EventLog(tmp_path / "live.csv", fsync=False) as log:
        for r in rows:
            log.write(**dict(r))
    assert write_event_log(tmp_path / "whole.csv", rows) == 3
    assert (tmp_path / "whole.csv").read_bytes() == (tmp_path / "live.csv").read_bytes()
    with pytest.raises(FileExistsError):
        write_event_log(tmp_path / "whole.csv", rows)
    with pytest.raises(ValueError, match="not event log columns: colour"):
        write_event_log(tmp_path / "other.csv", [{"event": "place", "colour": "red"}])
    assert not (tmp_path / "other.csv").exists()


def test_the_pebl_and_psytoolkit_fixtures_are_what_the_builder_makes(tmp_path):
    """PEBL does not run here: its fixtures come from make_fixtures.py, byte for byte."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_fixtures", FIXTURES / "make_fixtures.py")
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    builder.make_pebl(tmp_path / "pebl")
    builder.make_psytoolkit(tmp_path / "psytoolkit")
    for kind in ("pebl", "psytoolkit"):
        made = {p.name: p.read_bytes() for p in (tmp_path / kind).iterdir()}
        committed = {p.name: p.read_bytes() for p in (FIXTURES / kind).iterdir()}
        assert made == committed, kind
