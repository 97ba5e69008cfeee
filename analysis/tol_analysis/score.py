"""Scoring: every move measured against the exact distance to the goal.

:func:`score_sessions` replays each trial from its logged start, checks that
every logged configuration follows from a legal move (a log that disagrees is
an error naming the file and the row, never a silently wrong score), and
returns three tidy tables. Their columns are listed, with units and
definitions, in :mod:`tol_analysis.config` and in the codebook written beside the
exported tables.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd

from tol_analysis.columns import (
    COPY_MOVES,
    MOVES,
    SESSION_LEVELS,
    SESSIONS,
    TRIALS,
    VIOLATION_KINDS,
)
from tol_analysis.conventions import Conventions
from tol_analysis.read import SessionLog
from tol_tasks import Hanoi, London
from tol_tasks.errors import TolTasksError
from tol_tasks.puzzles.base import Puzzle
from tol_tasks.session_data import gc_paused
from tol_tasks.session_data.eventlog import EventLogError, column_index, row_fault

PEGS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

MOVES_COLUMNS = [(c.name, c.type) for c in MOVES]
TRIALS_COLUMNS = [(c.name, c.type) for c in TRIALS]
SESSIONS_COLUMNS = [(c.name, c.type) for c in SESSIONS]
SESSIONS_LEVEL_COLUMNS = [(c.name, c.type) for c in SESSION_LEVELS]
COPY_MOVES_COLUMNS = [(c.name, c.type) for c in COPY_MOVES]


@dataclass
class Scores:
    """The three tables and the conventions they were computed under.

    Attributes
    ----------
    moves : DataFrame
        One row per completed move; columns in ``tol_analysis.config.MOVES_COLUMNS``.
    trials : DataFrame
        One row per problem attempt; ``tol_analysis.config.TRIALS_COLUMNS``.
    sessions : DataFrame
        One row per participant session; ``tol_analysis.config.SESSIONS_COLUMNS``
        followed by per-level columns (``min{k}_*``).
    copy_moves : DataFrame
        One row per move carried out in a yoked copy trial;
        ``tol_analysis.config.COPY_MOVES_COLUMNS`` (empty without copy trials).
    conventions : Conventions
    warnings : list of str
        Recoverable faults found while reading (torn last lines, ...).
    sidecars : dict
        Each session's JSON sidecar (or None), by (participant, session): the
        protocol text, software and timing that exports and reports describe.
    """

    moves: pd.DataFrame
    trials: pd.DataFrame
    sessions: pd.DataFrame
    conventions: Conventions
    warnings: list[str] = field(default_factory=list)
    sidecars: dict = field(default_factory=dict)
    copy_moves: pd.DataFrame | None = None


@lru_cache(maxsize=256)
def puzzle_from_code(code: str) -> Puzzle:
    """The puzzle of an event log's ``puzzle`` column (``hanoi:3:3:0``, ``london:RGB:3-2-1``)."""
    parts = code.split(":")
    try:
        if parts[0] == "hanoi" and len(parts) == 4:
            return Hanoi(int(parts[1]), int(parts[2]), parts[3] == "1")
        if parts[0] == "london" and len(parts) == 3:
            return London(parts[1], tuple(int(c) for c in parts[2].split("-")))
    except (ValueError, TolTasksError):
        pass
    raise ValueError(
        f"puzzle {code!r} is not a puzzle code such as hanoi:3:3:0 or london:RGB:3-2-1"
    )


class _Replay:
    """Caches shared by every trial on one puzzle: parsed states, moves, distances."""

    def __init__(self, puzzle: Puzzle) -> None:
        self.puzzle = puzzle
        self._states: dict[str, object] = {}
        self._moves: dict[tuple[str, str, str], tuple[str, str] | str] = {}
        self._dist: dict[tuple[str, str], int] = {}

    def state(self, text: str):
        s = self._states.get(text)
        if s is None:
            s = self.puzzle.parse(text)
            self._states[text] = s
        return s

    def move(self, before: str, a: str, b: str) -> tuple[str, str] | str:
        """(state after, piece), or the reason the move is illegal."""
        key = (before, a, b)
        hit = self._moves.get(key)
        if hit is None:
            s = self.state(before)
            try:
                m = self.puzzle.check_move(s, a, b)
                hit = (str(self.puzzle.apply(s, m)), str(m.piece))
            except TolTasksError as exc:
                hit = str(exc)
            self._moves[key] = hit
        return hit

    def distance(self, state: str, goal: str) -> int:
        key = (state, goal)
        d = self._dist.get(key)
        if d is None:
            d = self.puzzle.distance(self.state(state), self.state(goal))
            self._dist[key] = d
        return d


