"""The output folder of ``tol-score``: checked before scoring, replaced whole or not at all.

Everything tol-score writes in its output folder is named here
(:data:`OUTPUT_FILES`, :data:`OUTPUT_FOLDERS`). A folder that already holds
any of it is refused unless the caller asks to replace it; then the new
outputs are written into a folder of their own beside the old ones
(:func:`staging`) and only when all are written do they take the old ones'
place (:func:`replace_outputs`): every table, plot, report and the BIDS
dataset come from the same scoring, and an error while writing leaves the
earlier outputs as they were.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from tol_analysis.columns import TABLES
from tol_tasks.errors import TolTasksError

#: The files tol-score writes in its output folder.
OUTPUT_FILES = (
    *(t.file for t in TABLES.values()), "wide.csv", "codebook.json", "codebook.md",
    "wide.sav", "trials.sav", "planning.csv", "planning_sessions.csv",
    "gaze.csv",
)  # fmt: skip

#: The folders tol-score writes in its output folder (with --plots, --report, --bids).
OUTPUT_FOLDERS = ("plots", "reports", "bids")

#: The option that replaces earlier outputs (said in every message about them).
REPLACE_OPTION = "--replace"


class OutputFolderError(TolTasksError):
    """The output folder cannot be written, or holds earlier outputs not to be replaced."""


def check_output(folder: Path, replace: bool = False) -> list[str]:
    """Check ``folder`` before scoring; return the earlier outputs in it (names).

    Raises
    ------
    OutputFolderError
        ``folder`` (or a folder above it) is a file, cannot be made or written
        to, or holds earlier outputs and ``replace`` is false.
    """
    folder = Path(folder)
    where = str(folder)
    if folder.exists() and not folder.is_dir():
        raise OutputFolderError(
            f"--output {folder} is a file, not a folder.", where=where,
            field="--output", value=where,
            fix="give a folder for the tables (it is made if missing), e.g. --output scored.",
        )  # fmt: skip
    existing = folder
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise OutputFolderError(
            f"--output {folder} cannot be made: {existing} is a file.", where=where,
            field="--output", value=where, fix="give a folder path whose parents are folders.",
        )  # fmt: skip
    if not _writable(existing):
        what = "written to" if existing == folder else f"made ({existing} is not writable)"
        raise OutputFolderError(
            f"--output {folder} cannot be {what}.", where=where, field="--output",
            value=where, fix="choose a folder you can write to, or ask for write access.",
        )  # fmt: skip
    earlier = earlier_outputs(folder)
    if earlier and not replace:
        shown = ", ".join(earlier[:6]) + (", ..." if len(earlier) > 6 else "")
        raise OutputFolderError(
            f"{folder} already holds tol-score's outputs ({shown}); scoring into "
            "it would leave some of them from the earlier scoring.", where=where,
            field="--output", value=where,
            fix=f"pass {REPLACE_OPTION} to replace them all (tables, codebook, SPSS files, "
            "plots/, reports/ and bids/), or give another --output folder.",
        )  # fmt: skip
    return earlier


def _writable(folder: Path) -> bool:
    """Whether files can be made in ``folder`` (tried: permissions alone do not say it for
    root, a read-only file system or a full quota)."""
    if not os.access(folder, os.W_OK | os.X_OK):
        return False
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".tol-score-check-", dir=folder))
    except OSError:
        return False
    return True


def earlier_outputs(folder: Path) -> list[str]:
    """The outputs of an earlier scoring in ``folder`` (folders with a trailing ``/``)."""
    if not folder.is_dir():
        return []
    out = [name for name in OUTPUT_FILES if (folder / name).exists()]
    return out + [f"{name}/" for name in OUTPUT_FOLDERS if (folder / name).exists()]


def staging(folder: Path) -> Path:
    """A new, empty folder inside ``folder`` to write the new outputs in."""
    folder.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=".tol-score-new-", dir=folder))


def replace_outputs(new: Path, folder: Path) -> list[str]:
    """Put the outputs written in ``new`` in place of every earlier output in ``folder``;
    return what was replaced or removed (an earlier output the new scoring did not write,
    such as plots/ scored now without --plots, is removed too)."""
    replaced = earlier_outputs(folder)
    for name in replaced:
        old = folder / name.rstrip("/")
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old)
        else:
            old.unlink()
    for item in sorted(new.iterdir()):
        os.replace(item, folder / item.name)
    new.rmdir()
    return replaced


def discard(new: Path) -> None:
    """Remove a staging folder (after an error: the earlier outputs stay as they were)."""
    shutil.rmtree(new, ignore_errors=True)
