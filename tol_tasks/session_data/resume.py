"""Where an interrupted session stands: what is finished, what was cut off.

Pure (no PsychoPy): the runner asks it where to continue, the tests check it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from tol_tasks.errors import TolTasksError
from tol_tasks.protocol_format.load import load_protocol, load_protocol_text
from tol_tasks.protocol_format.model import LoadedProtocol, ProtocolError

from .eventlog import EventLogError, read_event_log
from .sidecar import read_sidecar


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
        (block, problem id) of an attempt that began and never ended.
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
        done = self.outcomes.get((block, problem_id), [])
        return "solved" in done or len(done) >= attempts

    def attempts_used(self, block: str, problem_id: str) -> int:
        return len(self.outcomes.get((block, problem_id), []))


def progress_of(rows: list[dict]) -> Progress:
    """Read a session's progress from its event log rows."""
    p = Progress()
    open_trial = None
    for r in rows:
        ev = r["event"]
        if r["time"]:
            p.last_time = max(p.last_time, float(r["time"]))
        p.last_row = int(r["row"])
        if r["trial"]:
            p.last_trial = max(p.last_trial, int(r["trial"]))
        if ev == "trial_onset":
            p.instructions_done = True
            open_trial = (r["block"], r["problem_id"])
        elif ev == "trial_end":
            p.outcomes[(r["block"], r["problem_id"])].append(r["reason"])
            open_trial = None
        elif ev == "discontinue":
            p.discontinued.add(r["block"])
    p.interrupted = open_trial
    return p


@dataclass
class ResumePlan:
    """Everything the runner needs to continue a session."""

    log: Path
    sidecar: Path
    meta: dict
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
        raise ResumeError(
            f"{log}: no such event log. Suggested fix: give the .csv file of the interrupted session."
        )
    try:
        meta = read_sidecar(side)
    except (OSError, ValueError) as exc:
        raise ResumeError(
            f"{side}: the sidecar is missing or damaged ({exc}); resuming needs it for the "
            "protocol and the problem order. Suggested fix: restore it from a backup."
        ) from None
    if meta.get("status") == "completed":
        raise ResumeError(f"{log}: this session is already completed; there is nothing to resume.")
    try:
        data = read_event_log(log)
    except EventLogError as exc:
        raise ResumeError(f"cannot resume: {exc}") from None
    proto = meta.get("protocol", {})
    path, sha, note = proto.get("path"), proto.get("sha256"), ""
    try:
        if path and Path(path).is_file():
            lp = load_protocol(path)
            if lp.sha256 != sha:
                if not force:
                    raise ResumeError(
                        f"the protocol {path} changed since the session started (SHA-256 "
                        f"{sha[:12]}... then, {lp.sha256[:12]}... now). Suggested fix: restore the "
                        "original file, or pass --force to resume with the current version."
                    )
                note = f"resumed with a changed protocol (sha256 {lp.sha256})"
        else:
            lp = load_protocol_text(proto["text"], f"{side} (copy of {path})")
            note = f"protocol file {path} not found; resumed with the copy kept in the sidecar"
    except ProtocolError as exc:
        raise ResumeError(f"cannot resume: {exc}") from None
    return ResumePlan(log, side, meta, lp, progress_of(data.rows), note)


def find_interrupted(folder: str | Path, participant: str, session: int) -> Path:
    """The newest unfinished session log of ``participant``'s ``session`` in ``folder``.

    Raises
    ------
    ResumeError
        When there is none, saying what was found instead.
    """
    folder = Path(folder)
    found = []
    for side in sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime):
        try:
            meta = read_sidecar(side)
        except (OSError, ValueError):
            continue
        if meta.get("participant") == participant and str(meta.get("session")) == str(session):
            found.append((side.with_suffix(".csv"), meta.get("status")))
    unfinished = [log for log, status in found if status != "completed" and log.is_file()]
    if unfinished:
        return unfinished[-1]
    if found:
        raise ResumeError(
            f"participant {participant} session {session} in {folder} is already completed; "
            "there is nothing to resume."
        )
    raise ResumeError(
        f"no session of participant {participant}, session {session} in {folder}. Suggested fix: "
        "check --participant, --session and --output, or give the session's .csv file."
    )
