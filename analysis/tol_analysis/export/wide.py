"""wide.csv: one row per participant, a column per session task, problem and measure (for SPSS).

Made and written a range of participants at a time (:func:`write_wide`), from the
trials columns kept by scoring and the sessions table.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
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
    WIDE_TRIALS,
    Column,
    participant_field,
)
from tol_analysis.conventions import Conventions
from tol_analysis.score.compact import same_texts
from tol_analysis.score.csvfile import TableWriter
from tol_analysis.score.scores import Scores
from tol_analysis.score.sessions import field_names
from tol_analysis.score.tables import ColumnData, SpilledTable, TableData, smallest_int_type

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
    wide = _Wide(trials, conv, sessions, WIDE_ROWS)
    with TableWriter(path, wide.names) as out:
        for start in range(0, wide.n, WIDE_ROWS):
            out.write(wide.rows(start, min(start + WIDE_ROWS, wide.n)))


class _Wide:
    """wide.csv's columns, made for any range of its rows (participants); ``step``: the
    participants of a range (:meth:`rows` is then asked for ranges starting at multiples of
    it, or for every row at once)."""

    def __init__(self, trials: TableData | SpilledTable, conv: Conventions,
                 sessions: TableData | None, step: int | None = None) -> None:  # fmt: skip
        self._practice = conv.include_practice
        if sessions is not None:
            people, rank_of, rank = _people_of_sessions(_categories(trials, "participant"),
                                                        sessions)  # fmt: skip
            out = {"participant": _participant_column(people)}
            out["simulated"] = _any_simulated(sessions["simulated"], np.ones(len(sessions), bool),
                                              rank, len(people))  # fmt: skip
            out.update(_participant_fields(sessions, people, rank))
            out.update(_session_cells(sessions, people, rank))
        else:  # the participants from the trials, in order of first appearance
            part = _wide_rows(trials, 0, len(trials))
            keep = _keep(part, self._practice)
            who = part["participant"]
            people, rank_of = _people(who, keep)
            codes = np.asarray(who.values, np.int64)[keep]
            out = {"participant": _participant_column(people)}
            out["simulated"] = _any_simulated(part["simulated"], keep, rank_of[codes],
                                              len(people))  # fmt: skip
            del part, keep, who, codes
        rank = None
        self.n = len(people)
        self._whole = TableData(list(out), out, self.n)
        cells = _ProblemCells(trials, self._practice, rank_of, self.n, step or max(1, self.n))
        self._cells = cells if cells.columns else None
        names = list(out) + (self._cells.columns if self._cells is not None else [])
        self.names = list(dict.fromkeys(names))

    def rows(self, start: int, stop: int) -> TableData:
        out = dict(self._whole.slice(start, stop).columns)
        if self._cells is not None:
            out.update(self._cells.rows(start, stop))
        return TableData(self.names, out, stop - start)


def _participant_column(people: Sequence[str]) -> ColumnData:
    return ColumnData(STRING, np.arange(len(people)).astype(_index_type(len(people))),
                      categories=people, plain=True)  # fmt: skip


def _categories(trials: TableData | SpilledTable, name: str) -> Sequence[str]:
    """A text column's distinct texts (without reading its rows back when they wait on disk)."""
    if isinstance(trials, SpilledTable):
        return trials.categories(name)
    return trials[name].categories


#: Trials looked over at once as wide.csv's columns are settled (:class:`_ProblemCells`):
#: read back from disk when they wait there.
SCAN_ROWS = 1 << 17

#: The trial columns that say which trials make which cells (the measures apart).
_CELL_KEYS = ("participant", "problem_id", "attempt", "session", "protocol", "void", "practice")


def _wide_rows(trials: TableData | SpilledTable, start: int, stop: int,
               names=WIDE_TRIALS) -> TableData:  # fmt: skip
    """Rows ``start`` to ``stop`` of the trial columns ``names`` (of those there are)."""
    if isinstance(trials, SpilledTable):
        return trials.slice(start, stop, [n for n in names if n in trials.names])
    return trials.slice(start, stop, narrow=False)


