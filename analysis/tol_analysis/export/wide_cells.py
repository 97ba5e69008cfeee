"""wide.csv's cells: each (session, task, problem, attempt) and measure a column, each
participant's last value under each name (:class:`ProblemCells`), made a range of
participants at a time from the trial columns kept by scoring (read back from disk a range
of rows at a time when they wait there); and the names of wide.csv's columns (SPSS
variable names).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from tol_analysis.columns import FLOAT, INTEGER, WIDE_MEASURES, WIDE_TRIALS
from tol_analysis.score.builder import SpilledTable
from tol_analysis.score.tables import ColumnData, TableData, smallest_int_type


def categories_of(trials: TableData | SpilledTable, name: str) -> Sequence[str]:
    """A text column's distinct texts (without reading its rows back when they wait on disk)."""
    if isinstance(trials, SpilledTable):
        return trials.categories(name)
    return trials[name].categories


#: Trials looked over at once as wide.csv's columns are settled (:class:`ProblemCells`):
#: read back from disk when they wait there.
SCAN_ROWS = 1 << 17

#: The trial columns that say which trials make which cells (the measures apart).
CELL_KEYS = ("participant", "problem_id", "attempt", "session", "protocol", "void", "practice")


def trial_rows(trials: TableData | SpilledTable, start: int, stop: int,
               names=WIDE_TRIALS) -> TableData:  # fmt: skip
    """Rows ``start`` to ``stop`` of the trial columns ``names`` (of those there are)."""
    if isinstance(trials, SpilledTable):
        return trials.slice(start, stop, [n for n in names if n in trials.names])
    return trials.slice(start, stop, narrow=False)


def kept_trials(trials: TableData, practice: bool) -> np.ndarray:
    """The trials that make cells: not void, not practice unless ``practice``."""
    keep = (~np.asarray(trials["void"].values, bool) if "void" in trials.names
            else np.ones(len(trials), bool))  # fmt: skip
    if not practice:
        keep &= ~np.asarray(trials["practice"].values, bool)
    return keep


def rank_at(rank_of: np.ndarray | None, codes) -> np.ndarray:
    """The participants' ranks of trials participant ``codes`` (``rank_of`` None: the codes
    are the ranks)."""
    codes = np.asarray(codes, np.int64)
    return codes if rank_of is None else rank_of[codes]


def cell_stem(session: int, task: str, problem: str | None = None, attempt: int = 1) -> str:
    """The start of a wide.csv name: ``s<session>_<task>`` (no task part for a log that
    names none), then ``_<problem>`` and ``_a<attempt>`` for a later attempt."""
    out = f"s{session}" + (f"_{task}" if task else "")
    if problem is not None:
        out += f"_{problem}" + (f"_a{attempt}" if attempt > 1 else "")
    return out


class ProblemCells:
    """Each (session, task, problem, attempt) and measure as a column, each participant's
    last value under each name; made for a range of participants at a time.

    The trials are looked over :data:`SCAN_ROWS` at a time (read back from disk when they
    wait there) for the columns' names and, when each participant's trials come together
    in the order of their ranks (as scoring gives them), where each range of ``step``
    participants begins: a range's cells are then made from its trials alone, read back
    when asked for. Otherwise the trials are sorted by participant once, whole."""

    def __init__(self, trials: TableData | SpilledTable, practice: bool,
                 rank_of: np.ndarray | None, n_people: int, step: int) -> None:  # fmt: skip
        self._trials, self._practice, self._rank_of = trials, practice, rank_of
        rows = len(trials)
        quads: dict[tuple, int] = {}  # each (problem, attempt, session, task), as first filled
        marks = list(range(0, n_people, step)) + [n_people]  # each range's first participant
        at = np.full(len(marks), rows, np.int64)  # the first trial row of each
        in_order, last = True, -1
        for lo in range(0, rows, SCAN_ROWS):
            hi = min(lo + SCAN_ROWS, rows)
            part = trial_rows(trials, lo, hi, CELL_KEYS)
            keep = kept_trials(part, practice)
            rank = rank_at(rank_of, part["participant"].values)[keep]
            if len(rank) and (rank[0] < last or np.any(rank[1:] < rank[:-1])):
                in_order = False
            last = int(rank[-1]) if len(rank) else last
            if in_order and len(rank):
                found = np.searchsorted(rank, marks)
                kept = np.flatnonzero(keep) + lo
                at = np.minimum(at, np.where(found < len(rank),
                                             kept[np.minimum(found, len(rank) - 1)], rows))  # fmt: skip
            got, which = distinct_rows(*_quad_keys(part, keep))
            if len(got):
                _, first = np.unique(which, return_index=True)
                for quad in got[np.argsort(first, kind="stable")].tolist():
                    quads.setdefault(tuple(quad), len(quads))
        self._whole = None
        if not in_order:  # each participant's trials together: sorted once, whole
            part = trial_rows(trials, 0, rows)
            keep = kept_trials(part, practice)
            rank = rank_at(rank_of, part["participant"].values)[keep]
            order = np.argsort(rank, kind="stable")  # each participant's attempts, in order
            got, which = distinct_rows(*_quad_keys(part, keep))
            which = np.asarray(which).ravel()[order]
            _, first = np.unique(which, return_index=True)
            quads = {tuple(q): k for k, q in
                     enumerate(got[np.argsort(first, kind="stable")].tolist())}  # fmt: skip
            number = np.empty(len(got), np.int64)  # each distinct row's place among the quads
            number[np.argsort(first, kind="stable")] = np.arange(len(got))
            self._whole = (part, np.flatnonzero(keep)[order], rank[order],
                           number[which].astype(index_type(max(1, len(got)))))  # fmt: skip
        self._marks = dict(zip(marks, at.tolist(), strict=True))
        self._quads = quads
        tasks = categories_of(trials, "protocol") if "protocol" in trials.names else [""]
        names = categories_of(trials, "problem_id")
        stems = [cell_stem(s, tasks[t], names[p], a) for p, a, s, t in quads]
        # Every (participant, column) in the order the cells were first filled, the last
        # value kept.
        m = len(WIDE_MEASURES)
        cell_names = [[spss_name(f"{stem}_{w.name}") for w in WIDE_MEASURES] for stem in stems]
        columns = list(dict.fromkeys(name for cells in cell_names for name in cells))
        col_of = {name: k for k, name in enumerate(columns)}
        measure: dict[str, int] = {}
        for j in range(m):
            for cells in cell_names:
                measure.setdefault(cells[j], j)
        stem_cols = np.zeros((len(stems), m), np.int64)
        for k, cells in enumerate(cell_names):
            stem_cols[k] = [col_of[name] for name in cells]
        self.columns = columns
        self._stem_cols = stem_cols
        # A column shows the measure it was first named for, and the later of two attempts
        # under one name (trials are in order).
        self._col_measure = np.array([measure[name] for name in columns], np.int64)

    def rows(self, start: int, stop: int) -> dict[str, ColumnData]:
        """The cells of participants ``start`` to ``stop`` (their ranks)."""
        if self._whole is not None:
            part, kept, ranks, stem_of = self._whole
            lo, hi = np.searchsorted(ranks, [start, stop])
            rank, rows, trial_stem = ranks[lo:hi], kept[lo:hi], stem_of[lo:hi]
        else:
            part = trial_rows(self._trials, self._marks[start], self._marks[stop])
            keep = kept_trials(part, self._practice)
            rows = np.flatnonzero(keep)
            rank = rank_at(self._rank_of, part["participant"].values)[keep]
            got, which = distinct_rows(*_quad_keys(part, keep))
            number = np.array([self._quads[tuple(q)] for q in got.tolist()], np.int64)
            trial_stem = number[np.asarray(which, np.int64).ravel()]
        m = len(WIDE_MEASURES)
        cell_col = self._stem_cols[trial_stem]
        shown = self._col_measure[cell_col] == np.arange(m)
        values = np.column_stack([_float_at(part[w.name], rows) for w in WIDE_MEASURES])
        grid = np.full((stop - start, len(self.columns)), np.nan, order="F")
        rank = np.repeat(np.asarray(rank, np.int64) - start, m).reshape(-1, m)
        grid[rank[shown], cell_col[shown]] = values[shown]
        out = {}
        for k, name in enumerate(self.columns):
            column = grid[:, k]
            if WIDE_MEASURES[self._col_measure[k]].type == FLOAT:
                out[name] = ColumnData(FLOAT, column)
            else:
                missing = np.isnan(column)
                whole = np.where(missing, 0, column)
                out[name] = ColumnData(INTEGER, whole.astype(smallest_int_type(whole)), missing)
        return out


