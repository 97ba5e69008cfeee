"""Replay and legality: a puzzle's states as integer ids, its moves and distances, in bulk.

A :class:`PuzzleSpace` answers, for whole arrays at once, where a move leads
(or that it is illegal) and how far a state is from a goal. The rules and the
distances are the puzzle's own (:mod:`tol_tasks.puzzles`): they are asked once
per distinct state, move or goal, and kept in tables for the rest of the
scoring run.

A small puzzle (at most :data:`DENSE_STATES` states, which covers every
bundled battery) is laid out whole: every state gets an id, every move an
entry of a transition table, and each goal a row of distances filled by one
breadth-first search over that table. A larger one (a 20-disk Hanoi) keeps
only what the logs visit.

:class:`Replays` holds one space per puzzle code for one call of
:func:`~tol_analysis.score.scores.score_sessions`; nothing is kept between calls.
"""

from __future__ import annotations

import numpy as np

from tol_tasks.config import PEG_LETTERS
from tol_tasks.errors import TolTasksError
from tol_tasks.puzzles import Puzzle, from_code

#: Puzzles with at most this many states get full transition and distance tables.
DENSE_STATES = 4096

#: A move that breaks a rule (or names a peg the puzzle lacks).
ILLEGAL = -1
_UNKNOWN = -2


