"""Run settings and data file names (no PsychoPy here)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class RunConfig:
    """Everything ``tol-run`` needs; tests build one directly."""

    protocol: str | Path
    participant: str
    session: int = 1
    output: Path = Path("data")
    windowed: bool = False
    language: str | None = None
    simulate: bool = False
    seed: int | None = None
    speed: float = 1.0
    bids_names: bool = False
    fsync: bool = True
    input_timing: str = "auto"  # "auto" (xinput2, else iohub), "xinput2", "iohub", "polled"
    resume: Path | None = None  # the event log of an interrupted session to continue
    force: bool = False  # resume even if the protocol file changed
    extra_fields: dict = field(default_factory=dict)
    owns_window: bool = False  # True when tol-run opened the window (recorded in the sidecar)


def date_str(t: float | None = None) -> str:
    """A timestamp in PsychoPy's ``data.getDateStr()`` form, e.g. ``2026-11-22_14h03.07.123``."""
    t = time.time() if t is None else t
    ms = int((t % 1) * 1000)
    return time.strftime("%Y-%m-%d_%Hh%M.%S", time.localtime(t)) + f".{ms:03d}"


def session_paths(
    config: RunConfig, protocol_name: str, now: float | None = None
) -> tuple[Path, Path]:
    """The event log and sidecar paths for a new session; never an existing file.

    PsychoPy's convention ``<participant>_<protocol>_<date>``, or with
    ``bids_names`` ``sub-<participant>_ses-<n>_task-<protocol>_<date>_events``.
    """
    stamp = date_str(now)
    if config.bids_names:
        stem = f"sub-{config.participant}_ses-{config.session}_task-{protocol_name}_{stamp}_events"
    else:
        stem = f"{config.participant}_{protocol_name}_{stamp}"
    out = Path(config.output)
    k = 1
    while True:
        name = stem if k == 1 else f"{stem}_{k}"
        csv_path, json_path = out / f"{name}.csv", out / f"{name}.json"
        if not csv_path.exists() and not json_path.exists():
            return csv_path, json_path
        k += 1
