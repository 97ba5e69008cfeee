"""Exports the field's tools accept: a BIDS dataset checked by the official validator, SPSS files."""

from __future__ import annotations

import csv
import json
import math
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from tests.runner_tools import exe, key_over_window, running_tol_run, tol_score, wait_for_rows
from tests.system_tools import extra
from tests.warm import warm

# The sessions are made once, so every test of this module runs on the same worker.

TINY = """\
format: 1
name: tiny-tol
description: A short Tower of London battery for the export tests.
task: {type: london}
display: {fullscreen: false}
participant_fields:
  age: {type: integer, min: 0, max: 120}
  handedness: {type: choice, choices: [right, left], default: right}
instructions:
  pages:
    en:
      - text: Move the balls so that they look like the goal.
practice:
  problems:
    - {id: pr1, start: "GR|B|", goal: "G|BR|"}
blocks:
  - problems:
      - {id: t1, start: "GR|B|", goal: "|RB|G"}
      - {id: t2, start: "GR|B|", goal: "G|B|R"}
"""


@pytest.fixture(scope="session")
def sessions(xdisplay, tmp_path_factory) -> Path:
    """Two participants with two sessions each (practice included), and one aborted session."""
    root = tmp_path_factory.mktemp("exports")
    proto = root / "tiny.yaml"
    proto.write_text(TINY)
    data = root / "data"
    runs = []
    for pid, age in (("P01", "34"), ("P02", "41")):
        for ses in (1, 2):
            runs.append(subprocess.Popen(
                warm([exe("tol-run"), str(proto), "--simulate", "--seed", str(ses), "--speed",
                      "30", "--windowed", "--participant", pid, "--session", str(ses), "--output",
                      str(data), "--field", f"age={age}"], xdisplay),
                env=xdisplay, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            ))  # fmt: skip
    for proc in runs:
        _, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
    # P03 presses Escape during the practice problem: an aborted session.
    aborted = root / "aborted"
    with running_tol_run(str(proto), "--participant", "P03", "--windowed", "--output",
                         str(aborted), env=xdisplay) as proc:  # fmt: skip
        wait_for_rows(aborted, lambda rows: any(r["event"] == "page_shown" for r in rows),
                      proc=proc)  # fmt: skip
        time.sleep(0.3)
        key_over_window(aborted, "space", xdisplay)  # past the instructions
        wait_for_rows(aborted, lambda rows: any(r["event"] == "trial_onset" for r in rows),
                      proc=proc)  # fmt: skip
        time.sleep(0.3)
        key_over_window(aborted, "Escape", xdisplay)
        key_over_window(aborted, "Escape", xdisplay)  # the second press confirms
        proc.communicate(timeout=60)
    for f in aborted.iterdir():
        shutil.move(str(f), data / f.name)
    return data


def _validate(bids: Path) -> list[dict]:
    """Issues the official BIDS validator (bids-validator-deno) reports for ``bids``."""
    done = subprocess.run([exe("bids-validator-deno"), str(bids), "--format", "json"],
                          capture_output=True, text=True, timeout=600, check=False)  # fmt: skip
    report = json.loads(done.stdout)
    return report["issues"]["issues"]


