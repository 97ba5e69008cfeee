"""Tables an analyst can use at once (issue 30): each session's date and time, protocol and
version, status, recorder and participant fields in sessions.csv and wide.csv (and their
SPSS labels); a BIDS derivative dataset the official validator accepts, aborted sessions
marked. Expected values are read from the sidecars as plain JSON."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.runner_tools import exe
from tests.system_tools import extra
from tests.trust_tools import SESSIONS, read_csv
from tol_analysis.cli import main as tol_score_main
from tol_analysis.columns import SESSION_IDS, WIDE_SESSION


@pytest.fixture(scope="module")
def scored(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tables")
    shutil.copytree(SESSIONS, root / "data")
    assert tol_score_main([str(root / "data"), "--output", str(root / "out"), "--spss", "--bids",
                           "--bids-include-simulated"]) == 0  # fmt: skip
    return root


def _sidecars(root: Path) -> dict[tuple[str, str], dict]:
    out = {}
    for side in sorted((root / "data").glob("*.json")):
        meta = json.loads(side.read_text("utf-8"))
        out[(meta["participant"], meta["protocol"]["name"])] = meta
    return out


def test_sessions_csv_says_when_what_and_who_for_each_session_task(scored):
    sidecars = _sidecars(scored)
    rows = read_csv(scored / "out" / "sessions.csv")
    assert len(rows) == len(sidecars) == 4
    header = list(rows[0])
    assert header[: len(SESSION_IDS)] == list(SESSION_IDS)
    assert header[len(SESSION_IDS) : len(SESSION_IDS) + 2] == ["age", "group"]
    for r in rows:
        meta = sidecars[(r["participant"], r["protocol"])]
        date, time = meta["start_time"][:10], meta["start_time"][11:19]
        assert (r["start_date"], r["start_time"]) == (date, time)
        assert r["protocol_version"] == meta["protocol"]["version"]
        assert r["status"] == meta["status"]
        assert (
            r["recorder"]
            == f"{meta['recorder']['name']} {meta['recorder']['version']} (PsychoPy {meta['software']['psychopy']})"
        )
        assert (r["age"], r["group"]) == (
            meta["extra_fields"]["age"],
            meta["extra_fields"]["group"],
        )


def test_wide_csv_holds_the_fields_and_each_session_tasks_description(scored):
    sidecars = _sidecars(scored)
    wide = {r["participant"]: r for r in read_csv(scored / "out" / "wide.csv")}
    assert list(next(iter(wide.values())))[:4] == ["participant", "simulated", "age", "group"]
    for (participant, protocol), meta in sidecars.items():
        row = wide[participant]
        stem = f"s1_{protocol.replace('-', '_')}"
        assert row[f"{stem}_status"] == meta["status"]
        assert row[f"{stem}_protocol_version"] == meta["protocol"]["version"]
        assert row[f"{stem}_start_date"] == meta["start_time"][:10]
        assert row["age"] == meta["extra_fields"]["age"]


def test_wide_sav_labels_every_column_from_the_registry(scored):
    pyreadstat = extra("pyreadstat", "spss")
    _, meta = pyreadstat.read_sav(str(scored / "out" / "wide.sav"), metadataonly=True)
    labels = meta.column_names_to_labels
    assert all(labels.values()), [n for n, v in labels.items() if not v]
    for c in WIDE_SESSION:
        assert labels[f"s1_trust_london_{c.name}"].startswith(
            f"s1_trust_london: {c.definition[:30]}"
        )
    assert meta.readstat_variable_types["age"] == "double"  # declared an integer
    assert meta.readstat_variable_types["group"] == "string"  # declared a choice


def test_the_bids_dataset_is_a_derivative_with_aborted_sessions_marked(scored):
    bids = scored / "out" / "bids"
    desc = json.loads((bids / "dataset_description.json").read_text())
    assert desc["DatasetType"] == "derivative"
    assert desc["GeneratedBy"][0]["Name"] == "tol-tasks"
    visits = {p.parent.name: read_csv(p, "\t") for p in bids.glob("sub-*/sub-*_sessions.tsv")}
    assert visits["sub-A01"][0]["tasks"] == "trustlondon: aborted"
    assert visits["sub-V01"][0]["tasks"] == "trusthanoi: completed; trustlondon: completed"
    done = subprocess.run([exe("bids-validator-deno"), str(bids), "--format", "json"],
                          capture_output=True, text=True, timeout=600, check=False)  # fmt: skip
    issues = json.loads(done.stdout)["issues"]["issues"]
    assert [i for i in issues if i["severity"] == "error"] == []
