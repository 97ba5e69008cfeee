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

    Each log is written whole, as its session comes (on the caller's thread), under a
    temporary name (``<log>.part``), which no reader takes for an event log. Every
    :attr:`BATCH` sessions the batch is handed to a thread of its own that makes it
    durable: its sidecars written under temporary names (``<sidecar>.tmp``), the whole
    batch forced to the disk at once (:func:`make_durable`: one ``syncfs`` of the folder's
    file system on Linux, each file's ``fsync`` elsewhere), then each session given its
    name (its sidecar, then its log, never over a file), then the folder synced so the
    names are durable too. Meanwhile the caller builds and writes the next batch; at most
    one batch is being made durable while the next fills, so memory is bounded by two
    batches. A log appears under its name only once it and its sidecar are on the disk,
    so a kill or a crash at any instant leaves whole sessions and temporary files that
    nothing reads as sessions (an import run again writes them anew); :meth:`close`
    returns only when every batch is durable.
    """

    BATCH = 256

    def __init__(self, folder: Folder) -> None:
        self.folder = folder
        self.pending: list[tuple[Path, str, str]] = []  # (log, its text, its sidecar's text)
        self._claimed: set[str] = set()  # log names taken by this run (not yet named)
        self._durable = ThreadPoolExecutor(max_workers=1)  # one batch at a time, in order
        self._inflight: Future | None = None
        self._mode = new_file_mode()  # read once, not per sidecar
        self._sidecars = SidecarTexts()

    def add(
        self, s: ImportedSession, texts: tuple[str, int, str] | None = None
    ) -> tuple[str, Path]:
        """Write one session's log; returns ``("written" or "already", path of its log)``.

        ``texts``: its log's text, rows and sidecar's text when made elsewhere (a worker
        process, :mod:`~tol_tasks.importers.pool`), else made here.

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
        self.folder.known[key] = log
        self._claimed.update((log.name, side.name))
        # Log and sidecar made now (the session's rows can go); written with the batch.
        self.pending.append((log, texts[0], texts[2]))
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
                f"({exc.strerror}); their logs stay under temporary names (.part), not counted "
                "as imported. Suggested fix: free space or fix the folder, and import again."
            ) from None

    def _make_durable(self, batch: list[tuple[Path, str, str]]) -> None:
        written: list[Path] = []
        for log, text, side in batch:
            # Temporary files (an import cut off may have left them: its own) are replaced.
            for tmp, content in (
                (_temporary(log), text),
                (_temporary(log.with_suffix(".json")), side),
            ):
                _write(tmp, content.encode("utf-8"), self._mode)
                written.append(tmp)
        make_durable(self.folder.path, written)
        for log, _, _ in batch:
            side = log.with_suffix(".json")
            os.replace(_temporary(side), side)  # over nothing, or over its own remnant
            give_name(_temporary(log), log)
            self.folder.names.update((log.name, side.name))
            self._claimed.difference_update((log.name, side.name))
        _fsync(self.folder.path)  # the names

    def close(self) -> None:
        """Make every session durable (the last batch too); returns when all are."""
        try:
            self.flush()
            self._wait()
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
    """Force ``files`` (all in ``folder``) to the disk.

    On Linux, one ``syncfs`` of the folder's file system commits them all at once (the
    cost of a per-file ``fsync`` is the journal commit each one waits for); elsewhere
    (Windows, macOS) each file is fsynced.
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


_syncfs = libc_function("syncfs", ctypes.c_int)


def _fsync(path: Path, flags: int = os.O_RDONLY) -> None:
    if flags == os.O_RDONLY and os.name == "nt":
        return  # a folder cannot be opened there; its entries are committed with the files
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