_REPLAYS: dict[str, _Replay] = {}


def _replay(code: str) -> _Replay:
    r = _REPLAYS.get(code)
    if r is None:
        r = _Replay(puzzle_from_code(code))
        _REPLAYS[code] = r
    return r


_C = column_index()
_EVENT, _TRIAL, _ATTEMPT, _PID = _C["event"], _C["trial"], _C["attempt"], _C["problem_id"]
_TT, _STATE, _GOAL, _PUZZLE = _C["trial_time"], _C["state"], _C["goal"], _C["puzzle"]
_FROM, _TO, _REASON, _DETAIL, _BLOCK = (
    _C["from_peg"],
    _C["to_peg"],
    _C["reason"],
    _C["detail"],
    _C["block"],
)
_COPY_OF = _C["copy_of"]


def _time(v: str) -> float:
    return float(v) if v != "" else math.nan


#: Per-frame work figures the runner writes in each trial_end row's detail.
_FRAME_WORK = ("frame_work_median_ms", "frame_work_p99_ms", "frame_work_max_ms")


def _float_or_nan(text: str) -> float:
    """A number from a detail value; NaN when it is missing or not a number."""
    try:
        value = float(text)
    except ValueError:
        return math.nan
    return value if math.isfinite(value) else math.nan


def _detail(text: str) -> dict[str, str]:
    out = {}
    for part in text.split(";"):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k] = v
    return out


class _Trial:
    def __init__(self, path, row: list[str], rownum: int) -> None:
        self.path = path
        self.onset_row = rownum
        self.key = (row[_TRIAL], row[_ATTEMPT], row[_PID])
        self.trial = int(row[_TRIAL])
        self.attempt = int(row[_ATTEMPT]) if row[_ATTEMPT] else 1
        self.block = row[_BLOCK]
        self.code = row[_PUZZLE]
        try:
            self.replay = _replay(self.code)
            self.replay.state(row[_STATE])
            self.replay.state(row[_GOAL])
        except (ValueError, TolTasksError) as exc:
            raise EventLogError(f"{path}: row {rownum}: trial_onset: {exc}") from None
        self.start, self.goal = row[_STATE], row[_GOAL]
        self.state = self.start
        self.seen = {self.start}
        self.min_moves = self.replay.distance(self.start, self.goal)
        self.d = self.min_moves
        self.first_pick = math.nan
        self.first_move = math.nan
        self.prev_time = 0.0
        self.prev_move: tuple[str, str, str] | None = None
        self.placements = 0
        self.same_peg = 0
        self.violations = dict.fromkeys(VIOLATION_KINDS, 0)
        self.other_violations = 0
        self.optimal = self.neutral = self.counter = 0
        self.first_optimal: bool | None = None
        self.backtracks = self.revisits = 0
        self.latencies: list[float] = []
        self.solved = self.time_out = self.move_limit = False
        self.end_time = math.nan
        self.complete = False
        self.frames = self.dropped = None
        self.frame_work: dict[str, float] = {}


@dataclass
class _SessionInfo:
    participant: str
    session: int
    protocol: str
    status: str


