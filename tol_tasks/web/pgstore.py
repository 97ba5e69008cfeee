"""Sessions kept in PostgreSQL (``tol-web serve --database URL``), exported to a data folder.

For a study that outgrows one folder on one machine: the same pieces, the
same checks and answers as :class:`~tol_tasks.session_data.collect.FolderStorage`,
kept in three tables (created when missing): ``tol_attempts`` (one row per
session attempt: study, participant, session, file stem, the latest
sidecar), ``tol_rows`` (one row per event-log row, keyed by study, attempt
and row number, so that a row is stored once and never changed). Each piece
is one transaction that locks its attempt's row.

:func:`export_database` writes every session to a data folder exactly as
``FolderStorage`` lays it out (``tol-web export``), appending to logs an
earlier export wrote, never changing a row; ``tol-score`` reads the folder.

Needs psycopg 3 (``pip install "tol-tasks[postgres]"``).
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tol_tasks.errors import TolTasksError
from tol_tasks.session_data.collect import (
    Attempt,
    FolderStorage,
    Receipt,
    collected_sidecar,
    new_rows,
    receipt,
)
from tol_tasks.session_data.names import date_str
from tol_tasks.session_data.pieces import Piece, UploadRefusedError

from .studies import Study

SCHEMA = """
CREATE TABLE IF NOT EXISTS tol_attempts (
    study text NOT NULL,
    attempt text NOT NULL,
    participant text NOT NULL,
    session integer NOT NULL,
    stem text NOT NULL,
    created double precision NOT NULL,
    earlier jsonb NOT NULL DEFAULT '[]',
    sidecar jsonb,
    sidecar_rows integer NOT NULL DEFAULT -1,
    sidecar_status text,
    PRIMARY KEY (study, attempt),
    UNIQUE (study, stem)
);
CREATE TABLE IF NOT EXISTS tol_rows (
    study text NOT NULL,
    attempt text NOT NULL,
    row integer NOT NULL,
    line text NOT NULL,
    PRIMARY KEY (study, attempt, row)
);
"""


class DatabaseError(TolTasksError, OSError):
    """The database cannot be reached or used; the message says how to fix it."""


def _psycopg():
    try:
        import psycopg
    except ImportError:
        raise DatabaseError(
            "--database needs psycopg 3, which is not installed. Suggested fix: pip install "
            '"tol-tasks[postgres]" (or leave out --database to store in the data folder).'
        ) from None  # fmt: skip
    return psycopg


class PostgresStorage:
    """Sessions in PostgreSQL at ``url`` (a libpq connection string or URI)."""

    kind = "postgresql"

    def __init__(self, url: str, *, pool: int = 8):
        self.url = url
        self._size = pool
        self._pool: queue.LifoQueue = queue.LifoQueue()
        self._made = 0
        self._guard = threading.Lock()

    def _connect(self):
        psycopg = _psycopg()
        try:
            return psycopg.connect(self.url)
        except psycopg.Error as exc:
            raise DatabaseError(
                f"--database: cannot connect ({str(exc).strip().splitlines()[0]}). Suggested fix: "
                "check that PostgreSQL runs, and the address, user and password "
                "(postgresql://USER:PASSWORD@HOST:PORT/DATABASE).", field="--database",
            ) from None  # fmt: skip

    @contextmanager
    def _conn(self) -> Iterator[Any]:
        try:
            conn = self._pool.get_nowait()
        except queue.Empty:
            with self._guard:
                grow = self._made < self._size
                self._made += grow
            conn = self._connect() if grow else self._pool.get()
        try:
            yield conn
        except Exception:
            if not conn.closed:
                conn.rollback()
            raise
        finally:
            if conn.closed or conn.broken:
                with self._guard:
                    self._made -= 1
            else:
                self._pool.put(conn)

    def open(self) -> None:
        """Connect and create the tables when missing."""
        with self._conn() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(7301)")  # one server creates them
            conn.execute(SCHEMA)

    def close(self) -> None:
        while True:
            try:
                self._pool.get_nowait().close()
            except queue.Empty:
                return

    def check(self) -> None:
        """Health: the database answers."""
        with self._conn() as conn:
            conn.execute("SELECT 1").fetchone()
            conn.commit()

    def store(self, study: Study, piece: Piece) -> Receipt:
        """As :meth:`FolderStorage.store`, in one transaction."""
        with self._conn() as conn, conn.transaction():
            a = self._attempt(conn, study, piece)
            held = conn.execute(
                "SELECT coalesce(max(row), 0) FROM tol_rows WHERE study = %s AND attempt = %s",
                (study.name, piece.attempt),
            ).fetchone()[0]
            overlap = {}
            if piece.first_row <= held:
                overlap = dict(conn.execute(
                    "SELECT row, line FROM tol_rows WHERE study = %s AND attempt = %s "
                    "AND row BETWEEN %s AND %s", (study.name, piece.attempt, piece.first_row,
                                                  min(held, piece.last_row)),
                ).fetchall())  # fmt: skip
            add = new_rows(held, overlap.__getitem__, piece)
            if add:
                with conn.cursor() as cur:
                    cur.executemany(
                        "INSERT INTO tol_rows (study, attempt, row, line) VALUES (%s, %s, %s, %s)",
                        [(study.name, piece.attempt, held + 1 + k, line) for k, line in enumerate(add)],
                    )  # fmt: skip
                held += len(add)
            sidecar = piece.sidecar
            if sidecar is not None and sidecar.get("rows_written", 0) >= a.sidecar_rows:
                a.sidecar_rows = sidecar.get("rows_written", 0)
                a.sidecar_status = sidecar.get("status")
                conn.execute(
                    "UPDATE tol_attempts SET sidecar = %s, sidecar_rows = %s, sidecar_status = %s "
                    "WHERE study = %s AND attempt = %s",
                    (json.dumps(collected_sidecar(sidecar, a, self.kind)), a.sidecar_rows,
                     a.sidecar_status, study.name, piece.attempt),
                )  # fmt: skip
            return receipt(held, a, piece)

    def _attempt(self, conn, study: Study, piece: Piece) -> Attempt:
        """The attempt's row, locked for this transaction (made when new)."""
        row = conn.execute(
            "SELECT participant, session, stem, created, earlier, sidecar_rows, sidecar_status "
            "FROM tol_attempts WHERE study = %s AND attempt = %s FOR UPDATE",
            (study.name, piece.attempt),
        ).fetchone()  # fmt: skip
        if row is None:
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (study.name,))
            now = time.time()
            earlier = [r[0] + ".csv" for r in conn.execute(
                "SELECT stem FROM tol_attempts WHERE study = %s AND participant = %s AND "
                "session = %s ORDER BY created", (study.name, piece.participant, piece.session),
            ).fetchall()]  # fmt: skip
            stem = f"{piece.participant}_{study.protocol_name}_{date_str(now)}"
            taken = conn.execute("SELECT 1 FROM tol_attempts WHERE study = %s AND stem = %s",
                                 (study.name, stem)).fetchone()  # fmt: skip
            if taken:
                stem = f"{stem}_{piece.attempt[:8]}"
            conn.execute(
                "INSERT INTO tol_attempts (study, attempt, participant, session, stem, created, "
                "earlier) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (study.name, piece.attempt, piece.participant, piece.session, stem, now,
                 json.dumps(earlier)),
            )  # fmt: skip
            return Attempt(study.name, piece.attempt, piece.participant, piece.session, stem, now,
                           earlier=earlier)  # fmt: skip
        participant, session, stem, created, earlier, rows, status = row
        if (participant, session) != (piece.participant, piece.session):
            raise UploadRefusedError(
                409, f"attempt {piece.attempt[:8]}... is participant {participant!r}, session "
                f"{session}; this piece says {piece.participant!r}, session {piece.session}.",
                field="attempt", value=piece.attempt[:8],
                fix="send each session with its own attempt id.",
            )  # fmt: skip
        return Attempt(study.name, piece.attempt, participant, session, stem, created, rows, status,
                       list(earlier))  # fmt: skip

    def sessions(self) -> Iterator[tuple[Attempt, list[str], dict | None]]:
        """Every attempt with its rows' lines and its latest sidecar."""
        with self._conn() as conn:
            attempts = conn.execute(
                "SELECT study, attempt, participant, session, stem, created, earlier, "
                "sidecar_rows, sidecar_status, sidecar FROM tol_attempts ORDER BY study, created"
            ).fetchall()  # fmt: skip
            for study, attempt, part, ses, stem, created, earlier, rows, status, side in attempts:
                lines = [r[0] for r in conn.execute(
                    "SELECT line FROM tol_rows WHERE study = %s AND attempt = %s ORDER BY row",
                    (study, attempt),
                ).fetchall()]  # fmt: skip
                a = Attempt(study, attempt, part, ses, stem, created, rows, status, list(earlier))
                yield a, lines, side
            conn.commit()


def export_database(url: str, data: str | Path) -> list[Path]:
    """Write every session kept at ``url`` into the data folder ``data``; the logs written to.

    The layout is :class:`FolderStorage`'s (``DATA/<study>/<stem>.csv`` and
    ``.json``). A log an earlier export wrote gets the rows added since; a
    log that holds a row the database does not (or another row) is an error,
    and nothing of that session is written.

    Raises
    ------
    UploadRefusedError
        Naming the file and the row that differ.
    DatabaseError
        The database cannot be reached.
    """
    db = PostgresStorage(url, pool=1)
    folder = FolderStorage(data)
    folder.open()
    written = []
    try:
        for a, lines, sidecar in db.sessions():
            study = Study(a.study, "", "", "")
            piece = Piece(a.attempt, a.participant, a.session, 1, tuple(lines), None, False)
            folder.store(study, piece, stem=a.stem, created=a.created)
            if sidecar is not None:
                note = folder.note(a.study, a.attempt)
                if a.sidecar_rows >= note.sidecar_rows:
                    folder.write_collected(note, sidecar)
            written.append(folder.data / a.study / f"{a.stem}.csv")
    finally:
        db.close()
    return written
