"""Everything checked before a window opens (no PsychoPy here)."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from tol_tasks.errors import TolTasksError
from tol_tasks.protocol_format.load import load_protocol
from tol_tasks.protocol_format.model import LoadedProtocol
from tol_tasks.session_data.resume import ResumePlan, plan_resume
from tol_tasks.session_data.trial import check_participant_id

from .files import RunConfig, session_paths


class OutputError(TolTasksError, OSError):
    """The data folder cannot be written."""


@dataclass
class Prepared:
    """A checked session: its protocol, its files, and for a resume the plan."""

    protocol: LoadedProtocol
    log: Path
    sidecar: Path
    resume: ResumePlan | None = None


def prepare(config: RunConfig, protocol: LoadedProtocol | None = None) -> Prepared:
    """Check the protocol, the participant id and the data folder (or the session to resume).

    ``protocol``: an already loaded protocol, used instead of ``config.protocol``.

    Fills in participant, session and language from the sidecar when resuming.

    Raises
    ------
    TolTasksError
        ProtocolError, ParticipantIdError, OutputError or ResumeError, each with its fix.
    """
    if config.resume is not None:
        plan = plan_resume(config.resume, force=config.force)
        config.participant = plan.meta["participant"]
        config.session = int(plan.meta["session"])
        config.language = config.language or plan.meta.get("language")
        return Prepared(plan.protocol, plan.log, plan.sidecar, plan)
    lp = protocol if protocol is not None else load_protocol(config.protocol)
    check_participant_id(config.participant)
    check_writable(Path(config.output))
    log, sidecar = session_paths(config, lp.name)
    return Prepared(lp, log, sidecar)


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
            f"{out}: data cannot be written there ({exc.strerror}). Suggested fix: choose "
            "another --output folder, or fix its permissions or free some space."
        ) from None
