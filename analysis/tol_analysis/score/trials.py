"""Per-attempt measures: one trials.csv row per problem attempt.

:func:`problem_attempts` replays the problem attempts of a batch of logs (one
puzzle at a time, every attempt of that puzzle at once), and returns their moves
(:mod:`tol_analysis.score.moves`) and their trials.csv columns, under the
conventions. The copy columns are filled afterwards by
:mod:`tol_analysis.score.yoked`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tol_analysis.columns import (
    FRAME_WORK,
    TOLDX_MOVES,
    TOLDX_SECONDS,
    TOLDX_VIOLATION_SECONDS,
    VIOLATION_KINDS,
)
from tol_analysis.conventions import Conventions
from tol_analysis.read.logview import (
    LogView,
    count_in_group,
    first_in_group,
    last_in_group,
    mean_in_group,
    median_in_group,
)
from tol_analysis.score.moves import MoveMeasures, StateKeys, move_measures, replay_placements
from tol_analysis.score.replay import Replays
from tol_tasks.errors import TolTasksError
from tol_tasks.session_data.attempts import Coded
from tol_tasks.session_data.detail import parse_detail

#: Events that end a problem attempt's solving time (the first one with a time).
_ENDS = ("solved", "time_out", "move_limit", "trial_end")


@dataclass
class ProblemAttempts:
    """A log's problem attempts: their indices among the log's attempts, their columns
    (by trials.csv name, one entry per problem attempt), and their moves by puzzle."""

    index: np.ndarray
    columns: dict[str, np.ndarray | list]
    moves: list[tuple[MoveMeasures, object]]  # (measures, the puzzle space)
    first_pick: np.ndarray
    last_place: np.ndarray


def problem_attempts(view: LogView, replays: Replays, conv: Conventions) -> ProblemAttempts:
    """Replay and measure every problem attempt of a log.

    Raises
    ------
    EventLogError
        Naming the row: a puzzle, start or goal that cannot be read, a goal
        that cannot be reached, an illegal or contradicted placement, a false
        ``solved``.
    """
    spans = view.spans
    idx = np.flatnonzero(~spans.is_copy)
    n = len(idx)
    onset = spans.onset[idx]
    member = view.members(idx, view.in_problem)
    puz, st, gl = (view.coded(c, onset) for c in ("puzzle", "state", "goal"))
    min_moves = np.zeros(n, np.int64)
    goal_id = np.zeros(n, np.int64)
    start_id = np.zeros(n, np.int64)
    start_key = np.zeros(n, np.int64)
    goal_key = np.zeros(n, np.int64)
    size, pegs = np.zeros(n, np.int64), np.zeros(n, np.int64)
    task = [""] * len(puz.values)
    placements = np.zeros(n, np.int64)
    counts = {k: np.zeros(n, np.int64) for k in ("optimal", "counter", "backtracks", "revisits")}
    first_optimal = np.zeros(n, np.int8)  # -1 none, 0 no, 1 yes
    first_move, last_place = np.full(n, np.nan), np.full(n, np.nan)
    mean_latency, median_latency = np.full(n, np.nan), np.full(n, np.nan)
    all_moves = []
    place = view.event("place")
    inside = member >= 0  # rows of a problem attempt (computed once, used for every mask)
    owner = np.maximum(member, 0)
    for code in np.unique(puz.codes).tolist():
        of = puz.codes == code
        mine = np.flatnonzero(of)
        try:
            space = replays.space(puz.values[code])
        except TolTasksError as exc:
            raise view.error(int(onset[mine[0]]), f"trial_onset: {exc}") from None
        p = space.puzzle
        size[of], pegs[of], task[code] = p.size, p.n_pegs, p.kind
        sid = space.ids(list(st.values))[st.codes[of]]
        gid = space.ids(list(gl.values))[gl.codes[of]]
        unread = np.flatnonzero((sid < 0) | (gid < 0))
        if len(unread):
            a = int(mine[unread[0]])
            try:
                space.state_id(st.values[st.codes[a]])
                space.state_id(gl.values[gl.codes[a]])
            except TolTasksError as exc:
                raise view.error(int(onset[a]), f"trial_onset: {exc}") from None
        start_id[of], goal_id[of] = sid, gid
        keys = StateKeys(space)
        start_key[of] = keys.keys(list(st.values))[st.codes[of]]
        goal_key[of] = keys.keys(list(gl.values))[gl.codes[of]]
        try:
            d = space.distances(gid, sid)
        except TolTasksError as exc:
            raise view.error(int(onset[mine[0]]), f"trial_onset: {exc}") from None
        if (d < 0).any():
            a = int(mine[np.flatnonzero(d < 0)[0]])
            raise view.error(int(onset[a]), f"trial_onset: the goal {gl.values[gl.codes[a]]} "
                             f"cannot be reached from {st.values[st.codes[a]]}.")  # fmt: skip
        min_moves[of] = d
        ours = inside & of[owner]  # rows of this puzzle's attempts
        rows = np.flatnonzero(place & ours)
        group = member[rows]
        r = replay_placements(view, space, rows, group, start_id, st)
        m = move_measures(view, r, goal_id, min_moves, start_key, space)
        all_moves.append((m, space))
        placements += count_in_group(group, n)
        counts["optimal"] += count_in_group(group, n, m.optimal)
        counts["counter"] += count_in_group(group, n, m.counterproductive)
        counts["backtracks"] += count_in_group(group, n, m.backtrack)
        counts["revisits"] += count_in_group(group, n, m.revisit)
        has = np.zeros(n, bool)
        has[group] = True
        first_optimal[has] = np.where(first_in_group(group, n, m.optimal, fill=False)[has], 1, 0)
        first_move[has] = first_in_group(group, n, m.time)[has]
        last_place[has] = last_in_group(group, n, m.time)[has]
        later = m.move_index > 1
        lat_n = count_in_group(group, n, later) > 0
        mean_latency[lat_n] = mean_in_group(group[later], n, m.latency[later])[lat_n]
        median_latency[lat_n] = median_in_group(group[later], n, m.latency[later])[lat_n]
        # A solved row must find the pieces on the goal.
        said = np.flatnonzero(view.event("solved") & ours)
        a = member[said]
        k = np.searchsorted(rows, said) - 1
        moved = (k >= 0) & (group[np.maximum(k, 0)] == a) if len(rows) else np.zeros(len(a), bool)
        here = np.where(moved, r.after[np.maximum(k, 0)] if len(rows) else 0, start_key[a])
        wrong = np.flatnonzero(here != goal_key[a])
        if len(wrong):
            w = int(wrong[0])
            t = int(a[w])
            shown = space.texts[int(here[w])] if moved[w] else st.values[st.codes[t]]
            raise view.error(int(said[w]), f"solved, but the replayed configuration {shown} is "
                             f"not the goal {gl.values[gl.codes[t]]}.")  # fmt: skip
    first_optimal[placements == 0] = -1
    solved = _any(view, "solved", member, inside, n)
    time_out = _any(view, "time_out", member, inside, n)
    move_limit = _any(view, "move_limit", member, inside, n)
    timed = inside & ~np.isnan(view.time)
    picks = view.event("pick_up") & timed
    first_pick = first_in_group(member[picks], n, view.time[picks])
    ends = view.events(*_ENDS) & timed
    end_time = first_in_group(member[ends], n, view.time[ends])
    end_row = spans.end[idx]
    # An attempt still open at the end of its log ends with the log's last row, if timed.
    log_stop = view.stops[view.attempt_log[idx]]
    at_eof = (end_row < 0) & (spans.stop[idx] == log_stop) & np.isnan(end_time)
    end_time[at_eof] = view.time[log_stop[at_eof] - 1]
    illegal = view.event("illegal") & inside
    reasons = view.texts("reason", np.flatnonzero(illegal))
    kinds = np.array([VIOLATION_KINDS.index(x) if x in VIOLATION_KINDS else len(VIOLATION_KINDS)
                      for x in reasons], np.int64)  # fmt: skip
    by_kind = np.zeros((len(VIOLATION_KINDS) + 1, n), np.int64)
    np.add.at(by_kind, (kinds, member[illegal]), 1)
    violations = by_kind.sum(axis=0)
    same_peg = count_in_group(member[view.event("same_peg_drop") & inside], n)
    moves = placements.copy()
    if conv.same_peg_drop_counts:
        moves += same_peg
    if conv.violations_count:
        moves += violations
    # Planning ends at the first pick-up by default; an attempt with a completed move but no
    # pick-up (a recorder that logs none: imported data) falls back to its first move.
    by_move = ~np.isnan(first_move) & (np.isnan(first_pick) | (conv.planning_ends == "move"))
    planning = np.where(by_move, first_move, first_pick)
    ends = Coded(
        np.where(by_move, 1, np.where(np.isnan(planning), 2, 0)), ["pick_up", "move", None]
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        time_per_move = np.where(moves > 0, end_time / np.maximum(moves, 1), np.nan)
        accuracy = np.where(solved & (min_moves > 0), moves / np.maximum(min_moves, 1), np.nan)
        efficiency = np.where(solved & (moves > 0), min_moves / np.maximum(moves, 1), np.nan)
        optimal_share = np.where(placements > 0, counts["optimal"] / np.maximum(placements, 1),
                                 np.nan)  # fmt: skip
    frames = _frames(view, end_row)
    block = view.coded("block", onset)
    void = end_row < 0
    outcome = Coded(np.where(void, 2, np.where(solved, 0, 1)), ["solved", "failed", "void"])
    columns = {
        "block": block,
        "practice": np.array([b == "practice" for b in block.values] + [False])[block.codes],
        "trial": view.whole_numbers("trial", onset),
        "attempt": view.whole_numbers("attempt", onset, empty=1),
        "problem_id": view.coded("problem_id", onset),
        "task": Coded(puz.codes, task),
        "size": size,
        "pegs": pegs,
        "puzzle": puz,
        "start": st,
        "goal": gl,
        "min_moves": min_moves,
        "moves": moves,
        "placements": placements,
        "excess_moves": (moves - min_moves, ~solved),
        "toldx_move_score": toldx_move_score(moves, min_moves, solved, end_time, void),
        "solved": solved,
        "solved_in_min": solved & (moves == min_moves),
        "time_out": time_out,
        "move_limit_reached": move_limit,
        "toldx_time_violation": (~(solved & ~(end_time > TOLDX_VIOLATION_SECONDS)), void),
        "rule_violations": violations,
        **{f"violations_{k}": by_kind[i] for i, k in enumerate(VIOLATION_KINDS)},
        "same_peg_drops": same_peg,
        "planning_time": planning,
        "planning_ends": ends,
        "first_move_time": first_move,
        "execution_time": end_time - planning,
        "total_time": end_time,
        "mean_inter_move_time": mean_latency,
        "median_inter_move_time": median_latency,
        "time_per_move": time_per_move,
        "move_accuracy_ratio": accuracy,
        "path_efficiency": efficiency,
        "optimal_move_proportion": optimal_share,
        "optimal_moves": counts["optimal"],
        "neutral_moves": placements - counts["optimal"] - counts["counter"],
        "counterproductive_moves": counts["counter"],
        "first_move_optimal": (first_optimal == 1, first_optimal < 0),
        "backtracks": counts["backtracks"],
        "revisits": counts["revisits"],
        **frames,
        "complete": end_row >= 0,
        "outcome": outcome,
        "void": void,
    }
    return ProblemAttempts(idx, columns, all_moves, first_pick, last_place)


def toldx_move_score(
    moves: np.ndarray,
    min_moves: np.ndarray,
    solved: np.ndarray,
    total_time: np.ndarray,
    void: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Each attempt's TOL-DX move score and whether it is missing (Culbertson & Zillmer
    2005): the moves made above the minimum, :data:`~tol_analysis.columns.TOLDX_MOVES`
    moves being charged for an attempt not solved within that many moves or within
    :data:`~tol_analysis.columns.TOLDX_SECONDS` (a time that was not recorded does not
    charge). Missing for a void attempt and for a problem needing more moves than the
    charge."""
    within = solved & (moves <= TOLDX_MOVES) & ~(total_time > TOLDX_SECONDS)
    charged = np.where(within, moves, TOLDX_MOVES)
    return charged - min_moves, void | (min_moves > TOLDX_MOVES)


