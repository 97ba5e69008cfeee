"""Sessions collected in pieces, kept in a data folder that ``tol-score`` reads as it is.

:class:`FolderStorage` (``tol-web serve``'s storage, and ``tol-import``'s for
JATOS results) appends each checked piece (:mod:`tol_tasks.session_data.pieces`)
to its session attempt's event log in ``DATA/<study>/`` and writes the
sidecar beside it, so that ``tol-score DATA/<study>`` scores the sessions
while they are collected. File names come from the server, never from the
client: ``<participant>_<protocol>_<date>.csv`` (the lab's convention), the
date of the attempt's first piece, with the attempt's id added when two
attempts would share a name. Nothing is overwritten: a log only grows (one
``write`` of whole lines, then ``fsync``), a row it holds is never changed,
and the sidecar is replaced (atomically) only by a newer one of the same
attempt. The server's own notes, one per attempt, live in ``DATA/.tol-serve/``.

A participant who starts a session again (another browser, a cleared
storage) makes a new attempt: the server sees the folder, so the new log's
sidecar says which attempt it is (``session_attempt``) and names the earlier
logs (``earlier_attempts``), as ``tol-run --new-attempt`` does, and
``tol-score`` scores the latest.

``tol-web serve --database`` keeps the same in PostgreSQL
(``tol_tasks.web.pgstore``) and exports to the same folder layout.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .eventlog import columns
from .names import date_str
from .pieces import Piece, UploadRefusedError
from .sidecar import write_sidecar

#: The server's notes inside the data folder (never a .csv: tol-score looks past them).
NOTES = ".tol-serve"

#: The event log's header line.
HEADER = ",".join(columns()) + "\n"


@dataclass
class Attempt:
    """What the server knows of one session attempt."""

    study: str
    attempt: str
    participant: str
    session: int
    stem: str
    created: float
    sidecar_rows: int = -1
    sidecar_status: str | None = None
    earlier: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class Receipt:
    """The answer to a stored piece: rows held, and whether the session is complete."""

    rows_held: int
    complete: bool

    def as_json(self) -> dict[str, Any]:
        return {"rows_held": self.rows_held, "complete": self.complete}


def new_rows(held: int, held_line, piece: Piece) -> list[str]:
    """The lines of ``piece`` the attempt does not hold yet (rows ``held + 1`` on).

    ``held_line(row)`` gives a held row's line; rows the piece resends must be
    the same.

    Raises
    ------
    UploadRefusedError
        409: a gap before the piece's first row, or a resent row that differs.
    """
    if piece.first_row > held + 1:
        raise UploadRefusedError(
            409, f"first_row={piece.first_row}: the server holds rows 1 to {held} of this attempt, "
            f"so rows {held + 1} to {piece.first_row - 1} are missing.", field="first_row",
            value=piece.first_row, fix=f"send the rows from row {held + 1} on.", rows_held=held,
        )  # fmt: skip
    for row in range(piece.first_row, min(piece.last_row, held) + 1):
        if held_line(row) != piece.lines[row - piece.first_row]:
            raise UploadRefusedError(
                409, f"row {row}: differs from the row {row} the server holds for this attempt "
                "(a row once stored is never changed).", field="rows", value=row,
                fix="send this attempt's rows as they were first sent; a new session is a new "
                "attempt.", rows_held=held,
            )  # fmt: skip
    return list(piece.lines[max(0, held + 1 - piece.first_row) :])


def collected_sidecar(
    sidecar: dict, attempt: Attempt, storage: str, by: str = "tol-web serve"
) -> dict:
    """The page's sidecar as the server writes it: its log's name, attempt and the collection."""
    out = dict(sidecar)
    out["event_log"] = f"{attempt.stem}.csv"
    out["session_attempt"] = len(attempt.earlier) + 1
    out["earlier_attempts"] = list(attempt.earlier)
    out["collected"] = {
        "by": by,
        "study": attempt.study,
        "attempt_id": attempt.attempt,
        "storage": storage,
        "browser_event_log": sidecar.get("event_log"),
    }
    return out


def receipt(held: int, attempt: Attempt, piece: Piece) -> Receipt:
    """The receipt of a stored piece; a final piece that leaves rows missing is refused (409)."""
    complete = attempt.sidecar_status not in (None, "incomplete") and attempt.sidecar_rows == held
    if piece.final and not complete:
        counted = (piece.sidecar or {}).get("rows_written")
        raise UploadRefusedError(
            409, f"final: the session's sidecar counts {counted} rows, the server holds {held}.",
            field="final", value=counted, fix=f"send rows {held + 1} to {counted} first.",
            rows_held=held,
        )  # fmt: skip
    return Receipt(held, complete)


class FolderStorage:
    """Sessions in a data folder (``DATA/<study>/*.csv`` and ``.json``); see the module's text."""

    kind = "folder"

    def __init__(self, data: str | Path, *, by: str = "tol-web serve"):
        self.data = Path(data)
        self.by = by
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._guard = threading.Lock()
        self._held: dict[tuple[str, str], tuple[int, int]] = {}  # (held rows, file size)
        self._index: dict[str, dict] = {}  # per study: its attempts by session, its stems

    def _lock(self, key: tuple[str, str]) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    def open(self) -> None:
        """Create the data folder; raise OSError when it cannot be written."""
        (self.data / NOTES).mkdir(parents=True, exist_ok=True)
        probe = self.data / NOTES / f".probe-{os.getpid()}"
        probe.write_text("ok")
        probe.unlink()

    def close(self) -> None:
        pass

    def check(self) -> None:
        """Health: the data folder can be written (raises OSError)."""
        self.open()

    # ------------------------------------------------------------------ attempts
    def _note_path(self, study: str, attempt: str) -> Path:
        return self.data / NOTES / study / f"{attempt}.json"

    def _read_note(self, study: str, attempt: str) -> Attempt | None:
        try:
            data = json.loads(self._note_path(study, attempt).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        return Attempt(**data)

    def _write_note(self, a: Attempt) -> None:
        path = self._note_path(a.study, a.attempt)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(a.as_json()), encoding="utf-8")
        os.replace(tmp, path)

    def attempts(self, study: str) -> Iterator[Attempt]:
        for p in sorted((self.data / NOTES / study).glob("*.json")):
            yield Attempt(**json.loads(p.read_text(encoding="utf-8")))

    def _known(self, study: str) -> dict:
        """The study's attempts by session and its file stems (read once, then kept up to date)."""
        index = self._index.get(study)
        if index is None:
            index = {"sessions": {}, "stems": set()}
            for a in self.attempts(study):
                index["sessions"].setdefault((a.participant, a.session), []).append(a)
                index["stems"].add(a.stem)
            self._index[study] = index
        return index

    def _new_attempt(self, study, piece: Piece, stem: str | None, created: float | None) -> Attempt:
        """A new attempt's note: its file name and the earlier attempts of its session."""
        with self._lock((study.name, "")):  # one new attempt of a study at a time: names, numbers
            now = time.time() if created is None else created
            known = self._known(study.name)
            session = known["sessions"].setdefault((piece.participant, piece.session), [])
            earlier = sorted(session, key=lambda a: a.created)
            folder = self.data / study.name
            if stem is None:
                stem = f"{piece.participant}_{study.protocol_name}_{date_str(now)}"
                if stem in known["stems"] or (folder / f"{stem}.csv").exists():
                    stem = f"{stem}_{piece.attempt[:8]}"
            a = Attempt(study.name, piece.attempt, piece.participant, piece.session, stem, now,
                        earlier=[f"{e.stem}.csv" for e in earlier])  # fmt: skip
            self._write_note(a)
            session.append(a)
            known["stems"].add(stem)
            return a

    # ------------------------------------------------------------------ the log
    def _log_path(self, a: Attempt) -> Path:
        return self.data / a.study / f"{a.stem}.csv"

    def _read_held(self, a: Attempt) -> tuple[int, bytes | None]:
        """Rows the attempt's log holds (a torn last line, left by a crash, is cut off first)."""
        path = self._log_path(a)
        key = (a.study, a.attempt)
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return 0, None
        cached = self._held.get(key)
        if cached is not None and cached[1] == size:
            return cached[0], None
        raw = path.read_bytes()
        end = raw.rfind(b"\n") + 1
        if end < len(raw):  # our own write, cut short by a crash: never a whole row
            with open(path, "r+b") as f:
                f.truncate(end)
                os.fsync(f.fileno())
            raw = raw[:end]
        held = max(0, raw.count(b"\n") - 1)
        self._held[key] = (held, len(raw))
        return held, raw

    def store(self, study, piece: Piece, *, stem: str | None = None,
              created: float | None = None) -> Receipt:  # fmt: skip
        """Append ``piece`` to its attempt's log (and write its sidecar); the receipt.

        ``study``: its ``name`` (the folder inside the data folder; "" for the
        data folder itself) and ``protocol_name`` (in new file names). ``stem``
        and ``created`` name a new attempt's files and date (default: the
        server's, from now).

        Raises
        ------
        UploadRefusedError
            409 for a piece of another participant's or session's attempt, a
            gap, or a resent row that differs (nothing is written then).
        """
        with self._lock((study.name, piece.attempt)):
            a = self._read_note(study.name, piece.attempt)
            if a is None:
                a = self._new_attempt(study, piece, stem, created)
            elif (a.participant, a.session) != (piece.participant, piece.session):
                raise UploadRefusedError(
                    409, f"attempt {piece.attempt[:8]}... is participant {a.participant!r}, "
                    f"session {a.session}; this piece says {piece.participant!r}, session "
                    f"{piece.session}.", field="attempt", value=piece.attempt[:8],
                    fix="send each session with its own attempt id.",
                )  # fmt: skip
            held, raw = self._read_held(a)
            lines_of = None

            def held_line(row: int) -> str:
                nonlocal raw, lines_of
                if lines_of is None:
                    raw = raw if raw is not None else self._log_path(a).read_bytes()
                    lines_of = raw.decode("utf-8").splitlines(keepends=True)
                return lines_of[row]  # line 0 is the header

            add = new_rows(held, held_line, piece)
            if add:
                self._append(a, held, add)
                held += len(add)
            sidecar = piece.sidecar
            if sidecar is not None and sidecar.get("rows_written", 0) >= a.sidecar_rows:
                self._write_sidecar(a, sidecar)
            return receipt(held, a, piece)

    def _append(self, a: Attempt, held: int, lines: list[str]) -> None:
        path = self._log_path(a)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = "".join(lines).encode("utf-8")
        if held == 0 and not path.exists():
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
            data = HEADER.encode("utf-8") + data
        else:
            flags = os.O_WRONLY | os.O_APPEND
        fd = os.open(path, flags, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        self._held[(a.study, a.attempt)] = (held + len(lines), path.stat().st_size)

    def _write_sidecar(self, a: Attempt, sidecar: dict) -> None:
        self.write_collected(a, collected_sidecar(sidecar, a, self.kind, self.by))

    def write_collected(self, a: Attempt, sidecar: dict) -> None:
        """Write the sidecar of attempt ``a`` as the server keeps it (atomically), and note it."""
        (self.data / a.study).mkdir(parents=True, exist_ok=True)
        write_sidecar(self.data / a.study / f"{a.stem}.json", sidecar)
        a.sidecar_rows = sidecar.get("rows_written", 0)
        a.sidecar_status = sidecar.get("status")
        self._write_note(a)

    def note(self, study: str, attempt: str) -> Attempt | None:
        """What the server noted of an attempt (None: none)."""
        return self._read_note(study, attempt)
