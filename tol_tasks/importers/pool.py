"""A large file's sessions built on every core: this process and forked copies of it.

A format that declares :attr:`~tol_tasks.importers.format.Format.groups` and
:attr:`~tol_tasks.importers.format.Format.session` can have a large file's sessions built
by more than one process (:func:`build`). The sessions go in chunks of :data:`CHUNK`,
dealt as the work goes (:class:`_Deal`): each forked copy (made after the file's rows were
grouped, so it holds the same index) is always given :data:`GIVEN` chunks to build, the
next ones nobody has; this process builds a chunk whose turn comes when nobody has it, and
while a copy's chunk has not come it builds the next one nobody has. No core waits while
there is work, however busy the machine or either core is. Each copy reads the rows of
its chunks from the file itself (each row from its own bytes, whose place the first
reading kept) and sends back only what the writer needs: each session's log text, its
sidecar's text and a few fields (nothing is parsed twice, no row is sent between
processes). This process writes every session, in the file's order, with the same
:class:`~tol_tasks.importers.write.Writer` (durability unchanged: a copy writes no file),
so the files, the report and the error that stops an import are those of one process
alone. Memory follows the chunks given or built ahead, not the file. A copy ends with
this process (a kill of the import kills it too); a copy that ends early has the chunks it
was given built here.

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

#: Sessions in a chunk (the processes' unit of work).
CHUNK = 64

#: What :func:`build` gives for each session: (the session, (its log's text, its rows, its
#: sidecar's text) or None when the writer makes them), or the error that stopped it.
Built = tuple[ImportedSession, tuple[str, int, str] | None] | ImportSourceError

#: Chunks a copy is given at a time (built or being built before this process takes
#: them): enough that it never waits for this process to give it the next.
GIVEN = 3

#: Chunks this process may build ahead while it waits for a copy's (their texts kept until
#: their turn, about 0.8 MB a chunk): the room that lets a fast core take most of the work
#: from a slow one (a copy on a busy core gets at least GIVEN of every GIVEN + AHEAD).
AHEAD = 8

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
    copies: dict[int, _Copy] = {}
    try:
        forked: list[tuple[Connection, int, int]] = []
        for _ in range(1, workers):  # every copy forked before any thread starts here
            forked.append(_fork(fmt, source, options, chunks, forked))
        copies.update((w, _Copy(w, *f)) for w, f in enumerate(forked, start=1))
        deal = _Deal(len(chunks), copies)
        ahead: dict[int, list] = {}  # chunks built here before their turn
        sidecars = SidecarTexts()
        for k, chunk in enumerate(chunks):
            if k in ahead:
                for result in ahead.pop(k):
                    if isinstance(result, BaseException):
                        raise result
                    yield _session(source, result)
                continue
            got, copy = None, copies.get(deal.owner.pop(k, 0))
            if copy is not None:  # a copy's: build the next chunk here while it is not there
                while (got := copy.poll()) is _NOT_YET and len(ahead) < AHEAD and deal.left():
                    j = deal.take()
                    ahead[j] = _ahead(fmt, source, options, chunks[j], sidecars)
                if got is _NOT_YET:
                    got = copy.next()
                if got is None:  # it ended early: its chunks are built here
                    copies.pop(copy.number).stop()
                else:
                    deal.top_up(copy)
            elif k == deal.next:  # nobody's yet: this process's
                deal.take()
            if got is None:
                for g in chunk:
                    try:
                        yield fmt.session(source, options, g), None
                    except ImportSourceError as exc:
                        yield exc
                continue
            number, results = got
            if number != k:
                raise RuntimeError(f"a copy sent chunk {number} for chunk {k}")
            for result in results:
                yield _session(source, result)
    finally:
        for w in list(copies):
            copies.pop(w).stop()


def _ahead(fmt, source, options, chunk: list[Group], sidecars: SidecarTexts) -> list:
    """A chunk built before its turn: each session's texts and fields (as a copy's), and
    an importer's bug (an error not in the data) where it came, raised in its turn."""
    made = []
    for g in chunk:
        try:
            made.append(_made(fmt, source, options, g, sidecars))
        except Exception as exc:
            made.append(exc)
            break
    return made


#: :meth:`_Copy.poll`'s answer while the copy's next chunk has not come.
_NOT_YET = object()


