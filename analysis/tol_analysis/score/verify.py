"""A data-integrity check over a folder of sessions (``tol-score --verify``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tol_analysis.read.duplicates import sort_out
from tol_analysis.read.find import NEVER_STARTED_NOTE, scan
from tol_analysis.read.logs import read_session
from tol_analysis.score.scores import score_sessions
from tol_tasks.errors import TolTasksError


@dataclass
class VerifyReport:
    """What :func:`verify` found.

    Attributes
    ----------
    ok : list of Path
        Logs that read, replay and match their sidecar.
    problems : list of str
        Faults: unreadable or contradictory logs, sidecar mismatches, duplicates.
    incomplete : list of str
        Sessions that did not end (cut off, crashed or aborted), with how far they got.
    notes : list of str
        Recoverable facts (torn last lines, missing sidecars).
    """

    ok: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: How many event logs were found.
    checked: int = 0

    def text(self) -> str:
        lines = [f"PROBLEM  {p}" for p in self.problems]
        lines += [f"INCOMPLETE  {p}" for p in self.incomplete]
        lines += [f"note  {p}" for p in self.notes]
        lines.append(
            f"verify: {len(self.ok)} log(s) OK, {len(self.problems)} problem(s), "
            f"{len(self.incomplete)} incomplete session(s)"
        )
        return "\n".join(lines)


def verify(inputs: list[str | Path]) -> VerifyReport:
    """Check every event log under ``inputs``.

    Each log must read (a torn last line is a note), replay legally from every
    trial's start (the same checks as scoring), and agree with its sidecar
    (participant, session, event log name, rows written). A copy of a log, or
    the same participant and session in two different logs, is a problem (as
    :mod:`tol_analysis.read.duplicates` finds them; tol-score leaves copies out and
    refuses different logs); a session started again on purpose is a note;
    sessions that never ended are listed as incomplete.
    """
    report = VerifyReport()
    found = scan(inputs)
    report.checked = len(found.logs)
    report.notes.extend(f"{f}: not an event log (another CSV file in the folder), left out"
                        for f in found.left_out)  # fmt: skip
    report.notes.extend(f"{f}: {NEVER_STARTED_NOTE}" for f in found.never_started)
    for path in found.logs:
        try:
            log = read_session(path)  # every cell checked against the codebook
            score_sessions([log])
        except TolTasksError as exc:
            report.problems.append(str(exc))
            continue
        report.notes.extend(log.warnings)
        faults = _sidecar_faults(log)
        if faults:
            report.problems.extend(f"{path}: {f}" for f in faults)
            continue
        if log.status != "completed":
            report.incomplete.append(
                f"{path}: {log.status} after {log.n_events} events, "
                f"{log.count('trial_end')} trial(s) ended"
            )
        report.ok.append(path)
    one = sort_out(found.logs, found.keys)
    report.problems.extend(str(c) for c in one.conflicts)
    report.problems.extend(one.copies)
    report.notes.extend(one.earlier_attempts)
    return report


def _sidecar_faults(log) -> list[str]:
    meta = log.sidecar
    if log.sidecar_error is not None:
        return [f"the sidecar cannot be read: {log.sidecar_error}"]
    if meta is None:
        return [
            "no sidecar (.json) beside it; the scores need only the log, but the session's metadata is lost"
        ]
    out = []
    if meta.participant != log.participant:
        out.append(
            f"the sidecar's participant {meta.participant!r} is not the log's {log.participant!r}"
        )
    if meta.session != log.session:
        out.append(f"the sidecar's session {meta.session!r} is not the log's {log.session!r}")
    if meta.event_log != log.path.name:
        out.append(f"the sidecar names the log {meta.event_log!r}, not {log.path.name!r}")
    rows = log.n_events
    if meta.status in ("completed", "aborted") and meta.rows_written != rows:
        out.append(f"the sidecar says {meta.rows_written} rows were written, the log has {rows}")
    if meta.status in ("completed", "aborted") and log.status != meta.status:
        out.append(f"the sidecar says the session {meta.status}, the log says {log.status}")
    return out
