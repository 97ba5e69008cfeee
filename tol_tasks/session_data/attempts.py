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
from typing import Any, NamedTuple

from .eventlog import CELL_FIX, EventLogData, EventLogError, column_index

#: The kinds of attempt.
PROBLEM, COPY = "problem", "copy"


class Coded(NamedTuple):
    """A column given as integer codes into its distinct texts (a dictionary-encoded column).

    ``values[codes[i]]`` is the text of row ``i``. Readers that hold a log as
    columns (``tol_analysis``) pass them so; the walker then never looks at a
    text twice.
    """

    codes: Any  # numpy integer array, one code per row
    values: Sequence[str]


Column = Sequence[str] | Coded


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
    event: Column,
    trial: Column,
    attempt: Column,
    problem_id: Column,
    block: Column,
    copy_of: Column,
    reason: Column,
    *,
    path: str | Path = "<event log>",
    rows: Sequence[str] | None = None,
) -> list[Attempt]:
    """The attempts of one log, in order, from its columns (one text per row).

    Parameters
    ----------
    event, trial, attempt, problem_id, block, copy_of, reason : sequences of str, or Coded
        The log's columns, one cell per complete row (lists or arrays of texts,
        or :class:`Coded` columns).
    path : str or Path
        Names the file in error messages.
    rows : sequence of str, optional
        The log's ``row`` column, for the row numbers in error messages (by
        default, each row's place in the log, from 1).

    Raises
    ------
    EventLogError
        Naming the file and row, when rows of two attempts are interleaved, a
        copy trial's row has no ``copy_onset`` before it, or an onset row's
        ``trial``, ``attempt`` or ``copy_of`` is not a whole number.
    """
    cols = [_coded(c) for c in (event, trial, attempt, problem_id, block, copy_of, reason)]
    numbers = None if rows is None else [int(r) for r in rows]
    spans = attempt_spans(*cols[:4], cols[5], path=path, numbers=numbers)
    (_, tr, at, pid, bl, cp, rs) = cols
    out = []
    for k in range(len(spans.onset)):
        i, end = int(spans.onset[k]), int(spans.end[k])
        out.append(
            Attempt(
                kind=COPY if spans.is_copy[k] else PROBLEM,
                trial=int(tr.values[tr.codes[i]]),
                attempt=_int_or(at.values[at.codes[i]], 1),
                block=bl.values[bl.codes[i]],
                problem_id=pid.values[pid.codes[i]],
                copy_of=_int_or(cp.values[cp.codes[i]], None),
                onset=i,
                stop=int(spans.stop[k]),
                end=None if end < 0 else end,
                outcome=None if end < 0 else rs.values[rs.codes[end]],
            )
        )
    return out


class Spans(NamedTuple):
    """The attempts of a log as arrays (one entry per attempt, in order); see :class:`Attempt`.

    ``end`` is -1 for an attempt that was cut off.
    """

    is_copy: Any
    onset: Any
    stop: Any
    end: Any