def _quad_keys(trials: TableData, keep: np.ndarray) -> tuple[np.ndarray, ...]:
    """The kept trials' (problem, attempt, session, task): what names their cells."""
    problem, attempt, session = (np.asarray(trials[name].values)[keep]
                                 for name in ("problem_id", "attempt", "session"))  # fmt: skip
    task = (np.asarray(trials["protocol"].values)[keep] if "protocol" in trials.names
            else np.zeros(len(problem), np.int8))  # fmt: skip
    return problem, attempt, session, task


def index_type(n: int) -> type:
    """The integer type of indexes below ``n``: 32 bits when they fit (half the memory)."""
    return np.int32 if n < 2**31 else np.int64


def _float_at(column: ColumnData, rows: np.ndarray) -> np.ndarray:
    """A numeric column's values at ``rows`` as float64 (NaN where missing)."""
    out = np.asarray(column.values)[rows].astype(np.float64)
    if column.missing is not None:
        out[column.missing[rows]] = np.nan
    return out


def distinct_rows(*keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of the columns ``keys`` (sorted as ``np.unique(axis=0)`` sorts them)
    and each row's index among them; by one number per row when their ranges allow."""
    if not len(keys[0]):
        return np.empty((0, len(keys)), np.int64), np.empty(0, np.int64)
    lows = [int(k.min()) for k in keys]
    spans = [int(k.max()) - low + 1 for k, low in zip(keys, lows, strict=True)]
    if float(np.prod(np.array(spans, np.float64))) >= 2.0**62:
        return np.unique(np.column_stack([k.astype(np.int64) for k in keys]), axis=0,
                         return_inverse=True)  # fmt: skip
    number = np.zeros(len(keys[0]), np.int64)
    for k, low, span in zip(keys, lows, spans, strict=True):  # keys of any integer type
        number *= span
        number += k.astype(np.int64) - low
    uniq, which = np.unique(number, return_inverse=True)
    rows = np.empty((len(uniq), len(keys)), np.int64)
    for j in range(len(keys) - 1, -1, -1):
        uniq, rows[:, j] = np.divmod(uniq, spans[j])
        rows[:, j] += lows[j]
    return rows, which


def spss_name(name: str) -> str:
    """A variable name SPSS accepts (letters, digits, ``_``; a letter first; at most 64
    characters). A longer name keeps its first 55 characters and its end, joined by a
    short hash of the whole name, so that two long names never become one."""
    out = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not out[0].isalpha():
        out = "p_" + out
    if len(out) > SPSS_NAME_MAX:
        digest = hashlib.sha256(name.encode()).hexdigest()[:6]
        out = f"{out[:40]}_{digest}_{out[-(SPSS_NAME_MAX - 48) :]}"
    return out


#: The longest variable name SPSS accepts.
SPSS_NAME_MAX = 64
