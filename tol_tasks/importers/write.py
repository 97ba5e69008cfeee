"""Writing imported sessions: an event log and its sidecar each, never over anything.

A session's log is written whole under a temporary name, its sidecar too, and
both are given their names (never over a file) only once the batch they belong to
is on the disk (:class:`Writer`), so a log under its name always has its whole
sidecar beside it. Before
writing, the folder's sidecars are read once: a session whose source file
(SHA-256), participant and session are already there is not written again.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tol_tasks.session_data.names import give_name, libc_function
from tol_tasks.session_data.sidecar import new_file_mode
from tol_tasks.session_data.whole import event_log_text

from .session import ImportedSession
from .sidecars import SidecarTexts
from .source import ImportSourceError

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
    names: set[str] = field(default_factory=set)  # the folder's files, listed once

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
        folder = cls(p, names=set(os.listdir(p)))
        for part in p.glob("*.csv.part"):
            # A log named just before a kill keeps its temporary name as a second link to
            # the same file: removing that link loses nothing.
            log = part.with_suffix("")
            try:
                if log.exists() and os.path.samefile(part, log):
                    part.unlink()
            except OSError:
                pass
        for side in p.glob("*.json"):
            try:
                meta = json.loads(side.read_text(encoding="utf-8"))
                key = (meta["source"]["sha256"][0], str(meta["participant"]), int(meta["session"]))
            except (OSError, ValueError, KeyError, TypeError, IndexError):
                continue  # not an imported session's sidecar
            if side.with_suffix(".csv").exists():  # else a remnant of an import cut off
                folder.known[key] = side.with_suffix(".csv")
        return folder


class Writer:
    """Writes imported sessions into a :class:`Folder`, batch by batch, in a pipeline.

    Each session's files are written as it comes, on the caller's thread, under temporary
    names (``<log>.part``, ``<sidecar>.tmp``), which no reader takes for a session. Every
    :attr:`BATCH` sessions the batch's files are forced to the disk by a thread of its own
    (:func:`make_durable`: one ``syncfs`` of the folder's file system on Linux, each file's
    ``fsync`` elsewhere, then the folder's), while the caller builds on; once a batch is on
    the disk, the caller gives each of its sessions its name (its sidecar, then its log,
    never over a file). Names are made durable by the next batch's sync, and the last ones
    by :meth:`close`, which returns only when every session is durable under its name. At
    most :attr:`IN_FLIGHT` batches are being synced at once, so memory is bounded by the
    batch being written, not the import. A log appears under its name only once it and its
    sidecar are on the disk, so a kill or a crash at any instant leaves whole sessions and
    temporary files that nothing reads as sessions (an import run again writes them anew).

    The thread does nothing but wait for the disk: a thread that also wrote the files
    competed with the caller for Python's lock at every system call, and the caller waited
    for it 1.9-2.6 s of a 100,000-row jsPsych import (2026-11-28).
    """

    BATCH = 256

    #: Batches being synced at once, at most (the caller waits for the oldest).
    IN_FLIGHT = 2

    def __init__(self, folder: Folder) -> None:
        self.folder = folder
        self.pending: list[Path] = []  # logs whose files are written, not yet synced
        self._claimed: set[str] = set()  # log names taken by this run (not yet named)
        self._durable = ThreadPoolExecutor(max_workers=1)  # one sync at a time, in order
        self._inflight: deque[tuple[Future, list[Path]]] = deque()  # oldest first
        self._broken: ImportSourceError | None = None  # a batch not made durable: no more
        self._mode = new_file_mode()  # read once, not per file
        self._sidecars = SidecarTexts()

    def add(
        self, s: ImportedSession, texts: tuple[str, int, str] | None = None
    ) -> tuple[str, Path]:
        """Write one session's files (under temporary names until they are durable);
        returns ``("written" or "already", path of its log)``.

        ``texts``: its log's text, rows and sidecar's text when made elsewhere (a worker
        process, :mod:`~tol_tasks.importers.pool`), else made here.

        Raises
        ------
        ImportSourceError
            When its file name is taken by another session (another source, or a
            session the folder holds under that name), naming both and the fix; or
            when its files or an earlier batch cannot be written or made durable.
        """
        key = (s.source.sha256, s.participant, s.session)
        if key in self.folder.known:
            return "already", self.folder.known[key]
        log = self.folder.path / log_name(s.participant, s.session, s.format)
        side = log.with_suffix(".json")
        names = self.folder.names
        for taken in (log, side):
            if taken.name in self._claimed or (
                taken.name in names and not _remnant(taken, key, names)
            ):
                alone = (
                    " without its sidecar (an import cut off?)" if side.name not in names else ""
                )
                raise ImportSourceError(
                    f"{s.source.path}: participant {s.participant!r} session {s.session}: "
                    f"{taken} already exists{alone} and holds another session (another source "
                    "file, or one not imported). Nothing was overwritten. Suggested fix: give "
                    "this session another number with --session, or import into another folder "
                    "with --output."
                )
        if texts is None:
            text, rows = event_log_text(s.rows)
            texts = text, rows, self._sidecars.text(s, log.name, rows)
        try:
            # Temporary files (an import cut off may have left them: its own) are replaced.
            _write(_temporary(log), texts[0].encode("utf-8"), self._mode)
            _write(_temporary(side), texts[2].encode("utf-8"), self._mode)
        except OSError as exc:
            raise self._incomplete(exc) from None
        self.folder.known[key] = log
        self._claimed.update((log.name, side.name))
        self.pending.append(log)
        if len(self.pending) >= self.BATCH:
            self.flush()
        elif self._inflight and self._inflight[0][0].done():
            self._name()
        return "written", log

    def flush(self) -> None:
        """Hand the pending sessions' files to the thread that syncs them (after the batches
        before them; when :attr:`IN_FLIGHT` are being synced, once the oldest is done)."""
        while len(self._inflight) >= self.IN_FLIGHT:
            self._name()
        if self.pending:
            batch, self.pending = self.pending, []
            files = [f for log in batch
                     for f in (_temporary(log), _temporary(log.with_suffix(".json")))]  # fmt: skip
            self._inflight.append((self._durable.submit(make_durable, self.folder.path, files),
                                   batch))  # fmt: skip

    def _name(self) -> None:
        """Wait for the oldest batch being synced, then give its sessions their names; a
        failure to sync it raised here, explained."""
        done, batch = self._inflight.popleft()
        if self._broken is not None:
            raise self._broken  # a batch before it failed: it stays under temporary names
        try:
            done.result()
            for log in batch:
                side = log.with_suffix(".json")
                os.replace(_temporary(side), side)  # over nothing, or over its own remnant
                give_name(_temporary(log), log)
                self.folder.names.update((log.name, side.name))
                self._claimed.difference_update((log.name, side.name))
        except OSError as exc:
            self._broken = self._incomplete(exc)
            raise self._broken from None

    def _incomplete(self, exc: OSError) -> ImportSourceError:
        return ImportSourceError(
            f"{self.folder.path}: the last sessions' files cannot be completed "
            f"({exc.strerror}); their logs stay under temporary names (.part), not counted "
            "as imported. Suggested fix: free space or fix the folder, and import again."
        )

    def close(self) -> None:
        """Make every session durable under its name (the last batch too); returns when all
        are."""
        try:
            if self._broken is not None:
                return  # said when it happened; the sessions after it stay temporary
            self.flush()
            while self._inflight:
                self._name()
            try:
                _fsync(self.folder.path)  # the last names
            except OSError as exc:
                raise self._incomplete(exc) from None
        finally:
            self._durable.shutdown()


def _write(path: Path, data: bytes, mode: int) -> None:
    """``data`` as the whole of the file ``path`` (made, or emptied first): no file object."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _temporary(path: Path) -> Path:
    """The name a file has until its session is durable: not a name any reader takes."""
    return path.with_name(path.name + (".part" if path.suffix == ".csv" else ".tmp"))