def _keep(trials: TableData, practice: bool) -> np.ndarray:
    """The trials that make cells: not void, not practice unless ``practice``."""
    keep = (~np.asarray(trials["void"].values, bool) if "void" in trials.names
            else np.ones(len(trials), bool))  # fmt: skip
    if not practice:
        keep &= ~np.asarray(trials["practice"].values, bool)
    return keep


def _rank_at(rank_of: np.ndarray | None, codes) -> np.ndarray:
    """The participants' ranks of trials participant ``codes`` (``rank_of`` None: the codes
    are the ranks)."""
    codes = np.asarray(codes, np.int64)
    return codes if rank_of is None else rank_of[codes]


def _people(who: ColumnData, keep: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The participants of the trials ``keep`` in order of first appearance, and each
    participant code's rank among them (-1: none; then -1 for a missing one)."""
    codes = np.asarray(who.values, np.int64)[keep]
    people = [who.categories[c] for c in dict.fromkeys(codes.tolist())]
    place = {p: k for k, p in enumerate(people)}
    rank_of = np.array([place.get(c, -1) for c in who.categories] + [-1], np.int64)
    return people, rank_of


def _people_of_sessions(
    texts: Sequence[str], sessions: TableData
) -> tuple[Sequence[str], np.ndarray | None, np.ndarray]:
    """The participants, in order of first appearance in the sessions table (which holds
    those without a trial too), each trials participant code's rank among them (None: the
    codes are the ranks; ``texts``: the trials' participants), and each session's. No dict
    of every participant when the sessions table's codes are in order of first appearance
    (as scoring makes them): a million participants' ids as Python strings in a dict take
    about 150 MB."""
    column = sessions["participant"]
    rank = np.asarray(column.values, np.int64)
    if _in_order(rank, len(column.categories)):
        people = column.categories
        if same_texts(texts, people):  # every session has trials: the same codes
            return people, None, rank
        return people, _ranks_of(texts, people), rank
    people = list(dict.fromkeys(column.categories[c] for c in rank.tolist()))
    place = {p: k for k, p in enumerate(people)}
    rank_of = np.array([place.get(c, -1) for c in texts] + [-1], np.int64)
    return people, rank_of, _ranks(column, place)


def _in_order(codes: np.ndarray, n: int) -> bool:
    """Whether ``codes`` use each of ``n`` codes, first appearing in order 0, 1, ..."""
    if not len(codes) or codes.min() < 0:
        return False
    used, first = np.unique(codes, return_index=True)
    return len(used) == n and bool(np.all(np.diff(first) > 0))


def _ranks_of(texts: Sequence[str], people: Sequence[str]) -> np.ndarray:
    """Each of ``texts``' rank among the distinct ``people`` (-1: none; then -1 for a
    missing text): by their 64-bit hashes, each match compared as text (a dict of the
    people when two of them share a hash)."""
    hashes = np.fromiter((hash(p) for p in people), np.int64, len(people))
    order = np.argsort(hashes, kind="stable")
    hashes = hashes[order]
    if not len(hashes) or np.any(hashes[1:] == hashes[:-1]):
        place = {p: k for k, p in enumerate(people)}
        return np.array([place.get(c, -1) for c in texts] + [-1], np.int64)
    wanted = np.fromiter((hash(t) for t in texts), np.int64, len(texts))
    at = np.minimum(np.searchsorted(hashes, wanted), len(hashes) - 1)
    rank = np.where(hashes[at] == wanted, order[at], -1)
    for k in np.flatnonzero(rank >= 0).tolist():
        if people[int(rank[k])] != texts[k]:  # the same hash, another text
            rank[k] = -1
    return np.append(rank, -1)


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
        with_value = np.flatnonzero(have)
        who, at = np.unique(rank[with_value], return_index=True)  # the first session's wins
        first[who] = with_value[at]
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
    number = np.asarray(sessions["session"].values, np.int64)
    rows_of: dict[str, np.ndarray] = {}  # each session task's stem, in order of appearance
    if len(number):
        pairs, which = _distinct_rows(number, np.asarray(task.values, np.int64))
        which = np.asarray(which).ravel()
        firsts = np.full(len(pairs), len(number), np.int64)
        np.minimum.at(firsts, which, np.arange(len(number)))
        stem_of: dict[str, int] = {}
        pair_stem = np.empty(len(pairs), np.int64)
        for j in np.argsort(firsts, kind="stable").tolist():
            n, code = pairs[j].tolist()
            pair_stem[j] = stem_of.setdefault(_stem(n, task.categories[code]), len(stem_of))
        session_stem = pair_stem[which]
        order = np.argsort(session_stem, kind="stable")  # each stem's sessions, in order
        bounds = np.searchsorted(session_stem[order], np.arange(len(stem_of) + 1))
        rows_of = {stem: order[bounds[k] : bounds[k + 1]] for stem, k in stem_of.items()}
    out: dict[str, ColumnData] = {}
    for stem, at in rows_of.items():
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
            part = _wide_rows(trials, lo, hi, _CELL_KEYS)
            keep = _keep(part, practice)
            rank = _rank_at(rank_of, part["participant"].values)[keep]
            if len(rank) and (rank[0] < last or np.any(rank[1:] < rank[:-1])):
                in_order = False
            last = int(rank[-1]) if len(rank) else last
            if in_order and len(rank):
                found = np.searchsorted(rank, marks)
                kept = np.flatnonzero(keep) + lo
                at = np.minimum(at, np.where(found < len(rank),
                                             kept[np.minimum(found, len(rank) - 1)], rows))  # fmt: skip
            got, which = _distinct_rows(*_quad_keys(part, keep))
            if len(got):
                _, first = np.unique(which, return_index=True)
                for quad in got[np.argsort(first, kind="stable")].tolist():
                    quads.setdefault(tuple(quad), len(quads))
        self._whole = None
        if not in_order:  # each participant's trials together: sorted once, whole
            part = _wide_rows(trials, 0, rows)
            keep = _keep(part, practice)
            rank = _rank_at(rank_of, part["participant"].values)[keep]
            order = np.argsort(rank, kind="stable")  # each participant's attempts, in order
            got, which = _distinct_rows(*_quad_keys(part, keep))
            which = np.asarray(which).ravel()[order]
            _, first = np.unique(which, return_index=True)
            quads = {tuple(q): k for k, q in
                     enumerate(got[np.argsort(first, kind="stable")].tolist())}  # fmt: skip
            number = np.empty(len(got), np.int64)  # each distinct row's place among the quads
            number[np.argsort(first, kind="stable")] = np.arange(len(got))
            self._whole = (part, np.flatnonzero(keep)[order], rank[order],
                           number[which].astype(_index_type(max(1, len(got)))))  # fmt: skip
        self._marks = dict(zip(marks, at.tolist(), strict=True))
        self._quads = quads
        tasks = _categories(trials, "protocol") if "protocol" in trials.names else [""]
        names = _categories(trials, "problem_id")
        stems = [_stem(s, tasks[t], names[p], a) for p, a, s, t in quads]
        # Every (participant, column) in the order the cells were first filled, the last
        # value kept.
        m = len(WIDE_MEASURES)
        cell_names = [[_spss_name(f"{stem}_{w.name}") for w in WIDE_MEASURES] for stem in stems]
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
            part = _wide_rows(self._trials, self._marks[start], self._marks[stop])
            keep = _keep(part, self._practice)
            rows = np.flatnonzero(keep)
            rank = _rank_at(self._rank_of, part["participant"].values)[keep]
            got, which = _distinct_rows(*_quad_keys(part, keep))
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
