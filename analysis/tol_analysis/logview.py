"""One log seen as attempts: which rows belong to which attempt, and group helpers.

Built from a :class:`~tol_analysis.read.SessionLog` and the spans of the one
attempt walker (:func:`tol_tasks.session_data.attempts.attempt_spans`); the
modules that compute measures (moves, trials, copies) read the log through it.
"""

from __future__ import annotations

import numpy as np

from tol_analysis.read import SessionLog
from tol_tasks.session_data.attempts import Coded, attempt_spans
from tol_tasks.session_data.eventlog import EventLogError


class LogView:
    """A log's rows grouped by attempt.

    Attributes
    ----------
    member : ndarray
        Per row, the index of the attempt it belongs to (rows after its onset
        row, up to its end row); -1 for rows outside every attempt.
    in_problem, in_copy : ndarray of bool
        Rows that count for a problem attempt (with a trial number) or a copy trial
        (copy rows).
    """

    def __init__(self, log: SessionLog) -> None:
        d = log.data
        self.log = log
        self.path = log.path
        self.data = d
        self.n = d.n
        self.time = d.numbers["trial_time"]
        self.spans = spans = attempt_spans(d["event"], d["trial"], d["attempt"], d["problem_id"],
                                           d["copy_of"], path=log.path)  # fmt: skip
        self.onset = spans.onset
        self.n_attempts = len(spans.onset)
        idx = np.arange(self.n)
        att = np.searchsorted(spans.onset, idx, side="right") - 1
        own = np.maximum(att, 0)
        live = (att >= 0) & (idx > spans.onset[own]) & (idx < spans.stop[own]) if len(
            spans.onset) else np.zeros(self.n, bool)  # fmt: skip
        self.member = np.where(live, att, -1)
        copy_row = self.nonempty("copy_of")
        is_copy = np.append(spans.is_copy, False)[self.member]
        self.in_problem = live & ~is_copy & ~copy_row & self.nonempty("trial")
        self.in_copy = live & is_copy & copy_row

    # ------------------------------------------------------------- columns
    def nonempty(self, column: str) -> np.ndarray:
        c = self.data[column]
        return np.array([v != "" for v in c.values] + [False])[np.asarray(c.codes)]

    def event(self, name: str) -> np.ndarray:
        ev = self.data["event"]
        if name not in ev.values:
            return np.zeros(self.n, bool)
        return np.asarray(ev.codes) == ev.values.index(name)

    def events(self, *names: str) -> np.ndarray:
        out = np.zeros(self.n, bool)
        for name in names:
            out |= self.event(name)
        return out

    def texts(self, column: str, rows: np.ndarray) -> list[str]:
        c = self.data[column]
        return [c.values[k] for k in np.asarray(c.codes)[rows].tolist()]

    def coded(self, column: str, rows: np.ndarray) -> Coded:
        c = self.data[column]
        return Coded(np.asarray(c.codes)[rows], c.values)

    def error(self, row: int, text: str) -> EventLogError:
        """An error naming the file and the file row of log row ``row``."""
        return EventLogError(f"{self.path}: row {row + 2}: {text}")


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
    """Per group, the mean (NaN for none, and where a value is missing)."""
    n = np.bincount(group, minlength=n_groups)
    total = np.bincount(group, weights=values, minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, total / np.maximum(n, 1), np.nan)


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
