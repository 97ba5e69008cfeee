"""wide.csv: one row per participant, a column per session task, problem and measure (for SPSS).

Made and written a range of participants at a time (:func:`write_wide`), from the
trials columns kept by scoring and the sessions table.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tol_analysis.columns import (
    BOOLEAN,
    FLOAT,
    PARTICIPANT,
    STRING,
    WIDE_MEASURES,
    WIDE_SESSION,
    WIDE_SIMULATED,
    Column,
    participant_field,
)
from tol_analysis.conventions import Conventions
from tol_analysis.export.wide_cells import (
    ProblemCells,
    categories_of,
    cell_stem,
    distinct_rows,
    index_type,
    kept_trials,
    spss_name,
    trial_rows,
)
from tol_analysis.read.logs import give_memory_back
from tol_analysis.score.builder import SpilledTable
from tol_analysis.score.compact import same_texts
from tol_analysis.score.csvfile import TableWriter
from tol_analysis.score.scores import Scores
from tol_analysis.score.sessions import field_names
from tol_analysis.score.tables import ColumnData, TableData

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
    give_memory_back()  # what sessions.csv freed, before wide.csv's columns are made
    wide = _Wide(trials, conv, sessions, WIDE_ROWS)
    give_memory_back()  # what settling them took, before the rows are made
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
            people, rank_of, rank = _people_of_sessions(categories_of(trials, "participant"),
                                                        sessions)  # fmt: skip
            out = {"participant": _participant_column(people)}
            out["simulated"] = _any_simulated(sessions["simulated"], slice(None), rank,
                                              len(people))  # fmt: skip
            out.update(_participant_fields(sessions, people, rank))
            out.update(_session_cells(sessions, people, rank))
        else:  # the participants from the trials, in order of first appearance
            part = trial_rows(trials, 0, len(trials))
            keep = kept_trials(part, self._practice)
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
        cells = ProblemCells(trials, self._practice, rank_of, self.n, step or max(1, self.n))
        self._cells = cells if cells.columns else None
        names = list(out) + (self._cells.columns if self._cells is not None else [])
        self.names = list(dict.fromkeys(names))

    def rows(self, start: int, stop: int) -> TableData:
        out = dict(self._whole.slice(start, stop).columns)
        if self._cells is not None:
            out.update(self._cells.rows(start, stop))
        return TableData(self.names, out, stop - start)


def _participant_column(people: Sequence[str]) -> ColumnData:
    return ColumnData(STRING, np.arange(len(people), dtype=index_type(len(people))),
                      categories=people, plain=True)  # fmt: skip


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
    rank = np.asarray(column.values, index_type(len(column.categories)))  # 4 bytes a session
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
    """Whether ``codes`` use each of ``n`` codes, first appearing in order 0, 1, ...: each
    code at most one above the highest before it (so that each new one is the next), the
    highest ``n - 1``. Looked over :data:`_STEP` codes at a time (no sort of every code)."""
    if not len(codes) or codes.min() < 0:
        return False
    high = -1  # the highest code so far
    for lo in range(0, len(codes), _STEP):
        part = np.asarray(codes[lo : lo + _STEP], np.int64)
        before = np.maximum.accumulate(np.concatenate([[high], part[:-1]]))
        if np.any(part > before + 1):
            return False
        high = max(high, int(part.max()))
    return high == n - 1


#: Sessions looked over at once by :func:`_in_order` and :func:`_session_cells` (arrays
#: of a few bytes a session, not of every session).
_STEP = 1 << 16


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
        safe = spss_name(name)  # wide.csv's names are SPSS variable names
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
    ``rank``: each session's participant's rank): each participant's last session of the
    task. Made :data:`_STEP` sessions at a time, in order (each stem's columns in order of
    first appearance)."""
    task = sessions["protocol"]
    number, tasks = np.asarray(sessions["session"].values), np.asarray(task.values)
    sources = [(c.name, sessions[c.name]) for c in WIDE_SESSION]
    cells: dict[str, list[np.ndarray]] = {}  # each session task's stem: its columns' codes
    number_of: dict[str, int] = {}  # each stem's number, in order of first appearance
    for lo in range(0, len(number), _STEP):
        hi = min(lo + _STEP, len(number))
        pairs, which = distinct_rows(number[lo:hi], tasks[lo:hi])
        which = np.asarray(which).ravel()
        _, firsts = np.unique(which, return_index=True)
        pair_stem = np.empty(len(pairs), np.int64)
        for j in np.argsort(firsts, kind="stable").tolist():
            n, code = pairs[j].tolist()
            stem = cell_stem(n, task.categories[code])
            if stem not in cells:
                number_of[stem] = len(cells)
                cells[stem] = [np.full(len(people), -1, np.asarray(source.values).dtype)
                               for _, source in sources]  # fmt: skip
            pair_stem[j] = number_of[stem]
        session_stem = pair_stem[which]
        order = np.argsort(session_stem, kind="stable")  # each stem's sessions, in order
        here = np.unique(session_stem)
        bounds = np.searchsorted(session_stem[order], np.r_[here, here[-1] + 1])
        columns = list(cells.values())
        for k, s in enumerate(here.tolist()):
            at = order[bounds[k] : bounds[k + 1]] + lo
            for codes, (_, source) in zip(columns[s], sources, strict=True):
                codes[rank[at]] = np.asarray(source.values)[at]
    out: dict[str, ColumnData] = {}
    for stem, columns in cells.items():
        for codes, (name, source) in zip(columns, sources, strict=True):
            out[spss_name(f"{stem}_{name}")] = ColumnData(STRING, codes,
                                                          categories=source.categories)  # fmt: skip
    return out


def _any_simulated(simulated: ColumnData, keep: np.ndarray | slice, rank: np.ndarray,
                   n: int) -> ColumnData:  # fmt: skip
    """Per participant: any session simulated (missing when no session says); ``keep``: the
    rows looked at (``rank``: their participants' ranks)."""
    known = ~simulated.is_missing()[keep]
    yes = np.asarray(simulated.values, bool)[keep] & known
    said, any_yes = np.zeros(n, bool), np.zeros(n, bool)
    said[rank[known]] = True
    any_yes[rank[yes]] = True
    return ColumnData(BOOLEAN, any_yes, ~said)


def describe_wide(names, sessions: TableData | None) -> dict[str, tuple[Column, str]]:
    """Each wide.csv column's registry entry and its label (its definition, naming the session
    task, problem and measure where the name carries them), from the column registry."""
    fields = {}
    if sessions is not None:
        for name in field_names(sessions.names):
            fields[spss_name(name)] = participant_field(name, sessions[name].kind)
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
