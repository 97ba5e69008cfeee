"""Where an interrupted session stands: what is finished, what was cut off.

Pure (no PsychoPy): the runner asks it where to continue, the tests check it.
The log is split into attempts by :func:`~tol_tasks.session_data.attempts.log_attempts`,
the one walker every reader uses; the sidecar is read with its model
(:class:`~tol_tasks.session_data.sidecar.Sidecar`). A planning-only problem (its
``planning_onset`` up to its ``planning_end``) is read here from its rows: one without its
end (cut off) is answered again, as a cut-off attempt is. What the session does next
is the session plan's decision (:mod:`tol_tasks.session_data.plan`).
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from tol_tasks.errors import TolTasksError
from tol_tasks.protocol_format.issues import ProtocolError
from tol_tasks.protocol_format.load import load_protocol, load_protocol_text
from tol_tasks.protocol_format.loaded import LoadedProtocol

from .attempts import PROBLEM, log_attempts
from .eventlog import (
    NEVER_STARTED,
    EventLogData,
    EventLogError,
    column_index,
    columns,
    never_started,
    read_event_log,
)
from .session_key import same_task, task_of
from .sidecar import Sidecar, SidecarError

#: Rows after which a planning-only problem without its ``planning_end`` was cut off (as a
#: cut-off attempt, it runs on past a ``resume`` row to the next onset).
_CLOSES_PLANNING = {"trial_onset", "copy_onset"}


class ResumeError(TolTasksError, ValueError):
    """A session cannot be resumed; the message says why and what to do."""


@dataclass
class Progress:
    """How far a session got, from its event log.

    Attributes
    ----------
    outcomes : dict
        (block, problem id) -> outcomes of its ended attempts, in order.
    discontinued : set
        Blocks ended by the discontinue rule.
    interrupted : tuple or None
        (block, problem id) of the attempt the log ends in, cut off before its end.
    last_trial : int
        The last trial number used.
    last_row : int
        The last complete row.
    last_time : float
        The last event time on the session clock.
    instructions_done : bool
        Some problem was already shown.
    """

    outcomes: dict = field(default_factory=lambda: defaultdict(list))
    discontinued: set = field(default_factory=set)
    interrupted: tuple | None = None
    last_trial: int = 0
    last_row: int = 0
    last_time: float = 0.0
    instructions_done: bool = False

    def finished(self, block: str, problem_id: str, attempts: int) -> bool:
        """Solved, or every one of its ``attempts`` used."""
        done = self.outcomes.get((block, problem_id), [])
        return "solved" in done or len(done) >= attempts

    def attempts_used(self, block: str, problem_id: str) -> int:
        """Attempts of the problem that reached their end."""
        return len(self.outcomes.get((block, problem_id), []))


def progress_of(data: EventLogData) -> Progress:
    """Read a session's progress from its event log."""
    p = Progress()
    c = column_index()
    i_time, i_row, i_event, i_block = c["time"], c["row"], c["event"], c["block"]
    i_trial, i_problem, i_reason = c["trial"], c["problem_id"], c["reason"]
    planning = None  # (block, problem id, trial) of a planning-only problem not ended yet
    for rec in data.records:
        if rec[i_time]:
            p.last_time = max(p.last_time, float(rec[i_time]))
        p.last_row = int(rec[i_row])
        event = rec[i_event]
        if event == "discontinue":
            p.discontinued.add(rec[i_block])
        elif event == "planning_onset":
            planning = (rec[i_block], rec[i_problem], rec[i_trial])
            p.last_trial = max(p.last_trial, int(rec[i_trial]))
            p.instructions_done = True
        elif event == "planning_end" and planning is not None and rec[i_trial] == planning[2]:
            p.outcomes[planning[:2]].append(rec[i_reason])
            planning = None
        elif event in _CLOSES_PLANNING:  # a planning problem cut off: answered again
            planning = None
    attempts = log_attempts(data)
    for a in attempts:
        p.last_trial = max(p.last_trial, a.trial)
        if a.kind == PROBLEM:
            p.instructions_done = True
            if a.complete:
                p.outcomes[(a.block, a.problem_id)].append(a.outcome)
    last = attempts[-1] if attempts else None
    if planning is not None:
        p.interrupted = planning[:2]
    elif last is not None and last.kind == PROBLEM and not last.complete:
        p.interrupted = (last.block, last.problem_id)
    return p