class PuzzleSpace:
    """One puzzle's states, moves and distances as integer tables.

    State ids are given to state texts; two texts of one state (``"aab"``,
    ``"AAB"``) share the state's id. Peg ids are peg indices (0 is A).
    """

    def __init__(self, puzzle: Puzzle) -> None:
        self.puzzle = puzzle
        self.n_pegs = puzzle.n_pegs
        #: The canonical text of each id.
        self.texts: list[str] = []
        self._states: list = []
        self._id_of: dict[str, int] = {}  # any text that parsed -> id
        self._not_states: dict[str, TolTasksError] = {}  # any text that did not -> why
        self._pieces: list[str] = []
        self._piece_id: dict[str, int] = {}
        self.dense = puzzle.n_states <= DENSE_STATES
        if self.dense:
            for s in puzzle.states():
                self._add(s)
            self._next, self._piece = self._all_moves()
            self._dist = np.full((0, len(self.texts)), _UNKNOWN, np.int32)
            self._goal_row: dict[int, int] = {}
        else:
            self._moves: dict[tuple[int, int, int], tuple[int, int]] = {}
            self._sparse_dist: dict[tuple[int, int], int] = {}

    # ----------------------------------------------------------------- states
    def _add(self, state) -> int:
        text = str(state)
        i = self._id_of.get(text)
        if i is None:
            i = len(self.texts)
            self.texts.append(text)
            self._states.append(state)
            self._id_of[text] = i
        return i

    def state_id(self, text: str) -> int:
        """The id of a state text.

        Raises
        ------
        TolTasksError
            The puzzle's own message when the text is not one of its states.
        """
        i = self._id_of.get(text)
        if i is None:
            fault = self._not_states.get(text)
            if fault is not None:
                raise fault.with_traceback(None)
            try:
                i = self._add(self.puzzle.parse(text))
            except TolTasksError as exc:
                self._not_states[text] = exc
                raise
            self._id_of[text] = i
        return i

    def ids(self, texts: list[str]) -> np.ndarray:
        """Ids of state texts; -1 for a text that is not a state of this puzzle."""
        out = np.empty(len(texts), np.int64)
        known = self._id_of
        for k, text in enumerate(texts):
            i = known.get(text)
            if i is None:
                try:
                    i = self.state_id(text)
                except TolTasksError:
                    i = -1
            out[k] = i
        return out

    def peg_ids(self, texts: list[str]) -> np.ndarray:
        """Peg indices of peg texts (as the puzzle reads them); -1 for a peg it lacks."""
        pegs = {c: i for i, c in enumerate(PEG_LETTERS[: self.n_pegs])}
        return np.array([pegs.get(t.upper(), -1) if len(t) == 1 else -1 for t in texts], np.int64)

    def piece_texts(self) -> list[str]:
        """Piece names by piece id (``str`` of the puzzle's piece: ``"1"``, ``"R"``)."""
        return self._pieces

    def _piece_of(self, piece) -> int:
        text = str(piece)
        i = self._piece_id.get(text)
        if i is None:
            i = self._piece_id[text] = len(self._pieces)
            self._pieces.append(text)
        return i

    # ------------------------------------------------------------------ moves
    def _move(self, state_id: int, src: int, dst: int) -> tuple[int, int]:
        """(id after, piece id) of one move, or (ILLEGAL, -1)."""
        if src == dst:
            return ILLEGAL, -1
        s = self._states[state_id]
        try:
            m = self.puzzle.check_move(s, src, dst)
        except TolTasksError:
            return ILLEGAL, -1
        return self._add(self.puzzle.apply(s, m)), self._piece_of(m.piece)

    def _all_moves(self) -> tuple[np.ndarray, np.ndarray]:
        n, p = len(self.texts), self.n_pegs
        nxt = np.full((n, p, p), ILLEGAL, np.int64)
        piece = np.full((n, p, p), -1, np.int64)
        for s in range(n):
            for a in range(p):
                for b in range(p):
                    nxt[s, a, b], piece[s, a, b] = self._move(s, a, b)
        return nxt, piece

    def step(self, before: np.ndarray, src: np.ndarray, dst: np.ndarray):
        """(ids after, piece ids) of moves; ILLEGAL after (and piece -1) for an illegal one."""
        ok = (before >= 0) & (src >= 0) & (dst >= 0)
        after = np.full(len(before), ILLEGAL, np.int64)
        piece = np.full(len(before), -1, np.int64)
        if self.dense:
            after[ok] = self._next[before[ok], src[ok], dst[ok]]
            piece[ok] = self._piece[before[ok], src[ok], dst[ok]]
            return after, piece
        p = self.n_pegs
        key = (before * p + src) * p + dst
        uniq, inverse = np.unique(key[ok], return_inverse=True)
        found = np.empty((len(uniq), 2), np.int64)
        for k, code in enumerate(uniq.tolist()):
            triple = (code // (p * p), code // p % p, code % p)
            hit = self._moves.get(triple)
            if hit is None:
                hit = self._moves[triple] = self._move(*triple)
            found[k] = hit
        after[ok], piece[ok] = found[inverse, 0], found[inverse, 1]
        return after, piece

    # -------------------------------------------------------------- distances
    def distances(self, goal: np.ndarray, state: np.ndarray) -> np.ndarray:
        """Fewest moves from each state to its goal (ids); -1 where the goal cannot be reached.

        Raises
        ------
        TolTasksError
            When the puzzle is too large to search (the puzzle's own message).
        """
        if not len(goal):
            return np.empty(0, np.int64)
        if self.dense:
            goals, slot = _distinct_ids(goal, len(self.texts))
            self._search(goals)
            rows = np.array([self._goal_row[g] for g in goals.tolist()], np.int64)
            flat = rows[slot] * self._dist.shape[1] + state  # one take, not a 2-D index
            return np.take(self._dist, flat).astype(np.int64)
        key = goal * len(self.texts) + state
        uniq, inverse = np.unique(key, return_inverse=True)
        n = len(self.texts)
        values = np.array([self._pair(k // n, k % n) for k in uniq.tolist()], np.int64)
        return values[inverse]

    def _search(self, goals: np.ndarray) -> None:
        """Give each goal not searched yet a row of distances (one search for all of them)."""
        new = [g for g in goals.tolist() if g not in self._goal_row]
        if not new:
            return
        start = len(self._dist)
        self._goal_row.update({g: start + k for k, g in enumerate(new)})
        self._dist = np.vstack([self._dist, self._bfs(np.array(new, np.int64))])

    def _bfs(self, goals: np.ndarray) -> np.ndarray:
        """Distances of every state to each of ``goals`` (one row per goal) over the transition
        table (moves can be undone), level by level for every goal at once."""
        n = len(self.texts)
        nxt = self._next.reshape(n, -1)
        # The table's moves as edges (from, to), grouped by the state they lead to.
        source, _ = np.nonzero(nxt >= 0)
        target = nxt[nxt >= 0]
        order = np.argsort(target, kind="stable")
        source, target = source[order], target[order]
        first = np.flatnonzero(np.diff(target, prepend=-1))  # each target's first edge
        into = target[first]
        k = len(goals)
        dist = np.full((k, n), -1, np.int32)
        dist[np.arange(k), goals] = 0
        frontier = np.zeros((k, n), bool)
        frontier[np.arange(k), goals] = True
        level = 0
        while len(source) and frontier.any():
            level += 1
            around = np.zeros((k, n), bool)
            around[:, into] = np.logical_or.reduceat(frontier[:, source], first, axis=1)
            frontier = around & (dist < 0)
            dist[frontier] = level
        return dist

    def _pair(self, goal: int, state: int) -> int:
        d = self._sparse_dist.get((goal, state))
        if d is None:
            s, g = self._states[state], self._states[goal]
            d = self.puzzle.distance(s, g) if self.puzzle.is_reachable(s, g) else -1
            self._sparse_dist[(goal, state)] = d
        return d


class Replays:
    """The puzzle spaces of one scoring run, by puzzle code."""

    def __init__(self) -> None:
        self._spaces: dict[str, PuzzleSpace] = {}

    def space(self, code: str) -> PuzzleSpace:
        """The space of a puzzle code.

        Raises
        ------
        TolTasksError
            When the code is not a puzzle code (the message shows the expected form).
        """
        s = self._spaces.get(code)
        if s is None:
            s = self._spaces[code] = PuzzleSpace(from_code(code))
        return s


def _distinct_ids(ids: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct ids, sorted; each id's index among them), as ``np.unique`` with
    ``return_inverse`` gives them, without sorting: ids are below ``n``."""
    if ids.min() < 0 or ids.max() >= n:  # not ids of states: as np.unique does
        goals, slot = np.unique(ids, return_inverse=True)
        return goals, slot.ravel()
    present = np.zeros(n, bool)
    present[ids] = True
    return np.flatnonzero(present), (np.cumsum(present) - 1)[ids]
