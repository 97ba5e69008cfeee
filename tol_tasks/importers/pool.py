"""A large file's sessions built on every core: this process and forked siblings, in turn.

A format that declares :attr:`~tol_tasks.importers.format.Format.groups` and
:attr:`~tol_tasks.importers.format.Format.session` can have a large file's sessions built
by more than one process (:func:`build`). The sessions are dealt in chunks of
:data:`CHUNK`, in turn: this process builds chunk 0, a forked copy of it (made after the
file's rows were grouped, so it holds the same index) builds chunk 1, and so on. Each
copy reads the rows of its own chunks from the file itself (each row from its own bytes,
whose place the first reading kept) and sends back only what the
writer needs: each session's log text, its sidecar's text and a few fields (nothing is
parsed twice in this process, no row is sent between processes). This process writes
every session, in the file's order, with the same
:class:`~tol_tasks.importers.write.Writer` (durability unchanged: a copy writes no file),
so the files, the report and the error that stops an import are those of one process
alone. A copy is at most :data:`AHEAD` chunks ahead (it waits for room), so memory
follows the chunks, not the file. A copy ends with this process (a kill of the import
kills it too); a copy that ends early has its chunks built here.

Only where the system can fork (Linux, macOS); elsewhere (Windows) one process builds.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import pickle
import queue
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import suppress
from multiprocessing.connection import Connection
from typing import Any

from tol_tasks.errors import NO_VALUE

from .format import Format, ImportOptions
from .people import Group
from .session import ImportedSession
from .sidecars import SidecarTexts
from .source import ImportSourceError, Source
from .write import log_name

#: Sessions a file must hold before they are built by more than one process (fewer:
#: forking costs more than it could save).
MIN_SESSIONS = 1000

#: Sessions in a chunk (dealt to the processes in turn).
CHUNK = 64

#: What :func:`build` gives for each session: (the session, (its log's text, its rows, its
#: sidecar's text) or None when the writer makes them), or the error that stopped it.
Built = tuple[ImportedSession, tuple[str, int, str] | None] | ImportSourceError

#: Chunks a copy may have sent before this process takes them.
AHEAD = 4

#: This process's share of the chunks (with one copy): 0.4. It also reads the file first
#: (the copy is forked after that), takes the copies' texts and writes every file (its
#: writer's thread, beside it), so it builds somewhat less than the copy. 100,000 jsPsych
#: rows on a two-core machine: 14.4 s at 0.45 against 18.0 s at a fifth (2026-11-27, a
#: quiet machine); once msgspec read the file first (2026-11-27, 13th pass, in turns on a
#: fresh file system, load about 2): 12.2-13.5 s at 0.4, 12.2-12.9 at 0.35, 13.7-15.5 at
#: 0.45, 14.1-14.8 at 0.5; bench_import.py best of three: 12.73 s at 0.4, 14.11 at 0.45
#: (benchmarks/README.md).
SHARE = 0.4

#: The room of the pipe a copy's results come through (Linux; elsewhere the system's own):
#: a chunk's texts (about 750 KB for 64 jsPsych sessions) go into it at once. With the
#: usual 64 KB the copy waited on every 64 KB for this process's reading thread, which
#: needs the GIL to take each of them from the pipe: 100,000 jsPsych rows, this process
#: waited 2.7-3.6 s for the copy's chunks with 64 KB, 0.1-0.2 s with 1 MB (2026-11-28).
PIPE = 1 << 20

_FORK = hasattr(os, "fork") and "fork" in multiprocessing.get_all_start_methods()


def workers_for(sessions: int, workers: int | None) -> int:
    """How many processes build ``sessions`` sessions: ``workers`` if given, else one per
    core this process may use (at most 2); one for a file of fewer than
    :data:`MIN_SESSIONS` or where the system cannot fork."""
    if not _FORK or sessions < MIN_SESSIONS:
        return 1
    if workers is None:
        try:
            cores = len(os.sched_getaffinity(0))
        except AttributeError:  # macOS
            cores = os.cpu_count() or 1
        return min(cores, 2)
    return workers


def build(
    fmt: Format, source: Source, options: ImportOptions, groups: list[Group], workers: int
) -> Iterator[Built]:
    """Each session of ``groups``, in order (see the module's description), built by this
    process and ``workers - 1`` forked copies of it. Close the iterator (or exhaust it) to
    stop the copies."""
    chunks = [groups[i : i + CHUNK] for i in range(0, len(groups), CHUNK)]
    owner = _owners(len(chunks), workers)
    copies: dict[int, _Copy] = {}
    try:
        forked: dict[int, tuple[Connection, int]] = {}
        for w in range(1, workers):  # every copy forked before any thread starts here
            mine = [c for c, o in zip(chunks, owner, strict=True) if o == w]
            forked[w] = _fork(fmt, source, options, mine, [c for c, _ in forked.values()])
        copies.update((w, _Copy(*f)) for w, f in forked.items())
        for k, chunk in enumerate(chunks):
            w = owner[k]
            got = copies[w].next() if w in copies else None
            if got is None:  # this process's chunk, or a copy's that ended early
                if w in copies:
                    copies.pop(w).stop()
                for g in chunk:
                    try:
                        yield fmt.session(source, options, g), None
                    except ImportSourceError as exc:
                        yield exc
                continue
            for result in got:
                yield _session(source, result)
    finally:
        for w in list(copies):
            copies.pop(w).stop()


def _owners(chunks: int, workers: int) -> list[int]:
    """Which process builds each chunk: this one (0) :data:`SHARE` of them, spread evenly,
    the copies (1, 2, ...) the others in turn."""
    owner, turn = [], 0
    for k in range(chunks):
        if workers == 1 or int((k + 1) * SHARE) > int(k * SHARE):
            owner.append(0)
        else:
            owner.append(1 + turn % (workers - 1))
            turn += 1
    return owner


def _fork(fmt, source, options, chunks, others) -> tuple[Connection, int]:
    """A copy of this process building ``chunks``; (the end its results come from, its pid)."""
    read, write = multiprocessing.Pipe(duplex=False)
    _widen(write)
    parent = os.getpid()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        write.close()
        return read, pid
    code = 0
    try:  # the copy: never returns into the caller's code
        read.close()
        for c in others:
            c.close()
        _die_with(parent)
        source.reopen()
        sidecars = SidecarTexts()
        for chunk in chunks:
            write.send_bytes(
                pickle.dumps([_made(fmt, source, options, g, sidecars) for g in chunk])
            )
    except BaseException:  # this process's chunks are then built by its parent
        code = 1
    finally:
        os._exit(code)


def _made(fmt, source, options, g: Group, sidecars: SidecarTexts) -> tuple:
    """In a copy: one session's texts and fields, or its error's."""
    try:
        s = fmt.session(source, options, g)
    except ImportSourceError as exc:
        return ("error", exc.args, dict(vars(exc)))
    if s.source is not source:
        raise RuntimeError("a format's session has another source")  # then built by the parent
    from tol_tasks.session_data.whole import event_log_text

    text, n = event_log_text(s.rows)
    side = sidecars.text(s, log_name(s.participant, s.session, s.format), n)
    fields = (s.participant, s.session, s.format, s.complete, s.trials, s.warnings,
              s.start_time, s.end_time)  # fmt: skip
    return ("made", fields, (text, n, side))


def _session(source: Source, result: tuple) -> Built:
    """A copy's result, in this process: the session (without its rows) and its texts, or
    the error as it was raised there (message, where, field, value, fix)."""
    if result[0] == "error":
        exc = ImportSourceError.__new__(ImportSourceError)
        exc.args = result[1]
        vars(exc).update(result[2])
        if isinstance(exc.value, type(NO_VALUE)):
            exc.value = NO_VALUE  # the marker itself, not the copy's
        return exc
    participant, session, name, complete, trials, warnings, start, end = result[1]
    s = ImportedSession(participant=participant, session=session, format=name, source=source,
                        rows=[], meta={}, complete=complete, trials=trials, warnings=warnings,
                        start_time=start, end_time=end)  # fmt: skip
    return s, result[2]


class _Copy:
    """A forked copy: its pid and a thread that takes its chunks as they come (up to
    :data:`AHEAD` of them), so that it builds on while this process builds its own."""

    def __init__(self, conn: Connection, pid: int) -> None:
        self.conn, self.pid = conn, pid
        self.queue: queue.Queue = queue.Queue(AHEAD)
        self.thread = threading.Thread(target=self._take, daemon=True)
        self.thread.start()

    def _take(self) -> None:
        try:
            while True:
                self.queue.put(self.conn.recv_bytes())  # the pipe is read without the GIL
        except (EOFError, OSError):
            self.queue.put(None)

    def next(self) -> list[Any] | None:
        """The copy's next chunk, or None if it ended without sending it."""
        got = self.queue.get()
        if got is None:
            self.queue.put(None)  # asked again: the same answer
            return None
        return pickle.loads(got)

    def stop(self) -> None:
        """End the copy (finished or not) and collect it and its thread."""
        with suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        while self.queue.get() is not None:  # the thread waits for room, then sees the end
            pass
        self.thread.join()
        self.conn.close()


def _widen(conn: Connection) -> None:
    """Give the pipe of ``conn`` :data:`PIPE` bytes of room where the system allows it (Linux,
    up to ``/proc/sys/fs/pipe-max-size``); else it keeps the room it has."""
    try:
        import fcntl

        fcntl.fcntl(conn.fileno(), fcntl.F_SETPIPE_SZ, PIPE)
    except (ImportError, AttributeError, OSError):
        pass  # not Linux, or a limit below PIPE: slower, the same results


def _die_with(parent: int) -> None:
    """Have the kernel end this copy when its parent ends (Linux), however it ends."""
    if sys.platform.startswith("linux"):
        with suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent ended before that was set
        os._exit(1)
