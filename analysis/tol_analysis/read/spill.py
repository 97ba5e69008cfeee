"""Per-session records kept on disk, and sessions found by key without a dict of keys.

The files a search of the inputs found (:class:`FoundFiles`) are kept in an SQLite table
in a temporary file too, so that a million logs are never a million Path objects.

Scoring keeps one record per session (``tol_analysis.score.infos.SessionInfo``) for
``sessions.csv``, which is written after every log is scored (its columns depend on every
session). Held as Python objects they take about 1.5 KB a session; :class:`Records`
spills them, pickled a chunk at a time, to an unnamed temporary file (nothing is left
behind when the process ends, however it ends), so that memory holds one chunk.
:class:`KeyIndex` finds a session's row by its (participant, session, protocol) from
64-bit hashes in two arrays (16 bytes a session), checked for collisions.
"""

from __future__ import annotations

import bisect
import pickle
import sqlite3
import tempfile
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tol_analysis.read.sidecar import may_have_planning

#: Records pickled together: one write (and one read) per chunk.
CHUNK = 2048


class Records(Sequence):
    """Records in order, appended one at a time; in memory, or spilled to disk.

    Parameters
    ----------
    spill_in : path, optional
        A folder for the unnamed temporary file the records are written to, a chunk
        (:data:`CHUNK`) at a time; without it they stay in memory. Reading back
        (an index, a slice, iteration) unpickles only the chunks asked for.
    """

    def __init__(self, spill_in: str | Path | None = None) -> None:
        self._file = None if spill_in is None else tempfile.TemporaryFile(dir=spill_in)  # noqa: SIM115 - closed by close()
        self._new: list[Any] = []  # not yet written
        self._offsets: list[int] = [0]  # each chunk's start in the file, then its end
        self._firsts: list[int] = [0]  # each chunk's first record, then the count written

    def append(self, record: Any) -> None:
        self._new.append(record)
        if self._file is not None and len(self._new) >= CHUNK:
            self._write()

    def _write(self) -> None:
        data = pickle.dumps(self._new, protocol=pickle.HIGHEST_PROTOCOL)
        self._file.seek(self._offsets[-1])
        self._file.write(data)
        self._offsets.append(self._offsets[-1] + len(data))
        self._firsts.append(self._firsts[-1] + len(self._new))
        self._new = []

    def _chunk(self, k: int) -> list[Any]:
        """Chunk ``k`` of those written (the ones not written are the last)."""
        if k == len(self._firsts) - 1:
            return self._new
        self._file.seek(self._offsets[k])
        return pickle.loads(self._file.read(self._offsets[k + 1] - self._offsets[k]))

    def __len__(self) -> int:
        return self._firsts[-1] + len(self._new)

    def __getitem__(self, at):
        if isinstance(at, slice):
            start, stop, step = at.indices(len(self))
            if step != 1:
                return list(self)[at]
            out: list[Any] = []
            k = bisect.bisect_right(self._firsts, start) - 1
            while start < stop:
                chunk, first = self._chunk(k), self._firsts[k]
                out.extend(chunk[start - first : stop - first])
                start = first + len(chunk)
                k += 1
            return out
        n = len(self)
        if not -n <= at < n:
            raise IndexError("record index out of range")
        got = self[at % n : at % n + 1]
        return got[0]

    def __iter__(self) -> Iterator[Any]:
        for k in range(len(self._firsts)):
            yield from self._chunk(k)

    def close(self) -> None:
        """Remove the file (the records are then gone)."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self._new, self._offsets, self._firsts = [], [0], [0]

    def __enter__(self) -> Records:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Texts(Sequence):
    """Texts (paths of logs found) kept as one string and where each ends: no Python
    object per text, and none of the many small objects made while they were found kept
    alive by them (which would keep the memory those used)."""

    def __init__(self, texts: Iterable[str]) -> None:
        parts = [str(t) for t in texts]
        self._ends = np.cumsum([len(t) for t in parts], dtype=np.int64)
        self._all = "".join(parts)

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, at):
        if isinstance(at, slice):
            return [self[k] for k in range(*at.indices(len(self)))]
        end = int(self._ends[at])
        at = at % len(self)
        return self._all[(int(self._ends[at - 1]) if at else 0) : end]

    def __iter__(self) -> Iterator[str]:
        start = 0
        for end in self._ends.tolist():
            yield self._all[start:end]
            start = end


class KeyIndex:
    """Each key's row (its place among ``keys``), kept as sorted 64-bit hashes.

    ``unique`` is False when two keys share a hash (the same key twice, or two keys
    whose hashes collide): the caller then finds rows another way.
    """

    def __init__(self, keys: Iterable[Hashable]) -> None:
        hashes = np.fromiter((hash(k) for k in keys), np.int64)
        self._order = np.argsort(hashes, kind="stable")
        self._sorted = hashes[self._order]
        self.unique = not bool(np.any(self._sorted[1:] == self._sorted[:-1]))

    def __len__(self) -> int:
        return len(self._sorted)

    def rows(self, keys: Iterable[Hashable]) -> np.ndarray:
        """The rows of ``keys`` (each one of the keys indexed, as ``unique`` ones are).

        Raises
        ------
        KeyError
            Naming a key that is not indexed.
        """
        keys = list(keys)
        hashes = np.fromiter((hash(k) for k in keys), np.int64, len(keys))
        at = np.minimum(np.searchsorted(self._sorted, hashes), max(len(self._sorted) - 1, 0))
        found = self._sorted[at] == hashes if len(self._sorted) else np.zeros(len(keys), bool)
        if not found.all():
            raise KeyError(keys[int(np.flatnonzero(~found)[0])])
        return self._order[at]


class Sidecars(Mapping):
    """Each scored session's sidecar (a :class:`~tol_tasks.session_data.sidecar.Sidecar`, or
    None), by (participant, session, protocol); a key of (participant, session) finds the
    sidecar when the session has one task only.

    What is kept of each session is where its sidecar is (read again from that file when
    asked for) and its log, in an SQLite table: in a temporary file on disk with
    ``on_disk`` (deleted when closed, or by SQLite when the process ends), else in memory.
    A sidecar given otherwise than from a file is kept as given.
    """

    def __init__(self, on_disk: bool = False) -> None:
        self._db = sqlite3.connect("" if on_disk else ":memory:", check_same_thread=False)
        self._db.execute("CREATE TABLE s (p TEXT, n INTEGER, t TEXT, log TEXT, side TEXT, "
                         "scored INTEGER DEFAULT 0, UNIQUE (p, n, t))")  # fmt: skip
        self._given: dict[tuple[str, int, str], Any] = {}  # sidecars not read from a file
        #: The sessions whose sidecar's protocol has planning-only problems, and those
        #: with eye tracking: noted as the sidecar is read, so that no sidecar is read
        #: again to learn whether the planning or gaze tables are needed.
        self.with_planning: list[tuple[str, int, str]] = []
        self.with_eyetracking: list[tuple[str, int, str]] = []

    def claim(self, key: tuple[str, int, str], log: str) -> str | None:
        """Note ``log`` as the log of session ``key``; the log noted before it, if any (the
        session is then not the first of its key)."""
        p, n, t = key
        if self._db.execute("INSERT OR IGNORE INTO s (p, n, t, log) VALUES (?, ?, ?, ?)",
                            (p, n, t, log)).rowcount:  # fmt: skip
            return None  # the first (one statement: the usual case)
        return self._db.execute("SELECT log FROM s WHERE p = ? AND n = ? AND t = ?",
                                (p, n, t)).fetchone()[0]  # fmt: skip

    def add(self, key: tuple[str, int, str], log) -> None:
        """Note the sidecar of the scored log ``log`` (a SessionLog) of session ``key``."""
        key = tuple(key)
        meta = log.sidecar
        on_disk = meta is not None and log.sidecar_path is not None
        if meta is not None and not on_disk:
            self._given[key] = meta
        side = str(log.sidecar_path) if on_disk else None
        done = self._db.execute(
            "UPDATE s SET side = ?, scored = 1 WHERE p = ? AND n = ? AND t = ?", (side, *key)
        )  # claimed when score_sessions scored it
        if not done.rowcount:
            self._db.execute("INSERT INTO s (p, n, t, log, side, scored) VALUES (?, ?, ?, ?, ?, 1)",
                             (*key, str(log.path), side))  # fmt: skip
        if meta is None:
            return
        if may_have_planning(meta):
            self.with_planning.append(key)
        if getattr(meta, "eyetracking", None) is not None:
            self.with_eyetracking.append(key)

    def _row(self, key: tuple) -> tuple[tuple[str, int, str], str | None]:
        if len(key) == 2:  # as plain values (a table's cells may be numpy's)
            got = self._db.execute("SELECT p, n, t, side FROM s WHERE p = ? AND n = ? AND "
                                   "scored = 1 LIMIT 2", (str(key[0]), int(key[1]))).fetchall()  # fmt: skip
            if len(got) != 1:
                raise KeyError(key)  # none, or several tasks: say which
        else:
            p, n, t = key
            got = self._db.execute("SELECT p, n, t, side FROM s WHERE p = ? AND n = ? AND t = ? "
                                   "AND scored = 1", (str(p), int(n), str(t))).fetchall()  # fmt: skip
            if not got:
                raise KeyError(key)
        p, n, t, side = got[0]
        return (p, n, t), side

    def __getitem__(self, key: tuple) -> Any:
        key, side = self._row(tuple(key))
        if side is None:
            return self._given.get(key)
        from tol_tasks.session_data.sidecar import Sidecar, SidecarError

        try:
            return Sidecar.read(side)
        except SidecarError:
            return None  # gone or damaged since it was read

    def log_path(self, key: tuple) -> Path | None:
        """The event log of the session ``key`` (None: its sidecar is not a file on disk)."""
        try:
            key, side = self._row(tuple(key))
        except KeyError:
            return None
        meta = self[key] if side is not None else None
        return Path(side).with_name(meta.event_log) if meta is not None else None

    def __iter__(self) -> Iterator[tuple[str, int, str]]:
        rows = self._db.execute("SELECT p, n, t FROM s WHERE scored = 1 ORDER BY rowid")
        return (tuple(r) for r in rows)

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM s WHERE scored = 1").fetchone()[0]

    def close(self) -> None:
        """Let the table go (its file is deleted)."""
        self._db.close()


class FoundFiles:
    """The files a search of the inputs found, each once, in an SQLite table in an unnamed
    temporary file (deleted when closed, or by SQLite when the process ends): a path, what
    its first line said (never started; whose session it is), and where it was found among
    the logs and among the other CSV files (the order :class:`~tol_analysis.read.find.Scan`
    lists them in). Memory holds none of them; :meth:`to_score` reads them back a chunk at a
    time.
    """

    def __init__(self) -> None:
        self._db = sqlite3.connect("", check_same_thread=False)
        self._db.execute("CREATE TABLE f (path TEXT PRIMARY KEY, cut INTEGER, p TEXT, "
                         "n INTEGER, t TEXT, as_log INTEGER DEFAULT 0, log_at INTEGER, "
                         "other_at INTEGER, dropped INTEGER DEFAULT 0)")  # fmt: skip
        self._db.execute("CREATE INDEX f_log_at ON f (log_at)")
        self._at = 0

    def looked(self, path: Path) -> bool:
        """Whether ``path``'s first line was read (:meth:`look`)."""
        return (
            self._db.execute("SELECT 1 FROM f WHERE path = ?", (str(path),)).fetchone() is not None
        )

    def look(self, path: Path, cut: bool, key: tuple | None) -> None:
        """What the first line of ``path`` said: ``cut`` (the log never started) and its
        session's (participant, session, task), or None."""
        p, n, t = key if key is not None else (None, None, None)
        self._db.execute("INSERT INTO f (path, cut, p, n, t) VALUES (?, ?, ?, ?, ?)",
                         (str(path), int(cut), p, n, t))  # fmt: skip

    def mark_log(self, path: Path) -> None:
        """Read ``path`` as an event log wherever it is found."""
        self._db.execute("UPDATE f SET as_log = 1 WHERE path = ?", (str(path),))

    def is_log(self, path: Path) -> bool:
        got = self._db.execute("SELECT as_log FROM f WHERE path = ?", (str(path),)).fetchone()
        return bool(got and got[0])

    def add(self, path: Path, log: bool) -> None:
        """``path`` found (again), as a log or as another CSV file: its first place kept."""
        self._at += 1
        column = "log_at" if log else "other_at"
        self._db.execute(f"UPDATE f SET {column} = ? WHERE path = ? AND {column} IS NULL",
                         (self._at, str(path)))  # fmt: skip

    def _paths(self, where: str, order: str) -> list[Path]:
        rows = self._db.execute(f"SELECT path FROM f WHERE {where} ORDER BY {order}")
        return [Path(r[0]) for r in rows]

    def never_started(self) -> list[Path]:
        return self._paths("log_at IS NOT NULL AND cut = 1", "log_at")

    def left_out(self) -> list[Path]:
        return self._paths("other_at IS NOT NULL AND NOT (log_at IS NOT NULL AND cut = 0)",
                           "other_at")  # fmt: skip

    def logs(self) -> list[Path]:
        """The logs (never started ones apart), in order."""
        return self._paths("log_at IS NOT NULL AND cut = 0", "log_at")

    def keys(self) -> dict[Path, tuple | None]:
        rows = self._db.execute("SELECT path, p, n, t FROM f WHERE log_at IS NOT NULL AND "
                                "cut = 0 ORDER BY log_at")  # fmt: skip
        return {Path(path): (None if p is None else (p, n, t)) for path, p, n, t in rows}

    def count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM f WHERE log_at IS NOT NULL AND "
                                "cut = 0").fetchone()[0]  # fmt: skip

    def several(self) -> Iterator[list[tuple[Path, tuple]]]:
        """Each (participant, session) that more than one log names: its logs and their
        keys, in order (the only logs :func:`~tol_analysis.read.duplicates.sort_out` looks into)."""
        self._db.execute("CREATE INDEX IF NOT EXISTS f_pn ON f (p, n)")
        pairs = self._db.execute("SELECT p, n FROM f WHERE log_at IS NOT NULL AND cut = 0 AND "
                                 "p IS NOT NULL GROUP BY p, n HAVING COUNT(*) > 1").fetchall()  # fmt: skip
        for p, n in pairs:
            rows = self._db.execute("SELECT path, t FROM f WHERE log_at IS NOT NULL AND cut = 0 "
                                    "AND p = ? AND n = ? ORDER BY log_at", (p, n))  # fmt: skip
            yield [(Path(path), (p, n, t)) for path, t in rows]

    def drop(self, paths: Iterable[Path]) -> None:
        """Leave ``paths`` out of :meth:`to_score`."""
        self._db.executemany("UPDATE f SET dropped = 1 WHERE path = ?",
                             [(str(p),) for p in paths])  # fmt: skip

    def to_score(self) -> ToScore:
        return ToScore(self._db)

    def close(self) -> None:
        self._db.close()


class ToScore(Sequence):
    """The logs to score (of :class:`FoundFiles`), in order, read back :data:`CHUNK` at a
    time: how many, and each in turn (no Path kept per log)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self._where = "log_at IS NOT NULL AND cut = 0 AND dropped = 0"
        self._n = db.execute(f"SELECT COUNT(*) FROM f WHERE {self._where}").fetchone()[0]

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, at):
        if isinstance(at, slice):
            return [self[k] for k in range(*at.indices(len(self)))]
        if not -self._n <= at < self._n:
            raise IndexError("log index out of range")
        got = self._db.execute(f"SELECT path FROM f WHERE {self._where} ORDER BY log_at "
                               "LIMIT 1 OFFSET ?", (at % self._n,)).fetchone()  # fmt: skip
        return got[0]

    def __iter__(self) -> Iterator[str]:
        last = -1
        while True:
            rows = self._db.execute(f"SELECT log_at, path FROM f WHERE {self._where} AND "
                                    "log_at > ? ORDER BY log_at LIMIT ?", (last, CHUNK)).fetchall()  # fmt: skip
            if not rows:
                return
            last = rows[-1][0]
            yield from (path for _, path in rows)
