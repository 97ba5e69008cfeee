"""Finding and reading session logs."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from tol_tasks.session_data.eventlog import (
    EventLogError,
    column_index,
    columns,
    read_event_log,
    row_fault,
)

_COL = column_index()

#: File names tol-score writes; never read back as session logs.
OUTPUT_NAMES = {"moves.csv", "trials.csv", "sessions.csv", "wide.csv", "copy_moves.csv"}


@dataclass
class SessionLog:
    """One session's event log, read and checked.

    Attributes
    ----------
    path : Path
        The event log.
    records : list of list of str
        Its complete rows, in the order of ``tol_tasks.session_data.eventlog.columns()``.
    warnings : list of str
        Recoverable faults (a torn last line, a missing row).
    sidecar : dict or None
        The JSON sidecar beside it, if there is one (never needed for scores).
    """

    path: Path
    records: list[list[str]]
    warnings: list[str] = field(default_factory=list)
    sidecar: dict | None = None

    @property
    def rows(self) -> list[dict[str, str]]:
        """The rows as dicts (convenient, slower)."""
        cols = columns()
        return [dict(zip(cols, r, strict=True)) for r in self.records]

    @property
    def participant(self) -> str:
        return self.records[0][_COL["participant"]] if self.records else ""

    @property
    def session(self) -> int:
        try:
            return int(self.records[0][_COL["session"]]) if self.records else 0
        except ValueError:
            return 0

    @property
    def status(self) -> str:
        ev, reason = _COL["event"], _COL["reason"]
        for r in reversed(self.records):
            if r[ev] == "session_end":
                return r[reason] or "completed"
        return "incomplete"


def find_logs(inputs: list[str | Path], exclude: Path | None = None) -> list[Path]:
    """Event log files among ``inputs`` (files, or folders searched recursively).

    In folders, PsychoPy's own data files (a Builder experiment's ``.csv`` beside
    its ``.psydat``) are left out, so a Builder data folder scores as it is.

    Raises
    ------
    FileNotFoundError
        Naming an input that does not exist.
    """
    found: list[Path] = []
    skip = exclude.resolve() if exclude is not None else None
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            for f in sorted(p.rglob("*.csv")):
                if f.name in OUTPUT_NAMES:
                    continue
                if skip is not None and skip in f.resolve().parents:
                    continue
                if _psychopy_data_file(f):
                    continue
                found.append(f)
        elif p.is_file():
            found.append(p)
        else:
            raise FileNotFoundError(
                f"{p}: no such file or folder. Suggested fix: give event log files (.csv) "
                "written by tol-run, or folders holding them."
            )
    return list(dict.fromkeys(found))


def _psychopy_data_file(path: Path) -> bool:
    """PsychoPy's own trial file beside a Builder experiment's event logs (not ours).

    Builder saves ``<name>.csv`` with ``<name>.psydat`` (and ``<name>.log``); an
    event log never has a ``.psydat`` twin and its header starts with ``row,``.
    """
    if not path.with_suffix(".psydat").exists():
        return False
    try:
        with path.open(encoding="utf-8-sig", errors="replace") as f:
            return not f.readline().startswith("row,")
    except OSError:
        return False


def read_session(path: str | Path) -> SessionLog:
    """Read one event log (and its sidecar, if present).

    Raises
    ------
    EventLogError
        Naming the file, the row and the fault.
    """
    data = read_event_log(path)
    if not data.records:
        raise EventLogError(f"{data.path}: has a header but no events.")
    fault = row_fault(data.records[0])  # its participant and session name the session
    if fault is not None:
        raise EventLogError(f"{data.path}: row 2: {fault}")
    first = data.records[0][_COL["event"]]
    if first != "session_start":
        raise EventLogError(
            f"{data.path}: row 2: starts with {first!r}, not session_start: the "
            "beginning of the log is missing."
        )
    sidecar = None
    side = data.path.with_suffix(".json")
    if side.is_file():
        try:
            sidecar = json.loads(side.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            data.warnings.append(f"{side}: sidecar unreadable ({exc}); scored from the log alone.")
    return SessionLog(data.path, data.records, data.warnings, sidecar)
