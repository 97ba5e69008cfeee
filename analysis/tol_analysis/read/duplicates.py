"""One session task, one log: copies and restarts found before scoring.

What makes two logs the same session is declared once, in
:mod:`tol_tasks.session_data.session_key` (participant, session and task: a
Hanoi and a London protocol played in one visit are two tasks of one session,
both scored). A data folder can hold more than one log of a session task:

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
  twice, a browser link opened in two browsers): which one is the participant's
  session cannot be known, so it is an error (:class:`DuplicateSessionError`)
  naming every file and a fix that fits where the logs came from (the lab,
  the browser, an import).

:func:`sort_out` looks only at each log's first row (and reads whole only the
logs of sessions that have several), so scoring stays one pass over the data.
:func:`tol_analysis.score.scores.score_sessions` refuses a second log of a session
that reaches it anyway: a (participant, session, protocol, trial, attempt) key is
never written twice.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from tol_tasks.session_data.eventlog import EventLogError, first_row, first_row_in, read_event_log
from tol_tasks.session_data.session_key import SessionKey, conflict_fix, origin, task_of

#: Said after the fix of every conflict: what --skip-bad does with it.
SKIP_BAD_NOTE = "With --skip-bad, tol-score leaves out every log of the session task."


class DuplicateSessionError(EventLogError):
    """Two different logs of one session task (neither a copy nor a deliberate restart).

    Attributes
    ----------
    paths : list of Path
        Every log of the session task.
    key : SessionKey
    """

    def __init__(self, key: SessionKey, paths: list[Path], facts: list[str] | None = None,
                 origins: list[str] | None = None) -> None:  # fmt: skip
        self.paths = list(paths)
        self.key = SessionKey(*key)
        listed = "; ".join(facts) if facts else ", ".join(map(str, paths))
        if origins is None:
            origins = [origin(_sidecar(Path(p))) for p in paths]
        super().__init__(
            f"{self.key.describe()} is in {len(paths)} different logs: {listed}. They are not "
            "copies of each other and none says it was started again on purpose, so "
            "tol-score cannot tell which is the session.",
            where=", ".join(map(str, paths)), field="participant, session, protocol",
            value=f"{self.key.participant} {self.key.session} {self.key.task}".rstrip(),
            fix=f"{conflict_fix(origins)}. {SKIP_BAD_NOTE}",
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


def session_key(path: Path) -> SessionKey | None:
    """(participant, session, task) from a log's first row (rule I1 of
    :mod:`tol_tasks.session_data.session_key`), or None when it does not say."""
    return _key_of(first_row(path))


def session_key_in(head: bytes, path: Path) -> SessionKey | None:
    """:func:`session_key` of the log ``path`` whose beginning ``head`` has been read
    (:func:`tol_tasks.session_data.eventlog.read_head`)."""
    return _key_of(first_row_in(head, path))


def _key_of(row: dict[str, str] | None) -> SessionKey | None:
    try:
        return SessionKey(row["participant"], int(row["session"]), task_of(row["detail"]))
    except (TypeError, KeyError, ValueError):
        return None  # reading the log says what is wrong with it


def sort_out(paths: list[Path], keys: dict[Path, SessionKey | None] | None = None) -> Sorted:
    """The logs to score, one per participant session; copies and earlier attempts are
    left out with a note, and several different logs of one session are a conflict.

    ``keys``: each log's :func:`session_key` when already known (:attr:`Scan.keys
    <tol_analysis.read.find.Scan.keys>`: the logs are then not opened again); the others are
    read."""
    groups: dict[tuple[str, int], list[tuple[Path, SessionKey]]] = defaultdict(list)
    for p in paths:
        key = keys[p] if keys is not None and p in keys else session_key(p)
        if key is not None:
            groups[key[:2]].append((p, key))
    out = Sorted()
    dropped = _sort_groups(groups.values(), out)
    out.logs = [p for p in paths if p not in dropped]
    return out


def sort_out_found(files) -> Sorted:
    """:func:`sort_out` of the logs a search kept on disk (:class:`~tol_analysis.read.spill.
    FoundFiles`): only the sessions named by several logs are looked into; ``logs`` is
    then the files' :meth:`~tol_analysis.read.spill.FoundFiles.to_score` (read back from disk)."""
    out = Sorted()
    groups = ([(p, SessionKey(*k)) for p, k in group] for group in files.several())
    files.drop(_sort_groups(groups, out))
    out.logs = files.to_score()
    return out


def _sort_groups(groups, out: Sorted) -> set[Path]:
    """The logs left out of each group of a session's logs (notes and conflicts to ``out``)."""
    dropped: set[Path] = set()
    for group in groups:
        for key, same in _same_task(group):
            if len(same) > 1:
                _sort_task(key, same, out, dropped)
    return dropped


def _same_task(group: list[tuple[Path, SessionKey]]) -> list[tuple[SessionKey, list[Path]]]:
    """A session's logs by task (rule I2); a log naming no task goes with every task of its
    session (rule I4), or stands alone when all name none."""
    named = [k for _, k in group if k.task]
    tasks = list(dict.fromkeys(named)) or [group[0][1]]
    return [(key, [p for p, k in group if k == key or not k.task]) for key in tasks]


def _sort_task(key: SessionKey, group: list[Path], out: Sorted, dropped: set[Path]) -> None:
    """Copies and earlier attempts of one session task left out (with notes), or a conflict."""
    # A log that does not read is left to the reader, which says what is wrong with it.
    logs = [log for log in map(_Log, group) if log.rows is not None]
    if len(logs) < 2:
        return
    kept = _without_copies(logs, out.copies)
    kept = _latest_attempt(kept, out.earlier_attempts, key)
    if len(kept) > 1:
        out.conflicts.append(DuplicateSessionError(
            key, [k.path for k in kept], [k.describe() for k in kept],
            [origin(k.sidecar) for k in kept]))  # fmt: skip
        dropped.update(log.path for log in logs)
    else:
        dropped.update(log.path for log in logs if log not in kept)


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


def _latest_attempt(logs: list[_Log], notes: list[str], key: SessionKey) -> list[_Log]:
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
                f"{log.path}: attempt {log.attempt} of {key.describe()}, which was started "
                f"again on purpose as {latest.path} "
                f"(attempt {latest.attempt}), which is scored. To score the earlier attempt "
                "instead, score it without the later one"
            )
    return remaining
