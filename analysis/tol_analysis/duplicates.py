"""One session, one log: copies and restarts of a participant session found before scoring.

A data folder can hold more than one log of a participant session:

- a **copy** (a backup, a file copied twice): the same bytes, the same rows,
  or the rows of the other log up to some point (a copy made while the
  session ran, before it went on or was resumed). The copy is left out and a
  note names both files; the most complete log is scored.
- a **new attempt** started on purpose (``tol-run --new-attempt``, a Builder
  experiment run again): its sidecar's ``earlier_attempts`` names the earlier
  logs and ``session_attempt`` counts the starts. The latest attempt is the
  session; the earlier ones are left out with a note.
- **two different logs** of one session with neither of the above (a session
  started again after a crash instead of resumed, a participant id typed
  twice): which one is the participant's session cannot be known, so it is an
  error (:class:`DuplicateSessionError`) naming every file and the fix.

:func:`sort_out` looks only at each log's first row (and reads whole only the
logs of sessions that have several), so scoring stays one pass over the data.
:func:`tol_analysis.score.score_sessions` refuses a second log of a session
that reaches it anyway: a (participant, session, trial, attempt) key is never
written twice.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from tol_tasks.session_data.eventlog import EventLogError, read_event_log

#: What to do about two different logs of one participant session (said in every such error).
TWO_LOGS_FIX = (
    "keep one log of the session in the folders scored (move the other away). To go on with "
    "an interrupted session use tol-run --resume LOG; to run it again on purpose, "
    "tol-run --new-attempt (the earlier log is then left out with a note); if they are "
    "different sessions, one was given the wrong --participant or --session. With "
    "--skip-bad, tol-score leaves out every log of the session."
)


class DuplicateSessionError(EventLogError):
    """Two different logs of one participant session (neither a copy nor a deliberate restart).

    Attributes
    ----------
    paths : list of Path
        Every log of the session.
    """

    def __init__(self, participant: str, session: int, paths: list[Path],
                 facts: list[str] | None = None) -> None:  # fmt: skip
        self.paths = list(paths)
        listed = "; ".join(facts) if facts else ", ".join(map(str, paths))
        super().__init__(
            f"participant {participant!r} session {session} is in {len(paths)} different logs: "
            f"{listed}. They are not copies of each other and none says it was started again "
            "on purpose, so tol-score cannot tell which is the session.",
            where=", ".join(map(str, paths)), field="participant, session",
            value=f"{participant} {session}", fix=TWO_LOGS_FIX,
        )  # fmt: skip


@dataclass
class Sorted:
    """What :func:`sort_out` made of the logs.

    Attributes
    ----------
    logs : list of Path
        The logs to score, at most one per participant session, in input order.
    copies : list of str
        A note for each copy left out, naming the log kept.
    earlier_attempts : list of str
        A note for each earlier attempt left out, naming the attempt kept.
    conflicts : list of DuplicateSessionError
        Sessions in several different logs; none of their logs is in ``logs``.
    """

    logs: list[Path] = field(default_factory=list)
    copies: list[str] = field(default_factory=list)
    earlier_attempts: list[str] = field(default_factory=list)
    conflicts: list[DuplicateSessionError] = field(default_factory=list)

    @property
    def left_out(self) -> list[str]:
        """Every note: the copies, then the earlier attempts."""
        return [*self.copies, *self.earlier_attempts]


def session_key(path: Path) -> tuple[str, int] | None:
    """(participant, session) from a log's first row, or None when it does not say."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f)
            header = next(reader)
            first = next(reader)
        row = dict(zip(header, first, strict=False))
        return row["participant"], int(row["session"])
    except (OSError, UnicodeDecodeError, csv.Error, StopIteration, KeyError, ValueError):
        return None  # reading the log says what is wrong with it


