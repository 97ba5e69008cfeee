"""The rescue folder: where a session's rows go when its data folder is lost or full (no
PsychoPy here).

When a row or the sidecar cannot be written (the data folder deleted, moved,
unmounted or made read-only, a full disk), the session stops and
:func:`rescue_copy` writes every row recorded so far (read back through the
log's open file, which outlives a deleted folder) and the sidecar, marked
``crashed`` with the reason, into a new folder of the rescue location:
``<rescue>/<date>_<log name>/``. The two files keep their names, so the
session can be resumed from there (``tol-run --resume <copy>.csv``) or copied
back beside the other logs first.

The rescue location is ``--rescue FOLDER`` (``RunSettings.rescue``) when given,
else :func:`default_rescue_folder`: tol-tasks' folder in the user's own data
folder, on the computer's own disk, not the data folder that was lost.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from tol_tasks.errors import TolTasksError
from tol_tasks.session_data.eventlog import EventLogWriteError
from tol_tasks.session_data.sidecar import Sidecar, write_sidecar

from .files import date_str
from .prepare import Prepared
from .settings import CLI


class SidecarWriteError(EventLogWriteError):
    """The sidecar could not be written (a full disk, a folder gone or read-only)."""


class SessionNotStartedError(TolTasksError, OSError):
    """The session could not start (or resume): its log or first sidecar could not be written.

    Nothing was recorded: a new session leaves at most a log that never started (kept,
    blocking nothing); a resumed one leaves its log as it was.
    """

    def __init__(self, prepared: Prepared, cause: str) -> None:
        log = prepared.log
        if prepared.resume is not None:
            message = f"the session could not be resumed: {cause}; its log is unchanged."
            fix = f"free some space or fix the folder, then continue with: {CLI} --resume {log}"
        else:
            kept = (f" ({log.name} is kept as a log that never started: it counts as no "
                    "session and blocks nothing)" if log.exists() else "")  # fmt: skip
            message = f"the session could not start: {cause}; nothing was recorded{kept}."
            fix = ("free some space or fix the folder (or choose another --output), then start "
                   "the session again with the same command.")  # fmt: skip
        super().__init__(message, where=str(log), fix=fix)


class SessionStoppedError(EventLogWriteError):
    """The session stopped because its data could not be written where they belong.

    The message says why, which rows are kept where, and how to continue.

    Attributes
    ----------
    log : Path
        The session's event log (in its data folder).
    rescue : Path or None
        The rescue copy of the log (None: none could be made; the message says why).
    resume_from : Path
        The log to give ``tol-run --resume``.
    """

    def __init__(self, message: str, *, log, rescue, resume_from, fix: str) -> None:
        self.log, self.rescue, self.resume_from = log, rescue, resume_from
        super().__init__(message, where=str(log), fix=fix)


def default_rescue_folder() -> Path:
    """tol-tasks' rescue folder in the user's data folder.

    Linux: ``$XDG_DATA_HOME/tol-tasks/rescue`` (``~/.local/share/tol-tasks/rescue``);
    macOS: ``~/Library/Application Support/tol-tasks/rescue``; Windows:
    ``%LOCALAPPDATA%\\tol-tasks\\rescue``.
    """
    home = Path.home()
    if sys.platform == "win32":  # pragma: no cover - Windows
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":  # pragma: no cover - macOS
        base = home / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / "tol-tasks" / "rescue"


def rescue_copy(log_bytes: bytes, log_name: str, sidecar: Sidecar,
                folder: Path | None = None) -> tuple[Path | None, str | None]:  # fmt: skip
    """Write a rescue copy of a session: its log's bytes and its sidecar, side by side.

    ``folder``: the rescue location (None: :func:`default_rescue_folder`; the system's
    temporary folder if that cannot be written). Returns the copy of the log, or None
    and why no copy could be made.
    """
    places = [Path(folder)] if folder is not None else [default_rescue_folder()]
    places.append(Path(tempfile.gettempdir()) / "tol-tasks-rescue")
    errors = []
    for place in places:
        target = place / f"{date_str()}_{Path(log_name).stem}"
        try:
            target.mkdir(parents=True, exist_ok=False)
            log = target / log_name
            with open(log, "xb") as f:
                f.write(log_bytes)
                f.flush()
                os.fsync(f.fileno())
            write_sidecar(log.with_suffix(".json"), sidecar)
            return log, None
        except OSError as exc:
            errors.append(f"{place}: {exc.strerror or exc}")
    return None, "; ".join(errors)
