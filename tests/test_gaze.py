"""Eye tracking through ioHub: PsychoPy's MouseGaze (the mouse plays the eye) driven by real
X pointer motion (xdotool, XTest) along a scripted path over the goal and the workspace; the
samples file, the regions in the sidecar, and tol-score's gaze measures checked against
values computed here from the path's own times."""

from __future__ import annotations

import itertools
import json
import subprocess
import time

import pandas as pd
import pytest

from tests.neuro_tools import keys_protocol
from tests.runner_tools import (
    IOHUB_FIRST_TRIAL_S,
    codebook_describes_every_table,
    exe,
    running_tol_run,
    session_files,
    sidecar_of,
    tol_score,
    wait_for_rows,
    xdotool,
)
from tol_analysis.columns import GAZE
from tol_tasks.session_data.eventlog import read_event_log

PROTOCOL = keys_protocol(
    "gaze-test",
    """\
eyetracking:
  tracker: eyetracker.hw.mouse.EyeTracker
  settings: {runtime_settings: {sampling_rate: 50}, controls: {move: [], blink: [LEFT_BUTTON, RIGHT_BUTTON],
                                                       saccade_threshold: 1000}}
  calibrate: false
  fixation_ms: 100
  screen_size: [0.53, 0.30]
  screen_distance: 0.6
blocks:
  - problems:
      - {id: p1, start: AAA, goal: AAB}
""",
)
# MouseGaze simulates a saccade (2.2 ms per degree + 21 ms, the gaze held where it was) for a
# jump over saccade_threshold degrees; at 1000 the gaze jumps with the pointer, as the path
# below assumes.
#: The scripted gaze path: region, seconds there.
PATH = [("goal", 1.0), ("workspace", 1.0), ("goal", 1.0), ("workspace", 1.0)]


def _centre(meta: dict, name: str) -> tuple[int, int]:
    r = next(r for r in meta["eyetracking"]["regions"] if r["name"] == name)
    wx, wy = meta["window"]["position"]
    return int(wx + r["left"] + r["width"] / 2), int(wy + r["top"] + r["height"] / 2)


@pytest.fixture(scope="module")
def session(xdisplay, tmp_path_factory):
    root = tmp_path_factory.mktemp("gaze")
    (root / "gaze.yaml").write_text(PROTOCOL)
    out = root / "data"
    moves = []  # (region, time.monotonic() when the pointer got there)
    with running_tol_run(str(root / "gaze.yaml"), "--participant", "P1", "--windowed",
                         "--output", str(out), env=xdisplay) as proc:  # fmt: skip
        wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows),
                      timeout=IOHUB_FIRST_TRIAL_S, proc=proc)  # fmt: skip
        meta = sidecar_of(out)
        for name, seconds in PATH:
            x, y = _centre(meta, name)
            before = time.monotonic()
            xdotool("mousemove", str(x), str(y), env=xdisplay)
            moves.append((name, before, time.monotonic()))
            time.sleep(seconds)
        # The keys go to the window under the pointer, which stays on the workspace; the first
        # pick-up ends the planning period.
        xdotool("key", "1", env=xdisplay)
        wait_for_rows(out, lambda rows: any(r["event"] == "pick_up" for r in rows), proc=proc)
        xdotool("key", "2", env=xdisplay)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    return out, moves


def test_samples_and_regions_are_kept_with_the_session(session):
    out, _ = session
    meta = sidecar_of(out)
    et = meta["eyetracking"]
    names = {r["name"] for r in et["regions"]}
    assert {"goal", "workspace", "goal_A", "goal_C", "workspace_A", "workspace_B"} <= names
    samples = pd.read_csv(session_files(out)[0].with_name(et["samples_file"]), sep="\t")
    assert list(samples.columns) == ["time", "x", "y", "pupil", "valid"]
    assert len(samples) == et["samples"] > 0
    assert samples["time"].is_monotonic_increasing


def test_every_sample_iohub_gave_is_in_the_file_once(session):
    # MouseGaze makes one sample every 1/sampling_rate s of ioHub's time (PROTOCOL: 50 Hz),
    # catching up when its process runs late: from the recording's start to its stop, each
    # gap between two samples of the file is one period (two: a sample lost; none: doubled),
    # whatever the frames did (the samples are read by a thread, off the frame).
    out, _ = session
    meta = sidecar_of(out)
    samples = pd.read_csv(session_files(out)[0].with_name(meta["eyetracking"]["samples_file"]),
                          sep="\t")  # fmt: skip
    periods = (samples["time"].diff().dropna() / (1 / 50)).round()
    assert periods.value_counts().to_dict() == {1.0: len(samples) - 1}
    # The recording stops before the session's end row, and the count in the sidecar is
    # taken after it stopped: no sample is written after the end or left out of the count
    # (a sample taken as the input closed, after the count, made the file one longer).
    rows = read_event_log(session_files(out)[0]).rows
    end = float(next(r["time"] for r in rows if r["event"] == "session_end"))
    assert samples["time"].iloc[-1] <= end
    assert meta["eyetracking"]["samples"] == len(samples)