def score_sessions(
    logs: Iterable[SessionLog],
    conventions: Conventions | None = None,
    on_error: Callable[[SessionLog, EventLogError], None] | None = None,
) -> Scores:
    """Score sessions into moves, trials and sessions tables.

    Parameters
    ----------
    logs : iterable of SessionLog
        From :func:`tol_analysis.read.read_session`. A generator is consumed one log
        at a time, so memory holds the output tables, not every log.
    conventions : Conventions, optional
        Defaults documented in :class:`tol_analysis.config.Conventions`.
    on_error : callable, optional
        Called with a log and its error when the log contradicts itself; the
        log is then left out whole (none of its rows enter the tables). Without
        it the error is raised.

    Raises
    ------
    EventLogError
        When a log contradicts itself: a placement that is not a legal move, a
        configuration that does not follow from the previous one, an event
        outside any trial. The message names the file and the row.
    """
    conv = conventions or Conventions()
    moves: list[tuple] = []
    trials: list[dict] = []
    copy_moves: list[tuple] = []
    warnings: list[str] = []
    infos: list[_SessionInfo] = []
    sidecars: dict = {}
    with gc_paused():
        for log in logs:
            log_moves: list[tuple] = []
            log_trials: list[dict] = []
            log_copy_moves: list[tuple] = []
            try:
                _score_log(log, conv, log_moves, log_trials, log_copy_moves)
            except EventLogError as exc:
                if on_error is None:
                    raise
                on_error(log, exc)
                continue
            moves.extend(log_moves)
            trials.extend(log_trials)
            copy_moves.extend(log_copy_moves)
            warnings.extend(log.warnings)
            protocol = (log.sidecar or {}).get("protocol", {}).get("name", "")
            infos.append(_SessionInfo(log.participant, log.session, protocol, log.status))
            sidecars[(log.participant, log.session)] = log.sidecar
    moves_df = _typed_frame(moves, MOVES_COLUMNS)
    del moves
    trials_df = pd.DataFrame(trials, columns=[c[0] for c in TRIALS_COLUMNS])
    _types(trials_df, TRIALS_COLUMNS)
    sessions_df = summarize_sessions(trials_df, infos, conv)
    copy_df = _typed_frame(copy_moves, COPY_MOVES_COLUMNS)
    return Scores(moves_df, trials_df, sessions_df, conv, warnings, sidecars, copy_df)


def _typed_frame(rows: list[tuple], columns) -> pd.DataFrame:
    """A DataFrame from row tuples with no missing values, each column built with its
    codebook type at once (letting pandas infer types costs seconds per million rows)."""
    n = len(rows)
    data = {}
    for i, (name, kind, *_) in enumerate(columns):
        values = (r[i] for r in rows)
        if kind == "integer":
            arr = np.fromiter(values, dtype=np.int64, count=n)
            data[name] = pd.arrays.IntegerArray(arr, np.zeros(n, dtype=bool))
        elif kind == "boolean":
            arr = np.fromiter(values, dtype=bool, count=n)
            data[name] = pd.arrays.BooleanArray(arr, np.zeros(n, dtype=bool))
        elif kind == "float":
            data[name] = np.fromiter(values, dtype=np.float64, count=n)
        else:
            data[name] = pd.array(list(values), dtype="str")
    return pd.DataFrame(data, columns=[c[0] for c in columns])


def _types(df: pd.DataFrame, columns) -> None:
    for name, kind, *_ in columns:
        if kind == "integer":
            df[name] = pd.array(df[name], dtype="Int64")
        elif kind == "boolean":
            df[name] = pd.array(df[name], dtype="boolean")
        elif kind == "float":
            df[name] = df[name].astype("float64")


def _score_log(log: SessionLog, conv: Conventions, moves: list, trials: list,
               copy_moves: list) -> None:  # fmt: skip
    """Score one log into ``moves`` and ``trials``.

    A cell that does not hold what its column needs is an EventLogError naming
    the file, the row, the column, the value and what was expected.
    """
    try:
        _score_rows(log, conv, moves, trials, copy_moves)
    except (ValueError, IndexError, KeyError, TypeError, ZeroDivisionError) as exc:
        if isinstance(exc, EventLogError):
            raise
        raise _unscorable(log, exc) from None


def _unscorable(log: SessionLog, exc: Exception) -> EventLogError:
    """The error for a log whose cells stopped the scoring: the first bad cell, by row."""
    for n, row in enumerate(log.records, start=2):
        fault = row_fault(row)
        if fault is not None:
            return EventLogError(f"{log.path}: row {n}: {fault}")
    return EventLogError(
        f"{log.path}: cannot be scored ({type(exc).__name__}: {exc}), though every cell holds "
        "its type. Suggested fix: check it with tol-score --verify, restore it from a backup, "
        "or leave it out with --skip-bad."
    )


