"""Scoring: every move measured against the exact distance to the goal.

:func:`score_sessions` reads each log once, walks it into attempts (the one
walker, :func:`tol_tasks.session_data.attempts.attempt_spans`), replays every
trial from its logged start checking that every logged configuration follows
from a legal move (a log that disagrees is an error naming the file and the
row, never a silently wrong score), and returns tidy tables whose columns are
declared in :mod:`tol_analysis.columns`.

The work is split by job: :mod:`~tol_analysis.replay` (states, moves and
distances as integer tables), :mod:`~tol_analysis.moves` (per-move measures),
:mod:`~tol_analysis.trials` (per-attempt measures), :mod:`~tol_analysis.copies`
(yoked copy trials and thinking times), :mod:`~tol_analysis.sessions`
(session summaries) and :mod:`~tol_analysis.tables` (typed DataFrames).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from tol_analysis.columns import COPY_MOVES, MOVES, TRIALS
from tol_analysis.conventions import Conventions
from tol_analysis.copies import copy_trials, empty_copy_columns
from tol_analysis.logview import LogView
from tol_analysis.read import SessionLog
from tol_analysis.replay import Replays
from tol_analysis.sessions import SessionInfo, summarize_sessions
from tol_analysis.tables import TableBuilder
from tol_analysis.trials import problem_attempts
from tol_tasks.session_data import gc_paused
from tol_tasks.session_data.attempts import Coded
from tol_tasks.session_data.eventlog import EventLogError


@dataclass
class Scores:
    """The tables and the conventions they were computed under.

    Attributes
    ----------
    moves : DataFrame
        One row per completed move; columns of :data:`tol_analysis.columns.MOVES`.
    trials : DataFrame
        One row per problem attempt; :data:`tol_analysis.columns.TRIALS`.
    sessions : DataFrame
        One row per participant session; :data:`tol_analysis.columns.SESSIONS`
        followed by per-level columns (``min{k}_*``, :data:`~tol_analysis.columns.SESSION_LEVELS`).
    conventions : Conventions
    warnings : list of str
        Recoverable faults found while reading (torn last lines, ...).
    sidecars : dict
        Each session's JSON sidecar (or None), by (participant, session): the
        protocol text, software and timing that exports and reports describe.
    copy_moves : DataFrame
        One row per move carried out in a yoked copy trial;
        :data:`tol_analysis.columns.COPY_MOVES` (empty without copy trials).
    """

    moves: pd.DataFrame
    trials: pd.DataFrame
    sessions: pd.DataFrame
    conventions: Conventions
    warnings: list[str] = field(default_factory=list)
    sidecars: dict = field(default_factory=dict)
    copy_moves: pd.DataFrame | None = None


def score_sessions(
    logs: Iterable[SessionLog],
    conventions: Conventions | None = None,
    on_error: Callable[[SessionLog, EventLogError], None] | None = None,
) -> Scores:
    """Score sessions into moves, trials, sessions and copy_moves tables.

    Parameters
    ----------
    logs : iterable of SessionLog
        From :func:`tol_analysis.read.read_session`. A generator is consumed one log
        at a time, so memory holds the output tables, not every log.
    conventions : Conventions, optional
        Defaults documented in :class:`tol_analysis.conventions.Conventions`.
    on_error : callable, optional
        Called with a log and its error when the log contradicts itself; the
        log is then left out whole (none of its rows enter the tables). Without
        it the error is raised.

    Raises
    ------
    EventLogError
        When a log contradicts itself: a placement that is not a legal move, a
        configuration that does not follow from the previous one, rows of two
        attempts interleaved. The message names the file and the row.
    """
    conv = conventions or Conventions()
    replays = Replays()  # states, moves and distances, kept for this call only
    tables = {name: TableBuilder(t) for name, t in
              (("moves", MOVES), ("trials", TRIALS), ("copy_moves", COPY_MOVES))}  # fmt: skip
    warnings: list[str] = []
    infos: list[SessionInfo] = []
    sidecars: dict = {}
    with gc_paused():
        for log in logs:
            try:
                parts = score_log(log, conv, replays)
            except EventLogError as exc:
                if on_error is None:
                    raise
                on_error(log, exc)
                continue
            for name, (n, columns) in parts.items():
                tables[name].add(n, columns)
            warnings.extend(log.warnings)
            protocol = ((log.sidecar or {}).get("protocol") or {}).get("name", "")
            infos.append(SessionInfo(log.participant, log.session, protocol, log.status))
            sidecars[(log.participant, log.session)] = log.sidecar
    moves = tables["moves"].frame()
    trials = tables["trials"].frame()
    sessions = summarize_sessions(trials, infos, conv)
    return Scores(moves, trials, sessions, conv, warnings, sidecars, tables["copy_moves"].frame())


def score_log(log: SessionLog, conv: Conventions, replays: Replays) -> dict[str, tuple[int, dict]]:
    """One log's rows of the moves, trials and copy_moves tables: ``{table: (rows, columns)}``.

    Raises
    ------
    EventLogError
        Naming the file and the row where the log contradicts itself.
    """
    view = LogView(log)
    ids = {"participant": log.participant, "session": np.int64(log.session)}
    problems = problem_attempts(view, replays, conv)
    n_trials = len(problems.index)
    problems.columns.update(empty_copy_columns(n_trials))
    copies = copy_trials(view, replays, problems)
    return {
        "moves": _moves_table(problems, ids),
        "trials": (n_trials, {**ids, **problems.columns}),
        "copy_moves": _copy_moves_table(copies, ids),
    }


def _moves_table(problems, ids: dict) -> tuple[int, dict]:
    """moves.csv's columns of a log, puzzle by puzzle, put back in row order."""
    parts = []
    cols = problems.columns
    for m, space in problems.moves:
        r = m.replayed
        g = r.group
        # The first move of an attempt starts from its start as the log wrote it.
        start = cols["start"]
        states = [*space.texts, *(start.values[k] for k in start.codes.tolist())]
        before = np.where(r.first, len(space.texts) + g, r.before)
        parts.append((r.rows, {
            "block": _per_move(cols["block"], g), "trial": cols["trial"][g],
            "attempt": cols["attempt"][g], "problem_id": _per_move(cols["problem_id"], g),
            "move_index": m.move_index, "piece": Coded(r.piece, list(space.piece_texts())),
            "from_peg": r.from_peg, "to_peg": r.to_peg,
            "state_before": Coded(before, states), "state_after": Coded(r.after, list(space.texts)),
            "time": m.time, "latency": m.latency, "distance_before": m.distance_before,
            "distance_after": m.distance_after, "optimal": m.optimal,
            "counterproductive": m.counterproductive, "backtrack": m.backtrack,
            "revisit": m.revisit,
        }))  # fmt: skip
    return _in_row_order(parts, ids)


