"""Everything checked before a window opens (no PsychoPy here).

:func:`prepare` reads and checks the protocol once (or takes the one already
read), checks the participant id and the data folder, or, for a resumed
session, the log, its sidecar and its protocol. What it returns is passed
down to the session: nothing reads the protocol again, and the settings it
was given are never changed (a resumed session gets new settings of its own).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from tol_tasks.errors import TolTasksError
from tol_tasks.protocol_format.load import load_protocol
from tol_tasks.protocol_format.model import LoadedProtocol
from tol_tasks.session_data.resume import ResumePlan, plan_resume

from .files import session_paths
from .settings import RunSettings, SettingsError


class OutputError(TolTasksError, OSError):
    """The data folder cannot be written."""


@dataclass(frozen=True)
class Prepared:
    """A checked session: its protocol (read once), its files, its settings, and for a
    resume the plan of where it stands."""

    protocol: LoadedProtocol
    log: Path
    sidecar: Path
    settings: RunSettings
    resume: ResumePlan | None = None


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
        resumed = settings.for_session(plan.meta.participant, plan.meta.session, plan.meta.language)
        _check_language(resumed, plan.protocol)
        return Prepared(plan.protocol, plan.log, plan.sidecar, resumed, plan)
    if protocol is None:
        raise SettingsError("protocol", None, "is missing.",
                            "give a protocol file or a bundled name such as demo.")  # fmt: skip
    lp = protocol if isinstance(protocol, LoadedProtocol) else load_protocol(protocol)
    if settings.participant is None:
        raise SettingsError("participant", None, "is missing.",
                            "give the participant's id, e.g. 'P001'.")  # fmt: skip
    _check_language(settings, lp)
    check_writable(Path(settings.output))
    log, sidecar = session_paths(settings, lp.name)
    return Prepared(lp, log, sidecar, settings)


def _check_language(settings: RunSettings, lp: LoadedProtocol) -> None:
    """The language asked for must be one the protocol has texts in."""
    language = settings.language or lp.model.instructions.default_language
    if language not in lp.languages():
        raise SettingsError("language", language, f"is not a language of the protocol "
                            f"{lp.name!r}: it has no texts in it.",
                            f"choose one of {', '.join(lp.languages())}.")  # fmt: skip


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
