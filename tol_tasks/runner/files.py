"""Data file names (no PsychoPy here)."""

from __future__ import annotations

import time
from pathlib import Path

from .settings import RunSettings


def date_str(t: float | None = None) -> str:
    """A timestamp in PsychoPy's ``data.getDateStr()`` form, e.g. ``2026-11-22_14h03.07.123``."""
    t = time.time() if t is None else t
    ms = int((t % 1) * 1000)
    return time.strftime("%Y-%m-%d_%Hh%M.%S", time.localtime(t)) + f".{ms:03d}"


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
