"""Everything checked before a window opens (no PsychoPy here).

:func:`prepare` reads and checks the protocol once (or takes the one already
read), checks the participant id and the data folder, or, for a resumed
session, the log, its sidecar and its protocol. What it returns is passed
down to the session: nothing reads the protocol again, and the settings it
was given are never changed (a resumed session gets new settings of its own).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tol_tasks.errors import TolTasksError
from tol_tasks.protocol_format.load import load_protocol
from tol_tasks.protocol_format.model import LoadedProtocol
from tol_tasks.session_data.eventlog import NEVER_STARTED
from tol_tasks.session_data.resume import (
    ResumeError,
    ResumePlan,
    SessionLog,
    plan_resume,
    session_logs,
)

from .files import session_paths
from .lock import SessionLock, lock_session
from .settings import RunSettings, SettingsError, cli_flag


class OutputError(TolTasksError, OSError):
    """The data folder cannot be written."""


class SessionExistsError(TolTasksError, ValueError):
    """The participant's session already has a log in the data folder.

    Attributes
    ----------
    logs : list of SessionLog
        Its logs, oldest first.
    resumable : SessionLog or None
        The newest unfinished one (what ``tol-run --resume`` would continue).
    """

    def __init__(self, settings: RunSettings, protocol: str, logs: list[SessionLog]):
        self.logs = logs
        unfinished = [e for e in logs if e.status not in ("completed", None)]
        self.resumable = unfinished[-1] if unfinished else None
        self.head = (
            f"participant {settings.participant} already has "
            f"{'a log' if len(logs) == 1 else f'{len(logs)} logs'} of session "
            f"{settings.session} of {protocol} in {settings.output}: "
            f"{', '.join(e.describe() for e in logs)}. Another would give one session two logs."
        )
        fix = "give another session number, or new_attempt=True to start this one again on "
        fix += "purpose (its sidecar records it as session_attempt)"
        if self.resumable is not None:
            fix += (
                f"; an unfinished session is continued with tol-run --resume {self.resumable.log}"
            )
        super().__init__(self.head, where=str(settings.output), field="session",
                         value=settings.session, fix=fix + ".")  # fmt: skip


@dataclass(frozen=True)
class Prepared:
    """A checked session: its protocol (read once), its files, its settings, for a resume
    the plan of where it stands, and the session's lock (:mod:`.lock`), held from the
    checks until the session ends (:meth:`release`)."""

    protocol: LoadedProtocol
    log: Path
    sidecar: Path
    settings: RunSettings
    resume: ResumePlan | None = None
    earlier: tuple[str, ...] = ()  # logs of the session already in the folder (a new attempt)
    lock: SessionLock | None = field(default=None, compare=False, repr=False)
    never_started: tuple[str, ...] = ()  # logs of the session that never started (kept)

    def release(self) -> None:
        """Release the session's lock (the session has ended, or will not run)."""
        if self.lock is not None:
            self.lock.release()