def _remnant(path: Path, key: tuple[str, str, int], names: set[str]) -> bool:
    """Whether ``path`` is the sidecar of this very session, left without its log by an
    import cut off between the two names (it is then written again, whole)."""
    if path.suffix != ".json" or path.with_suffix(".csv").name in names:
        return False
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
        return key == (meta["source"]["sha256"][0], str(meta["participant"]), int(meta["session"]))
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return False


def make_durable(folder: Path, files: list[Path]) -> None:
    """Force ``files`` (all in ``folder``) and ``folder``'s names to the disk.

    On Linux, one ``syncfs`` of the folder's file system commits them all at once (the
    cost of a per-file ``fsync`` is the journal commit each one waits for); elsewhere
    (Windows, macOS) each file is fsynced, then the folder.
    """
    if _syncfs is not None:
        fd = os.open(folder, os.O_RDONLY)
        try:
            if _syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    for f in files:
        _fsync(f, os.O_RDWR)  # Windows commits only what it may write
    _fsync(folder)


_syncfs = libc_function("syncfs", ctypes.c_int)


def _fsync(path: Path, flags: int = os.O_RDONLY) -> None:
    if flags == os.O_RDONLY and os.name == "nt":
        return  # a folder cannot be opened there; its entries are committed with the files
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
