"""The live event log: one row per event, written as it happens, never waited on by the screen.

:class:`EventLog` hands each row to the operating system before returning (written and
flushed: a crash of the program or ``kill -9`` loses nothing written), and a thread of its
own forces it to the disk (``fsync``) at once. The thread that writes, the session's frame
loop, never waits on the disk: on a slow one (a USB stick, a network share, a disk busy
with another program's writes) an ``fsync`` takes tens or hundreds of milliseconds, and
made there it held the screen still for as long after every move (frames dropped, the
move shown late, polled presses stamped late). A power cut loses at most the rows written
while the last ``fsync`` was under way (milliseconds on a local disk). :meth:`EventLog.sync`
waits until every row is on the disk (the session's end does, before its sidecar says how
many rows there are); a failed ``fsync`` stops the next row, or the sync, with the rows
known to be on the disk named.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import threading
from pathlib import Path
from typing import Any

from .eventlog import (
    EVENT_LOG_VERSION,
    RESAVED_FIX,
    EventLogError,
    EventLogWriteError,
    cell,
    columns,
    read_event_log,
)


class _Syncer:
    """Forces an open file's writes to the disk on a thread of its own, as soon as asked.

    Asks are numbered (the rows written so far); one ``fsync`` covers every row written
    before it starts, so a slow disk gets one call for many rows, not one per row.
    """

    def __init__(self, fd: int, name: str, rows: int) -> None:
        self._fd = fd
        self._cond = threading.Condition()
        self._asked = self._done = rows  # the rows there already are durable
        self.error: OSError | None = None
        self._open = True
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    @property
    def done(self) -> int:
        """The rows known to be on the disk."""
        return self._done

    def ask(self, rows: int) -> None:
        """Make the first ``rows`` rows durable (returns at once)."""
        with self._cond:
            self._asked = rows
            self._cond.notify_all()

    def wait(self) -> None:
        """Return when every row asked is on the disk.

        Raises
        ------
        OSError
            An ``fsync`` failed (then no more are made).
        """
        with self._cond:
            while self._done < self._asked and self.error is None:
                self._cond.wait()
            if self.error is not None:
                raise self.error

    def stop(self) -> None:
        """Make what was asked durable, then end the thread (errors are kept in ``error``)."""
        with self._cond:
            self._open = False
            self._cond.notify_all()
        self._thread.join()

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._done == self._asked and self._open:
                    self._cond.wait()
                if self._done == self._asked:
                    return
                rows = self._asked
            try:
                os.fsync(self._fd)
            except OSError as exc:
                with self._cond:
                    self.error = exc
                    self._cond.notify_all()
                return
            with self._cond:
                self._done = rows
                self._cond.notify_all()


class EventLog:
    """Append-only, crash-safe CSV writer.

    Parameters
    ----------
    path : Path
        A file that must not exist yet (it is never overwritten).
    fsync : bool
        Force every row to the disk, not only to the operating system: on a thread of the
        log's own, at once, so that :meth:`write` never waits on the disk (the header, in
        the constructor, is forced before it returns).
    watch : bool
        Before each row, check that ``path`` is still this file in a folder that can be
        written: a folder deleted, moved, unmounted or made read-only stops the writing
        (:class:`EventLogWriteError`) instead of rows going into a file no one will find.
        Every row written stays readable through the open file (:meth:`read_back`).

    Raises
    ------
    OSError
        The file could not be created or its header written (a full disk, a folder
        gone): nothing but, at most, a log that never started is left.
    """

    def __init__(self, path: Path, *, fsync: bool = True, watch: bool = False,
                 _append_after: int | None = None,
                 _version: int = EVENT_LOG_VERSION) -> None:  # fmt: skip
        self.path = Path(path)
        self.version = _version
        self._cols = columns(_version)
        self._watch = watch
        self._syncer: _Syncer | None = None
        # Opened for reading too: what was written can be read back after the folder is gone.
        if _append_after is None:
            self._file = open(self.path, "x+", encoding="utf-8", newline="")  # noqa: SIM115
            self._row = 0
            try:
                self._write_line(self._cols)
                if fsync:
                    os.fsync(self._file.fileno())
            except OSError:
                self.close()
                raise
        else:
            self._file = open(self.path, "a+", encoding="utf-8", newline="")  # noqa: SIM115
            self._row = _append_after
        self._identity = self._own_identity()
        if fsync:
            self._syncer = _Syncer(self._file.fileno(), f"tol-tasks fsync {self.path.name}",
                                   self._row)  # fmt: skip

    def _own_identity(self) -> tuple[int, int]:
        st = os.fstat(self._file.fileno())
        return st.st_dev, st.st_ino

    def lost_folder(self) -> str | None:
        """Why rows can no longer go where they belong (the folder deleted, moved, unmounted
        or made read-only), or None."""
        try:
            st = os.stat(self.path)
        except OSError:
            return f"{self.path.parent} was deleted, moved or unmounted"
        if (st.st_dev, st.st_ino) != self._identity:
            return f"{self.path} was replaced by another file"
        if not os.access(self.path.parent, os.W_OK) or not os.access(self.path, os.W_OK):
            return f"{self.path.parent} was made read-only"
        return None

    def read_back(self) -> bytes:
        """Every byte written so far, read through the open file (so even from a file whose
        folder was deleted or moved)."""
        with contextlib.suppress(OSError, ValueError):
            self._file.flush()
        fd = self._file.fileno()
        if not hasattr(os, "pread"):  # pragma: no cover - Windows, where open files stay put
            return self.path.read_bytes()
        chunks, offset = [], 0
        while True:
            chunk = os.pread(fd, 1 << 20, offset)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            offset += len(chunk)

    @classmethod
    def append(cls, path: Path, *, fsync: bool = True, watch: bool = False) -> EventLog:
        """Continue an existing log (a resumed session).

        A torn last line left by a crash is cut off first, so that the next row
        starts on a line of its own; row numbers continue from the last whole row.

        Raises
        ------
        EventLogError
            If the file is not an event log or is damaged before its end.
        """
        data = read_event_log(path)
        if data.resaved:
            raise EventLogError(
                f"{path}: re-saved by a spreadsheet program ({', '.join(data.resaved)}); rows "
                "written after it would not match it.", where=str(path), fix=RESAVED_FIX,
            )  # fmt: skip
        raw = Path(path).read_bytes()
        end = raw.rfind(b"\n") + 1
        if end < len(raw):
            with open(path, "r+b") as f:
                f.truncate(end)
                f.flush()
                os.fsync(f.fileno())
        last = int(data.records[-1][0]) if data.records else 0
        return cls(path, fsync=fsync, watch=watch, _append_after=last, _version=data.version)

    def _write_line(self, values) -> None:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow(values)
        self._file.write(buf.getvalue())
        self._file.flush()

    def _not_durable(self, exc: OSError, event: Any = None) -> EventLogWriteError:
        kept = self._syncer.done if self._syncer is not None else self._row
        what = "" if event is None else f" event {event!r} could not be written:"
        return EventLogWriteError(
            f"{self.path}:{what} the rows after row {kept} could not be forced to the disk "
            f"({exc.strerror or exc}); every row up to {kept} is kept.", where=str(self.path),
            field="fsync",
            fix="check the disk (or copy the folder to another one), then resume the session.",
        )  # fmt: skip

    def write(self, **values: Any) -> int:
        """Append one event; unknown column names are an error. Returns the row number.

        The row is in the file (written and flushed to the operating system) when this
        returns, and on its way to the disk (see the module's description).

        A format 1 log (a resumed old session) has no ``copy_of`` column; writing
        a value into it is an error (the runner runs no copies then).
        """
        unknown = {k for k, v in values.items() if k not in self._cols and v is not None}
        if unknown:
            raise ValueError(f"not event log columns: {', '.join(sorted(unknown))}")
        if self._syncer is not None and self._syncer.error is not None:
            raise self._not_durable(self._syncer.error, values.get("event"))
        values["row"] = self._row + 1
        lost = self.lost_folder() if self._watch else None
        if lost is not None:
            raise EventLogWriteError(
                f"{self.path}: event {values.get('event')!r} could not be written: {lost}; "
                f"every row up to {self._row} is kept.", where=str(self.path), field="folder",
                fix="put the folder back, or resume from a copy of the log and its sidecar.",
            )  # fmt: skip
        try:
            self._write_line([cell(values.get(c)) for c in self._cols])
        except OSError as exc:
            raise EventLogWriteError(
                f"{self.path}: event {values.get('event')!r} could not be written ({exc.strerror}); "
                f"every row up to {self._row} is kept.", where=str(self.path),
                fix="free space or fix the folder, then resume the session.",
            ) from None  # fmt: skip
        self._row += 1
        if self._syncer is not None:
            self._syncer.ask(self._row)
        return self._row

    def sync(self) -> None:
        """Wait until every row written is on the disk (at once without ``fsync``).

        Raises
        ------
        EventLogWriteError
            An ``fsync`` failed: the message names the rows known to be on the disk.
        """
        if self._syncer is None:
            return
        try:
            self._syncer.wait()
        except OSError as exc:
            raise self._not_durable(exc) from None

    @property
    def rows_written(self) -> int:
        return self._row

    def close(self) -> None:
        """Close the file, every row written made durable first (``fsync``). Never raises:
        after a failed write the unwritable row is dropped, not raised again; a failed sync
        is :meth:`sync`'s to report."""
        if self._syncer is not None:
            self._syncer.stop()
        if not self._file.closed:
            # The file is closed even if its final flush fails; only that row is lost.
            with contextlib.suppress(OSError):
                self._file.close()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
