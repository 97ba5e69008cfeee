"""Walking an event log into its attempts: the one place that says which rows belong together.

An event log is a flat list of rows. A *problem attempt* begins with a
``trial_onset`` row and a *yoked copy trial* with a ``copy_onset`` row; each
ends with its ``trial_end`` or ``copy_end`` row, or is *cut off* (a crash, the
quit key) when the next attempt begins, or at the end of the log, before
that row. :func:`walk_attempts` finds these spans once, with the checks every
reader needs; resuming, the summary, ``tol-score --verify`` and scoring all
use it, so they cannot disagree about where an attempt starts and ends.

Rules (the contract of event log formats 1 and 2):

- Every row of a copy trial carries ``copy_of``. A ``copy_onset`` row opens a
  copy trial; any copy row closes an open problem attempt (cut off, if it had
  no ``trial_end``); a copy row other than ``copy_onset`` with no open copy
  trial is an error.
- A ``trial_onset`` row closes whatever is open and opens a problem attempt.
- While an attempt is open, every row that has a ``trial`` number must carry
  the attempt's trial, attempt and problem id; a row of another trial is an
  error (two attempts interleaved: the log is damaged).
- Rows outside attempts (``session_start``, ``block_start``, ``resume``, and a
  ``feedback`` row after its ``trial_end``) belong to none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .eventlog import EventLogData, EventLogError, column_index

#: The kinds of attempt.
PROBLEM, COPY = "problem", "copy"


@dataclass(frozen=True, slots=True)
class Attempt:
    """One problem attempt or yoked copy trial: a span of rows of an event log.

    Attributes
    ----------
    kind : {"problem", "copy"}
    trial : int
        Its trial number (from its onset row).
    attempt : int
        Attempt at this problem, from 1 (1 when the cell is empty).
    block, problem_id : str
    copy_of : int or None
        For a copy trial: the trial number of the attempt it copies.
    onset : int
        Index (in the log's complete rows, from 0) of its ``trial_onset`` or
        ``copy_onset`` row. The file row is ``onset + 2`` (row 1 is the header).
    stop : int
        Index one past its last row: its end row, or where the next attempt
        begins, or the end of the log.
    end : int or None
        Index of its ``trial_end`` or ``copy_end`` row; None when it was cut off.
    outcome : str or None
        The end row's ``reason`` (solved, time_out, move_limit; copied); None
        when it was cut off.
    """

    kind: str
    trial: int
    attempt: int
    block: str
    problem_id: str
    copy_of: int | None
    onset: int
    stop: int
    end: int | None
    outcome: str | None

    @property
    def complete(self) -> bool:
        """Whether the attempt reached its end row (False: cut off)."""
        return self.end is not None


def walk_attempts(
    event: Sequence[str],
    trial: Sequence[str],
    attempt: Sequence[str],
    problem_id: Sequence[str],
    block: Sequence[str],
    copy_of: Sequence[str],
    reason: Sequence[str],
    *,
    path: str | Path = "<event log>",
) -> list[Attempt]:
    """The attempts of one log, in order, from its columns (one text per row).

    Parameters
    ----------
    event, trial, attempt, problem_id, block, copy_of, reason : sequences of str
        The log's columns, one cell per complete row (lists or arrays).
    path : str or Path
        Names the file in error messages.

    Raises
    ------
    EventLogError
        Naming the file and row, when rows of two attempts are interleaved or
        a copy trial's row has no ``copy_onset`` before it.
    """
    out: list[Attempt] = []
    open_problem: list | None = None  # [onset index, key]
    open_copy: list | None = None

    def close(opened: list | None, kind: str, stop: int, end: int | None) -> None:
        if opened is None:
            return
        i, _ = opened
        c = copy_of[i]
        out.append(
            Attempt(
                kind=kind,
                trial=int(trial[i]),
                attempt=int(attempt[i]) if attempt[i] else 1,
                block=block[i],
                problem_id=problem_id[i],
                copy_of=int(c) if c else None,
                onset=i,
                stop=stop,
                end=end,
                outcome=reason[end] if end is not None else None,
            )
        )

    for n, ev in enumerate(event):
        t = trial[n]
        if copy_of[n]:
            if open_problem is not None:  # a problem attempt without trial_end before its copy
                close(open_problem, PROBLEM, n, None)
                open_problem = None
            if ev == "copy_onset":
                close(open_copy, COPY, n, None)
                open_copy = [n, (t, attempt[n], problem_id[n])]
                _check_int(path, n, "trial", t)
                continue
            if open_copy is None:
                raise EventLogError(
                    f"{path}: row {n + 2}: {ev} belongs to a copy trial (copy_of {copy_of[n]}) "
                    "that has no copy_onset row before it."
                )
            if (t, attempt[n], problem_id[n]) != open_copy[1]:
                k = open_copy[1]
                raise EventLogError(
                    f"{path}: row {n + 2}: {ev} belongs to trial {t} ({problem_id[n]}), but "
                    f"copy trial {k[0]} began at row {open_copy[0] + 2} and has not ended."
                )
            if ev == "copy_end":
                close(open_copy, COPY, n + 1, n)
                open_copy = None
            continue
        if ev == "trial_onset":
            close(open_copy, COPY, n, None)
            open_copy = None
            close(open_problem, PROBLEM, n, None)
            _check_int(path, n, "trial", t)
            open_problem = [n, (t, attempt[n], problem_id[n])]
            continue
        if open_problem is None or not t:
            continue
        if (t, attempt[n], problem_id[n]) != open_problem[1]:
            k = open_problem[1]
            raise EventLogError(
                f"{path}: row {n + 2}: {ev} belongs to trial {t} ({problem_id[n]}), but trial "
                f"{k[0]} ({k[2]}) began at row {open_problem[0] + 2} and has not ended."
            )
        if ev == "trial_end":
            close(open_problem, PROBLEM, n + 1, n)
            open_problem = None
    end = len(event)
    # Whichever is still open was cut off; a problem attempt and a copy cannot both be open.
    close(open_problem, PROBLEM, end, None)
    close(open_copy, COPY, end, None)
    return out


def _check_int(path, n: int, column: str, value: str) -> None:
    if not value.isdigit():
        raise EventLogError(
            f"{path}: row {n + 2}: column {column!r} holds {value!r}; expected a whole number "
            "of 0 or more on an onset row. Suggested fix: restore the file from a backup "
            "(event logs are never edited by hand)."
        )


def log_attempts(data: EventLogData) -> list[Attempt]:
    """The attempts of a log read by :func:`~tol_tasks.session_data.read_event_log`."""
    records = data.records
    if not records:
        return []
    c = column_index()
    cols = list(zip(*records, strict=True))
    return walk_attempts(
        cols[c["event"]], cols[c["trial"]], cols[c["attempt"]], cols[c["problem_id"]],
        cols[c["block"]], cols[c["copy_of"]], cols[c["reason"]], path=data.path,
    )  # fmt: skip