def _score_rows(log: SessionLog, conv: Conventions, moves: list, trials: list,
                copy_moves: list) -> None:  # fmt: skip
    t: _Trial | None = None
    c: _Copy | None = None
    participant, session = log.participant, log.session
    path = log.path
    add_move = moves.append
    for n, row in enumerate(log.records, start=2):  # file row 1 is the header
        ev = row[_EVENT]
        if row[_COPY_OF]:
            if t is not None:  # an attempt without trial_end before its copy
                trials.append(_finish(t, conv, participant, session))
                t = None
            if ev == "copy_onset":
                if c is not None:
                    _attach_copy(c, trials, copy_moves, participant, session)
                c = _Copy(path, row, n)
            elif c is None:
                raise EventLogError(
                    f"{path}: row {n}: {ev} belongs to a copy trial (copy_of {row[_COPY_OF]}) "
                    "that has no copy_onset row before it."
                )
            else:
                c.row(row, n)
                if ev == "copy_end":
                    _attach_copy(c, trials, copy_moves, participant, session)
                    c = None
            continue
        if ev == "trial_onset":
            if c is not None:
                _attach_copy(c, trials, copy_moves, participant, session)
                c = None
            if t is not None:
                trials.append(_finish(t, conv, participant, session))
            t = _Trial(path, row, n)
            continue
        if t is None or not row[_TRIAL]:
            continue
        if row[_TRIAL] != t.key[0] or row[_ATTEMPT] != t.key[1] or row[_PID] != t.key[2]:
            raise EventLogError(
                f"{path}: row {n}: {ev} belongs to trial {row[_TRIAL]} ({row[_PID]}), "
                f"but trial {t.key[0]} ({t.key[2]}) began at row {t.onset_row} and has not ended."
            )
        if ev == "place":
            _move(t, row, n, add_move, participant, session)
        elif ev == "pick_up":
            if t.first_pick != t.first_pick:  # NaN: no pick-up yet
                t.first_pick = _time(row[_TT])
        elif ev == "illegal":
            reason = row[_REASON]
            if reason in t.violations:
                t.violations[reason] += 1
            else:
                t.other_violations += 1
        elif ev == "same_peg_drop":
            t.same_peg += 1
        elif ev in ("solved", "time_out", "move_limit"):
            if ev == "solved":
                if t.state != t.goal:
                    raise EventLogError(
                        f"{path}: row {n}: solved, but the replayed configuration "
                        f"{t.state} is not the goal {t.goal}."
                    )
                t.solved = True
            elif ev == "time_out":
                t.time_out = True
            else:
                t.move_limit = True
            if math.isnan(t.end_time):
                t.end_time = _time(row[_TT])
        elif ev == "trial_end":
            t.complete = True
            if math.isnan(t.end_time):
                t.end_time = _time(row[_TT])
            det = _detail(row[_DETAIL])
            t.frames = int(det["frames"]) if det.get("frames", "").isdigit() else None
            t.dropped = (
                int(det["dropped_frames"]) if det.get("dropped_frames", "").isdigit() else None
            )
            t.frame_work = {k: _float_or_nan(det.get(k, "")) for k in _FRAME_WORK}
            trials.append(_finish(t, conv, participant, session))
            t = None
    if t is not None:
        last = log.records[-1]
        if last[_TT] and math.isnan(t.end_time):
            t.end_time = _time(last[_TT])
        trials.append(_finish(t, conv, participant, session))
    if c is not None:
        _attach_copy(c, trials, copy_moves, participant, session)


def _replay_place(replay: _Replay, before: str, row: list[str], path, n: int) -> tuple[str, str]:
    """(state after, piece) of a logged placement, checked against the replay.

    Raises
    ------
    EventLogError
        When the move is illegal from ``before`` or the logged state disagrees.
    """
    a, b = row[_FROM], row[_TO]
    result = replay.move(before, a, b)
    if isinstance(result, str):
        raise EventLogError(
            f"{path}: row {n}: the placement {a}->{b} is not a legal move from {before}: "
            f"{result} The log is damaged or was not written by tol-run."
        )
    if row[_STATE] != result[0]:
        raise EventLogError(
            f"{path}: row {n}: the log says moving {a}->{b} from {before} gives "
            f"{row[_STATE]!r}, but replaying the move gives {result[0]!r}."
        )
    return result