def test_the_bids_dataset_passes_the_official_validator(sessions, tmp_path):
    out = tmp_path / "scored"
    done = tol_score(str(sessions), "--output", str(out), "--bids", "--bids-include-simulated")
    assert done.returncode == 0, done.stderr
    bids = out / "bids"
    issues = _validate(bids)
    errors = [i for i in issues if i["severity"] == "error"]
    assert errors == []
    # The warnings that remain ask for what only the lab knows (authors, licence, institution).
    codes = {i["code"] for i in issues}
    assert codes <= {"SIDECAR_KEY_RECOMMENDED", "JSON_KEY_RECOMMENDED", "NO_AUTHORS",
                     "TOO_FEW_AUTHORS"}  # fmt: skip
    missing = {i.get("subCode") for i in issues if i["code"] == "SIDECAR_KEY_RECOMMENDED"}
    assert not missing & {"TaskName", "TaskDescription", "Instructions", "CogAtlasID"}
    desc = json.loads((bids / "dataset_description.json").read_text())
    assert desc["DatasetType"] == "derivative"  # scores derived from the logs (issue 30)
    assert desc["GeneratedBy"][0]["Name"] == "tol-tasks"
    task = json.loads((bids / "task-tinytol_beh.json").read_text())
    assert task["TaskName"] == "tiny-tol"
    assert task["Instructions"] == "Move the balls so that they look like the goal."
    assert task["CogAtlasID"].endswith("trm_4da87e439c411")  # Cognitive Atlas: Tower of London
    assert task["total_time"]["Units"] == "s"
    with (bids / "participants.tsv").open(newline="") as f:
        people = {r["participant_id"]: r for r in csv.DictReader(f, delimiter="\t")}
    assert set(people) == {"sub-P01", "sub-P02", "sub-P03"}
    assert people["sub-P01"]["age"] == "34"
    assert people["sub-P03"]["age"] == "n/a"  # not given: n/a, as BIDS requires
    # P01 and P02 were played by the simulated participant, P03 by a person (issue 22)
    assert {p: r["simulated"] for p, r in people.items()} == {
        "sub-P01": "true", "sub-P02": "true", "sub-P03": "false"}  # fmt: skip
    behs = sorted(p.name for p in bids.rglob("*_beh.tsv"))
    assert behs == [
        "sub-P01_ses-1_task-tinytol_beh.tsv", "sub-P01_ses-2_task-tinytol_beh.tsv",
        "sub-P02_ses-1_task-tinytol_beh.tsv", "sub-P02_ses-2_task-tinytol_beh.tsv",
        "sub-P03_ses-1_task-tinytol_beh.tsv",
    ]  # fmt: skip
    # Each _beh.tsv is that session's rows of trials.csv, with n/a for the missing values.
    trials = pd.read_csv(out / "trials.csv", keep_default_na=False, dtype=str)
    beh = pd.read_csv(bids / "sub-P03/ses-1/beh/sub-P03_ses-1_task-tinytol_beh.tsv", sep="\t",
                      keep_default_na=False, dtype=str)  # fmt: skip
    p03 = trials[trials["participant"] == "P03"].reset_index(drop=True)
    assert len(beh) == len(p03) == 1
    assert beh.loc[0, "complete"] == "false"  # the attempt Escape cut off
    for col in p03.columns:
        assert beh.loc[0, col] == (p03.loc[0, col] or "n/a"), col
    side = json.loads((bids / "sub-P03/ses-1/beh/sub-P03_ses-1_task-tinytol_beh.json").read_text())
    assert side["SessionStatus"] == "aborted"
    assert beh.loc[0, "void"] == "true"  # in no score (issue 30)
    with (bids / "sub-P03" / "sub-P03_sessions.tsv").open(newline="") as f:
        (visit,) = csv.DictReader(f, delimiter="\t")
    assert visit["session_id"] == "ses-1"
    assert visit["tasks"] == "tinytol: aborted"  # marked where BIDS lists sessions


def test_scoring_again_replaces_the_dataset_whole(sessions, tmp_path):
    # Issue 22: scoring again into the same folder is refused without --replace; with it,
    # the dataset is written anew (it used to be added to: participants.tsv grew, sessions
    # no longer scored stayed).
    out = tmp_path / "scored"
    args = ["--output", str(out), "--bids", "--bids-include-simulated"]
    assert tol_score(str(sessions), *args).returncode == 0
    bids = out / "bids"
    assert len(list(bids.rglob("*_beh.tsv"))) == 5
    again = tol_score(str(sessions), *args)
    assert again.returncode == 2
    assert "Suggested fix: pass --replace" in again.stderr
    for _ in range(2):  # everything, twice: no duplicate rows or files
        assert tol_score(str(sessions), *args, "--replace").returncode == 0
    assert len(list(bids.rglob("*_beh.tsv"))) == 5
    p01 = sorted(sessions.glob("P01_*.csv"))
    assert tol_score(*map(str, p01), *args, "--replace").returncode == 0
    assert len(list(bids.rglob("*_beh.tsv"))) == 2
    lines = (bids / "participants.tsv").read_text().splitlines()
    assert [ln.split("\t")[0] for ln in lines] == ["participant_id", "sub-P01"]
    assert [i for i in _validate(bids) if i["severity"] == "error"] == []