class _Deal:
    """Which process builds each chunk, decided as they go: each copy is given chunks (the
    next one nobody has) so that it always has :data:`GIVEN` to build; this process builds
    a chunk when its turn comes and nobody has it, and builds the next one nobody has while
    it waits for a copy's. So no core waits while the other has work: a busy machine, a
    slower core or a copy's share of a large file balance themselves."""

    def __init__(self, chunks: int, copies: dict[int, _Copy]) -> None:
        self.chunks, self.copies = chunks, copies
        self.next = 0  # the first chunk nobody has
        self.owner: dict[int, int] = {}  # chunk -> the copy given it
        for copy in copies.values():
            self.top_up(copy)

    def left(self) -> bool:
        return self.next < self.chunks

    def take(self) -> int:
        """The next chunk nobody has, for this process."""
        k = self.next
        self.next += 1
        if self.next == self.chunks:
            self._close()
        return k

    def top_up(self, copy: _Copy) -> None:
        while copy.given < GIVEN and self.left() and copy.give(self.next):
            self.owner[self.next] = copy.number
            self.take()

    def _close(self) -> None:
        for copy in self.copies.values():
            copy.no_more()  # each copy ends once it has sent what it was given


def _fork(fmt, source, options, chunks, others) -> tuple[Connection, int, int]:
    """A copy of this process building the chunks it is given; (the end its results come
    from, its pid, the end its chunks' numbers go into)."""
    read, write = multiprocessing.Pipe(duplex=False)
    _widen(write)
    given, give = os.pipe()
    parent = os.getpid()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        write.close()
        os.close(given)
        return read, pid, give
    code = 0
    try:  # the copy: never returns into the caller's code
        read.close()
        os.close(give)  # else it would never see the end of what it is given
        for conn, _pid, fd in others:
            conn.close()
            os.close(fd)
        _die_with(parent)
        source.reopen()
        sidecars = SidecarTexts()
        while (k := _number(given)) is not None:
            made = [_made(fmt, source, options, g, sidecars) for g in chunks[k]]
            write.send_bytes(pickle.dumps((k, made)))
    except BaseException:  # this process's chunks are then built by its parent
        code = 1
    finally:
        os._exit(code)


def _number(fd: int) -> int | None:
    """The next chunk number a copy is given, or None once it is given no more."""
    got = b""
    while len(got) < 4:
        more = os.read(fd, 4 - len(got))
        if not more:
            return None
        got += more
    return int.from_bytes(got, "little")


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
    """A forked copy: its pid, the chunks it has been given and not yet sent, and a thread
    that takes its chunks as they come, so that it builds on while this process writes."""

    def __init__(self, number: int, conn: Connection, pid: int, give: int) -> None:
        self.number = number  # its place among the copies (1, 2, ...)
        self.conn, self.pid, self.give_fd = conn, pid, give
        self.given = 0  # chunks given and not yet taken
        self.queue: queue.Queue = queue.Queue()  # at most GIVEN: it is given no more
        self.thread = threading.Thread(target=self._take, daemon=True)
        self.thread.start()

    def _take(self) -> None:
        try:
            while True:
                self.queue.put(self.conn.recv_bytes())  # the pipe is read without the GIL
        except (EOFError, OSError):
            self.queue.put(None)

    def give(self, k: int) -> bool:
        """Have the copy build chunk ``k``; False if it has ended (or been given no more)."""
        if self.give_fd < 0:
            return False
        try:
            os.write(self.give_fd, k.to_bytes(4, "little"))  # 4 bytes: written at once
        except OSError:  # it has ended: what it was given is built here
            self.no_more()
            return False
        self.given += 1
        return True

    def no_more(self) -> None:
        """Give it nothing more: it ends once it has sent what it was given."""
        if self.give_fd >= 0:
            os.close(self.give_fd)
            self.give_fd = -1

    def poll(self):
        """Its next chunk (its number and results), :data:`_NOT_YET`, or None if it ended
        without sending it."""
        try:
            got = self.queue.get_nowait()
        except queue.Empty:
            return _NOT_YET
        return self._unpack(got)

    def next(self) -> tuple[int, list[Any]] | None:
        """Its next chunk (its number and results), waited for, or None if it ended without
        sending it."""
        return self._unpack(self.queue.get())

    def _unpack(self, got: bytes | None):
        if got is None:
            self.queue.put(None)  # asked again: the same answer
            return None
        self.given -= 1
        return pickle.loads(got)

    def stop(self) -> None:
        """End the copy (finished or not) and collect it and its thread."""
        self.no_more()
        with suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        while self.queue.get() is not None:  # the thread sees the end
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