@dataclass
class ResumePlan:
    """Everything the runner needs to continue a session."""

    log: Path
    sidecar: Path
    meta: Sidecar
    protocol: LoadedProtocol
    progress: Progress
    protocol_note: str = ""


def plan_resume(log: str | Path, force: bool = False) -> ResumePlan:
    """Check that ``log`` can be resumed and say how.

    Raises
    ------
    ResumeError
        Missing or damaged sidecar, a completed session, a changed protocol
        (unless ``force``), an unreadable log.
    """
    log = Path(log)
    side = log.with_suffix(".json")
    if not log.is_file():
        raise ResumeError(f"{log}: no such event log.", where=str(log),
                          fix="give the .csv file of the interrupted session.")  # fmt: skip
    if never_started(log):
        raise ResumeError(
            f"{log}: this session never started: it was cut off before its first event was "
            "recorded, so there is nothing to resume. The file is kept; it does not count as "
            "a session and blocks nothing.", where=str(log),
            fix="start the session again, with the command that started it (the same "
            "protocol, participant and session).",
        )  # fmt: skip
    try:
        meta = Sidecar.read(side)
    except SidecarError as exc:
        raise ResumeError(
            f"{side}: the sidecar is missing or damaged ({exc.message}); resuming needs it for "
            "the protocol and the problem order.", where=str(side), fix="restore it from a backup.",
        ) from None  # fmt: skip
    if meta.status == "completed":
        raise ResumeError(f"{log}: this session is already completed; there is nothing to resume.",
                          where=str(log))  # fmt: skip
    try:
        data = read_event_log(log)
        progress = progress_of(data)
    except EventLogError as exc:
        raise ResumeError(f"cannot resume: {exc}", where=exc.where) from None
    proto = meta.protocol
    path, sha, note = proto.path, proto.sha256, ""
    try:
        if path and Path(path).is_file():
            lp = load_protocol(path)
            if lp.sha256 != sha:
                if not force:
                    raise ResumeError(
                        f"the protocol {path} changed since the session started (SHA-256 "
                        f"{sha[:12]}... then, {lp.sha256[:12]}... now).", where=path,
                        fix="restore the original file, or pass --force to resume with the "
                        "current version.",
                    )  # fmt: skip
                note = f"resumed with a changed protocol (sha256 {lp.sha256})"
        else:
            lp = load_protocol_text(proto.text, f"{side} (copy of {path})")
            note = f"protocol file {path} not found; resumed with the copy kept in the sidecar"
    except ProtocolError as exc:
        raise ResumeError(f"cannot resume: {exc}", where=exc.where) from None
    return ResumePlan(log, side, meta, lp, progress, note)


@dataclass(frozen=True)
class SessionLog:
    """An event log found in a data folder, and what its sidecar says of it.

    ``status`` is None and ``protocol`` as its first row names it when the log has
    no readable sidecar.
    """

    log: Path
    participant: str
    session: int
    protocol: str | None
    status: str | None
    rows: int | None

    def describe(self) -> str:
        """E.g. ``P1_demo_2026-11-22_14h03.07.123.csv (aborted, 28 rows)``."""
        status = self.status or "no sidecar"
        rows = f", {self.rows} rows" if self.rows is not None else ""
        return f"{self.log.name} ({status}{rows})"


