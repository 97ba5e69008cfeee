"""Finding event logs in data folders: which ``.csv`` files are logs, which never
started, which are something else kept beside them.

:func:`~tol_analysis.read.find.scan` says all of it; :func:`~tol_analysis.read.find.find_logs` gives
the logs.

Each file's beginning is read once, for its header and its session's identity
(participant, session, task), and what a search finds can be kept on disk
(:class:`~tol_analysis.read.spill.FoundFiles`) so that memory never holds a path per log.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tol_analysis.read.duplicates import session_key_in
from tol_tasks.session_data.eventlog import HEAD_BYTES, columns, never_started_head, read_head
from tol_tasks.session_data.session_key import SessionKey

if TYPE_CHECKING:
    from tol_analysis.read.spill import FoundFiles

#: File names tol-score writes; never read back as session logs.
OUTPUT_NAMES = {"moves.csv", "trials.csv", "sessions.csv", "wide.csv", "copy_moves.csv"}


#: What a log that never started is, as tol-score and --verify say it.
NEVER_STARTED_NOTE = (
    "never started (the session was cut off before its first event was recorded: no data; "
    "kept by tol-run, which does not count it as a session)"
)


@dataclass
class Scan:
    """What a search of the inputs found.

    Attributes
    ----------
    logs : list of Path
        Event logs (and files named as inputs, which are always read as logs).
    left_out : list of Path
        Other CSV files in the folders searched (an experiment's own data file,
        a participant list): not event logs, left out.
    """

    logs: list[Path] = field(default_factory=list)
    left_out: list[Path] = field(default_factory=list)
    #: Event logs that never started (no event recorded: a session cut off as it started);
    #: left out, named, and never an error (tol_tasks.session_data.eventlog.never_started).
    never_started: list[Path] = field(default_factory=list)
    #: Each log's (participant, session, task) from its first row, read with its header
    #: (None when the first row does not say): what :func:`tol_analysis.read.duplicates.sort_out`
    #: sorts by, so that no log is opened again for it.
    keys: dict[Path, SessionKey | None] = field(default_factory=dict)
    #: With ``scan(on_disk=True)``: the logs found, on disk
    #: (:class:`~tol_analysis.read.spill.FoundFiles`); :attr:`logs` and :attr:`keys` are then empty.
    files: FoundFiles | None = None


def scan(inputs: list[str | Path], exclude: Path | None = None, *,
         on_disk: bool = False) -> Scan:  # fmt: skip
    """Event log files among ``inputs`` (files, or folders searched recursively).

    In folders, a ``.csv`` file is an event log when its first line is an event
    log's header, or looks like one (it begins with ``row``, or names most of
    the event log's columns: a damaged log, which reading will refuse). Other
    CSV files, such as an ExperimentHandler's data file or a participant list
    kept beside the logs, are left out (:attr:`Scan.left_out`), as are the
    tables tol-score writes and anything under ``exclude``. A file named as an
    input, or named by the sidecar beside it, is always read as an event log.

    With ``on_disk``, the logs are not listed in memory: :attr:`Scan.files` holds them
    (:class:`~tol_analysis.read.spill.FoundFiles`, an SQLite table in a temporary file) and
    :attr:`Scan.logs` and :attr:`Scan.keys` are left empty.

    Raises
    ------
    FileNotFoundError
        Naming an input that does not exist.
    """
    from tol_analysis.read.spill import FoundFiles

    found = Scan()
    files = FoundFiles()  # each file's beginning read once, and at once reduced to what is kept
    skip = exclude.resolve() if exclude is not None else None

    def look(f: Path) -> bytes | None:
        try:
            head = read_head(f)
        except OSError:
            head = None  # reading it will say why it cannot be read
        if head is None:
            files.look(f, False, None)
        elif never_started_head(head):
            files.look(f, True, None)
        else:
            files.look(f, False, session_key_in(head, f))
        return head

    try:
        for item in inputs:
            p = Path(item)
            if p.is_dir():
                inside = skip is not None and skip.is_relative_to(p.resolve())
                for f in csv_files(p):  # as paths sort
                    if f.name in OUTPUT_NAMES:
                        continue
                    if inside and skip in f.resolve().parents:
                        continue
                    if not files.looked(f) and _looks_like_a_log(f, look(f)):
                        files.mark_log(f)
                    files.add(f, files.is_log(f))
            elif p.is_file():
                if not files.looked(p):
                    look(p)
                files.add(p, True)
            else:
                raise FileNotFoundError(
                    f"{p}: no such file or folder. Suggested fix: give event log files (.csv) "
                    "written by tol-run, or folders holding them."
                )
    except BaseException:
        files.close()
        raise
    found.never_started = files.never_started()
    found.left_out = files.left_out()
    if on_disk:
        found.files = files
        return found
    found.keys = {f: None if key is None else SessionKey(*key)
                  for f, key in files.keys().items()}  # fmt: skip
    found.logs = list(found.keys)
    files.close()
    return found


def csv_files(folder: Path) -> Iterator[Path]:
    """The ``.csv`` files in ``folder`` and the folders inside it (not through links to
    folders), in the order their paths sort (``Path.rglob("*.csv")`` sorted by parts),
    found a folder at a time: memory holds one folder's names, never every path."""
    nt = os.name == "nt"
    try:
        with os.scandir(folder) as it:
            entries = sorted((e.name, _real_folder(e)) for e in it)
    except PermissionError:
        return
    for name, is_folder in entries:
        if (name.lower() if nt else name).endswith(".csv"):
            yield folder / name
        if is_folder:
            yield from csv_files(folder / name)


def _real_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir() and not entry.is_symlink()
    except OSError:
        return False


def find_logs(inputs: list[str | Path], exclude: Path | None = None) -> list[Path]:
    """The event logs among ``inputs``: :attr:`~tol_analysis.read.find.Scan.logs` of :func:`~tol_analysis.read.find.scan`."""
    return scan(inputs, exclude).logs


def _looks_like_a_log(path: Path, head: bytes | None) -> bool:
    """Whether a CSV file found in a folder is (or was meant to be) an event log: by its
    header (in ``head``, its beginning; None: it cannot be read), or because the sidecar
    beside it names it (a log a spreadsheet re-saved, whose header no longer reads as a
    log's: reading it says what became of it)."""
    if head is None:
        return True  # reading it will say why it cannot be read
    line = head[:HEAD_BYTES]
    end = line.find(b"\n")
    line = line[: end + 1] if end >= 0 else line
    text = line.decode("utf-8-sig", errors="replace").strip("\r\n")
    if not text:
        return True  # empty: a log cut off as it was created, which reading reports
    names = next(csv.reader([text]), [])
    if names[:1] == ["row"]:
        return True
    ours = set(columns())
    return len(ours & set(names)) * 2 > len(ours) or _named_by_sidecar(path)


def _named_by_sidecar(path: Path) -> bool:
    """Whether the .json file beside ``path`` is a sidecar naming it as its event log."""
    import json

    side = path.with_suffix(".json")
    if not side.is_file():
        return False
    try:
        data = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("event_log") == path.name
