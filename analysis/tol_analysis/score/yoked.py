"""Yoked copy trials (Owen et al. 1990): their moves, their times, and the thinking times.

A copy trial shows the moves of an attempt one at a time and the participant
carries them out; its times are movement without planning. :func:`copy_trials`
replays every copy of a log (as :mod:`tol_analysis.score.moves` replays attempts),
gives copy_moves.csv's rows, and puts each copy's measures and the initial and
subsequent thinking times on the trials.csv row of the attempt it copies.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tol_analysis.read.logview import (
    LogView,
    count_in_group,
    first_in_group,
    last_in_group,
    median_in_group,
    position_in_group,
)
from tol_analysis.score.moves import Replayed, replay_placements
from tol_analysis.score.replay import Replays
from tol_analysis.score.trials import ProblemAttempts
from tol_tasks.errors import TolTasksError
from tol_tasks.session_data.detail import parse_detail

#: The trials.csv columns a copy fills on the row of the attempt it copies.
COPY_COLUMNS = ("copy_trial", "copy_source", "copy_moves_shown", "copy_moves", "copy_refused",
                "copy_complete", "copy_first_move_latency", "copy_time_per_move",
                "copy_median_move_time", "initial_thinking_time", "subsequent_thinking_time",
                "subsequent_thinking_time_per_move")  # fmt: skip


@dataclass
class CopyMoves:
    """copy_moves.csv's rows of one log (one entry per move carried out in a copy)."""

    copy: np.ndarray  # index among the log's copies
    replayed: list[tuple[Replayed, object]]
    move_index: np.ndarray
    cue_time: np.ndarray
    pick_time: np.ndarray
    time: np.ndarray
    move_time: np.ndarray
    refused: np.ndarray
    trial: np.ndarray  # per copy
    copy_of: np.ndarray
    block: list[str]
    problem_id: list[str]


def copy_trials(view: LogView, replays: Replays, problems: ProblemAttempts) -> CopyMoves:
    """Replay a log's copy trials; fill the copy columns of ``problems`` (in place).

    Raises
    ------
    EventLogError
        Naming the row: a copy whose puzzle or configuration cannot be read, an
        illegal or contradicted placement, a copy of a trial not in the log before it.
    """
    spans = view.spans
    idx = np.flatnonzero(spans.is_copy)
    n = len(idx)
    onset = spans.onset[idx]
    member = view.members(idx, view.in_copy)
    puz, st = view.coded("puzzle", onset), view.coded("state", onset)
    start = np.full(n, -1, np.int64)
    place = view.event("place") & (member >= 0)
    rows = np.flatnonzero(place)
    group = member[rows]
    replayed = []
    for code in dict.fromkeys(np.asarray(puz.codes).tolist()):
        of = puz.codes == code
        for a in np.flatnonzero(of).tolist():
            try:
                space = replays.space(puz.values[code])
                start[a] = space.state_id(st.values[st.codes[a]])
            except TolTasksError as exc:
                raise view.error(int(onset[a]), f"copy_onset: {exc}") from None
        mine = of[group] if len(group) else np.zeros(0, bool)
        replayed.append((replay_placements(view, space, rows[mine], group[mine], start, st), space))
    time = view.time[rows]
    first = np.r_[True, group[1:] != group[:-1]] if len(group) else np.zeros(0, bool)
    prev_place = np.where(first, onset[group], np.r_[0, rows[:-1]])
    prev_time = np.where(first, 0.0, np.r_[0.0, time[:-1]])
    cue = _last_before(view, view.event("copy_cue") & (member >= 0), rows, onset[group])
    pick = _last_before(view, view.event("pick_up") & (member >= 0), rows, onset[group])
    refused_rows = np.flatnonzero(view.event("copy_refused") & (member >= 0))
    refused = np.searchsorted(refused_rows, rows) - np.searchsorted(refused_rows, prev_place)
    moves = CopyMoves(
        copy=group, replayed=replayed, move_index=position_in_group(group) + 1, cue_time=cue,
        pick_time=pick, time=time, move_time=time - prev_time, refused=refused,
        trial=view.whole_numbers("trial", onset), copy_of=view.whole_numbers("copy_of", onset),
        block=view.texts("block", onset), problem_id=view.texts("problem_id", onset),
    )  # fmt: skip
    _attach(view, moves, onset, member, problems)
    return moves


def _last_before(view: LogView, where: np.ndarray, rows: np.ndarray, since: np.ndarray):
    """Per placement row, the time of the last ``where`` row before it since ``since``."""
    marks = np.flatnonzero(where)
    k = np.searchsorted(marks, rows) - 1
    found = (
        (k >= 0) & (marks[np.maximum(k, 0)] > since) if len(marks) else np.zeros(len(rows), bool)
    )
    return np.where(found, view.time[marks[np.maximum(k, 0)]] if len(marks) else 0.0, np.nan)


