"""A BIDS dataset of the scored trials: one ``_beh.tsv`` per session, with the files BIDS asks for.

The layout (BIDS 1.10, behavioural data without imaging)::

    bids/
      dataset_description.json      Name, BIDSVersion, DatasetType derivative, GeneratedBy tol-tasks
      README                        what the dataset holds and how it was made
      participants.tsv, .json       one row per participant, the protocol's participant fields
      sub-<id>/sub-<id>_sessions.tsv  each session's date and time and how each task ended
      task-<name>_beh.json          TaskName, TaskDescription, Instructions, CogAtlasID,
                                    and every column of the _beh.tsv files with its units
      sub-<id>/ses-<n>/beh/
        sub-<id>_ses-<n>_task-<name>_beh.tsv    one row per problem attempt (trials.csv)
        sub-<id>_ses-<n>_task-<name>_beh.json   that session's software, protocol hash, timing

The dataset is a *derivative* (``DatasetType: derivative``): it holds scores
derived from the event logs, which stay the raw data. Missing values are
``n/a``; text cells that a spreadsheet could run as formulas are escaped
(:mod:`tol_analysis.cells`). Aborted and cut-off sessions are in it, marked:
their status is in ``sub-<id>_sessions.tsv`` and each session JSON
(``SessionStatus``), and their attempts in progress are void (the ``void``
and ``outcome`` columns). A dataset with no session at all (every session
simulated) is not written: BIDS has no valid empty dataset. Sessions played by tol-run's simulated
participant are not data: they are left out unless asked for
(``include_simulated``; ``tol-score --bids-include-simulated``), and then
marked in ``participants.tsv`` and in their ``_beh.tsv`` (column
``simulated``, as in trials.csv). Each session's JSON file says what
recorded it (tol-run, the browser task, or the tool an import came from).
Writing into an existing dataset adds the new sessions and participants and
keeps the earlier ones; a session written again is replaced, never
duplicated (``tol-score`` itself writes a new dataset each time, see
:mod:`tol_analysis.export.manifest`).
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pandas as pd

from tol_analysis.cells import safe_text
from tol_analysis.columns import SIMULATED, TRIALS
from tol_analysis.export.bids_events import events_description, write_events, write_eyetrack
from tol_analysis.read.sidecar import recorded_by
from tol_analysis.score.scores import Scores
from tol_analysis.score.sessions import field_names
from tol_tasks import __version__
from tol_tasks.errors import TolTasksError
from tol_tasks.session_data.sidecar import Sidecar

#: The BIDS version the dataset follows.
BIDS_VERSION = "1.10.0"

#: Cognitive Atlas task terms, by apparatus. Tower of London: "Tower of London",
#: trm_4da87e439c411 (Cognitive Atlas, task list). The Atlas has no term for the
#: Tower of Hanoi that we could verify, so Hanoi datasets carry none.
COGATLAS_IDS = {"london": "https://www.cognitiveatlas.org/task/id/trm_4da87e439c411"}

_TASK_NAMES = {"london": "Tower of London", "hanoi": "Tower of Hanoi"}


def bids_label(text: str, fallback: str) -> str:
    """A BIDS label: letters and digits only."""
    return re.sub(r"[^A-Za-z0-9]", "", str(text)) or fallback


def simulated_sessions(scores: Scores) -> list[tuple[str, int]]:
    """The (participant, session) of every session the simulated participant played."""
    s = scores.sessions
    flag = s["simulated"].fillna(False).astype(bool)
    return [(p, int(n)) for p, n in zip(s["participant"][flag], s["session"][flag], strict=True)]


def write_bids(scores: Scores, root: str | Path, book: dict,
               include_simulated: bool = False) -> list[Path]:  # fmt: skip
    """Write (or add to) the BIDS dataset at ``root``; return the files written (none, and no
    folder, when no session goes in: see :func:`bids_sessions`).

    ``book`` is the codebook of :func:`tol_analysis.export.write.codebook` (kept for the
    callers; the ``_beh.tsv`` columns are described from the column registry,
    as the codebook's trials.csv entries are). Simulated sessions
    (:func:`simulated_sessions`) are left out unless ``include_simulated``.
    """
    sessions = bids_sessions(scores, include_simulated)
    if sessions.empty:
        return []
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    written = [_dataset_description(root), _readme(root)]
    trials = scores.trials
    fields = field_names(sessions.columns)
    tasks: dict[str, Sidecar | None] = {}
    events_tasks: set[str] = set()
    participants: dict[str, dict[str, str]] = {}
    visits: dict[str, dict[int, dict]] = {}
    for s in sessions.to_dict("records"):
        meta = scores.sidecars.get((s["participant"], int(s["session"]), s["protocol"]))
        sub = bids_label(s["participant"], "unknown")
        row = participants.setdefault(sub, {})
        for name in fields:
            if not pd.isna(s[name]) and name not in row:
                row[name] = str(s[name])
        simulated = "n/a" if pd.isna(s["simulated"]) else str(bool(s["simulated"])).lower()
        if row.get(SIMULATED.name) != "true":  # any simulated session marks the participant
            row[SIMULATED.name] = simulated
        task = bids_label(s["protocol"], "tower")
        tasks.setdefault(task, meta)
        visit = visits.setdefault(sub, {}).setdefault(int(s["session"]), {"tasks": []})
        visit["acq_time"] = visit.get("acq_time") or _acq_time(s)
        visit["tasks"].append(f"{task}: {s['status']}")
        g = trials[(trials["participant"] == s["participant"]) & (trials["session"] == s["session"])
                   & (trials["protocol"] == s["protocol"])]  # fmt: skip
        if g.empty:
            continue  # an aborted session with no attempt: listed in its sessions.tsv only
        key = (s["participant"], int(s["session"]), s["protocol"])
        written += _run_events(scores, key, root / f"sub-{sub}" / f"ses-{int(s['session'])}",
                               f"sub-{sub}_ses-{int(s['session'])}_task-{task}", events_tasks,
                               task)  # fmt: skip
        folder = root / f"sub-{sub}" / f"ses-{int(s['session'])}" / "beh"
        folder.mkdir(parents=True, exist_ok=True)
        stem = f"sub-{sub}_ses-{int(s['session'])}_task-{task}_beh"
        _write_tsv(g, folder / f"{stem}.tsv")
        session_json = _session_sidecar(meta, s["status"])
        (folder / f"{stem}.json").write_text(json.dumps(session_json, indent=2) + "\n", "utf-8")
        written += [folder / f"{stem}.tsv", folder / f"{stem}.json"]
    columns = column_descriptions(scores.trials.columns)
    for task, meta in tasks.items():
        path = root / f"task-{task}_beh.json"
        path.write_text(
            json.dumps({**_task_description(meta), **columns}, indent=2) + "\n", "utf-8"
        )
        written.append(path)
    written += [events_description(root, task) for task in sorted(events_tasks)]
    written += _sessions_files(root, visits)
    written += _participants(root, participants)
    return written


def _run_events(scores: Scores, key: tuple, folder: Path, stem: str,
                events_tasks: set[str], task: str) -> list[Path]:  # fmt: skip
    """The func and eeg events of a scanner or EEG session (:mod:`tol_analysis.export.bids_events`)."""
    log_path = getattr(scores.sidecars, "log_path", None)
    log = log_path(key) if log_path is not None else None
    if log is None or not log.is_file():
        return []
    written = write_events(log, folder, stem) + write_eyetrack(log, scores.sidecars[key], folder,
                                                                stem)  # fmt: skip
    if written:
        events_tasks.add(task)
    return written


def bids_sessions(scores: Scores, include_simulated: bool = False) -> pd.DataFrame:
    """The sessions.csv rows that go into the BIDS dataset (simulated ones only if asked)."""
    sessions = scores.sessions
    if not include_simulated:
        sessions = sessions[~sessions["simulated"].fillna(False).astype(bool)]
    return sessions


def _acq_time(s) -> str | None:
    """BIDS acq_time (YYYY-MM-DDThh:mm:ss) of a sessions.csv row, where recorded."""
    date, time = s.get("start_date"), s.get("start_time")
    if pd.isna(date) or pd.isna(time):
        return None
    return f"{date}T{time}"


def _sessions_files(root: Path, visits: dict[str, dict[int, dict]]) -> list[Path]:
    """``sub-<id>/sub-<id>_sessions.tsv``: each session, when it began and how each of its
    tasks ended (completed, aborted, incomplete)."""
    out = []
    for sub, sessions in visits.items():
        folder = root / f"sub-{sub}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"sub-{sub}_sessions.tsv"
        with path.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, delimiter="\t", lineterminator="\n")
            w.writerow(["session_id", "acq_time", "tasks"])
            for n in sorted(sessions):
                v = sessions[n]
                w.writerow([f"ses-{n}", v["acq_time"] or "n/a",
                            safe_text("; ".join(v["tasks"]))])  # fmt: skip
        side = path.with_suffix(".json")
        side.write_text(json.dumps(SESSIONS_COLUMNS, indent=2) + "\n", "utf-8")
        out += [path, side]
    return out


#: The columns of each sub-<id>_sessions.tsv, described for BIDS.
SESSIONS_COLUMNS = {
    "acq_time": {"Description": "When the session began, on the clock where it was recorded "
                 "(from the sidecar)."},
    "tasks": {"Description": "Each task (protocol) of the session and how it ended: completed, "
              "aborted (the session was stopped) or incomplete (cut off). An attempt cut off "
              "is void: in the _beh.tsv files, but in no score."},
}  # fmt: skip


def _write_tsv(df: pd.DataFrame, path: Path) -> None:
    frame = df.copy()
    for col in frame.columns:
        if isinstance(frame[col].dtype, pd.CategoricalDtype):
            frame[col] = frame[col].astype(object)
        if str(frame[col].dtype) == "boolean":
            frame[col] = frame[col].map({True: "true", False: "false"}).astype("object")
        elif frame[col].dtype == object:
            frame[col] = frame[col].replace("", pd.NA).map(safe_text)
    frame.to_csv(
        path, index=False, sep="\t", na_rep="n/a", float_format="%.6g", lineterminator="\n"
    )


def _dataset_description(root: Path) -> Path:
    path = root / "dataset_description.json"
    old = _read_json(path)
    desc = {
        "Name": "Tower task sessions scored by tol-tasks",
        "BIDSVersion": BIDS_VERSION,
        "DatasetType": "derivative",
        **{k: v for k, v in old.items() if k not in ("BIDSVersion", "DatasetType", "GeneratedBy")},
        "GeneratedBy": [
            {
                "Name": "tol-tasks",
                "Version": __version__,
                "Description": "Tower of Hanoi and Tower of London sessions scored with "
                "tol-score --bids (each session's JSON file says what recorded it).",
            }
        ],
    }
    path.write_text(json.dumps(desc, indent=2) + "\n", "utf-8")
    return path


def _readme(root: Path) -> Path:
    path = root / "README"
    if not path.exists():  # a README the lab has edited is kept
        path.write_text(
            "Tower task sessions\n"
            "===================\n\n"
            "Behavioural data from Tower of Hanoi and Tower of London problems, recorded\n"
            "with tol-tasks (tol-run, its PsychoPy engine or its browser task) or converted\n"
            "from other tools' files with tol-import, and scored with `tol-score --bids`.\n"
            "Each session's JSON file says what recorded it (RecordedBy, SourceFormat).\n\n"
            "This is a derivative dataset: it holds scores derived from the event logs.\n"
            "Aborted and cut-off sessions are included and marked: sub-<id>_sessions.tsv\n"
            "and each session's JSON file (SessionStatus) say how each task ended, and an\n"
            "attempt cut off is void (columns void and outcome), in no score.\n\n"
            "Each sub-<id>/ses-<n>/beh/*_beh.tsv holds one row per problem attempt: the\n"
            "problem, its minimum number of moves (exact, from the solver), the moves made,\n"
            "rule violations, planning and execution times and move-quality measures. The\n"
            "columns and their units are described in task-<name>_beh.json at the root;\n"
            "each session's JSON file records the software, the protocol's SHA-256 and the\n"
            "timing method. The raw event logs (one row per pick-up and placement) are the\n"
            "single source of these scores and are kept beside the dataset by the lab.\n",
            encoding="utf-8",
        )
    return path


def _task_description(meta: Sidecar | None) -> dict:
    """TaskName, TaskDescription, Instructions and CogAtlasID from the session's protocol."""
    from tol_tasks.protocol_format import load_protocol_text

    proto = meta.protocol if meta is not None else None
    name = (proto.name if proto is not None else "") or "tower"
    out = {"TaskName": name}
    try:
        if proto is None:
            raise LookupError("no sidecar")
        lp = load_protocol_text(proto.text, source=f"{name} (sidecar copy)")
    except (LookupError, TolTasksError):  # no sidecar, or a protocol this version cannot read
        out["TaskDescription"] = "A tower planning task (protocol text not available)."
        return out
    model = lp.model
    kind = model.task.type
    apparatus = (
        f"{model.task.disks} disks on {model.task.pegs} pegs"
        if kind == "hanoi"
        else f"balls {model.task.balls} on pegs holding {model.task.capacities}"
    )
    out["TaskDescription"] = " ".join(
        t for t in (f"{_TASK_NAMES[kind]} ({apparatus}).", model.description, model.citation) if t
    )
    pages = lp.pages(meta.language)
    if pages:
        out["Instructions"] = "\n\n".join(p.text for p in pages)
    if kind in COGATLAS_IDS:
        out["CogAtlasID"] = COGATLAS_IDS[kind]
    return out


def column_descriptions(names) -> dict:
    """BIDS descriptions of the ``_beh.tsv`` columns (trials.csv's), from the column registry."""
    out = {}
    for name in names:
        c = TRIALS[name]
        entry = {"LongName": name.replace("_", " "), "Description": c.definition}
        if c.unit:
            entry["Units"] = c.unit
        if c.value_labels:
            entry["Levels"] = {"true": c.value_labels[1], "false": c.value_labels[0]}
        out[name] = entry
    return out


def _session_sidecar(meta: Sidecar | None, status: str) -> dict:
    proto = meta.protocol if meta is not None else None
    timing = meta.timing if meta is not None else None
    frames = meta.frames if meta is not None else None
    software = meta.software if meta is not None else None
    source = meta.source if meta is not None else None
    return {
        "SessionStatus": status,
        "RecordedBy": recorded_by(meta),
        "SourceFormat": source.format if source else None,
        "SourceFiles": source.files if source else None,
        "ProtocolName": proto.name if proto else None,
        "ProtocolVersion": proto.version if proto else None,
        "ProtocolSHA256": proto.sha256 if proto else None,
        "SoftwareVersions": software.model_dump(mode="json", exclude_unset=True)
        if software
        else None,
        "InputTimingMethod": timing.input_method if timing else None,
        "InputFallbackReason": timing.input_fallback_reason if timing else None,
        "DroppedFrames": frames.total_dropped_frames if frames else None,
        "Frames": frames.total_frames if frames else None,
        "StartTime": meta.start_time if meta is not None else None,
    }


def _participants(root: Path, new: dict[str, dict[str, str]]) -> list[Path]:
    tsv, side = root / "participants.tsv", root / "participants.json"
    rows: dict[str, dict[str, str]] = {}
    if tsv.is_file():
        with tsv.open(newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f, delimiter="\t"):
                pid = r.pop("participant_id", "")
                if pid:
                    rows[pid] = {k: v for k, v in r.items() if k and v != "n/a"}
    for sub, fields in new.items():
        rows.setdefault(f"sub-{sub}", {}).update(fields)
    keys = sorted({k for r in rows.values() for k in r})
    with tsv.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["participant_id", *map(safe_text, keys)])
        for pid in sorted(rows):
            w.writerow([safe_text(pid), *(safe_text(rows[pid].get(k)) or "n/a" for k in keys)])
    desc = {"participant_id": {"Description": "Participant id, as given to tol-run (sub-<id>)."}}
    old = _read_json(side)
    for k in keys:
        desc[k] = old.get(k) or {"Description": f"{k}, from the protocol's participant fields."}
    if SIMULATED.name in keys:
        desc[SIMULATED.name] = {
            "Description": "true when any of the participant's sessions here was played by "
            "tol-run's simulated participant (not real data); " + SIMULATED.definition,
            "Levels": {"true": "simulated", "false": "a person"},
        }
    side.write_text(json.dumps(desc, indent=2) + "\n", "utf-8")
    return [tsv, side]


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
