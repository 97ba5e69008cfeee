"""One running copy of a session: an exclusive lock held by the process (no PsychoPy here).

Before anything of a session is written, :func:`lock_session` takes an
exclusive lock on a small hidden file in the data folder,
``.<participant>_ses-<n>_<protocol>.tol-lock``: ``flock`` on Linux and macOS,
``msvcrt.locking`` on Windows. The operating system holds the lock for the
process and drops it when the process ends, however it ends (``kill -9``, a
power cut), so a lock left behind by a dead process never blocks. A second
start or resume of the same session while the first runs is refused at once,
naming the process that holds it (its id, computer, start time and command,
which the holder writes into the file after its first byte, the byte that is
locked).

The lock file is removed when the session ends; a process that finds the file
replaced after it took its lock (the holder removed it in between) tries again,
so two processes never both believe they hold it.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tol_tasks.errors import TolTasksError

#: How long a refused process waits for the holder to have written who it is.
_HOLDER_WAIT_S = 1.0


class SessionLockedError(TolTasksError, RuntimeError):
    """The session is already running in another process (named in :attr:`holder`)."""

    def __init__(self, message: str, *, holder: dict, where: str, fix: str) -> None:
        self.holder = holder
        super().__init__(message, where=where, field="session", fix=fix)


def lock_name(participant: str, session: int, protocol: str) -> str:
    """The lock file's name for a session (hidden, beside its logs)."""
    return f".{participant}_ses-{session}_{protocol}.tol-lock"


@dataclass
class SessionLock:
    """A held session lock: :meth:`release` it when the session ends (the operating system
    releases it anyway when the process ends)."""

    path: Path
    _fd: int | None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Remove the lock file and release the lock; never raises, may be called again."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):  # the folder may be gone; Windows keeps open files
            if _same_file(self.path, fd):
                os.unlink(self.path)
        with contextlib.suppress(OSError):
            os.close(fd)


def _try_lock(fd: int) -> bool:
    """Take the lock on ``fd`` without waiting; False if another process holds it."""
    if sys.platform == "win32":  # pragma: no cover - Windows
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _same_file(path: Path, fd: int) -> bool:
    try:
        st, own = os.stat(path), os.fstat(fd)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)


def _holder_of(fd: int) -> dict:
    """Who holds the lock, as the holder wrote it (after the locked first byte)."""
    end = time.monotonic() + _HOLDER_WAIT_S
    while True:
        with contextlib.suppress(OSError, ValueError):
            os.lseek(fd, 1, os.SEEK_SET)
            text = os.read(fd, 65536).decode("utf-8")
            if text.strip():
                return json.loads(text)
        if time.monotonic() > end:
            return {}
        time.sleep(0.05)


def _describe(holder: dict) -> str:
    if not holder:
        return "another process (it has not said which yet)"
    parts = [f"process {holder.get('pid', '?')}"]
    if holder.get("host") and holder["host"] != socket.gethostname():
        parts.append(f"on {holder['host']}")
    if holder.get("started"):
        parts.append(f"started {holder['started']}")
    text = " ".join(parts)
    if holder.get("command"):
        text += f" ({holder['command']})"
    return text


def lock_session(folder: Path, participant: str, session: int, protocol: str) -> SessionLock:
    """Take the session's lock in ``folder`` (which must exist), or refuse at once.

    Raises
    ------
    SessionLockedError
        Another process runs the session: its id, computer, start time and command.
    """
    path = Path(folder) / lock_name(participant, session, protocol)
    for _ in range(20):  # the file replaced under us: another holder came and went
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            try:
                locked = _try_lock(fd)
            except OSError as exc:  # not "held": this file system has no locks
                os.close(fd)
                print(f"tol-tasks: warning: {folder} cannot lock files ({exc.strerror}); make "
                      "sure no other copy of this session runs.", file=sys.stderr)  # fmt: skip
                return SessionLock(path, None)
            if not locked:
                holder = _holder_of(fd)
                raise SessionLockedError(
                    f"participant {participant}'s session {session} of {protocol} is already "
                    f"running, in {_describe(holder)}; two copies would give one session two "
                    "logs, or write one log twice.", holder=holder, where=str(folder),
                    fix="wait until that session ends, or end it (its window, or its process). "
                    "A lock whose process has ended never blocks: a second start is refused "
                    "only while the first runs.",
                )  # fmt: skip
        except BaseException:
            os.close(fd)
            raise
        if not _same_file(path, fd):
            os.close(fd)
            continue
        _write_holder(fd)
        return SessionLock(path, fd)
    raise SessionLockedError(  # pragma: no cover - twenty holders in a row
        f"the lock of participant {participant}'s session {session} of {protocol} keeps "
        "changing hands.", holder={}, where=str(folder), fix="try again in a moment.",
    )  # fmt: skip


def _write_holder(fd: int) -> None:
    """Say who holds the lock, after its first byte (a full disk only leaves it unsaid)."""
    holder = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": " ".join([os.path.basename(sys.argv[0] or "python"), *sys.argv[1:]])[:300],
    }
    with contextlib.suppress(OSError):
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, b"\n" + json.dumps(holder).encode() + b"\n")
        os.ftruncate(fd, os.lseek(fd, 0, os.SEEK_CUR))