def _move(t: _Trial, row: list[str], n: int, cols, participant, session) -> None:
    a, b = row[_FROM], row[_TO]
    before = t.state
    after, piece = _replay_place(t.replay, before, row, t.path, n)
    tt = _time(row[_TT])
    before_d = t.d
    after_d = t.replay.distance(after, t.goal)
    t.placements += 1
    optimal = after_d == before_d - 1
    counter = after_d > before_d
    if optimal:
        t.optimal += 1
    elif counter:
        t.counter += 1
    else:
        t.neutral += 1
    if t.first_optimal is None:
        t.first_optimal = optimal
        t.first_move = tt
    backtrack = t.prev_move == (piece, b, a)
    revisit = after in t.seen
    if backtrack:
        t.backtracks += 1
    if revisit:
        t.revisits += 1
    else:
        t.seen.add(after)
    latency = tt - t.prev_time
    if t.placements > 1:
        t.latencies.append(latency)
    # One tuple per move, in the order of MOVES_COLUMNS (transposed once at the end).
    cols(
        (participant, session, t.block, t.trial, t.attempt, t.key[2], t.placements, piece, a, b,
         before, after, tt, latency, before_d, after_d, optimal, counter, backtrack, revisit)
    )  # fmt: skip
    t.state, t.d, t.prev_time, t.prev_move = after, after_d, tt, (piece, a, b)


#: The copy columns of an attempt without a copy.
_NO_COPY = {
    "copy_trial": None, "copy_source": None, "copy_moves_shown": None, "copy_moves": None,
    "copy_refused": None, "copy_complete": None, "copy_first_move_latency": math.nan,
    "copy_time_per_move": math.nan, "copy_median_move_time": math.nan,
    "initial_thinking_time": math.nan, "subsequent_thinking_time": math.nan,
    "subsequent_thinking_time_per_move": math.nan,
}  # fmt: skip


class _Copy:
    """A yoked copy trial being read: its moves replayed, its times kept."""

    def __init__(self, path, row: list[str], n: int) -> None:
        self.path = path
        self.onset_row = n
        self.trial = int(row[_TRIAL])
        self.copy_of = int(row[_COPY_OF])
        self.key = (row[_TRIAL], row[_ATTEMPT], row[_PID])
        self.block, self.problem_id = row[_BLOCK], row[_PID]
        try:
            self.replay = _replay(row[_PUZZLE])
            self.replay.state(row[_STATE])
        except (ValueError, TolTasksError) as exc:
            raise EventLogError(f"{path}: row {n}: copy_onset: {exc}") from None
        self.state = row[_STATE]
        det = _detail(row[_DETAIL])
        self.source = det.get("source", "")
        seq = det.get("sequence", "")
        self.shown = len(seq.split(",")) if seq else 0
        self.first_pick = math.nan
        self.cue = math.nan
        self.pick = math.nan
        self.refused_now = 0
        self.refused = 0
        self.last_place = 0.0
        self.moves: list[tuple] = []
        self.complete = False

    def row(self, row: list[str], n: int) -> None:
        if (row[_TRIAL], row[_ATTEMPT], row[_PID]) != self.key:
            raise EventLogError(
                f"{self.path}: row {n}: {row[_EVENT]} belongs to trial {row[_TRIAL]} "
                f"({row[_PID]}), but copy trial {self.key[0]} began at row {self.onset_row} "
                "and has not ended."
            )
        ev = row[_EVENT]
        tt = _time(row[_TT])
        if ev == "copy_cue":
            self.cue = tt
        elif ev == "pick_up":
            self.pick = tt
            if math.isnan(self.first_pick):
                self.first_pick = tt
        elif ev == "copy_refused":
            self.refused += 1
            self.refused_now += 1
        elif ev == "place":
            self.state, piece = _replay_place(self.replay, self.state, row, self.path, n)
            # One copy_moves.csv row, in the order of COPY_MOVES_COLUMNS after the ids.
            self.moves.append((len(self.moves) + 1, piece, row[_FROM], row[_TO], self.cue,
                               self.pick, tt, tt - self.last_place, self.refused_now))  # fmt: skip
            self.last_place = tt
            self.refused_now = 0
        elif ev == "copy_end":
            self.complete = row[_REASON] == "copied"


