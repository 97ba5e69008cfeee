"""The demonstration on the instruction pages: a legal move and a refused one, made from the
protocol's apparatus and rules (no PsychoPy here).

:func:`demonstration` gives the frames of a short loop on the participant's board: the top
piece of a peg is picked up and put on another peg (a legal move, by the puzzle's rules),
then a piece is picked up and held over a peg the rules forbid (a larger disk over a smaller
one, a full peg, a peg that is not a neighbour), the refusal is said (the notice of the
refused move, as in a problem) and the piece goes back. The PsychoPy runner draws the frames
on its instruction page; ``tol-web build`` writes them into ``protocol.json``.
"""

from __future__ import annotations

from dataclasses import dataclass

from tol_tasks.errors import IllegalMoveError

#: Rules a demonstration can show refusing (the others are not moves a person tries).
SHOWN_RULES = ("larger_on_smaller", "peg_full", "forbidden_pair")


@dataclass(frozen=True)
class DemoFrame:
    """One frame of the demonstration: the ``state`` shown, the peg whose top piece is held
    (lifted above it, or above ``over`` when carried there), the refusal's rule (its notice
    is shown), and how long the frame stays, in seconds."""

    state: object
    held: int | None
    over: int | None
    refused: str | None
    seconds: float

    def as_dict(self, puzzle) -> dict:
        return {"state": str(self.state), "pegs": [list(map(str, c)) for c in puzzle.pegs_of(
            self.state)], "held": self.held, "over": self.over, "refused": self.refused,
            "seconds": self.seconds}  # fmt: skip


def _refusal(puzzle, state):
    """A move from ``state`` the rules refuse for a reason worth showing: (from, to, rule)."""
    for i in range(puzzle.n_pegs):
        for j in range(puzzle.n_pegs):
            if i == j or not puzzle.pegs_of(state)[i]:
                continue
            try:
                puzzle.check_move(state, i, j)
            except IllegalMoveError as exc:
                if exc.rule in SHOWN_RULES:
                    return i, j, exc.rule
    return None


def demonstration(puzzle, start) -> list[DemoFrame]:
    """The frames of the demonstration on ``puzzle`` from ``start`` (a state): a legal move,
    then (when the rules refuse some move from there) a refused one. One loop."""
    state = puzzle.parse(start) if isinstance(start, str) else start
    moves = puzzle.legal_moves(state)
    # The legal move shown: the first one after which a refusal can be shown, if any.
    move = next((m for m in moves if _refusal(puzzle, puzzle.apply(state, m))), moves[0])
    after = puzzle.apply(state, move)
    frames = [
        DemoFrame(state, None, None, None, 1.2),
        DemoFrame(state, move.source, None, None, 0.9),
        DemoFrame(state, move.source, move.target, None, 0.9),
        DemoFrame(after, None, None, None, 1.2),
    ]
    refused = _refusal(puzzle, after)
    if refused is not None:
        i, j, rule = refused
        frames += [
            DemoFrame(after, i, None, None, 0.9),
            DemoFrame(after, i, j, rule, 2.0),
            DemoFrame(after, i, None, None, 0.7),
            DemoFrame(after, None, None, None, 1.0),
        ]
    return frames


def frame_at(frames: list[DemoFrame], t: float) -> DemoFrame:
    """The frame shown ``t`` seconds after the demonstration began (it loops)."""
    total = sum(f.seconds for f in frames)
    t %= total
    for f in frames:
        if t < f.seconds:
            return f
        t -= f.seconds
    return frames[-1]