def attempt_spans(
    event: Coded, trial: Coded, attempt: Coded, problem_id: Coded, copy_of: Coded, *,
    path: str | Path | Sequence[str | Path] = "<event log>", starts: Any = None,
    numbers: Any = None,
) -> Spans:  # fmt: skip
    """The attempts of one log (or of several logs, one after another) as arrays of row indices.

    The same rules as :func:`walk_attempts` (which calls this), checked over
    whole columns at once; when a log breaks one, its rows are walked one by
    one to name the first row that breaks it.

    Parameters
    ----------
    event, trial, attempt, problem_id, copy_of : Coded
        The columns, one code per complete row.
    path : str or Path, or a sequence of them
        Names the file in error messages (one per log, with ``starts``).
    starts : array of int, optional
        When the columns hold several logs one after another: the index of
        each log's first row, in order, the first being 0. No attempt reaches
        across the start of a log: each log is walked as if alone, and row
        indices are those of the whole columns.
    numbers : array of int, optional
        Each row's ``row`` number (of the whole columns), for error messages; by
        default each row's place in its log, from 1.

    Raises
    ------
    EventLogError
        As :func:`walk_attempts`, for the first log (in order) that breaks a rule.
    """
    import numpy as np

    n = len(event.codes)
    idx = np.arange(n)
    first_rows = np.zeros(1, np.int64) if starts is None else np.asarray(starts, np.int64)
    log_of = _running_count(first_rows, n)  # each row's log
    log_stop = np.append(first_rows[1:], n)
    is_copy = _is(copy_of, lambda v: v != "")
    has_trial = _is(trial, lambda v: v != "")
    ev = np.asarray(event.codes)
    names = {v: k for k, v in enumerate(event.values)}

    def happened(name: str):
        return ev == names.get(name, -1)

    opener = (happened("trial_onset") & ~is_copy) | (happened("copy_onset") & is_copy)
    onset = np.flatnonzero(opener)
    # An attempt cut off runs to the next onset or to the end of its log.
    nxt = np.minimum(np.append(onset[1:], n), log_stop[log_of[onset]])
    opens_copy = is_copy[onset]
    seg = _running_count(onset, n)  # the last onset at or before each row
    own = np.where(seg >= 0, seg, 0)
    if len(onset):
        seg[log_of[onset[own]] != log_of] = -1  # no onset yet in this row's log
    own = np.where(seg >= 0, seg, 0)
    # Each row's (trial, attempt, problem_id) as one number; equal texts give equal numbers.
    key = (np.asarray(trial.codes, np.int64) * (len(attempt.values) + 1)
           + np.asarray(attempt.codes)) * (len(problem_id.values) + 1) + np.asarray(problem_id.codes)  # fmt: skip
    inside = (seg >= 0) & ~opener
    same_key = key == key[onset[own]] if len(onset) else np.ones(n, bool)
    in_copy = inside & opens_copy[own] if len(onset) else np.zeros(n, bool)
    in_problem = inside & ~in_copy
    # An attempt ends at its first end row (trial_end with a trial number, or copy_end);
    # rows after it, up to the next onset, are outside every attempt.
    ends_problem = in_problem & ~is_copy & has_trial & happened("trial_end")
    ends_copy = in_copy & is_copy & happened("copy_end")
    ender = np.flatnonzero(ends_problem | ends_copy)
    first = np.searchsorted(ender, onset + 1)
    end = np.full(len(onset), -1)
    found = first < len(ender)
    end[found] = ender[first[found]]
    end[end >= nxt] = -1
    stop = np.where(end >= 0, end + 1, nxt)
    live = inside & (idx < stop[own]) if len(onset) else np.zeros(n, bool)
    broken = (
        (is_copy & ~opener & ~in_copy)  # a copy row outside any copy trial
        | (is_copy & in_copy & ~live)  # after its copy trial ended
        | (live & in_problem & ~is_copy & has_trial & ~same_key)  # another trial's row
        | (live & in_copy & is_copy & ~same_key)
    )
    bad_onset = np.zeros(len(onset), bool)
    for col, allow_empty in ((trial, False), (attempt, True), (copy_of, True)):
        bad_onset |= ~_digits(col, allow_empty)[np.asarray(col.codes)[onset]]
    if broken.any() or bad_onset.any():
        bad_logs = np.union1d(log_of[broken], log_of[onset[bad_onset]])
        k = int(bad_logs[0])
        a, b = int(first_rows[k]), int(log_stop[k])
        where = path if starts is None else path[k]
        own = np.arange(1, b - a + 1) if numbers is None else np.asarray(numbers)[a:b]
        _walk_rows(*(Coded(np.asarray(c.codes)[a:b], c.values)
                     for c in (event, trial, attempt, problem_id, copy_of)), where,
                   [int(x) for x in own])  # fmt: skip
        raise AssertionError(f"{where}: the attempt walker's two paths disagree")  # a bug
    return Spans(opens_copy, onset, stop, end)


def _running_count(marks, n: int):
    """Per row of ``n``, the index of the last of the sorted row indices ``marks`` at or
    before it (-1 before the first)."""
    import numpy as np

    return np.cumsum(np.bincount(np.asarray(marks, np.int64), minlength=n + 1)[:n]) - 1