def test_spss_files_carry_labels_levels_and_the_values_of_wide_csv(sessions, tmp_path):
    pyreadstat = extra("pyreadstat", "spss")
    out = tmp_path / "scored"
    done = tol_score(str(sessions), "--output", str(out), "--spss")
    assert done.returncode == 0, done.stderr
    book = json.loads((out / "codebook.json").read_text())
    defs = {c["name"]: c for c in book["tables"]["trials.csv"]}

    trials, meta = pyreadstat.read_sav(str(out / "trials.sav"))
    labels = meta.column_names_to_labels
    assert labels["planning_time"] == f"{defs['planning_time']['description']} [s]"
    assert labels["moves"] == f"{defs['moves']['description']} [moves]"
    assert labels["rule_violations"] == defs["rule_violations"]["description"]
    assert meta.variable_value_labels["solved"] == {0.0: "no", 1.0: "yes"}
    assert meta.variable_measure["solved"] == "nominal"
    assert meta.variable_measure["planning_time"] == "scale"
    assert meta.variable_measure["problem_id"] == "nominal"
    assert meta.original_variable_types["session_start"].startswith("DATETIME")
    csv_trials = pd.read_csv(out / "trials.csv")
    assert len(trials) == len(csv_trials)
    assert trials["planning_time"].tolist() == pytest.approx(csv_trials["planning_time"].tolist(),
                                                             abs=1e-5, nan_ok=True)  # fmt: skip
    assert trials["solved"].tolist() == [float(v) for v in csv_trials["solved"]]
    starts = {(r["participant"], r["session"]): r["start_time"]
              for r in (json.loads(p.read_text()) for p in sessions.glob("*.json"))}  # fmt: skip
    first = trials.iloc[0]
    assert first["session_start"] == pd.Timestamp(
        starts[(first["participant"], int(first["session"]))][:19]
    )

    wide, wmeta = pyreadstat.read_sav(str(out / "wide.sav"))
    csv_wide = pd.read_csv(out / "wide.csv")
    text = pd.read_csv(out / "wide.csv", dtype=str, keep_default_na=False)
    assert list(wide.columns) == list(csv_wide.columns)
    for col in csv_wide.columns:
        if wmeta.readstat_variable_types[col] == "string":  # text as text (a version "1")
            assert wide[col].tolist() == text[col].tolist(), col
            continue
        for a, b in zip(wide[col], csv_wide[col], strict=True):
            if isinstance(b, str):
                assert a == b, col
            elif isinstance(b, bool):  # simulated: 0/1 in SPSS
                assert a == float(b), col
            elif isinstance(b, float) and math.isnan(b):
                assert a is None or (isinstance(a, float) and math.isnan(a)), col
            else:
                assert a == pytest.approx(b, abs=1e-5), col
    assert wmeta.column_names_to_labels["s1_tiny_tol_t1_moves"].startswith("s1_tiny_tol_t1: ")
    assert wmeta.variable_value_labels["s1_tiny_tol_t1_solved"] == {0.0: "no", 1.0: "yes"}
    # what describes each session task, and the typed participant fields (issue 30)
    assert wmeta.column_names_to_labels["s1_tiny_tol_status"].startswith("s1_tiny_tol: ")
    assert wmeta.readstat_variable_types["age"] == "double"


def test_spss_without_pyreadstat_says_how_to_install(tmp_path):
    # A fresh interpreter where pyreadstat cannot be imported: the message, not a traceback.
    code = (
        "import sys; sys.modules['pyreadstat'] = None\n"
        "from tol_analysis.cli import main\n"
        f"raise SystemExit(main([{str(Path(__file__).parent / 'data' / 'logs')!r}, "
        f"'--output', {str(tmp_path / 'out')!r}, '--spss']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)  # fmt: skip
    assert done.returncode == 2
    assert 'pip install "tol-tasks[spss]"' in done.stderr
    assert "Traceback" not in done.stderr
    # Checked before scoring (issue 22): nothing is written
    assert not (tmp_path / "out").exists()
