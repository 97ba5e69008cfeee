"""Building a file's sessions in other processes, when asked (``import_files(workers=N)``).

A format that declares :attr:`~tol_tasks.importers.format.Format.groups` and
:attr:`~tol_tasks.importers.format.Format.session` can have its sessions built by a pool
of worker processes (:func:`build`): this process reads the file (its rows in file order,
a few chunks ahead), each worker builds a chunk's sessions, their event logs' and
sidecars' texts, and this process writes them, in the file's order, with the same
:class:`~tol_tasks.importers.write.Writer` (durability unchanged). A session a worker cannot
build comes back as its error (file, row, column, value, fix), in its place: what was
written before it is kept, and with ``skip_bad`` the import goes on. At most
``2 * workers`` chunks are out at a time, so memory follows the chunks, not the file.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

from tol_tasks.errors import NO_VALUE
from tol_tasks.session_data import gc_paused
from tol_tasks.session_data.whole import event_log_text

from .format import Format, ImportOptions
from .people import Group
from .session import ImportedSession
from .sidecars import SidecarTexts
from .source import ImportSourceError, Source, record_row
from .write import log_name

#: Sessions a file must hold before they are built in other processes (fewer: starting
#: the processes costs more than it could save).
MIN_SESSIONS = 1000

#: Sessions sent to a worker at a time.
CHUNK = 64

#: A built session (its rows dropped, its source this process's), its log's text, its
#: number of rows and its sidecar's text.
Made = tuple[ImportedSession, str, int, str]


#: How workers start: forked where the system can (Linux: a copy of this process, which
#: needs no ``if __name__ == "__main__"`` guard in the caller's script), else spawned (the
#: caller's script then needs that guard).
_START = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


def workers_for(sessions: int, workers: int | None) -> int:
    """How many processes build ``sessions`` sessions: ``workers`` if given (for a file of
    :data:`MIN_SESSIONS` or more), else this one alone. Not the default: on this shared
    2-core machine, loaded, the workers cost more CPU (reading each record twice, sending
    it and the texts between processes) than they saved (benchmarks/README.md)."""
    if workers is None or sessions < MIN_SESSIONS:
        return 1
    return workers


def build(
    fmt: Format, source: Source, options: ImportOptions, groups: list[Group], workers: int
) -> Iterator[Made | ImportSourceError]:
    """Each session of ``groups``, in order, built by ``workers`` processes: what
    :func:`made` gives, or the error that stopped it. Close the iterator (or exhaust it)
    to stop the processes; an error of this process's reading stops them too."""
    shell = (str(source.path), source.sha256, source.kind, tuple(source.columns), source.streamed)
    chunks = (groups[i : i + CHUNK] for i in range(0, len(groups), CHUNK))
    context = multiprocessing.get_context(_START)
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        out: deque = deque()

        def send() -> None:
            chunk = next(chunks, None)
            if chunk is not None:
                rows = [_payload(source, g) for g in chunk]
                out.append(pool.submit(_build, fmt.name, options, shell, rows))

        try:
            for _ in range(2 * workers):
                send()
            while out:
                results = out.popleft().result()
                send()
                for result in results:
                    if result[0] == "error":
                        yield _error(*result[1:])
                    else:
                        session = result[1]
                        session.source = source
                        yield (session, *result[2:])
        finally:
            for pending in out:
                pending.cancel()


def _payload(source: Source, g: Group) -> tuple[str, int, list[dict], list[int]]:
    records = [source.record(i) for i in g.indices]  # a streamed file's: rows in the worker
    return g.participant, g.session, records, [source.numbers[i] for i in g.indices]


def _build(name: str, options: ImportOptions, shell: tuple, payload: list) -> list[tuple]:
    """In a worker: each session of ``payload`` built by format ``name``, its texts made."""
    from . import FORMATS  # the worker's own import of the formats

    fmt = FORMATS[name]
    with gc_paused():  # as in the command's process (see import_files)
        return [_build_one(fmt, options, shell, *one) for one in payload]


def _build_one(fmt: Format, options: ImportOptions, shell: tuple, participant: str,
               session: int, records: list, numbers: list[int]) -> tuple:  # fmt: skip
    """One session: ``("made", *made(...))`` or ``("error", args, attributes)``."""
    path, sha256, kind, columns, streamed = shell
    rows = [record_row(r) for r in records] if streamed else records
    source = Source(Path(path), sha256, kind, columns=list(columns), rows=rows, numbers=numbers)
    group = Group(participant, session, list(range(len(rows))))
    try:
        return ("made", *made(fmt.session(source, options, group)))  # type: ignore[misc]
    except ImportSourceError as exc:
        return ("error", exc.args, dict(vars(exc)))


def made(s: ImportedSession) -> Made:
    """A built session's texts (its log's and its sidecar's, as the writer writes them); the
    session keeps no rows and no source (its process's are re-attached)."""
    text, n = event_log_text(s.rows)
    side = _sidecars().text(s, log_name(s.participant, s.session, s.format), n)
    s.rows = []
    s.source = None  # type: ignore[assignment]
    return s, text, n, side


@cache
def _sidecars() -> SidecarTexts:
    """The worker's sidecar texts (one template per process)."""
    return SidecarTexts()


def _error(args: tuple, attributes: dict[str, Any]) -> ImportSourceError:
    """A worker's error as it was raised there (message, where, field, value, fix)."""
    exc = ImportSourceError.__new__(ImportSourceError)
    exc.args = args
    vars(exc).update(attributes)
    if isinstance(exc.value, type(NO_VALUE)):
        exc.value = NO_VALUE  # the marker itself, not the worker's copy of it
    return exc