def _coded(column: Column) -> Coded:
    """A column as codes and values (texts are numbered in order of appearance)."""
    if isinstance(column, Coded):
        return column
    import numpy as np

    numbers: dict[str, int] = {}
    codes = np.fromiter((numbers.setdefault(v, len(numbers)) for v in column), dtype=np.int64,
                        count=len(column))  # fmt: skip
    return Coded(codes, list(numbers))


def _is(column: Coded, test):
    """Per row, whether its text passes ``test`` (evaluated once per distinct text)."""
    import numpy as np

    passes = np.array([bool(test(v)) for v in column.values] + [False])
    return np.take(passes, column.codes)  # faster than passes[codes] over whole columns


def _digits(column: Coded, allow_empty: bool):
    """Per distinct text of a column, whether it is a whole number (or empty, if allowed)."""
    import numpy as np

    return np.array([v.isdigit() or (allow_empty and v == "") for v in column.values] + [False])


def _int_or(text: str, default):
    return int(text) if text else default


def _walk_rows(event: Coded, trial: Coded, attempt: Coded, problem_id: Coded, copy_of: Coded,
               path, numbers: list[int]) -> None:  # fmt: skip
    """Walk a log row by row, raising at the first row that breaks the rules (named by its
    ``row`` number, ``numbers``)."""
    ev, tr, at, pid, cp = (
        [c.values[k] for k in c.codes] for c in (event, trial, attempt, problem_id, copy_of)
    )
    open_problem: tuple | None = None  # (onset index, key)
    open_copy: tuple | None = None
    for n, name in enumerate(ev):
        t, k = tr[n], (tr[n], at[n], pid[n])
        row = numbers[n]
        if cp[n]:
            open_problem = None
            if name == "copy_onset":
                _check_onset(path, row, t, at[n], cp[n])
                open_copy = (n, k)
                continue
            if open_copy is None:
                raise EventLogError(
                    f"{path}: row {row}: {name} belongs to a copy trial (copy_of {cp[n]}) "
                    "that has no copy_onset row before it.", where=f"{path}: row {row}",
                    field="event", value=name, fix=CELL_FIX,
                )  # fmt: skip
            if k != open_copy[1]:
                raise EventLogError(
                    f"{path}: row {row}: {name} belongs to trial {t} ({pid[n]}), but "
                    f"copy trial {open_copy[1][0]} began at row {numbers[open_copy[0]]} and has "
                    "not ended.", where=f"{path}: row {row}", field="trial", value=t,
                    fix=CELL_FIX,
                )  # fmt: skip
            if name == "copy_end":
                open_copy = None
            continue
        if name == "trial_onset":
            open_copy = None
            _check_onset(path, row, t, at[n], "")
            open_problem = (n, k)
            continue
        if open_problem is None or not t:
            continue
        if k != open_problem[1]:
            o = open_problem[1]
            raise EventLogError(
                f"{path}: row {row}: {name} belongs to trial {t} ({pid[n]}), but trial "
                f"{o[0]} ({o[2]}) began at row {numbers[open_problem[0]]} and has not ended.",
                where=f"{path}: row {row}", field="trial", value=t, fix=CELL_FIX,
            )  # fmt: skip
        if name == "trial_end":
            open_problem = None


def _check_onset(path, row: int, trial: str, attempt: str, copy_of: str) -> None:
    _check_int(path, row, "trial", trial)
    for column, value in (("attempt", attempt), ("copy_of", copy_of)):
        if value:
            _check_int(path, row, column, value)


def _check_int(path, row: int, column: str, value: str) -> None:
    if not value.isdigit():
        raise EventLogError(
            f"{path}: row {row}: column {column!r} holds {value!r}; expected a whole number "
            "of 0 or more on an onset row.", where=f"{path}: row {row}", field=column,
            value=value, fix=CELL_FIX,
        )  # fmt: skip


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
        rows=cols[c["row"]],
    )  # fmt: skip