def _attach_copy(c: _Copy, trials: list[dict], copy_moves: list, participant, session) -> None:
    """Put a copy's measures on the row of the attempt it copies; its moves into copy_moves."""
    target = next((d for d in reversed(trials) if d["trial"] == c.copy_of), None)
    if target is None:
        raise EventLogError(
            f"{c.path}: row {c.onset_row}: copy trial {c.trial} copies trial {c.copy_of}, "
            "which is not in the log before it."
        )
    for m in c.moves:
        copy_moves.append((participant, session, c.block, c.trial, c.copy_of, c.problem_id, *m))
    n_copy = len(c.moves)
    per_move = c.last_place / n_copy if n_copy else math.nan
    target.update(
        copy_trial=c.trial, copy_source=c.source, copy_moves_shown=c.shown, copy_moves=n_copy,
        copy_refused=c.refused, copy_complete=c.complete, copy_first_move_latency=c.first_pick,
        copy_time_per_move=per_move,
        copy_median_move_time=statistics.median(m[7] for m in c.moves) if c.moves else math.nan,
    )  # fmt: skip
    n = target["placements"]
    first, last = target["_first_pick"], target["_last_place"]
    if not (c.complete and n and n_copy) or math.isnan(first) or math.isnan(last):
        return
    subsequent = (last - first) - (n * per_move - c.first_pick)
    target.update(
        initial_thinking_time=first - c.first_pick,
        subsequent_thinking_time=subsequent,
        subsequent_thinking_time_per_move=subsequent / (n - 1) if n > 1 else math.nan,
    )


def _nan_if(cond: bool, value: float) -> float:
    return value if cond else math.nan


def _finish(t: _Trial, conv: Conventions, participant: str, session: int) -> dict:
    violations = sum(t.violations.values()) + t.other_violations
    moves = t.placements
    if conv.same_peg_drop_counts:
        moves += t.same_peg
    if conv.violations_count:
        moves += violations
    planning = t.first_pick if conv.planning_ends == "pick_up" else t.first_move
    total = t.end_time
    p = t.replay.puzzle
    size = p.n_disks if isinstance(p, Hanoi) else len(p.balls)
    solved = t.solved
    return {
        "participant": participant,
        "session": session,
        "block": t.block,
        "practice": t.block == "practice",
        "trial": t.trial,
        "attempt": t.attempt,
        "problem_id": t.key[2],
        "task": "hanoi" if isinstance(p, Hanoi) else "london",
        "size": size,
        "pegs": p.n_pegs,
        "puzzle": t.code,
        "start": t.start,
        "goal": t.goal,
        "min_moves": t.min_moves,
        "moves": moves,
        "placements": t.placements,
        "excess_moves": moves - t.min_moves if solved else None,
        "solved": solved,
        "solved_in_min": solved and moves == t.min_moves,
        "time_out": t.time_out,
        "move_limit_reached": t.move_limit,
        "rule_violations": violations,
        **{f"violations_{k}": v for k, v in t.violations.items()},
        "same_peg_drops": t.same_peg,
        "planning_time": planning,
        "first_move_time": t.first_move,
        "execution_time": total - planning,
        "total_time": total,
        "mean_inter_move_time": statistics.fmean(t.latencies) if t.latencies else math.nan,
        "median_inter_move_time": statistics.median(t.latencies) if t.latencies else math.nan,
        "time_per_move": total / moves if moves else math.nan,
        "move_accuracy_ratio": _nan_if(
            solved and t.min_moves > 0, moves / t.min_moves if t.min_moves else 0
        ),
        "path_efficiency": _nan_if(solved and moves > 0, t.min_moves / moves if moves else 0),
        "optimal_move_proportion": t.optimal / t.placements if t.placements else math.nan,
        "optimal_moves": t.optimal,
        "neutral_moves": t.neutral,
        "counterproductive_moves": t.counter,
        "first_move_optimal": t.first_optimal,
        "backtracks": t.backtracks,
        "revisits": t.revisits,
        "frames": t.frames,
        "dropped_frames": t.dropped,
        **{k: t.frame_work.get(k, math.nan) for k in _FRAME_WORK},
        "complete": t.complete,
        **_NO_COPY,
        # For a copy that follows (not columns of the table):
        "_first_pick": t.first_pick,
        "_last_place": t.prev_time if t.placements else math.nan,
    }