def sort_out(paths: list[Path]) -> Sorted:
    """The logs to score, one per participant session; copies and earlier attempts are
    left out with a note, and several different logs of one session are a conflict."""
    groups: dict[tuple[str, int], list[Path]] = defaultdict(list)
    for p in paths:
        key = session_key(p)
        if key is not None:
            groups[key].append(p)
    out = Sorted()
    dropped: set[Path] = set()
    for (participant, session), group in groups.items():
        if len(group) == 1:
            continue
        # A log that does not read is left to the reader, which says what is wrong with it.
        logs = [log for log in map(_Log, group) if log.rows is not None]
        if len(logs) < 2:
            continue
        kept = _without_copies(logs, out.copies)
        kept = _latest_attempt(kept, out.earlier_attempts, participant, session)
        if len(kept) > 1:
            out.conflicts.append(DuplicateSessionError(participant, session,
                                                       [k.path for k in kept],
                                                       [k.describe() for k in kept]))  # fmt: skip
            dropped.update(log.path for log in logs)
        else:
            dropped.update(log.path for log in logs if log not in kept)
    out.logs = [p for p in paths if p not in dropped]
    return out


class _Log:
    """A log of a session that has several: its bytes' hash, its rows and its sidecar."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._rows: list[list[str]] | bool | None = False
        self.sidecar = _sidecar(path)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.path.read_bytes()).hexdigest()

    @property
    def rows(self) -> list[list[str]] | None:
        """The complete rows (None when the log does not read: scoring will say why)."""
        if self._rows is False:
            try:
                self._rows = [list(r) for r in read_event_log(self.path).records]
            except EventLogError:
                self._rows = None
        return self._rows  # type: ignore[return-value]

    @property
    def named(self) -> bool:
        """Its sidecar names it (it is the recorder's file, not a copy made beside it)."""
        return self.sidecar.get("event_log") == self.path.name

    @property
    def attempt(self) -> int:
        value = self.sidecar.get("session_attempt")
        return value if isinstance(value, int) else 1

    @property
    def earlier(self) -> list[str]:
        value = self.sidecar.get("earlier_attempts")
        return [str(v) for v in value] if isinstance(value, list) else []

    def describe(self) -> str:
        rows = self.rows
        size = f"{len(rows)} rows" if rows is not None else "unreadable"
        status = self.sidecar.get("status") or "no sidecar"
        return f"{self.path} ({size}, {status})"


def _sidecar(path: Path) -> dict:
    try:
        data = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _without_copies(logs: list[_Log], notes: list[str]) -> list[_Log]:
    """The logs that are not copies of another (same bytes, same rows, or its first rows)."""
    # The recorder's own files first, then the longest: the one a copy is compared against.
    order = sorted(logs, key=lambda g: (not g.named, -len(g.rows or [])))
    kept: list[_Log] = []
    for log in order:
        for other in kept:
            how = _copy_of(log, other)
            if how:
                notes.append(f"{log.path}: {how} {other.path}, which is scored")
                break
        else:
            kept.append(log)
    return [log for log in logs if log in kept]  # input order


def _copy_of(log: _Log, other: _Log) -> str:
    """How ``log`` is a copy of ``other`` (empty if it is not)."""
    if log.path.stat().st_size == other.path.stat().st_size and log.digest == other.digest:
        return "an identical copy (the same bytes) of"
    a, b = log.rows, other.rows
    if a is None or b is None or not a:
        return ""
    if a == b:
        return "a copy (the same rows) of"
    if len(a) < len(b) and b[: len(a)] == a:
        return f"an earlier copy (its {len(a)} rows are the first rows) of"
    return ""


def _latest_attempt(logs: list[_Log], notes: list[str], participant: str,
                    session: int) -> list[_Log]:  # fmt: skip
    """The logs left when a deliberate new attempt supersedes the earlier logs it names."""
    superseded = set()
    for log in logs:
        for other in logs:
            if other is not log and other.path.name in log.earlier and log.attempt > other.attempt:
                superseded.add(other.path)
    remaining = [g for g in logs if g.path not in superseded]
    if len(remaining) != 1:
        return remaining  # several logs left: a conflict, every log of the session left out
    (latest,) = remaining
    for log in logs:
        if log.path in superseded:
            notes.append(
                f"{log.path}: attempt {log.attempt} of participant {participant!r} "
                f"session {session}, which was started again on purpose as {latest.path} "
                f"(attempt {latest.attempt}), which is scored. To score the earlier attempt "
                "instead, score it without the later one"
            )
    return remaining