def session_logs(folder: str | Path, participant: str, session: int,
                 protocol: str | None = None) -> list[SessionLog]:  # fmt: skip
    """Every event log of ``participant``'s ``session`` in ``folder`` (of ``protocol`` if
    given: the same task by :func:`tol_tasks.session_data.session_key.same_task`, so another
    protocol played in the same visit is another task), oldest first, with or without a
    sidecar, whatever its status.

    Sidecars are read as plain JSON (a folder can hold thousands); a log without one
    is known by its first row.
    """
    folder = Path(folder)
    found = []
    if not folder.is_dir():
        return found
    for log in folder.glob("*.csv"):
        side = log.with_suffix(".json")
        if never_started(log):
            entry = _never_started(log, side, participant, session)
        else:
            entry = _from_sidecar(log, side) if side.is_file() else _from_first_row(log)
        if (entry is not None and entry.participant == participant and entry.session == session
                and (protocol is None or same_task(entry.protocol, protocol))):  # fmt: skip
            found.append(entry)
    return sorted(found, key=lambda e: (e.log.stat().st_mtime, e.log.name))


def _never_started(log: Path, side: Path, participant: str, session: int) -> SessionLog | None:
    """A log that never started (status :data:`NEVER_STARTED`): whose it is, by its sidecar
    if it has one, else by its name (``<participant>_<protocol>_...``, whatever the session,
    or ``sub-<participant>_ses-<n>_task-<protocol>_...``)."""
    entry = _from_sidecar(log, side) if side.is_file() else None
    if entry is not None:
        return SessionLog(log, entry.participant, entry.session, entry.protocol, NEVER_STARTED, 0)
    name = log.name
    for head, with_session in ((f"sub-{participant}_ses-{session}_task-", True),
                               (f"{participant}_", False)):  # fmt: skip
        if name.startswith(head):
            protocol = name[len(head) :].split("_")[0] if with_session else None
            return SessionLog(log, participant, session, protocol, NEVER_STARTED, 0)
    return None


def _from_sidecar(log: Path, side: Path) -> SessionLog | None:
    try:
        data = json.loads(side.read_text(encoding="utf-8"))
        proto = data.get("protocol") or {}
        return SessionLog(log, str(data["participant"]), int(data["session"]), proto.get("name"),
                          data.get("status"), data.get("rows_written"))  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return _from_first_row(log)  # a damaged sidecar: the log says whose it is


#: The columns every event log starts with (format 1's; later formats add columns after them).
_V1_COLUMNS = list(columns(1))


def _from_first_row(log: Path) -> SessionLog | None:
    try:
        with log.open(encoding="utf-8", newline="") as f:
            reader = csv.reader(f)
            header = next(reader)
            if header[: len(_V1_COLUMNS)] != _V1_COLUMNS:
                return None  # another CSV (e.g. Builder's own data file beside it)
            first = dict(zip(header, next(reader), strict=False))
        protocol = task_of(first.get("detail", "")) or None
        return SessionLog(log, first["participant"], int(first["session"]), protocol, None, None)
    except (OSError, UnicodeDecodeError, csv.Error, StopIteration, KeyError, ValueError):
        return None  # not an event log


def find_interrupted(folder: str | Path, participant: str, session: int) -> Path:
    """The newest unfinished session log of ``participant``'s ``session`` in ``folder``.

    Raises
    ------
    ResumeError
        When there is none, saying what was found instead.
    """
    folder = Path(folder)
    found = [e for e in session_logs(folder, participant, session)
             if e.status not in (None, NEVER_STARTED)]  # fmt: skip
    unfinished = [e.log for e in found if e.status != "completed"]
    if unfinished:
        return unfinished[-1]
    if found:
        raise ResumeError(
            f"participant {participant} session {session} in {folder} is already completed; "
            "there is nothing to resume.", where=str(folder),
        )  # fmt: skip
    raise ResumeError(
        f"no session of participant {participant}, session {session} in {folder}.",
        where=str(folder),
        fix="check --participant, --session and --output, or give the session's .csv file.",
    )