def summarize_sessions(trials: pd.DataFrame, infos: list, conv: Conventions) -> pd.DataFrame:
    """One row per participant session; see ``SESSIONS_COLUMNS`` and the ``min{k}_`` columns.

    Computed with a few group-bys over the whole trials table, so it stays fast
    for tens of thousands of sessions.
    """
    keys = ["participant", "session"]
    base = pd.DataFrame(
        [{"participant": i.participant, "session": i.session, "protocol": i.protocol, "status": i.status}
         for i in infos],
        columns=["participant", "session", "protocol", "status"],
    ).drop_duplicates(keys)  # fmt: skip
    data = trials if conv.include_practice else trials[~trials["practice"].astype(bool)]
    overall = _summaries(data, keys)
    out = base.merge(overall, on=keys, how="left")
    levels = sorted(int(v) for v in data["min_moves"].dropna().unique())
    if levels:
        per = _summaries(data, [*keys, "min_moves"])
        per["min_moves"] = per["min_moves"].astype(int)
        wide = per.pivot(index=keys, columns="min_moves")
        names = [c[0] for c in SESSIONS_LEVEL_COLUMNS]
        wide = wide[[c for c in wide.columns if c[0] in names]]
        wide.columns = [f"min{k}_{name}" for name, k in wide.columns]
        out = out.merge(wide.reset_index(), on=keys, how="left")
    cols = [c[0] for c in SESSIONS_COLUMNS] + [
        f"min{k}_{name}" for k in levels for name, *_ in SESSIONS_LEVEL_COLUMNS
    ]
    out = out.reindex(columns=cols)
    # Counts are 0, not missing, for a session without trials (or without that level).
    integer = {n for n, kind, *_ in SESSIONS_COLUMNS if kind == "integer"}
    integer |= {
        f"min{k}_{n}" for k in levels for n, kind, *_ in SESSIONS_LEVEL_COLUMNS if kind == "integer"
    }
    for c in integer - {"session"}:
        out[c] = out[c].fillna(0).astype("int64")
    return out


def _summaries(g: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The session summary measures per group of ``keys``."""
    d = g.assign(
        _problem=g["block"].astype(str) + "\x1f" + g["problem_id"].astype(str),
        _solved=g["solved"].astype(bool),
        _in_min=g["solved_in_min"].astype(bool),
        _timeout=g["time_out"].astype(bool).astype(int),
        _excess=pd.to_numeric(g["excess_moves"], errors="coerce").fillna(0).astype(float),
        _moves=g["moves"].astype(float),
        _viol=g["rule_violations"].astype(float),
    )
    d["_solved_problem"] = d["_problem"].where(d["_solved"])
    d["_in_min_problem"] = d["_problem"].where(d["_in_min"])
    grouped = d.groupby(keys, sort=False)
    res = grouped.agg(
        problems=("_problem", "nunique"),
        attempts=("_problem", "size"),
        problems_solved=("_solved_problem", "nunique"),
        problems_solved_in_min=("_in_min_problem", "nunique"),
        total_moves=("_moves", "sum"),
        total_excess_moves=("_excess", "sum"),
        total_rule_violations=("_viol", "sum"),
        total_time_violations=("_timeout", "sum"),
        total_planning_time=("planning_time", "sum"),
        total_execution_time=("execution_time", "sum"),
        total_solving_time=("total_time", "sum"),
        mean_planning_time=("planning_time", "mean"),
        mean_time_per_move=("time_per_move", "mean"),
        mean_initial_thinking_time=("initial_thinking_time", "mean"),
        mean_subsequent_thinking_time=("subsequent_thinking_time", "mean"),
        mean_subsequent_thinking_time_per_move=("subsequent_thinking_time_per_move", "mean"),
    ).reset_index()
    for c in (
        "total_moves",
        "total_excess_moves",
        "total_rule_violations",
        "total_time_violations",
    ):
        res[c] = res[c].astype("int64")
    return res
