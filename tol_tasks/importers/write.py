"""Writing imported sessions: an event log and its sidecar each, never over anything.

A session's log is written whole into a new file (created exclusively, so
nothing already there is replaced) and forced to the disk; its sidecar follows
(written atomically), so a sidecar always describes a whole log. Before
writing, the folder's sidecars are read once: a session whose source file
(SHA-256), participant and session are already there is not written again.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from tol_tasks import __version__
from tol_tasks.session_data import EVENT_LOG_VERSION
from tol_tasks.session_data.sidecar import (
    ProtocolCopy,
    Recorder,
    Sidecar,
    Software,
    Source,
    Timing,
    new_file_mode,
    write_sidecar,
)
from tol_tasks.session_data.whole import write_event_log

from .session import ImportedSession
from .source import ImportSourceError

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
                key = (meta["source"]["sha256"][0], str(meta["participant"]), int(meta["session"]))
            except (OSError, ValueError, KeyError, TypeError, IndexError):
                continue  # not an imported session's sidecar
            folder.known[key] = side.with_suffix(".csv")
        return folder


class Writer:
    """Writes imported sessions into a :class:`Folder`, batch by batch, in a pipeline.

    Each log is created exclusively and written whole as its session comes (on the
    caller's thread). Every :attr:`BATCH` sessions the batch is handed to a thread of its
    own that makes it durable: the batch's logs forced to the disk together (in parallel,
    so the file system commits them at once rather than one by one), then their sidecars
    written (each atomically, fsynced), then the folder synced. Meanwhile the caller builds
    and writes the next batch; at most one batch is being made durable while the next
    fills, so memory is bounded by two batches. A sidecar is written only once its log is
    on the disk, so a session the folder lists as imported is always whole; :meth:`close`
    returns only when every batch is durable.
    """

    BATCH = 256

    def __init__(self, folder: Folder) -> None:
        self.folder = folder
        self.pending: list[tuple[Path, dict]] = []
        self._pool = ThreadPoolExecutor(max_workers=8)
        self._durable = ThreadPoolExecutor(max_workers=1)  # one batch at a time, in order
        self._inflight: Future | None = None
        self._mode = new_file_mode()  # read once, not per sidecar

    def add(self, s: ImportedSession) -> tuple[str, Path]:
        """Write one session's log; returns ``("written" or "already", path of its log)``.

        Raises
        ------
        ImportSourceError
            When its file name is taken by another session (another source, or a
            session the folder holds under that name), naming both and the fix; or
            when an earlier batch could not be made durable.
        """
        key = (s.source.sha256, s.participant, s.session)
        if key in self.folder.known:
            return "already", self.folder.known[key]
        log = self.folder.path / log_name(s.participant, s.session, s.format)
        side = log.with_suffix(".json")
        for taken in (log, side):
            if taken.exists():
                alone = " without its sidecar (an import cut off?)" if not side.exists() else ""
                raise ImportSourceError(
                    f"{s.source.path}: participant {s.participant!r} session {s.session}: "
                    f"{taken} already exists{alone} and holds another session (another source "
                    "file, or one not imported). Nothing was overwritten. Suggested fix: give "
                    "this session another number with --session, or import into another folder "
                    "with --output."
                )
        try:
            rows = write_event_log(log, s.rows, fsync=False)
        except FileExistsError:
            raise ImportSourceError(
                f"{log} appeared while importing; nothing was overwritten. Suggested fix: import "
                "again."
            ) from None
        except OSError as exc:
            raise ImportSourceError(
                f"{log}: cannot be written ({exc.strerror}); the sessions written before it are "
                "kept. Suggested fix: free space or fix the folder's permissions, then import "
                "again (sessions already imported are recognised and not written twice)."
            ) from None
        self.folder.known[key] = log
        # The sidecar is made now (the session's rows can go); written once the log is durable.
        self.pending.append((log, sidecar(s, log.name, rows).to_dict()))
        if len(self.pending) >= self.BATCH:
            self.flush()
        return "written", log

    def flush(self) -> None:
        """Hand the pending sessions to the durability thread (after the batch before them)."""
        self._wait()
        if self.pending:
            batch, self.pending = self.pending, []
            self._inflight = self._durable.submit(self._make_durable, batch)

    def _wait(self) -> None:
        """Wait for the batch being made durable; its failure raised here, explained."""
        inflight, self._inflight = self._inflight, None
        if inflight is None:
            return
        try:
            inflight.result()
        except OSError as exc:
            raise ImportSourceError(
                f"{self.folder.path}: the last sessions' files cannot be completed "
                f"({exc.strerror}); a log without its sidecar is not counted as imported. "
                "Suggested fix: free space or fix the folder, remove those logs, and import again."
            ) from None

    def _make_durable(self, batch: list[tuple[Path, dict]]) -> None:
        list(self._pool.map(_fsync, [log for log, _ in batch]))
        list(self._pool.map(lambda item: write_sidecar(item[0].with_suffix(".json"), item[1],
                                                       mode=self._mode), batch))  # fmt: skip
        _fsync(self.folder.path)

    def close(self) -> None:
        """Make every session durable (the last batch too); returns when all are."""
        try:
            self.flush()
            self._wait()
        finally:
            self._durable.shutdown()
            self._pool.shutdown()


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sidecar(s: ImportedSession, log: str, rows: int) -> Sidecar:
    """The sidecar of an imported session (the session_data model, version 2).

    What the source cannot tell stays empty (no screen, window, frames, layout);
    ``recorder`` is tol-import, ``source`` the original file(s) and their
    SHA-256, ``unavailable`` the measures the source does not record. The
    model has no place for the rest of the provenance, which goes in the
    ``import`` section (kept as an extra key): which source field gives each
    time, each unavailable measure's reason and consequence, the stated
    minimums that disagree with the solver, the apparatus and how it was
    known, the importer's version and when it ran.
    """
    meta = dict(s.meta)
    times = meta.get("times", {})
    files, sums = [s.source.name], [s.source.sha256]
    summary = meta.pop("summary_file", None), meta.pop("summary_sha256", None)
    if summary[0]:
        files.append(summary[0])
        sums.append(summary[1])
    return Sidecar(
        event_log=log,
        event_log_version=EVENT_LOG_VERSION,
        status="completed" if s.complete else "incomplete",
        participant=s.participant,
        session=s.session,
        start_time=s.start_time,
        end_time=s.end_time,
        recorder=Recorder(
            name="tol-import",
            version=f"{__version__} (importer {IMPORTER_VERSION})",
            runtime=meta.get("format_title"),
        ),
        source=Source(
            format=s.format,
            files=files,
            sha256=sums,
            note=_note(meta),
        ),
        unavailable=[u["measure"] for u in meta.get("unavailable", [])],
        protocol=ProtocolCopy(
            name=s.format, version=None, path=None, sha256=_EMPTY_SHA256, text=""
        ),
        software=Software(
            tol_tasks=__version__, python=sys.version.split()[0], os=platform.platform()
        ),
        timing=Timing(
            clock=times.get("clock"),
            expected_resolution_s=times.get("resolution_s"),
            trial_onset=times.get("trial_onset"),
        ),
        rows_written=rows,
        **{
            "import": {
                **meta,
                "importer_version": IMPORTER_VERSION,
                "imported_at": datetime.now(timezone.utc)
                .astimezone()
                .isoformat(timespec="seconds"),
            }
        },
    )


#: The protocol text of an imported session: none (the other tool ran no tol-tasks protocol).
_EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


def _note(meta: dict) -> str:
    """``source.note``: what the conversion assumed, in one sentence or two."""
    parts = [
        f"Converted by tol-import from {meta.get('format_title')}; no tol-tasks protocol ran "
        "(protocol.text is empty)."
    ]
    apparatus = meta.get("apparatus") or {}
    if apparatus.get("basis"):
        parts.append(f"Apparatus: {apparatus['basis']}.")
    if apparatus.get("defaults_used"):
        used = ", ".join(f"{k}={v}" for k, v in apparatus["defaults_used"].items())
        parts.append(f"Not saved by the source, the tool's defaults were used: {used}.")
    parts.append(
        "import.times says which source field gives each time; import.unavailable why "
        "each measure is missing."
    )
    return " ".join(parts)
