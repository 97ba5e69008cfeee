"""What happens in a trial, independent of any display: pick-ups, placements,
illegal attempts, limits. The runner feeds it peg-level actions and logs what
it returns; the simulated participant and a person go through the same path.
The rows themselves are built by :mod:`.trial_rows`, as the importers' are.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tol_tasks.errors import IllegalMoveError
from tol_tasks.protocol_format.loaded import ProblemSpec
from tol_tasks.protocol_format.model import Rules
from tol_tasks.puzzles.base import Puzzle

from . import trial_rows as rows
from .identity import ParticipantIdError, check_participant_id  # noqa: F401 - kept here too


def block_order(n: int, order: str, seed: int | None,
                draw_seed: Callable[[], int] | None = None) -> tuple[list[int], int | None]:  # fmt: skip
    """Problem indices in running order and the seed used.

    ``order`` ``fixed``: file order (``seed`` is returned as given).
    ``shuffled``: the indices shuffled by ``random.Random(seed).shuffle``
    (Python's Mersenne Twister); without a seed one is drawn by ``draw_seed``
    (default: the operating system's randomness) and returned, so that it can
    be recorded.
    """
    idx = list(range(n))
    if order != "shuffled":
        return idx, seed
    if seed is None:
        seed = draw_seed() if draw_seed is not None else random.SystemRandom().randrange(2**31)
    random.Random(seed).shuffle(idx)
    return idx, seed


@dataclass(kw_only=True)
class _OnBoard:
    """What a problem attempt and a copy trial share: the board from the start, the events.

    ``kind`` says which it is: ``problem`` or ``copy``. ``attempt`` is the
    problem's attempt number; ``held`` the peg whose piece is held;
    ``outcome`` None until the trial is done.
    """

    kind: ClassVar[str]
    attempt: int = 1
    state: Any = None
    moves: int = 0
    held: int | None = None
    outcome: str | None = None

    def __post_init__(self) -> None:
        self.puzzle = self.spec.puzzle
        self.state = self.spec.start

    @property
    def done(self) -> bool:
        return self.outcome is not None

    def top_piece(self, peg: int):
        col = self.puzzle.pegs_of(self.state)[peg]
        return col[-1] if col else None

    def pick(self, peg: int) -> list[dict]:
        """The participant takes the top piece of ``peg``."""
        if self.done or self.held is not None:
            return []
        piece = self.top_piece(peg)
        if piece is None:
            return [rows.empty_pick_row(self.state, self.moves, peg)]
        refused = self._refuse_pick(peg, piece)
        if refused:
            return refused
        self.held = peg
        return [rows.pick_up_row(self.state, self.moves, piece, peg)]

    def drop(self, peg: int | None) -> list[dict]:
        """The participant puts the held piece on ``peg`` (None: away from every peg)."""
        if self.done or self.held is None:
            return []
        src, self.held = self.held, None
        piece = self.top_piece(src)
        if peg is None:
            return [rows.cancel_row(self.state, self.moves, piece, src)]
        return self._put(src, peg, piece)

    def _refuse_pick(self, peg: int, piece) -> list[dict]:
        """The events of a pick-up that is refused (none: every piece may be taken)."""
        return []

    def _put(self, src: int, peg: int, piece) -> list[dict]:  # pragma: no cover - per kind
        """The events of putting ``piece``, taken from ``src``, on ``peg``."""
        raise NotImplementedError


@dataclass
class TrialState(_OnBoard):
    """One attempt at one problem.

    Methods return lists of events (dicts of event-log fields) to be logged.
    ``placed`` keeps the completed moves, (from peg, to peg), in order.
    """

    kind: ClassVar[str] = "problem"
    spec: ProblemSpec
    rules: Rules
    violations: int = 0
    placed: list[tuple[int, int]] = field(default_factory=list)

    def _put(self, src: int, peg: int, piece) -> list[dict]:
        if peg == src:
            if self.rules.same_peg_drop_counts_as_move:
                self.moves += 1
            return [rows.same_peg_drop_row(self.state, self.moves, piece, peg)] + self._limits()
        try:
            move = self.puzzle.check_move(self.state, src, peg)
        except IllegalMoveError as exc:
            self.violations += 1
            if self.rules.violation_counts_as_move:
                self.moves += 1
            ev = rows.illegal_row(self.state, self.moves, piece, src, peg, exc.rule)
            return [ev] + self._limits()
        self.state = self.puzzle.apply(self.state, move)
        self.moves += 1
        self.placed.append((src, peg))
        out = [rows.place_row(self.state, self.moves, move.piece, src, peg)]
        if self.state == self.spec.goal:
            self.outcome = "solved"
            return [*out, rows.solved_row(self.state, self.moves)]
        return out + self._limits()

    def _limits(self) -> list[dict]:
        limit = self.spec.move_limit
        if limit is not None and self.moves >= limit and not self.done:
            self.outcome = "move_limit"
            return [rows.move_limit_row(self.state, self.moves, limit)]
        return []

    def tick(self, trial_time: float) -> list[dict]:
        """Check the time limit at ``trial_time`` seconds after onset."""
        limit = self.spec.time_limit
        if limit is not None and not self.done and trial_time >= limit:
            self.outcome = "time_out"
            self.held = None
            return [rows.time_out_row(self.state, self.moves, limit)]
        return []


def copy_sequence(puzzle: Puzzle, start, goal, moves: list[tuple[int, int]],
                  source: str) -> list[tuple[int, int]]:  # fmt: skip
    """The moves a yoked copy trial shows, as (from peg, to peg) indices.

    ``source`` ``own``: ``moves``, the completed moves of the copied attempt, in
    order; ``optimal``: the first shortest solution from ``start`` to ``goal``
    (:meth:`Puzzle.solve`).
    """
    if source == "own":
        return list(moves)
    return [(m.source, m.target) for m in puzzle.solve(start, goal)]


@dataclass
class CopyState(_OnBoard):
    """A yoked copy trial: moves shown one at a time, carried out by the participant.

    Only the move shown can be made: taking another peg's piece, or putting
    the piece on another peg, is refused (logged as ``copy_refused``) and the
    same move stays shown. Same interface as :class:`TrialState` (``pick``,
    ``drop``, ``tick``, ``done``), so the runner and the simulated participant
    handle both the same way.
    """

    kind: ClassVar[str] = "copy"
    spec: ProblemSpec
    sequence: list[tuple[int, int]]
    refused: int = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.sequence:
            raise ValueError("a copy trial needs at least one move to copy")

    @property
    def cue(self) -> tuple[int, int] | None:
        """(from peg, to peg) of the move shown now, or None when all are made."""
        return None if self.done else self.sequence[self.moves]

    def end_state(self):
        """Where the sequence leads."""
        s = self.spec.start
        for a, b in self.sequence:
            s = self.puzzle.move(s, a, b)
        return s

    def _refuse_pick(self, peg: int, piece) -> list[dict]:
        src, dst = self.sequence[self.moves]
        if peg == src:
            return []
        self.refused += 1
        return [rows.copy_refused_row(self.state, self.moves, piece, peg, None, "wrong_piece",
                                      (src, dst))]  # fmt: skip

    def _put(self, src: int, peg: int, piece) -> list[dict]:
        if peg == src:
            return [rows.same_peg_drop_row(self.state, self.moves, piece, peg)]
        dst = self.sequence[self.moves][1]
        if peg != dst:
            self.refused += 1
            return [rows.copy_refused_row(self.state, self.moves, piece, src, peg, "wrong_peg",
                                          (src, dst))]  # fmt: skip
        move = self.puzzle.check_move(self.state, src, peg)  # legal: it was made before
        self.state = self.puzzle.apply(self.state, move)
        self.moves += 1
        out = [rows.place_row(self.state, self.moves, move.piece, src, peg)]
        if self.moves == len(self.sequence):
            self.outcome = "copied"
            out.append(rows.copy_done_row(self.state, self.moves))
        return out

    def tick(self, trial_time: float) -> list[dict]:
        """Copy trials have no time limit."""
        return []