def _any(view: LogView, event: str, member: np.ndarray, inside: np.ndarray, n: int) -> np.ndarray:
    return count_in_group(member[view.event(event) & inside], n) > 0


def _frames(view: LogView, end_row: np.ndarray) -> dict:
    """Frame statistics from each trial_end row's detail (missing for a cut-off attempt)."""
    n = len(end_row)
    ended = np.flatnonzero(end_row >= 0)
    detail = view.coded("detail", end_row[ended])
    used = np.unique(detail.codes)
    # Each distinct detail text read once: frames, dropped frames, then the frame work figures.
    table = np.full((len(detail.values), 2 + len(FRAME_WORK)), np.nan)
    for k in used.tolist():
        det = parse_detail(detail.values[k])
        for j, key in enumerate(("frames", "dropped_frames")):
            if det.get(key, "").isdigit():
                table[k, j] = int(det[key])
        for j, key in enumerate(FRAME_WORK, start=2):
            table[k, j] = _number(det.get(key, ""))
    values = np.full((n, table.shape[1]), np.nan)
    values[ended] = table[detail.codes]
    out = {key: (np.nan_to_num(values[:, j]).astype(np.int64), np.isnan(values[:, j]))
           for j, key in enumerate(("frames", "dropped_frames"))}  # fmt: skip
    out.update({key: values[:, j] for j, key in enumerate(FRAME_WORK, start=2)})
    return out


def _number(text: str) -> float:
    """A number from a detail value; NaN when it is missing or not a finite number."""
    try:
        value = float(text)
    except ValueError:
        return np.nan
    return value if np.isfinite(value) else np.nan
