"""Data file names (no PsychoPy here)."""

from __future__ import annotations

import re
from pathlib import Path

from tol_tasks.session_data.names import date_str

from .settings import RunSettings

__all__ = ["date_str", "next_session_paths", "session_paths"]


def session_paths(
    settings: RunSettings, protocol_name: str, now: float | None = None
) -> tuple[Path, Path]:
    """The event log and sidecar paths for a new session; never an existing file.

    PsychoPy's convention ``<participant>_<protocol>_<date>``, or with
    ``bids_names`` ``sub-<participant>_ses-<n>_task-<protocol>_<date>_events``.
    """
    stamp = date_str(now)
    if settings.bids_names:
        stem = (
            f"sub-{settings.participant}_ses-{settings.session}_task-{protocol_name}_{stamp}_events"
        )
    else:
        stem = f"{settings.participant}_{protocol_name}_{stamp}"
    return _free(Path(settings.output), stem)


def next_session_paths(log: Path) -> tuple[Path, Path]:
    """The names a new session takes when ``log``, the name :func:`session_paths` chose, was
    taken before the session could create it (another session of the participant, started
    in the same millisecond into the same folder): the same stem with the next free number
    (``_2``, ``_3``, ...), as :func:`session_paths` numbers a name already taken."""
    return _free(log.parent, re.sub(r"_\d+$", "", log.stem))


def _free(out: Path, stem: str) -> tuple[Path, Path]:
    """The first of ``stem``, ``stem_2``, ``stem_3``, ... whose log and sidecar are both free
    in ``out``. (Neither naming ends in ``_<number>``: PsychoPy's ends in the date's
    milliseconds after a dot, BIDS's in ``_events``.)"""
    k = 1
    while True:
        name = stem if k == 1 else f"{stem}_{k}"
        csv_path, json_path = out / f"{name}.csv", out / f"{name}.json"
        if not csv_path.exists() and not json_path.exists():
            return csv_path, json_path
        k += 1