def _per_move(per_attempt: Coded, group: np.ndarray) -> Coded:
    """A per-attempt text column, repeated for each move of the attempt."""
    return Coded(np.asarray(per_attempt.codes)[group], per_attempt.values)


def _copy_moves_table(c, ids: dict) -> tuple[int, dict]:
    parts = []
    for r, space in c.replayed:
        g = r.group
        parts.append((r.rows, {
            "block": Coded(g, c.block), "trial": c.trial[g], "copy_of": c.copy_of[g],
            "problem_id": Coded(g, c.problem_id), "piece": Coded(r.piece, list(space.piece_texts())),
            "from_peg": r.from_peg, "to_peg": r.to_peg,
        }))  # fmt: skip
    _, columns = _in_row_order(parts, ids)
    columns.update(move_index=c.move_index, cue_time=c.cue_time, pick_time=c.pick_time,
                   time=c.time, move_time=c.move_time, refused=c.refused)  # fmt: skip
    return len(c.move_index), columns


def _in_row_order(parts: list, ids: dict) -> tuple[int, dict]:
    """Columns of several puzzles' moves merged into one set, ordered by log row."""
    if not parts:
        return 0, _empty_moves(ids)
    if len(parts) == 1:
        rows, cols = parts[0]
        return len(rows), {**ids, **cols}
    order = np.argsort(np.concatenate([rows for rows, _ in parts]), kind="stable")
    merged = {}
    for name in parts[0][1]:
        values = [cols[name] for _, cols in parts]
        if isinstance(values[0], Coded):
            texts = [list(v.values) for v in values]
            offsets = np.cumsum([0] + [len(t) for t in texts[:-1]])
            codes = np.concatenate([np.asarray(v.codes) + o for v, o in
                                    zip(values, offsets, strict=True)])  # fmt: skip
            merged[name] = Coded(codes[order], [t for ts in texts for t in ts])
        elif isinstance(values[0], list):
            flat = [x for v in values for x in v]
            merged[name] = [flat[i] for i in order.tolist()]
        else:
            merged[name] = np.concatenate(values)[order]
    return len(order), {**ids, **merged}


def _empty_moves(ids: dict) -> dict:
    empty_i, empty_f, empty_b = np.empty(0, np.int64), np.empty(0), np.empty(0, bool)
    out = {**ids}
    for name in ("block", "problem_id", "piece", "from_peg", "to_peg", "state_before",
                 "state_after"):  # fmt: skip
        out[name] = []
    for name in ("trial", "attempt", "copy_of", "move_index", "distance_before",
                 "distance_after", "refused"):  # fmt: skip
        out[name] = empty_i
    for name in ("time", "latency", "cue_time", "pick_time", "move_time"):
        out[name] = empty_f
    for name in ("optimal", "counterproductive", "backtrack", "revisit"):
        out[name] = empty_b
    return out
