"""A session's log in pieces: the upload protocol between a built page and ``tol-web serve``.

A page sends its event log in pieces as the session goes (after each trial at
least), each piece a JSON object::

    {"format": 1, "attempt": "k3J...", "participant": "P001", "session": 1,
     "first_row": 12, "rows": "<event log lines, no header>",
     "sidecar": {...} or null, "final": false}

with the study's token in ``Authorization: Bearer <token>``. ``attempt`` is
the session attempt's id, drawn by the page when the session starts and kept
across reloads (one attempt = one event log); ``first_row`` is the row number
of the first line sent. The protocol is idempotent: the server answers with
the number of rows it holds for the attempt (``rows_held``), a piece may
resend rows it already holds (they must be the same bytes), and a page that
gets no answer sends the same piece again. ``final`` (with the sidecar of an
ended session) asks the server to confirm that it holds every row the
sidecar counts; only then does the page thank the participant.

:func:`check_piece` checks a piece against the study, the event log's
codebook and the sidecar model before anything is stored; every refusal is
an :class:`UploadRefusedError` with the HTTP status and a reason that names the
field, the value and the fix. The same pieces, appended to a JATOS result,
are read back by ``tol-import`` (format ``jatos``) through the same checks and
:class:`~tol_tasks.session_data.collect.FolderStorage`.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from typing import Any

from tol_tasks.errors import TolTasksError

from .eventlog import EVENT_LOG_VERSION, column_index, columns, row_fault
from .identity import MAX_SESSION, PARTICIPANT_FIX, participant_fault, session_fault
from .sidecar import Sidecar, SidecarError

#: Version of the upload protocol (the pieces' ``format``).
UPLOAD_FORMAT = 1

#: A session attempt's id: drawn by the page (URL-safe base64 of 16 random bytes or more).
ATTEMPT_RE = re.compile(r"^[A-Za-z0-9_-]{16,64}\Z")

#: A study's name on the server: a URL path segment and a folder name.
STUDY_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}\Z")

#: The most rows one piece may carry.
MAX_ROWS_PER_PIECE = 20_000

_KEYS = {"format", "attempt", "participant", "session", "first_row", "rows", "sidecar", "final"}


class UploadRefusedError(TolTasksError, ValueError):
    """A piece the server does not store: ``status`` (HTTP) and the reason, with ``rows_held``."""

    def __init__(self, status: int, message: str, *, rows_held: int | None = None, **kw):
        super().__init__(message, **kw)
        self.status = status
        self.rows_held = rows_held

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": self.message, "field": self.field, "fix": self.fix}
        if self.rows_held is not None:
            out["rows_held"] = self.rows_held
        return out


@dataclass(frozen=True)
class Piece:
    """A checked piece: its rows as lines (each ending in a newline) and as cells."""

    attempt: str
    participant: str
    session: int
    first_row: int
    lines: tuple[str, ...]
    sidecar: dict[str, Any] | None
    final: bool

    @property
    def last_row(self) -> int:
        return self.first_row + len(self.lines) - 1


def _refuse(status: int, field: str, value: Any, message: str, fix: str) -> UploadRefusedError:
    shown = value if not isinstance(value, str) or len(value) <= 80 else value[:80] + "..."
    return UploadRefusedError(
        status, f"{field}={shown!r}: {message}", field=field, value=shown, fix=fix
    )


def check_piece(data: Any, *, protocol_sha256: str | None) -> Piece:
    """Check one piece (parsed JSON) of the study whose protocol has ``protocol_sha256``.

    ``protocol_sha256`` None takes a sidecar of any protocol (pieces read back
    from a JATOS result).

    Raises
    ------
    UploadRefusedError
        Status 400 for what is not a piece, 422 for a field or a row that breaks
        the protocol, the codebook or the sidecar model.
    """
    if not isinstance(data, dict):
        raise UploadRefusedError(400, "the body is not a JSON object (a piece of a session's log).",
                            fix="send the pieces the built page sends.")  # fmt: skip
    unknown = set(data) - _KEYS
    if unknown:
        raise _refuse(422, sorted(unknown)[0], data[sorted(unknown)[0]], "not a field of a piece.",
                      f"send only {', '.join(sorted(_KEYS))}.")  # fmt: skip
    if data.get("format") != UPLOAD_FORMAT:
        raise _refuse(422, "format", data.get("format"), "not an upload format this server reads.",
                      f"rebuild the study with this tol-tasks (format {UPLOAD_FORMAT}).")  # fmt: skip
    attempt = data.get("attempt")
    if not isinstance(attempt, str) or not ATTEMPT_RE.match(attempt):
        raise _refuse(422, "attempt", attempt, "not a session attempt id.",
                      "16 to 64 letters, digits, '-' or '_', as the page draws it.")  # fmt: skip
    participant = data.get("participant")
    fault = participant_fault(participant)
    if fault is not None:
        raise _refuse(422, "participant", participant, f"cannot name a participant: it {fault}",
                      PARTICIPANT_FIX)  # fmt: skip
    session = data.get("session")
    fault = session_fault(session)
    if fault is not None:
        raise _refuse(422, "session", session, f"not a session number: it {fault}",
                      f"a whole number from 1 to {MAX_SESSION}.")  # fmt: skip
    first = data.get("first_row")
    if isinstance(first, bool) or not isinstance(first, int) or first < 1:
        raise _refuse(422, "first_row", first, "not a row number.", "a whole number from 1.")
    final = data.get("final", False)
    if not isinstance(final, bool):
        raise _refuse(422, "final", final, "not true or false.", "true or false.")
    text = data.get("rows")
    if not isinstance(text, str):
        raise _refuse(422, "rows", text, "not text.", "the event log's lines, without the header.")
    lines = _lines(text, participant, session, first)
    sidecar = data.get("sidecar")
    if sidecar is not None:
        _check_sidecar(sidecar, participant, session, protocol_sha256)
    if final and (sidecar is None or sidecar.get("status") == "incomplete"):
        raise _refuse(422, "final", final, "a final piece needs the sidecar of an ended session.",
                      "send the sidecar whose status is completed, aborted or crashed.")  # fmt: skip
    return Piece(attempt, participant, session, first, lines, sidecar, final)


def _lines(text: str, participant: str, session: int, first: int) -> tuple[str, ...]:
    """The piece's rows as lines, each checked against the codebook and numbered in order."""
    if not text:
        return ()
    if not text.endswith("\n"):
        raise _refuse(422, "rows", text[-40:], "the last line does not end with a newline.",
                      "send whole lines, each ending in a newline.")  # fmt: skip
    width = len(columns())
    idx = column_index()
    lines: list[str] = []
    reader = csv.reader(io.StringIO(text, newline=""))
    pos = 0
    for k, cells in enumerate(reader):
        if k >= MAX_ROWS_PER_PIECE:
            raise _refuse(413, "rows", f"{k}+ rows", "too many rows in one piece.",
                          f"send at most {MAX_ROWS_PER_PIECE} rows a piece.")  # fmt: skip
        row_no = first + k
        where = f"row {row_no}"
        if len(cells) != width:
            raise _refuse(422, "rows", where, f"has {len(cells)} cells, the event log (format "
                          f"{EVENT_LOG_VERSION}) has {width} columns.",
                          "send the lines the page's event log wrote.")  # fmt: skip
        if cells[0] != str(row_no):
            raise _refuse(422, "row", cells[0], f"{where} of this piece is numbered {cells[0]!r}.",
                          "number the rows of a piece from first_row, one after another.")  # fmt: skip
        if cells[idx["participant"]] != participant or cells[idx["session"]] != str(session):
            raise _refuse(422, "participant", cells[idx["participant"]],
                          f"{where} belongs to participant {cells[idx['participant']]!r}, session "
                          f"{cells[idx['session']]!r}, not to this piece's "
                          f"({participant!r}, session {session}).",
                          "send each session's rows with its own attempt.")  # fmt: skip
        fault = row_fault(cells)
        if fault is not None:
            raise UploadRefusedError(422, f"{where}: {fault}", field="rows", value=where,
                                fix="send the lines the page's event log wrote.")  # fmt: skip
        end = text.index("\n", pos)
        # A line is what csv read: quoted cells may hold no newline (the log writes none).
        line = text[pos : end + 1]
        if "\r" in line or next(csv.reader([line])) != cells:
            raise _refuse(422, "rows", where, "holds a line break inside a cell.",
                          "send the lines the page's event log wrote.")  # fmt: skip
        lines.append(line)
        pos = end + 1
    return tuple(lines)


