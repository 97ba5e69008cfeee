"""Logs seen as attempts: which rows belong to which attempt, and group helpers.

A :class:`LogView` holds one log, or several logs one after another (scoring
takes logs in batches, so that its work is done over whole columns, not per
log), with the spans of the one attempt walker
(:func:`tol_tasks.session_data.attempts.attempt_spans`); the modules that
compute measures (moves, trials, copies) read the logs through it.
"""

from __future__ import annotations

import math

import numpy as np

from tol_analysis.read.logs import LogColumns, SessionLog
from tol_tasks.session_data.attempts import Coded, attempt_spans
from tol_tasks.session_data.eventlog import EventLogError


class LogView:
    """Logs' rows grouped by attempt.

    Attributes
    ----------
    logs : list of SessionLog
    data : LogColumns
        The rows of every log, one log after another.
    starts, stops : ndarray
        Each log's first row and one past its last.
    log_of : ndarray
        Per row, the index of its log.
    member : ndarray
        Per row, the index of the attempt it belongs to (rows after its onset
        row, up to its end row); -1 for rows outside every attempt.
    attempt_log : ndarray
        Per attempt, the index of its log.
    in_problem, in_copy : ndarray of bool
        Rows that count for a problem attempt (with a trial number) or a copy trial
        (copy rows).
    """

    def __init__(self, logs: list[SessionLog]) -> None:
        self.logs = logs
        counts = np.array([log.data.n for log in logs], np.int64)
        self.data = d = LogColumns.concat([log.data for log in logs])
        self.n = d.n
        self.stops = np.cumsum(counts)
        self.starts = self.stops - counts
        self.log_of = np.repeat(np.arange(len(logs)), counts)
        self.time = d.time
        self.spans = spans = attempt_spans(
            d.coded("event"), d.coded("trial"), d.coded("attempt"), d.coded("problem_id"),
            d.coded("copy_of"), path=[log.path for log in logs], starts=self.starts,
            numbers=d.numbers,
        )  # fmt: skip
        self.onset = spans.onset
        self.n_attempts = len(spans.onset)
        self.attempt_log = self.log_of[spans.onset]
        idx = np.arange(self.n)
        att = np.cumsum(np.bincount(spans.onset, minlength=self.n + 1)[: self.n]) - 1
        own = np.maximum(att, 0)
        live = (att >= 0) & (idx > spans.onset[own]) & (idx < spans.stop[own]) if len(
            spans.onset) else np.zeros(self.n, bool)  # fmt: skip
        self.member = np.where(live, att, -1)
        copy_row = self.nonempty("copy_of")
        is_copy = np.append(spans.is_copy, False)[self.member]
        self.in_problem = live & ~is_copy & ~copy_row & self.nonempty("trial")
        self.in_copy = live & is_copy & copy_row
        self._events: dict[str, np.ndarray] = {}

    def members(self, attempts: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Per row, the index (among ``attempts``, indices of attempts) of the attempt it
        belongs to, where ``rows`` holds; -1 elsewhere."""
        local = np.full(self.n_attempts + 1, -1)  # the last for rows outside every attempt
        local[attempts] = np.arange(len(attempts))
        return np.where(rows, local[self.member], -1)

    # ------------------------------------------------------------- columns
    def nonempty(self, column: str) -> np.ndarray:
        c = self.data.coded(column)
        return np.take(np.array([v != "" for v in c.values] + [False]), c.codes)

    def event(self, name: str) -> np.ndarray:
        """Per row, whether it holds event ``name``."""
        mask = self._events.get(name)
        if mask is None:
            ev = self.data.coded("event")
            code = ev.values.index(name) if name in ev.values else -1
            mask = self._events[name] = np.asarray(ev.codes) == code
        return mask

    def events(self, *names: str) -> np.ndarray:
        out = np.zeros(self.n, bool)
        for name in names:
            out |= self.event(name)
        return out

    def texts(self, column: str, rows: np.ndarray) -> list[str]:
        return self.data.texts(column, rows)

    def coded(self, column: str, rows: np.ndarray) -> Coded:
        return self.data.coded_at(column, rows)

    def whole_numbers(self, column: str, rows: np.ndarray, empty: int = -1) -> np.ndarray:
        """The cells of ``rows`` of an integer column as numbers (``empty`` for an empty cell)."""
        c = self.coded(column, rows)
        table = np.array([int(v) if v else empty for v in c.values] + [empty], np.int64)
        return table[np.asarray(c.codes)]

    def per_log(self, column: str) -> list[str]:
        """Each log's text of ``column`` on its first row (participant, session)."""
        return self.texts(column, self.starts)

    def row_number(self, row: int) -> int:
        """The log's own ``row`` number of row ``row`` (an index into the rows)."""
        if self.data.numbers is not None:
            return int(self.data.numbers[row])
        return int(row - self.starts[self.log_of[row]] + 1)

    def error(self, row: int, text: str, **about) -> EventLogError:
        """An error naming the file and the log's row number of row ``row``."""
        k = int(self.log_of[row])
        where = f"{self.logs[k].path}: row {self.row_number(row)}"
        return EventLogError(f"{where}: {text}", where=where, **about)

    def check_trial_times(self) -> None:
        """Refuse a log whose time since onset (``trial_time``) goes backwards within an
        attempt (the session time is checked as the log is read).

        Raises
        ------
        EventLogError
            Naming the row, its time and the earlier row's.
        """
        rows = np.flatnonzero((self.member >= 0) & ~np.isnan(self.time))
        if len(rows) < 2:
            return
        t, g = self.time[rows], self.member[rows]
        back = np.flatnonzero((np.diff(t) < 0) & (g[1:] == g[:-1]))
        if not len(back):
            return
        a, b = int(rows[back[0]]), int(rows[back[0] + 1])
        raise self.error(
            b, f"its trial_time {self.time[b]:.6f} s is before that of row "
            f"{self.row_number(a)} ({self.time[a]:.6f} s) in the same attempt: the times "
            "go backwards.", field="trial_time", value=f"{self.time[b]:.6f}",
            fix="restore the log from a backup (a recorder's clock never runs backwards: the "
            "rows were edited, or two logs were pasted together).",
        )  # fmt: skip


# ------------------------------------------------------------------- group helpers
def first_in_group(group: np.ndarray, n_groups: int, values: np.ndarray, fill=np.nan):
    """Per group, the value of its first member (members in order); ``fill`` for none."""
    out = np.full(n_groups, fill, dtype=np.result_type(values, np.asarray(fill)))
    if len(group):
        firsts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        out[group[firsts]] = values[firsts]
    return out


def last_in_group(group: np.ndarray, n_groups: int, values: np.ndarray, fill=np.nan):
    """Per group, the value of its last member; ``fill`` for none."""
    out = np.full(n_groups, fill, dtype=np.result_type(values, np.asarray(fill)))
    if len(group):
        lasts = np.flatnonzero(np.r_[group[1:] != group[:-1], True])
        out[group[lasts]] = values[lasts]
    return out


def count_in_group(group: np.ndarray, n_groups: int, where=None) -> np.ndarray:
    """Per group, how many members (where ``where`` holds)."""
    if where is not None:
        group = group[where]
    return np.bincount(group, minlength=n_groups).astype(np.int64)


def position_in_group(group: np.ndarray) -> np.ndarray:
    """Each member's position in its group, from 0 (members of a group are contiguous)."""
    if not len(group):
        return np.empty(0, np.int64)
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    counts = np.diff(np.r_[starts, len(group)])
    return np.arange(len(group)) - np.repeat(starts, counts)


def mean_in_group(group: np.ndarray, n_groups: int, values: np.ndarray) -> np.ndarray:
    """Per group, the mean as :func:`statistics.fmean` gives it (the exactly rounded sum,
    :func:`math.fsum`, over the count); NaN for none, and where a value is missing."""
    out = np.full(n_groups, np.nan)
    if not len(group):
        return out
    if (group[1:] >= group[:-1]).all():  # members already together (as scoring gives them)
        g, v = group, values.tolist()
    else:
        order = np.argsort(group, kind="stable")
        g, v = group[order], values[order].tolist()
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    stops = np.r_[starts[1:], len(g)]
    spans = map(slice, starts.tolist(), stops.tolist())
    sums = np.fromiter(map(math.fsum, map(v.__getitem__, spans)), np.float64, len(starts))
    out[g[starts]] = sums / (stops - starts)
    return out


def median_in_group(group: np.ndarray, n_groups: int, values: np.ndarray) -> np.ndarray:
    """Per group, the median (the mean of the two middle values for an even count; NaN for
    none, and where a value is missing)."""
    out = np.full(n_groups, np.nan)
    if not len(group):
        return out
    order = np.lexsort((values, group))
    g, v = group[order], values[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    counts = np.diff(np.r_[starts, len(g)])
    lo = starts + (counts - 1) // 2
    hi = starts + counts // 2
    out[g[starts]] = (v[lo] + v[hi]) / 2
    missing = np.bincount(group, weights=np.isnan(values), minlength=n_groups) > 0
    out[missing] = np.nan
    return out


def seen_before(keys: np.ndarray) -> np.ndarray:
    """Per entry, whether the same key came earlier (one stable sort)."""
    if not len(keys):
        return np.zeros(0, bool)
    keys = np.asarray(keys)
    # Equal keys side by side, each run in order of entries: all but a run's first are repeats.
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    out = np.zeros(len(keys), bool)
    out[order[1:]] = ordered[1:] == ordered[:-1]
    return out