def test_gaze_measures_match_the_scripted_path(session, tmp_path):
    out, moves = session
    done = tol_score(str(out), "--output", str(tmp_path / "scored"))
    assert done.returncode == 0, done.stderr
    gaze = pd.read_csv(tmp_path / "scored" / "gaze.csv")
    assert len(gaze) == 1
    book = codebook_describes_every_table(tmp_path / "scored")  # gaze.csv's columns too
    assert book["gaze.csv"] == [c.entry() for c in GAZE]  # as the registry declares them, cited
    assert "Hodgson et al. 2000" in book["gaze.csv"][-1]["source"]
    g = gaze.iloc[0]
    meta = sidecar_of(out)
    rows = read_event_log(session_files(out)[0]).rows
    onset = float(next(r["time"] for r in rows if r["event"] == "trial_onset"))
    pick = float(next(r["time"] for r in rows if r["event"] == "pick_up"))
    assert g["planning_period"] == pytest.approx(pick - onset, abs=1e-3)
    # Expected from the samples file's raw rows: each valid sample of the planning period
    # counts one period (50 Hz) in the region whose rectangle holds it. How closely the
    # samples follow the scripted path is ioHub's timing (MouseGaze reads the pointer when
    # its process runs: in a full suite late by more than 0.3 s), not a bound for a test.
    et = meta["eyetracking"]
    samples = pd.read_csv(session_files(out)[0].with_name(et["samples_file"]), sep="\t")
    period = 1 / 50
    boxes = {r["name"]: r for r in et["regions"] if r["name"] in ("goal", "workspace")}
    seen = []  # (time, region or None) of each valid sample in the planning period
    for t, x, y, valid in samples[["time", "x", "y", "valid"]].itertuples(index=False):
        if valid == 1 and onset <= t < pick:
            inside = [n for n, b in boxes.items() if b["left"] <= x <= b["left"] + b["width"]
                      and b["top"] <= y <= b["top"] + b["height"]]  # fmt: skip
            seen.append((t, inside[-1] if inside else None))
    for name in ("goal", "workspace"):
        expected = period * sum(1 for _, where in seen if where == name)
        assert expected > 0.5, (name, expected)  # the pointer was there twice for 1 s
        assert g[f"dwell_{name}"] == pytest.approx(expected, abs=period + 1e-6), name
    visits = [where for _, where in seen if where]
    changes = [b for a, b in itertools.pairwise(visits) if a != b]
    assert [visits[0], *changes] == [name for name, _, _ in moves]  # the path's order
    assert g["alternations"] == len(changes) == 3
    first = next(
        t
        for k, (t, where) in enumerate(seen)
        if where == "workspace" and all(w == "workspace" for _, w in seen[k : k + 5])
    )  # the first run of 5 samples (100 ms, the protocol's fixation_ms) on the workspace
    assert g["first_workspace_fixation"] == pytest.approx(first - onset, abs=period + 1e-6)


def test_bids_eye_tracking_recording_validates(session, tmp_path):
    out, _ = session
    done = tol_score(str(out), "--output", str(tmp_path / "scored"), "--bids")
    assert done.returncode == 0, done.stderr
    bids = tmp_path / "scored" / "bids"
    beh = bids / "sub-P1" / "ses-1" / "beh"
    physio = beh / "sub-P1_ses-1_task-gazetest_recording-eye1_physio.tsv.gz"
    side = json.loads(physio.with_name(physio.name.replace(".tsv.gz", ".json")).read_text())
    assert side["PhysioType"] == "eyetrack"
    data = pd.read_csv(physio, sep="\t", header=None, na_values="n/a")
    samples = pd.read_csv(session_files(out)[0].with_name(sidecar_of(out)["eyetracking"][
        "samples_file"]), sep="\t")  # fmt: skip
    assert len(data) == len(samples)
    assert list(data[0]) == pytest.approx(list(samples["time"]), abs=1e-6)
    report = subprocess.run([exe("bids-validator-deno"), str(bids), "--format", "json"],
                            capture_output=True, text=True, timeout=600, check=False)  # fmt: skip
    issues = json.loads(report.stdout)["issues"]["issues"]
    assert [i for i in issues if i["severity"] == "error"] == []


def test_the_samples_file_follows_its_log_to_another_name(tmp_path):
    """When a session's log takes another name at its start (another session of the
    participant took the first, tests/test_integrity.py), the samples file already begun
    moves with it, never over a file, and the samples go on into it."""
    from tol_tasks.runner.gaze import GazeRecorder

    first, second = tmp_path / "a_gaze.tsv", tmp_path / "a_2_gaze.tsv"
    rec = GazeRecorder.__new__(GazeRecorder)  # the file's part only: no ioHub
    rec.path, rec._file = first, open(first, "x", encoding="utf-8")  # noqa: SIM115
    rec._file.write("before\n")
    taken = tmp_path / "taken_gaze.tsv"
    taken.write_text("another session's\n")
    with pytest.raises(FileExistsError):
        rec.rename(taken)
    assert taken.read_text() == "another session's\n"
    assert rec.path == first
    rec.rename(second)
    rec._file.write("after\n")
    rec._file.close()
    assert rec.path == second
    assert not first.exists()
    assert second.read_text() == "before\nafter\n"
