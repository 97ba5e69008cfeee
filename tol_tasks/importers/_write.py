"""Writing imported sessions: an event log and its sidecar each, never over anything.

A session's log is written whole to a hidden temporary file in the output
folder, then linked to its name (which fails if the name exists), so a crash
leaves either the whole log or none, and nothing already there is replaced.
Its sidecar follows (written atomically). Before writing, the folder's
sidecars are read once: a session whose source file (SHA-256), participant and
session are already there is not written again.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from tol_tasks import __version__
from tol_tasks.session_data import (
    EVENT_LOG_VERSION,
    SIDECAR_VERSION,
    EventLog,
    write_sidecar,
)

from ._build import ImportedSession
from ._source import ImportSourceError

#: The importers' own version: it changes when an importer maps a source differently.
IMPORTER_VERSION = 1

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def log_name(participant: str, session: int, fmt: str) -> str:
    """The event log's file name: ``<participant>_ses-<n>_<format>.csv`` (unsafe characters
    of the id become ``-``)."""
    safe = _UNSAFE.sub("-", participant).strip("-.") or "participant"
    return f"{safe}_ses-{session}_{fmt}.csv"


@dataclass
class Folder:
    """The output folder and the imported sessions it already holds."""

    path: Path
    known: dict[tuple[str, str, int], Path] = field(default_factory=dict)

    @classmethod
    def open(cls, path: str | Path) -> Folder:
        p = Path(path)
        try:
            p.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ImportSourceError(
                f"{p}: the output folder cannot be made ({exc.strerror}). Suggested fix: give a "
                "folder you can write to with --output."
            ) from None
        folder = cls(p)
        for side in p.glob("*.json"):
            try:
                meta = json.loads(side.read_text(encoding="utf-8"))
                imp = meta["import"]
                key = (imp["source_sha256"], str(meta["participant"]), int(meta["session"]))
            except (OSError, ValueError, KeyError, TypeError):
                continue  # not an imported session's sidecar
            folder.known[key] = side.with_suffix(".csv")
        return folder


def write_session(s: ImportedSession, folder: Folder) -> tuple[str, Path]:
    """Write one session; returns ``("written" or "already", path of its log)``.

    Raises
    ------
    ImportSourceError
        When its file name is taken by another session (another source, or a
        session the folder holds under that name), naming both and the fix.
    """
    key = (s.source.sha256, s.participant, s.session)
    if key in folder.known:
        return "already", folder.known[key]
    log = folder.path / log_name(s.participant, s.session, s.format)
    side = log.with_suffix(".json")
    for taken in (log, side):
        if taken.exists():
            raise ImportSourceError(
                f"{s.source.path}: participant {s.participant!r} session {s.session}: {taken} "
                "already exists and holds another session (another source file, or one not "
                "imported). Nothing was overwritten. Suggested fix: give this session another "
                "number with --session, or import into another folder with --output."
            )
    tmp = folder.path / f".{log.name}.part"
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    try:
        with EventLog(tmp, fsync=False) as out:
            for row in s.rows:
                out.write(**row)
            rows = out.rows_written
        _fsync(tmp)
        try:
            os.link(tmp, log)  # fails if the name was taken meanwhile: never overwrites
        except FileExistsError:
            raise ImportSourceError(
                f"{log} appeared while importing; nothing was overwritten. Suggested fix: "
                "import again."
            ) from None
    except OSError as exc:
        raise ImportSourceError(
            f"{log}: cannot be written ({exc.strerror}); the sessions written before it are kept. "
            "Suggested fix: free space or fix the folder's permissions, then import again "
            "(sessions already imported are recognised and not written twice)."
        ) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    write_sidecar(side, sidecar(s, log.name, rows))
    folder.known[key] = log
    return "written", log


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sidecar(s: ImportedSession, log: str, rows: int) -> dict:
    """The sidecar of an imported session: today's keys, with what the source cannot tell
    left empty, and the ``import`` section (provenance, times, unavailable measures)."""
    times = s.meta.get("times", {})
    return {
        "sidecar_version": SIDECAR_VERSION,
        "event_log": log,
        "event_log_version": EVENT_LOG_VERSION,
        "status": "completed" if s.complete else "incomplete",
        "participant": s.participant,
        "session": s.session,
        "extra_fields": {},
        "language": None,
        "start_time": s.start_time,
        "end_time": s.end_time,
        "protocol": {"name": s.format, "version": None, "path": None, "sha256": None, "text": None},
        "software": {
            "tol_tasks": __version__,
            "python": sys.version.split()[0],
            "os": platform.platform(),
            "recorded_with": s.meta.get("format_title"),
        },
        "screen": None,
        "window": None,
        "refresh_rate_hz": None,
        "timing": {
            "clock": times.get("clock"),
            "clock_zero": None,
            "input_method": None,
            "input_fallback_reason": None,
            "expected_resolution_s": times.get("resolution_s"),
            "trial_onset": times.get("trial_onset"),
            "stamp": "every row is stamped 'clock': the source program read its clock when it "
            "acted; import.times says which field gives each time",
        },
        "frames": None,
        "layout": None,
        "blocks": None,
        "counterbalance": None,
        "resumes": [],
        "simulate": None,
        "rows_written": rows,
        "import": {
            **s.meta,
            "importer_version": IMPORTER_VERSION,
            "imported_at": datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds"),
        },
    }