def prepare(settings: RunSettings, protocol: str | Path | LoadedProtocol | None = None) -> Prepared:
    """Check a session before anything is drawn or written.

    Parameters
    ----------
    settings : RunSettings
        With ``resume`` set, the interrupted session's log: its participant,
        session and (unless given) language come from its sidecar.
    protocol : str, Path or LoadedProtocol
        A protocol file or bundled name (read and checked here, once), or a
        protocol already loaded. Not needed to resume (the sidecar names it).

    Raises
    ------
    TolTasksError
        ProtocolError, ParticipantIdError, SettingsError, OutputError or
        ResumeError, each with its fix.
    """
    if settings.resume is not None:
        plan = plan_resume(settings.resume, force=settings.force)
        meta = plan.meta
        lock = lock_session(plan.log.parent, meta.participant, meta.session, meta.protocol.name)
        try:
            # Read again under the lock: a copy that held it until now may have gone on.
            plan = plan_resume(settings.resume, force=settings.force)
            _check_same_player(settings, plan)
            resumed = settings.for_session(
                meta.participant, meta.session, meta.language, plan.log.parent
            )
            _check_language(resumed, plan.protocol)
        except BaseException:
            lock.release()
            raise
        return Prepared(plan.protocol, plan.log, plan.sidecar, resumed, plan, lock=lock)
    if protocol is None:
        raise SettingsError("protocol", None, "is missing.",
                            "give a protocol file or a bundled name such as demo.")  # fmt: skip
    lp = protocol if isinstance(protocol, LoadedProtocol) else load_protocol(protocol)
    if settings.participant is None:
        raise SettingsError("participant", None, "is missing.",
                            "give the participant's id, e.g. 'P001'.")  # fmt: skip
    _check_language(settings, lp)
    check_writable(Path(settings.output))
    # The lock first, then the folder: a copy started a moment earlier has either written
    # its log (refused below) or still holds the lock (refused here).
    lock = lock_session(Path(settings.output), settings.participant, settings.session, lp.name)
    try:
        found = session_logs(settings.output, settings.participant, settings.session, lp.name)
        earlier = [e for e in found if e.status != NEVER_STARTED]
        if earlier and not settings.new_attempt:
            raise SessionExistsError(settings, lp.name, earlier)
        if settings.new_attempt and not earlier:
            raise SettingsError("new_attempt", True, f"has no effect: participant "
                                f"{settings.participant} has no log of session "
                                f"{settings.session} of {lp.name} in {settings.output} yet.",
                                "leave {this} out.")  # fmt: skip
        log, sidecar = session_paths(settings, lp.name)
    except BaseException:
        lock.release()
        raise
    return Prepared(lp, log, sidecar, settings, earlier=tuple(e.log.name for e in earlier),
                    lock=lock, never_started=tuple(str(e.log) for e in found
                                                   if e.status == NEVER_STARTED))  # fmt: skip


def _check_same_player(settings: RunSettings, plan: ResumePlan) -> None:
    """A session goes on with whoever played it: a person's session is never continued by
    the simulated participant, nor a simulated one by a person."""
    simulated = plan.meta.simulate is not None
    if bool(settings.simulate) == simulated:
        return
    flag = cli_flag("simulate")
    if simulated:
        raise ResumeError(
            f"{plan.log}: this session was played by the simulated participant (a pilot); "
            "continuing it with a person would put real moves into simulated data.",
            where=str(plan.log), field="simulate", value=False,
            fix=f"add {flag} to continue the pilot, or start a new session for the person.",
        )  # fmt: skip
    raise ResumeError(
        f"{plan.log}: this session was played by a person; continuing it with the simulated "
        "participant would mix simulated moves into real data (and its sidecar would call the "
        "whole session simulated).", where=str(plan.log), field="simulate", value=True,
        fix=f"leave {flag} out to continue it with the participant, or pilot in a session of "
        "its own (e.g. --participant sim).",
    )  # fmt: skip


def _check_language(settings: RunSettings, lp: LoadedProtocol) -> None:
    """The language asked for must be one a session of the protocol can run in: every text
    and instruction page in it (:meth:`LoadedProtocol.languages`)."""
    ins = lp.model.instructions
    language = settings.language or ins.default_language
    if language in lp.languages():
        return
    if ins.page_source == "protocol":
        why = (f"is not a language of the protocol {lp.name!r}: it has instruction pages in "
               f"{', '.join(sorted(ins.own_pages))} only.")  # fmt: skip
        fix = f"choose one of {', '.join(lp.languages())}, or add instructions.pages.{language}."
    else:
        why = (f"is not a language of the protocol {lp.name!r}: tol-tasks has no texts (nor "
               "default instruction pages) in it.")  # fmt: skip
        fix = (f"choose one of {', '.join(lp.languages())}, or give the protocol "
               f"instructions.pages.{language} and every text under instructions.messages."
               f"{language}.")  # fmt: skip
    raise SettingsError("language", language, why, fix)


def check_writable(out: Path) -> None:
    """Create the data folder and make sure files can be written there.

    The probe file has a name of its own, so that sessions started at the same
    moment into one shared folder do not remove each other's probe.
    """
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".tol-tasks-write-test-"):
            pass
    except OSError as exc:
        raise OutputError(
            f"{out}: data cannot be written there ({exc.strerror}).", where=str(out),
            fix="choose another --output folder, or fix its permissions or free some space.",
        ) from None  # fmt: skip