def _check_sidecar(data: Any, participant: str, session: int, sha256: str | None) -> None:
    try:
        model = Sidecar.from_dict(data, "sidecar")
    except SidecarError as exc:
        raise UploadRefusedError(422, exc.message, field=f"sidecar.{exc.field}" if exc.field else "sidecar",
                            value=exc.value, fix=exc.fix) from None  # fmt: skip
    if model.participant != participant or model.session != session:
        raise _refuse(422, "sidecar.participant", model.participant,
                      f"the sidecar is of participant {model.participant!r}, session "
                      f"{model.session}, not this piece's ({participant!r}, session {session}).",
                      "send each session's sidecar with its own attempt.")  # fmt: skip
    if sha256 is not None and model.protocol.sha256 != sha256:
        raise _refuse(422, "sidecar.protocol.sha256", model.protocol.sha256,
                      "not the protocol this study was built from.",
                      "send the study's own pages' data here; rebuild the study to change its "
                      "protocol.")  # fmt: skip
    if model.event_log_version != EVENT_LOG_VERSION:
        raise _refuse(422, "sidecar.event_log_version", model.event_log_version,
                      "not the event log format this server stores.",
                      f"rebuild the study with this tol-tasks (format {EVENT_LOG_VERSION}).")  # fmt: skip
