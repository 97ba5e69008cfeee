"""Data file names (no PsychoPy here)."""

from __future__ import annotations

from pathlib import Path

from tol_tasks.session_data.names import date_str

from .settings import RunSettings

__all__ = ["date_str", "session_paths"]


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
    out = Path(settings.output)
    k = 1
    while True:
        name = stem if k == 1 else f"{stem}_{k}"
        csv_path, json_path = out / f"{name}.csv", out / f"{name}.json"
        if not csv_path.exists() and not json_path.exists():
            return csv_path, json_path
        k += 1
