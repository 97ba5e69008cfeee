"""wide.csv: one row per participant, a column per session task, problem and measure (for SPSS).

Made and written a range of participants at a time (:func:`write_wide`), from the
trials columns kept by scoring and the sessions table.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tol_analysis.columns import (
    BOOLEAN,
    FLOAT,
    INTEGER,
    PARTICIPANT,
    STRING,
    WIDE_MEASURES,
    WIDE_SESSION,
    WIDE_SIMULATED,
    Column,
    participant_field,
)
from tol_analysis.conventions import Conventions
from tol_analysis.score.csvfile import TableWriter
from tol_analysis.score.scores import Scores
from tol_analysis.score.sessions import field_names
from tol_analysis.score.tables import ColumnData, TableData, smallest_int_type

if TYPE_CHECKING:
    import pandas as pd


def wide_table(scores: Scores) -> pd.DataFrame:
    """One row per participant, one column per session task, problem and measure (for SPSS).

    After ``participant`` and ``simulated`` (true when any of the participant's
    sessions was played by the simulated participant) come the participant
    fields (each participant's value from their first session that has one),
    then, for each session task, its status, protocol version, start date and
    time and recorder (``s<session>_<task>_status``, ...), then the cells
    ``s<session>_<task>_<problem>_<measure>``, with ``_a<attempt>`` after the
    problem for a second or later attempt at it
    (:data:`tol_analysis.columns.WIDE_NAME`): a cell's name depends only on its
    own session, task, problem, attempt and measure, never on what else the
    data hold, so a syntax file written for the first participants works for
    the next. Names are made safe as SPSS variable names, in the order the
    participants' problems first appear; the measures are
    :data:`tol_analysis.columns.WIDE_MEASURES` (``solved`` as 0/1). Void
    attempts are left out (a problem never given is an empty cell, never a
    failure), and practice unless the conventions include it.
    """
    return wide_data(scores.table("trials"), scores.conventions,
                     scores.table("sessions")).frame()  # fmt: skip


def wide_data(trials: TableData, conv: Conventions,
              sessions: TableData | None = None) -> TableData:  # fmt: skip
    """:func:`wide_table` as columns (without ``sessions``: no participant fields and no
    session columns, participants and ``simulated`` from the trials)."""
    wide = _Wide(trials, conv, sessions)
    return wide.rows(0, wide.n)


#: Participants whose wide.csv rows are made and written at once (:func:`write_wide`).
WIDE_ROWS = 1024


def write_wide(trials: TableData, conv: Conventions, sessions: TableData | None,
               path: str | Path) -> None:  # fmt: skip
    """Write wide.csv (:func:`wide_table`) to ``path``, :data:`WIDE_ROWS` participants at a
    time: memory holds their cells, not a grid of every participant's."""
    wide = _Wide(trials, conv, sessions)
    with TableWriter(path, wide.names) as out:
        for start in range(0, wide.n, WIDE_ROWS):
            out.write(wide.rows(start, min(start + WIDE_ROWS, wide.n)))


class _Wide:
    """wide.csv's columns, made for any range of its rows (participants)."""

    def __init__(self, trials: TableData, conv: Conventions, sessions: TableData | None) -> None:
        keep = ~np.asarray(trials["void"].values, bool) if "void" in trials.names else np.ones(
            len(trials), bool)  # fmt: skip
        if not conv.include_practice:
            keep &= ~np.asarray(trials["practice"].values, bool)
        who = trials["participant"]
        people, rank_of, rank = _people(who, keep, sessions)
        out = {"participant": ColumnData.texts(people, plain=True)}
        if sessions is not None:
            out["simulated"] = _any_simulated(sessions["simulated"], np.ones(len(sessions), bool),
                                              rank, len(people))  # fmt: skip
            out.update(_participant_fields(sessions, people, rank))
            out.update(_session_cells(sessions, people, rank))
        else:
            codes = np.asarray(who.values, np.int64)[keep]
            out["simulated"] = _any_simulated(trials["simulated"], keep, rank_of[codes],
                                              len(people))  # fmt: skip
        del rank
        self.n = len(people)
        self._whole = TableData(list(out), out, self.n)
        self._cells = _ProblemCells(trials, keep, rank_of, self.n) if keep.any() else None
        names = list(out) + (self._cells.columns if self._cells is not None else [])
        self.names = list(dict.fromkeys(names))

    def rows(self, start: int, stop: int) -> TableData:
        out = dict(self._whole.slice(start, stop).columns)
        if self._cells is not None:
            out.update(self._cells.rows(start, stop))
        return TableData(self.names, out, stop - start)


def _people(who: ColumnData, keep: np.ndarray,
            sessions: TableData | None) -> tuple[list[str], np.ndarray, np.ndarray | None]:  # fmt: skip
    """The participants, in order of first appearance (in the sessions table when given,
    which holds those without a trial too), each trials participant code's rank among them,
    and each session's (None without ``sessions``): one dict of the participants, made once
    (at a million participants each such dict is about 100 MB)."""
    codes = np.asarray(who.values, np.int64)[keep]
    if sessions is not None:
        people = list(dict.fromkeys(sessions["participant"].categories[c] for c in
                                    np.asarray(sessions["participant"].values).tolist()))  # fmt: skip
    else:
        people = [who.categories[c] for c in dict.fromkeys(codes.tolist())]
    place = {p: k for k, p in enumerate(people)}
    rank_of = np.array([place.get(c, -1) for c in who.categories] + [-1], np.int64)
    rank = None if sessions is None else _ranks(sessions["participant"], place)
    return people, rank_of, rank


def _ranks(column: ColumnData, place: dict[str, int]) -> np.ndarray:
    """Each row's participant's rank (``place``: each participant's)."""
    at = np.array([place[c] for c in column.categories] + [-1], np.int64)
    return at[np.asarray(column.values, np.int64)]


def _participant_fields(sessions: TableData, people: list[str],
                        rank: np.ndarray) -> dict[str, ColumnData]:  # fmt: skip
    """Each participant field: the participant's value from their first session with one
    (``rank``: each session's participant's rank)."""
    out = {}
    for name in field_names(sessions.names):
        col = sessions[name]
        have = ~col.is_missing()
        first = np.full(len(people), -1, np.int64)
        for k in np.flatnonzero(have)[::-1].tolist():  # the first session's value wins
            first[rank[k]] = k
        take = np.maximum(first, 0)
        safe = _spss_name(name)  # wide.csv's names are SPSS variable names
        if col.kind == STRING:
            codes = np.where(first >= 0, np.asarray(col.values, np.int64)[take], -1)
            out[safe] = ColumnData(STRING, codes, categories=col.categories)
        else:
            values = np.where(first >= 0, col.as_float()[take], np.nan)
            out[safe] = (ColumnData(FLOAT, values) if col.kind == FLOAT else
                         ColumnData(col.kind, np.nan_to_num(values).astype(np.int64),
                                    first < 0))  # fmt: skip
    return out


def _session_cells(sessions: TableData, people: list[str],
                   rank: np.ndarray) -> dict[str, ColumnData]:  # fmt: skip
    """Per session task, what describes it (:data:`~tol_analysis.columns.WIDE_SESSION`;
    ``rank``: each session's participant's rank)."""
    task = sessions["protocol"]
    rows_of: dict[str, list[int]] = {}  # each session task's stem, in order of appearance
    for k, (number, code) in enumerate(
        zip(
            np.asarray(sessions["session"].values).tolist(),
            np.asarray(task.values).tolist(),
            strict=True,
        )
    ):
        rows_of.setdefault(_stem(number, task.categories[code]), []).append(k)
    out: dict[str, ColumnData] = {}
    for stem, rows in rows_of.items():
        at = np.array(rows, np.int64)
        for c in WIDE_SESSION:
            source = sessions[c.name]
            codes = np.full(len(people), -1, np.asarray(source.values).dtype)
            codes[rank[at]] = np.asarray(source.values)[at]
            out[_spss_name(f"{stem}_{c.name}")] = ColumnData(
                STRING, codes, categories=source.categories
            )
    return out


def _stem(session: int, task: str, problem: str | None = None, attempt: int = 1) -> str:
    """The start of a wide.csv name: ``s<session>_<task>`` (no task part for a log that
    names none), then ``_<problem>`` and ``_a<attempt>`` for a later attempt."""
    out = f"s{session}" + (f"_{task}" if task else "")
    if problem is not None:
        out += f"_{problem}" + (f"_a{attempt}" if attempt > 1 else "")
    return out


class _ProblemCells:
    """Each (session, task, problem, attempt) and measure as a column, each participant's
    last value under each name; made for a range of participants at a time."""

    def __init__(self, trials: TableData, keep: np.ndarray, rank_of: np.ndarray,
                 n_people: int) -> None:  # fmt: skip
        # Per-trial arrays in their own (narrow) types, each let go once used: at 100,000
        # small sessions (a million trials) every int64 array is 8 MB.
        problem, attempt, session = (np.asarray(trials[name].values)[keep]
                                     for name in ("problem_id", "attempt", "session"))  # fmt: skip
        proto = trials["protocol"] if "protocol" in trials.names else None
        task = (np.asarray(proto.values)[keep] if proto is not None
                else np.zeros(len(problem), np.int8))  # fmt: skip
        tasks = proto.categories if proto is not None else [""]
        # Each trial's stem, made once per distinct (problem, attempt, session, task).
        quads, which = _distinct_rows(problem, attempt, session, task)
        del problem, attempt, session, task
        names = trials["problem_id"].categories
        stems = [_stem(s, tasks[t], names[p], a) for p, a, s, t in quads.tolist()]
        rank = rank_of[np.asarray(trials["participant"].values)[keep]].astype(_index_type(n_people))
        order = np.argsort(rank, kind="stable")  # each participant's attempts, in order
        trial_stem = np.asarray(which).ravel()[order].astype(_index_type(len(stems)))
        del which
        # Every (participant, column) in the order the cells were first filled, the last
        # value kept.
        m = len(WIDE_MEASURES)
        firsts, at = np.unique(trial_stem, return_index=True)
        used = firsts[np.argsort(at, kind="stable")].tolist()  # stems in the order first filled
        cell_names = {k: [_spss_name(f"{stems[k]}_{w.name}") for w in WIDE_MEASURES]
                      for k in used}  # fmt: skip
        columns = list(dict.fromkeys(name for k in used for name in cell_names[k]))
        col_of = {name: k for k, name in enumerate(columns)}
        measure: dict[str, int] = {}
        for j in range(m):
            for k in used:
                measure.setdefault(cell_names[k][j], j)
        stem_cols = np.zeros((len(stems), m), np.int64)
        for k in used:
            stem_cols[k] = [col_of[name] for name in cell_names[k]]
        self.columns = columns
        self._stem_cols, self._trial_stem = stem_cols, trial_stem
        # A column shows the measure it was first named for, and the later of two attempts
        # under one name (trials are in order).
        self._col_measure = np.array([measure[name] for name in columns], np.int64)
        self._rank = rank[order]  # sorted: each participant's trials together
        del rank
        rows = np.flatnonzero(keep).astype(_index_type(len(keep)))
        self._rows = rows[order]  # their rows in the trials table
        self._measures = [trials[w.name] for w in WIDE_MEASURES]

    def rows(self, start: int, stop: int) -> dict[str, ColumnData]:
        """The cells of participants ``start`` to ``stop`` (their ranks)."""
        m = len(WIDE_MEASURES)
        lo, hi = np.searchsorted(self._rank, [start, stop])
        cell_col = self._stem_cols[self._trial_stem[lo:hi]]
        shown = self._col_measure[cell_col] == np.arange(m)
        rows = self._rows[lo:hi]
        values = np.column_stack([_float_at(c, rows) for c in self._measures])
        grid = np.full((stop - start, len(self.columns)), np.nan, order="F")
        rank = np.repeat(self._rank[lo:hi] - start, m).reshape(-1, m)
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


def _index_type(n: int) -> type:
    """The integer type of indexes below ``n``: 32 bits when they fit (half the memory)."""
    return np.int32 if n < 2**31 else np.int64


def _float_at(column: ColumnData, rows: np.ndarray) -> np.ndarray:
    """A numeric column's values at ``rows`` as float64 (NaN where missing)."""
    out = np.asarray(column.values)[rows].astype(np.float64)
    if column.missing is not None:
        out[column.missing[rows]] = np.nan
    return out


def _distinct_rows(*keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def _any_simulated(simulated: ColumnData, keep: np.ndarray, rank: np.ndarray,
                   n: int) -> ColumnData:  # fmt: skip
    """Per participant: any session simulated (missing when no session says)."""
    known = ~simulated.is_missing()[keep]
    yes = np.asarray(simulated.values, bool)[keep] & known
    said = np.bincount(rank[known], minlength=n) > 0
    return ColumnData(BOOLEAN, np.bincount(rank[yes], minlength=n) > 0, ~said)


def _spss_name(name: str) -> str:
    """A variable name SPSS accepts (letters, digits, ``_``; a letter first; at most 64
    characters). A longer name keeps its first 55 characters and its end, joined by a
    short hash of the whole name, so that two long names never become one."""
    out = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not out[0].isalpha():
        out = "p_" + out
    if len(out) > _SPSS_NAME_MAX:
        digest = hashlib.sha256(name.encode()).hexdigest()[:6]
        out = f"{out[:40]}_{digest}_{out[-(_SPSS_NAME_MAX - 48) :]}"
    return out


#: The longest variable name SPSS accepts.
_SPSS_NAME_MAX = 64


def describe_wide(names, sessions: TableData | None) -> dict[str, tuple[Column, str]]:
    """Each wide.csv column's registry entry and its label (its definition, naming the session
    task, problem and measure where the name carries them), from the column registry."""
    fields = {}
    if sessions is not None:
        for name in field_names(sessions.names):
            fields[_spss_name(name)] = participant_field(name, sessions[name].kind)
    out: dict[str, tuple[Column, str]] = {
        PARTICIPANT.name: (PARTICIPANT, PARTICIPANT.definition),
        WIDE_SIMULATED.name: (WIDE_SIMULATED, WIDE_SIMULATED.definition),
        **{name: (c, c.definition) for name, c in fields.items()},
    }
    by_suffix = sorted((*WIDE_SESSION, *WIDE_MEASURES), key=lambda c: len(c.name), reverse=True)
    for name in names:
        if name in out:
            continue
        for c in by_suffix:
            if name.endswith("_" + c.name):
                out[name] = (c, f"{name[: -len(c.name) - 1]}: {c.definition}")
                break
    return out