def _attach(view: LogView, m: CopyMoves, onset: np.ndarray, member: np.ndarray,
            problems: ProblemAttempts) -> None:  # fmt: skip
    """Each copy's measures onto the trials.csv row of the attempt it copies (a later copy
    of the same attempt replaces an earlier one)."""
    n = len(onset)
    if not n:
        return
    cols = problems.columns
    n_moves = count_in_group(m.copy, n)
    last_place = last_in_group(m.copy, n, m.time, fill=0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_move = np.where(n_moves > 0, last_place / np.maximum(n_moves, 1), np.nan)
    median = median_in_group(m.copy, n, m.move_time)
    picks = view.event("pick_up") & (member >= 0) & ~np.isnan(view.time)
    first_pick = first_in_group(member[picks], n, view.time[picks])
    refused = count_in_group(member[view.event("copy_refused") & (member >= 0)], n)
    end = view.spans.end[view.spans.is_copy]
    outcome = view.texts("reason", np.maximum(end, 0))
    complete = np.array([e >= 0 and o == "copied" for e, o in zip(end.tolist(), outcome,
                                                                  strict=True)])  # fmt: skip
    details = [parse_detail(t) for t in view.texts("detail", onset)]
    copied = _copied_attempts(view, m, onset, problems)
    for c, t in enumerate(copied.tolist()):
        seq = details[c].get("sequence", "")
        values = {
            "copy_trial": m.trial[c], "copy_source": details[c].get("source", ""),
            "copy_moves_shown": len(seq.split(",")) if seq else 0, "copy_moves": n_moves[c],
            "copy_refused": refused[c], "copy_complete": complete[c],
            "copy_first_move_latency": first_pick[c], "copy_time_per_move": per_move[c],
            "copy_median_move_time": median[c],
        }  # fmt: skip
        for name, value in values.items():
            cols[name][t] = value
        n_t = int(cols["placements"][t])
        first, last = problems.first_pick[t], problems.last_place[t]
        if not (complete[c] and n_t and n_moves[c]) or np.isnan(first) or np.isnan(last):
            continue
        subsequent = (last - first) - (n_t * per_move[c] - first_pick[c])
        cols["initial_thinking_time"][t] = first - first_pick[c]
        cols["subsequent_thinking_time"][t] = subsequent
        cols["subsequent_thinking_time_per_move"][t] = subsequent / (n_t - 1) if n_t > 1 else np.nan


def _copied_attempts(view: LogView, m: CopyMoves, onset: np.ndarray,
                     problems: ProblemAttempts) -> np.ndarray:  # fmt: skip
    """Per copy, the index (among ``problems``) of the attempt it copies: the last problem
    attempt of its log, before it, whose trial number is the copy's ``copy_of``.

    Raises
    ------
    EventLogError
        At the first copy that copies no attempt before it.
    """
    p_onset = view.spans.onset[problems.index]
    p_log, c_log = view.attempt_log[problems.index], view.log_of[onset]
    pairs = np.concatenate([np.c_[p_log, problems.columns["trial"]], np.c_[c_log, m.copy_of]])
    _, same = np.unique(pairs, axis=0, return_inverse=True)
    same = same.ravel()
    # Attempts ordered by (log and trial, onset); each copy looks for the last one before it.
    span = view.n + 1
    p_key = same[: len(p_onset)] * span + p_onset
    order = np.argsort(p_key, kind="stable")
    c_group = same[len(p_onset) :]
    k = np.searchsorted(p_key[order], c_group * span + onset) - 1
    t = order[np.maximum(k, 0)] if len(order) else np.zeros(len(onset), np.int64)
    found = (k >= 0) & (same[t] == c_group) if len(order) else np.zeros(len(onset), bool)
    if not found.all():
        c = int(np.flatnonzero(~found)[0])
        raise view.error(int(onset[c]), f"copy trial {m.trial[c]} copies trial "
                         f"{m.copy_of[c]}, which is not in the log before it.")  # fmt: skip
    return t


def empty_copy_columns(n: int) -> dict:
    """The copy columns of ``n`` attempts without a copy (filled by :func:`copy_trials`)."""
    out: dict = {name: np.full(n, np.nan) for name in COPY_COLUMNS}
    out["copy_trial"] = np.full(n, np.nan)
    out["copy_source"] = [None] * n
    out["copy_complete"] = np.full(n, np.nan)
    return out
