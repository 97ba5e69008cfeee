"""The event log writer and reader, the sidecar and file naming, on real files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tol_tasks.runner.files import date_str, session_paths
from tol_tasks.runner.settings import RunSettings
from tol_tasks.session_data.codebook.render import render_markdown
from tol_tasks.session_data.eventlog import (
    EventLogError,
    codebook,
    columns,
    read_event_log,
)
from tol_tasks.session_data.livelog import EventLog
from tol_tasks.session_data.sidecar import read_sidecar, write_sidecar

ROOT = Path(__file__).resolve().parents[1]


def _log(path: Path, n: int = 3) -> Path:
    with EventLog(path) as log:
        for i in range(n):
            log.write(participant="P1", session=1, event="place", time=i * 0.5, piece=1,
                      from_peg="A", to_peg="B", state="AAB")  # fmt: skip
    return path


def test_round_trip(tmp_path):
    data = read_event_log(_log(tmp_path / "a.csv"))
    assert [r["row"] for r in data.rows] == ["1", "2", "3"]
    assert data.rows[1]["time"] == "0.500000"
    assert data.warnings == []


def test_never_overwrites(tmp_path):
    p = _log(tmp_path / "a.csv")
    with pytest.raises(FileExistsError):
        EventLog(p)


def test_unknown_column_is_refused(tmp_path):
    with (
        EventLog(tmp_path / "a.csv") as log,
        pytest.raises(ValueError, match="not event log columns: colour"),
    ):
        log.write(event="place", colour="red")


@pytest.mark.parametrize("cut", [1, 7, 20, -1])
def test_torn_last_line_is_reported_and_the_rest_kept(tmp_path, cut):
    p = _log(tmp_path / "a.csv")
    text = p.read_text()
    lines = text.splitlines(keepends=True)
    last = lines[-1]
    p.write_text("".join(lines[:-1]) + last[: cut if cut > 0 else len(last) - 1])
    data = read_event_log(p)
    assert len(data.rows) == 2
    # Row numbers in messages are the log's own: the torn line would have been row 3.
    assert data.warnings == [f"{p}: row 3: torn last line ignored (the session was cut off)."]


def test_missing_row_is_reported(tmp_path):
    p = _log(tmp_path / "a.csv")
    lines = p.read_text().splitlines(keepends=True)
    p.write_text("".join(lines[:2] + lines[3:]))
    assert "row 3 follows row 1: 1 row(s) missing" in read_event_log(p).warnings[0]


def test_foreign_and_damaged_files(tmp_path):
    foreign = tmp_path / "other.csv"
    foreign.write_text("subject,rt\n1,0.5\n")
    with pytest.raises(
        EventLogError,
        match=r"other.csv: the header \(line 1\): not a tol-tasks event log \(format 1, 2 or 3\): the header lacks row, participant",
    ):
        read_event_log(foreign)
    binary = tmp_path / "bin.csv"
    binary.write_bytes(b"\x80\x81\x00")
    with pytest.raises(EventLogError, match="not UTF-8 text at byte 0"):
        read_event_log(binary)
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(EventLogError, match="empty file"):
        read_event_log(empty)
    damaged = _log(tmp_path / "d.csv")
    lines = damaged.read_text().splitlines(keepends=True)
    damaged.write_text(lines[0] + "1,2,3\n" + "".join(lines[2:]))
    with pytest.raises(
        EventLogError, match=r"d.csv: row 1 \(line 2\): 3 fields, expected 24. The file is damaged"
    ):
        read_event_log(damaged)
    with pytest.raises(EventLogError, match="cannot be read"):
        read_event_log(tmp_path / "missing.csv")


def test_codebook_describes_every_column_and_the_markdown_is_current():
    cb = codebook()
    assert cb["format_version"] == 3
    for col in cb["columns"]:
        assert col["description"]
        assert col["type"]
    assert len(columns()) == len(set(columns()))
    assert (ROOT / "docs" / "event-log.md").read_text() == render_markdown()


def test_every_event_the_runner_writes_is_in_the_codebook():
    events = set(codebook()["events"])
    source = "".join(p.read_text() for p in (ROOT / "tol_tasks").rglob("*.py"))
    written = set(re.findall(r'_write\(\s*"([a-z_]+)"', source))
    written |= set(re.findall(r'_ev\(\s*"([a-z_]+)"', source))
    written |= set(re.findall(r'self\._ev\("([a-z_]+)"', source))
    # The trial rows (session_data/trial_rows.py): {"event": "a" if copy else "b", ...}
    for pair in re.findall(r'"event": "([a-z_]+)"(?: if \w+ else "([a-z_]+)")?', source):
        written |= {name for name in pair if name}
    assert {"pick_up", "place", "trial_onset", "copy_onset", "time_out"} <= written
    assert written, "found no event names in the source"
    assert written <= events, written - events


def test_sidecar_is_written_atomically(tmp_path):
    p = tmp_path / "s.json"
    write_sidecar(p, {"status": "incomplete"})
    write_sidecar(p, {"status": "completed", "n": 2})
    assert read_sidecar(p) == {"status": "completed", "n": 2}
    assert [q.name for q in tmp_path.iterdir()] == ["s.json"]  # no temporary file left
    with pytest.raises(TypeError):
        write_sidecar(p, {"bad": object.__new__(type("X", (), {"__str__": None}))})
    assert json.loads(p.read_text())["status"] == "completed"


def test_session_paths_follow_psychopy_and_never_collide(tmp_path):
    cfg = RunSettings(participant="P1", output=tmp_path)
    now = 1_790_000_000.25
    csv1, _json1 = session_paths(cfg, "demo", now)
    assert re.fullmatch(r"P1_demo_\d{4}-\d\d-\d\d_\d\dh\d\d\.\d\d\.250\.csv", csv1.name)
    csv1.write_text("x")
    csv2, _ = session_paths(cfg, "demo", now)
    assert csv2.name == csv1.stem + "_2.csv"
    bids = RunSettings(participant="P1", session=2, output=tmp_path, bids_names=True)
    assert session_paths(bids, "demo", now)[0].name.startswith("sub-P1_ses-2_task-demo_")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d_\d\dh\d\d\.\d\d\.\d{3}", date_str())


def test_format_3_adds_events_to_format_2_whose_logs_read_as_they_are():
    """The events added after release 0.2.0 (format 2) bumped the format: format 2's
    codebook is the one 0.2.0 shipped, format 3 has its columns and events and more; a log
    0.2.0 wrote (the golden sessions, sidecars saying 2) reads with every row."""
    v2, v3 = codebook(2), codebook(3)
    assert [c["name"] for c in v2["columns"]] == [c["name"] for c in v3["columns"]]
    assert set(v2["events"]) < set(v3["events"])
    assert set(v3["events"]) - set(v2["events"]) >= {
        "attention_lost", "attention_back", "trigger", "scan_start", "fixation",
        "planning_onset", "choice", "planning_end",
    }  # fmt: skip
    assert "marker_codes" not in v2
    assert "marker_codes" in v3
    log = ROOT / "tests" / "data" / "golden" / "sessions" / "demo.csv"
    assert json.loads(log.with_suffix(".json").read_text())["event_log_version"] == 2
    data = read_event_log(log)
    assert data.warnings == []
    assert len(data.records) == log.read_text().count("\n") - 1
