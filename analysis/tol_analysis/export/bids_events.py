"""BIDS ``_events.tsv`` files that line up with a scan or an EEG recording.

A session recorded in the scanner (its log has a ``scan_start`` row: the protocol's
``scanner`` section) gets ``sub-<id>/ses-<n>/func/sub-<id>_ses-<n>_task-<name>_events.tsv``,
whose onsets are seconds from the first counted volume, the time zero of the BOLD run
BIDS asks for (BIDS 1.10, "Task events": onset "in seconds relative to the first data
point of the recording", the first volume kept after the dummy volumes). A session that
sent event markers (the protocol's ``markers`` section) gets
``sub-<id>/ses-<n>/eeg/..._events.tsv`` with onsets from its first marker
(``session_start``): the EEG recording must contain that marker, and a lab whose
recording started earlier adds the marker's own time in it (see
``docs/neuroimaging.md``). Only the events from the scan start on are written (the
practice before it is not part of the run). The columns are described once in the
column registry (:data:`~tol_analysis.columns.BIDS_EVENTS`), and in
``task-<name>_events.json`` at the dataset's root (BIDS inheritance).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from tol_analysis.columns import BIDS_EVENTS
from tol_tasks.session_data.detail import parse_detail
from tol_tasks.session_data.eventlog import read_event_log

#: Log events that open an event with a duration, and the event that closes it.
_SPANS = {"trial_onset": ("problem", "trial_end"), "copy_onset": ("copy", "copy_end"),
          "page_shown": ("page", "page_left"),
          "planning_onset": ("planning", "planning_end"),
          "attention_lost": ("attention_lost", "attention_back")}  # fmt: skip
_SPANS_KINDS = {kind for kind, _ in _SPANS.values()}
#: Log events that are bookkeeping, not something the participant saw or did.
_SKIP = {"trigger", "scan_start", "session_start", "block_start", "session_end", "trial_end",
         "copy_end", "page_left", "planning_end", "resume", "input_lost", "discontinue",
         "attention_back"}  # fmt: skip


def _number(text: str) -> float | None:
    return float(text) if text not in ("", None) else None


def run_events(rows: list[dict], zero: float) -> pd.DataFrame:
    """The events of a log's ``rows`` from session time ``zero`` on, as a BIDS events table
    (onsets from ``zero``, in time order; columns :data:`~tol_analysis.columns.BIDS_EVENTS`)."""
    out = []
    for i, r in enumerate(rows):
        name, t = r["event"], _number(r["time"])
        if name in _SKIP or t is None or t < zero:
            continue
        detail = parse_detail(r.get("detail", ""))
        duration = 0.0
        kind = name
        outcome = r.get("reason", "")
        moves = r.get("moves", "")
        if name in _SPANS:
            kind, closer = _SPANS[name]
            end = next((e for e in rows[i + 1 :] if e["event"] in (closer, "abort",
                        "session_end")), None)  # fmt: skip
            if end is not None:
                duration = _number(end["time"]) - t
                if end["event"] == closer:
                    outcome, moves = end.get("reason", ""), end.get("moves", "") or moves
                else:
                    outcome = "aborted"
        elif name == "fixation":
            duration = float(detail["until"]) - t
        out.append({
            "onset": t - zero, "duration": max(duration, 0.0), "trial_type": kind,
            "value": detail.get("marker", ""), "block": r.get("block", ""),
            "trial": r.get("trial", ""), "problem_id": r.get("problem_id", ""),
            "response_time": r.get("trial_time", "") if kind not in _SPANS_KINDS else "",
            "piece": r.get("piece", ""), "from_peg": r.get("from_peg", ""),
            "to_peg": r.get("to_peg", ""), "moves": moves, "outcome": outcome,
        })  # fmt: skip
    df = pd.DataFrame(out, columns=BIDS_EVENTS.names)
    return df.sort_values("onset", kind="stable").reset_index(drop=True)


def scan_start(rows: list[dict]) -> float | None:
    """Session time of the first counted volume (None: not a scanner session): the trigger's
    own time (``at`` in the row's detail), else the row's."""
    for r in rows:
        if r["event"] == "scan_start":
            return float(parse_detail(r["detail"]).get("at") or r["time"])
    return None


def marker_start(rows: list[dict]) -> float | None:
    """Session time of the first event sent as a marker (None: no markers were sent)."""
    return next((float(r["time"]) for r in rows if "marker" in parse_detail(r["detail"])), None)


def write_events(log: Path, folder: Path, stem: str) -> list[Path]:
    """The ``func`` and ``eeg`` events of one session's ``log`` under ``folder`` (the
    session's folder of the dataset), named ``<stem>_events.tsv``; the files written."""
    rows = read_event_log(log).rows
    written = []
    for modality, zero in (("func", scan_start(rows)), ("eeg", marker_start(rows))):
        if zero is None:
            continue
        df = run_events(rows, zero)
        where = folder / modality
        where.mkdir(parents=True, exist_ok=True)
        path = where / f"{stem}_events.tsv"
        _write(df, path)
        written.append(path)
    return written


def write_eyetrack(log: Path, meta, folder: Path, stem: str) -> list[Path]:
    """The eye tracker's samples of a session (its sidecar ``meta`` has ``eyetracking``) as a
    BIDS eye-tracking physiological recording (BIDS 1.10, "Eye-tracking"): ``beh/<stem>_
    recording-eye1_physio.tsv.gz`` (no header; timestamp on the session clock, x and y in
    screen pixels, pupil size) and its JSON sidecar; the files written."""
    et = getattr(meta, "eyetracking", None)
    if et is None or not log.with_name(et.samples_file).is_file():
        return []
    samples = pd.read_csv(log.with_name(et.samples_file), sep="\t")
    if samples.empty:
        return []
    where = folder / "beh"
    where.mkdir(parents=True, exist_ok=True)
    base = where / f"{stem}_recording-eye1_physio"
    data = samples[["time", "x", "y", "pupil"]].copy()
    data.loc[samples["valid"] != 1, ["x", "y", "pupil"]] = float("nan")
    gaps = data["time"].diff().dropna()
    rate = round(1 / gaps.median(), 3) if len(gaps) else None
    data.to_csv(f"{base}.tsv.gz", sep="\t", header=False, index=False, na_rep="n/a",
                float_format="%.6f", lineterminator="\n", compression="gzip")  # fmt: skip
    window = meta.window
    side = {
        "PhysioType": "eyetrack", "SamplingFrequency": rate,
        "StartTime": float(data["time"].iloc[0]),
        "Columns": ["timestamp", "x_coordinate", "y_coordinate", "pupil_size"],
        "timestamp": {"Description": "Seconds on the session clock (the event log's time).",
                      "Units": "s"},
        "x_coordinate": {"Description": "Gaze position, window pixels from the left.",
                         "Units": "pixel"},
        "y_coordinate": {"Description": "Gaze position, window pixels from the top.",
                         "Units": "pixel"},
        "pupil_size": {"Description": "Pupil size as the tracker reports it.", "Units": "a.u."},
        "Manufacturer": et.tracker, "RecordedEye": "right",
        "SampleCoordinateSystem": "gaze-on-screen", "EnvironmentCoordinates": "top-left",
        "SampleCoordinateUnits": "pixel", "ScreenResolution": window.size if window else None,
        "CalibrationCount": 1 if et.calibration else 0,
    }  # fmt: skip
    Path(f"{base}.json").write_text(json.dumps(side, indent=2) + "\n", "utf-8")
    # The task's events on the same clock, which the recording is associated with.
    _write(run_events(read_event_log(log).rows, 0.0), where / f"{stem}_events.tsv")
    software = meta.software
    presentation = {
        "OperatingSystem": software.os if software and software.os else "n/a",
        "SoftwareName": "tol-tasks",
        "SoftwareVersion": software.tol_tasks if software and software.tol_tasks else "n/a",
        "ScreenOrigin": ["top", "left"],
        "ScreenResolution": window.size if window and window.size else "n/a",
        # The screen's physical size and its distance from the eyes: the protocol's.
        "ScreenSize": et.screen_size or "n/a", "ScreenDistance": et.screen_distance or "n/a",
    }  # fmt: skip
    (where / f"{stem}_events.json").write_text(
        json.dumps({"StimulusPresentation": presentation}, indent=2) + "\n", "utf-8"
    )
    # The physiological events the specification pairs with it: the problems' onsets (as
    # messages an eye tracker's own file would hold), on the same clock.
    events = base.with_name(base.name.replace("_physio", "_physioevents"))
    rows = read_event_log(log).rows
    table = run_events(rows, 0.0)
    table = table[table["trial_type"].isin(["problem", "planning", "copy"])]
    pd.DataFrame({"onset": table["onset"].map(lambda v: f"{v:.6f}"),
                  "duration": table["duration"].map(lambda v: f"{v:.6f}"),
                  "trial_type": table["trial_type"],
                  "message": table["problem_id"].replace("", "n/a")}).to_csv(
        f"{events}.tsv.gz", sep="\t", header=False, index=False, lineterminator="\n",
        compression="gzip")  # fmt: skip
    Path(f"{events}.json").write_text(json.dumps({
        "Columns": ["onset", "duration", "trial_type", "message"], "OnsetSource": "timestamp",
        "onset": {"Description": "Seconds on the session clock.", "Units": "s"},
        "duration": {"Description": "Seconds the problem lasted.", "Units": "s"},
        "trial_type": {"Description": "problem, planning or copy."},
        "message": {"Description": "The problem's id."},
    }, indent=2) + "\n", "utf-8")  # fmt: skip
    return [
        Path(f"{base}.tsv.gz"),
        Path(f"{base}.json"),
        Path(f"{events}.tsv.gz"),
        Path(f"{events}.json"),
        where / f"{stem}_events.tsv",
        where / f"{stem}_events.json",
    ]


def _write(df: pd.DataFrame, path: Path) -> None:
    """A BIDS TSV file: tab-separated, n/a for missing values, times to the microsecond."""
    df = df.copy()
    for col in ("onset", "duration"):
        df[col] = df[col].map(lambda v: f"{v:.6f}")
    df = df.replace("", "n/a").fillna("n/a")
    df.to_csv(path, sep="\t", index=False, lineterminator="\n")


def events_description(root: Path, task: str) -> Path:
    """``task-<task>_events.json`` at the dataset's root: every column, from the registry."""
    out = {}
    for c in BIDS_EVENTS:
        entry = {"LongName": c.name.replace("_", " "), "Description": c.definition}
        if c.unit:
            entry["Units"] = c.unit
        out[c.name] = entry
    path = root / f"task-{task}_events.json"
    path.write_text(json.dumps(out, indent=2) + "\n", "utf-8")
    return path
