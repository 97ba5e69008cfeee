"""Per-attempt measures: one trials.csv row per problem attempt.

:func:`problem_attempts` replays a log's problem attempts (one puzzle at a
time, every attempt of that puzzle at once), and returns their moves
(:mod:`tol_analysis.moves`) and their trials.csv columns, under the
conventions. The copy columns are filled afterwards by
:mod:`tol_analysis.copies`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tol_analysis.columns import FRAME_WORK, VIOLATION_KINDS
from tol_analysis.conventions import Conventions
from tol_analysis.logview import (
    LogView,
    count_in_group,
    first_in_group,
    last_in_group,
    mean_in_group,
    median_in_group,
)
from tol_analysis.moves import MoveMeasures, StateKeys, move_measures, replay_placements
from tol_analysis.replay import Replays
from tol_tasks.errors import TolTasksError
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
    local = np.full(view.n_attempts, -1)
    local[idx] = np.arange(n)
    member = np.where(view.in_problem, local[np.maximum(view.member, 0)], -1)
    codes = view.texts("puzzle", onset)
    starts, goals = view.texts("state", onset), view.texts("goal", onset)
    min_moves = np.zeros(n, np.int64)
    goal_id = np.zeros(n, np.int64)
    start_key = np.zeros(n, np.int64)
    goal_key = np.zeros(n, np.int64)
    size, pegs, task = np.zeros(n, np.int64), np.zeros(n, np.int64), [""] * n
    placements = np.zeros(n, np.int64)
    counts = {k: np.zeros(n, np.int64) for k in ("optimal", "counter", "backtracks", "revisits")}
    first_optimal = np.zeros(n, np.int8)  # -1 none, 0 no, 1 yes
    first_move, last_place = np.full(n, np.nan), np.full(n, np.nan)
    mean_latency, median_latency = np.full(n, np.nan), np.full(n, np.nan)
    solved = np.zeros(n, bool)
    all_moves = []
    place = view.event("place")
    for code in dict.fromkeys(codes):
        of = np.array([c == code for c in codes])
        mine = np.flatnonzero(of)
        try:
            space = replays.space(code)
        except TolTasksError as exc:
            raise view.error(int(onset[mine[0]]), f"trial_onset: {exc}") from None
        p = space.puzzle
        size[of], pegs[of] = p.size, p.n_pegs
        for a in mine.tolist():
            task[a] = p.kind
            try:
                goal_id[a] = space.state_id(goals[a])
                space.state_id(starts[a])
            except TolTasksError as exc:
                raise view.error(int(onset[a]), f"trial_onset: {exc}") from None
        keys = StateKeys(space)
        start_key[of] = keys.keys([starts[a] for a in mine.tolist()])
        goal_key[of] = keys.keys([goals[a] for a in mine.tolist()])
        start_id = np.array([space.state_id(starts[a]) for a in mine.tolist()], np.int64)
        try:
            d = space.distances(goal_id[of], start_id)
        except TolTasksError as exc:
            raise view.error(int(onset[mine[0]]), f"trial_onset: {exc}") from None
        if (d < 0).any():
            a = int(mine[np.flatnonzero(d < 0)[0]])
            raise view.error(int(onset[a]), f"trial_onset: the goal {goals[a]} cannot be reached "
                             f"from {starts[a]}.")  # fmt: skip
        min_moves[of] = d
        rows = np.flatnonzero(place & (member >= 0) & of[np.maximum(member, 0)])
        group = member[rows]
        r = replay_placements(view, space, rows, group, {a: starts[a] for a in mine.tolist()})
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
        said = np.flatnonzero(view.event("solved") & (member >= 0) & of[np.maximum(member, 0)])
        a = member[said]
        k = np.searchsorted(rows, said) - 1
        moved = (k >= 0) & (group[np.maximum(k, 0)] == a) if len(rows) else np.zeros(len(a), bool)
        here = np.where(moved, r.after[np.maximum(k, 0)] if len(rows) else 0, start_key[a])
        wrong = np.flatnonzero(here != goal_key[a])
        if len(wrong):
            w = int(wrong[0])
            shown = space.texts[int(here[w])] if moved[w] else starts[int(a[w])]
            raise view.error(int(said[w]), f"solved, but the replayed configuration {shown} is "
                             f"not the goal {goals[int(a[w])]}.")  # fmt: skip
    first_optimal[placements == 0] = -1
    solved = _any(view, "solved", member, n)
    time_out = _any(view, "time_out", member, n)
    move_limit = _any(view, "move_limit", member, n)
    picks = view.event("pick_up") & (member >= 0) & ~np.isnan(view.time)
    first_pick = first_in_group(member[picks], n, view.time[picks])
    ends = view.events(*_ENDS) & (member >= 0) & ~np.isnan(view.time)
    end_time = first_in_group(member[ends], n, view.time[ends])
    end_row = spans.end[idx]
    # An attempt still open at the end of the log ends with the log's last timed row.
    last = view.n - 1
    at_eof = (end_row < 0) & (spans.stop[idx] == view.n) & np.isnan(end_time)
    if not np.isnan(view.time[last]):
        end_time[at_eof] = view.time[last]
    illegal = view.event("illegal") & (member >= 0)
    reasons = view.texts("reason", np.flatnonzero(illegal))
    kinds = np.array([VIOLATION_KINDS.index(x) if x in VIOLATION_KINDS else len(VIOLATION_KINDS)
                      for x in reasons], np.int64)  # fmt: skip
    by_kind = np.zeros((len(VIOLATION_KINDS) + 1, n), np.int64)
    np.add.at(by_kind, (kinds, member[illegal]), 1)
    violations = by_kind.sum(axis=0)
    same_peg = count_in_group(member[view.event("same_peg_drop") & (member >= 0)], n)
    moves = placements.copy()
    if conv.same_peg_drop_counts:
        moves += same_peg
    if conv.violations_count:
        moves += violations
    planning = first_pick if conv.planning_ends == "pick_up" else first_move
    with np.errstate(invalid="ignore", divide="ignore"):
        time_per_move = np.where(moves > 0, end_time / np.maximum(moves, 1), np.nan)
        accuracy = np.where(solved & (min_moves > 0), moves / np.maximum(min_moves, 1), np.nan)
        efficiency = np.where(solved & (moves > 0), min_moves / np.maximum(moves, 1), np.nan)
        optimal_share = np.where(placements > 0, counts["optimal"] / np.maximum(placements, 1),
                                 np.nan)  # fmt: skip
    frames = _frames(view, end_row)
    blocks = view.texts("block", onset)
    columns = {
        "block": blocks,
        "practice": np.array([b == "practice" for b in blocks], bool),
        "trial": np.array([int(t) for t in view.texts("trial", onset)], np.int64),
        "attempt": np.array([int(t) if t else 1 for t in view.texts("attempt", onset)], np.int64),
        "problem_id": view.texts("problem_id", onset),
        "task": task,
        "size": size,
        "pegs": pegs,
        "puzzle": codes,
        "start": starts,
        "goal": goals,
        "min_moves": min_moves,
        "moves": moves,
        "placements": placements,
        "excess_moves": (moves - min_moves, ~solved),
        "solved": solved,
        "solved_in_min": solved & (moves == min_moves),
        "time_out": time_out,
        "move_limit_reached": move_limit,
        "rule_violations": violations,
        **{f"violations_{k}": by_kind[i] for i, k in enumerate(VIOLATION_KINDS)},
        "same_peg_drops": same_peg,
        "planning_time": planning,
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
    }
    return ProblemAttempts(idx, columns, all_moves, first_pick, last_place)


def _any(view: LogView, event: str, member: np.ndarray, n: int) -> np.ndarray:
    return count_in_group(member[view.event(event) & (member >= 0)], n) > 0


def _frames(view: LogView, end_row: np.ndarray) -> dict:
    """Frame statistics from each trial_end row's detail (missing for a cut-off attempt)."""
    n = len(end_row)
    frames, dropped = np.zeros(n, np.int64), np.zeros(n, np.int64)
    no_frames, no_dropped = np.ones(n, bool), np.ones(n, bool)
    work = {k: np.full(n, np.nan) for k in FRAME_WORK}
    ended = np.flatnonzero(end_row >= 0)
    parsed: dict[str, dict[str, str]] = {}
    for a, text in zip(ended.tolist(), view.texts("detail", end_row[ended]), strict=True):
        det = parsed.get(text)
        if det is None:
            det = parsed[text] = parse_detail(text)
        if det.get("frames", "").isdigit():
            frames[a], no_frames[a] = int(det["frames"]), False
        if det.get("dropped_frames", "").isdigit():
            dropped[a], no_dropped[a] = int(det["dropped_frames"]), False
        for k in FRAME_WORK:
            work[k][a] = _number(det.get(k, ""))
    return {"frames": (frames, no_frames), "dropped_frames": (dropped, no_dropped), **work}


def _number(text: str) -> float:
    """A number from a detail value; NaN when it is missing or not a finite number."""
    try:
        value = float(text)
    except ValueError:
        return np.nan
    return value if np.isfinite(value) else np.nan
