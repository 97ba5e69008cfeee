"""Per-move measures: every logged placement replayed, checked and measured against the goal.

:func:`replay_placements` replays the placements of many attempts at once
from their starts (each move from where the previous one left the pieces),
checks each against the puzzle's rules and the configuration the log
recorded, and names the first row where the log contradicts itself.
:func:`move_measures` gives the moves.csv columns of problem attempts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tol_analysis.read.logview import LogView, position_in_group, seen_before
from tol_analysis.score.replay import ILLEGAL, PuzzleSpace
from tol_tasks.errors import TolTasksError
from tol_tasks.session_data.attempts import Coded


class StateKeys:
    """State texts of one log and puzzle as keys that compare as the texts do.

    A text written as the puzzle writes it (canonical) gets its state id; any
    other text (``"aab"`` for ``"AAB"``) a negative key of its own, so that it
    equals only itself, as the texts compared in the log would.
    """

    def __init__(self, space: PuzzleSpace) -> None:
        self.space = space
        self._other: dict[str, int] = {}

    def keys(self, texts: list[str]) -> np.ndarray:
        ids = self.space.ids(texts)
        canonical = self.space.texts
        for k, (i, text) in enumerate(zip(ids.tolist(), texts, strict=True)):
            if i < 0 or canonical[i] != text:
                ids[k] = -2 - self._other.setdefault(text, len(self._other))
        return ids


@dataclass
class Replayed:
    """Placements replayed (one entry per placement, in row order)."""

    rows: np.ndarray
    group: np.ndarray  # the attempt of each placement
    first: np.ndarray  # the first placement of its attempt
    before: np.ndarray  # state ids
    after: np.ndarray
    piece: np.ndarray  # piece ids (PuzzleSpace.piece_texts)
    from_peg: Coded
    to_peg: Coded


def replay_placements(view: LogView, space: PuzzleSpace, rows: np.ndarray, group: np.ndarray,
                      start: np.ndarray, start_text: Coded) -> Replayed:  # fmt: skip
    """Replay placements ``rows`` (in order) of the attempts ``group``, each attempt from the
    state id ``start[attempt]`` (written ``start_text`` in the log).

    Raises
    ------
    EventLogError
        At the first placement that is not a legal move from where the pieces
        were, or whose logged configuration is not where the move leads.
    """
    first = np.r_[True, group[1:] != group[:-1]] if len(group) else np.zeros(0, bool)
    frm, to, state = (view.coded(c, rows) for c in ("from_peg", "to_peg", "state"))
    logged = StateKeys(space).keys(list(state.values))[state.codes]
    before = np.where(first, start[group], np.r_[-1, logged[:-1]]) if len(rows) else start[group]
    src = space.peg_ids(list(frm.values))[frm.codes]
    dst = space.peg_ids(list(to.values))[to.codes]
    after, piece = space.step(before, src, dst)
    bad = np.flatnonzero((after == ILLEGAL) | (after != logged))
    if len(bad):
        k = int(bad[0])
        text = state.values[state.codes[k]]
        g = int(group[k])
        was = (
            start_text.values[start_text.codes[g]] if first[k] else state.values[state.codes[k - 1]]
        )
        a, b = frm.values[frm.codes[k]], to.values[to.codes[k]]
        if after[k] == ILLEGAL:
            try:
                space.puzzle.check_move(space.puzzle.parse(was), a, b)
                why = "the move is not possible there."
            except TolTasksError as exc:
                why = str(exc)
            raise view.error(int(rows[k]), f"the placement {a}->{b} is not a legal move from "
                             f"{was}: {why} The log is damaged or was not written by tol-run.")  # fmt: skip
        raise view.error(int(rows[k]), f"the log says moving {a}->{b} from {was} gives "
                         f"{text!r}, but replaying the move gives {space.texts[after[k]]!r}.")  # fmt: skip
    return Replayed(rows, group, first, before, after, piece, frm, to)


def _same_text(a: Coded, b: Coded) -> tuple[np.ndarray, np.ndarray]:
    """Codes of two coded columns in one numbering, so that equal texts get equal codes."""
    joint: dict[str, int] = {}
    ca = np.array([joint.setdefault(v, len(joint)) for v in a.values] + [-1])[a.codes]
    cb = np.array([joint.setdefault(v, len(joint)) for v in b.values] + [-1])[b.codes]
    return ca, cb


@dataclass
class MoveMeasures:
    """The measured moves of a log's problem attempts (one entry per completed move)."""

    replayed: Replayed
    move_index: np.ndarray
    time: np.ndarray
    latency: np.ndarray
    distance_before: np.ndarray
    distance_after: np.ndarray
    optimal: np.ndarray
    counterproductive: np.ndarray
    backtrack: np.ndarray
    revisit: np.ndarray


def move_measures(view: LogView, r: Replayed, goal: np.ndarray, min_moves: np.ndarray,
                  start_key: np.ndarray, space: PuzzleSpace) -> MoveMeasures:  # fmt: skip
    """moves.csv's measures of replayed placements.

    ``goal`` (state ids), ``min_moves`` and ``start_key`` (:class:`StateKeys` of
    the start texts) are per attempt.
    """
    g, first = r.group, r.first
    time = view.time[r.rows]
    prev_time = np.where(first, 0.0, np.r_[0.0, time[:-1]])
    after_d = space.distances(goal[g], r.after)
    before_d = np.where(first, min_moves[g], np.r_[0, after_d[:-1]])
    not_first = ~first
    backtrack = np.zeros(len(g), bool)
    if len(g) > 1:
        frm, to = _same_text(r.from_peg, r.to_peg)
        backtrack[1:] = (not_first[1:] & (r.piece[1:] == r.piece[:-1])
                         & (frm[:-1] == to[1:]) & (to[:-1] == frm[1:]))  # fmt: skip
    # A revisit: the state after the move was seen before in the attempt, the start included.
    seen = np.r_[start_key, r.after]
    owner = np.r_[np.arange(len(start_key)), g]
    low = int(seen.min()) if len(seen) else 0
    repeat = seen_before(owner * (int(seen.max()) - low + 1 if len(seen) else 1) + (seen - low))
    return MoveMeasures(
        replayed=r,
        move_index=position_in_group(g) + 1,
        time=time,
        latency=time - prev_time,
        distance_before=before_d,
        distance_after=after_d,
        optimal=after_d == before_d - 1,
        counterproductive=after_d > before_d,
        backtrack=backtrack,
        revisit=repeat[len(start_key) :],
    )
