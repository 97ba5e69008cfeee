"""What every tower puzzle shares: moves, rules and the solver interface.

A puzzle (:class:`~tol_tasks.Hanoi`, :class:`~tol_tasks.London`) is an
immutable description of the apparatus. States are immutable values with one
canonical text form. The solver methods take states or their texts.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from tol_tasks.config import PEG_LETTERS, RULE_NO_SUCH_PEG, RULE_SAME_PEG, RULE_WRONG_PIECE
from tol_tasks.errors import IllegalMoveError, UnreachableGoalError

S = TypeVar("S", bound=Hashable)


@dataclass(frozen=True)
class Move:
    """One move: the piece taken from the top of ``source`` and put on ``target``.

    Attributes
    ----------
    piece : int or str
        Tower of Hanoi: the disk number, 1 for the smallest. Tower of London:
        the ball's colour letter.
    source, target : int
        Peg indices, 0 for the leftmost peg (written A).
    """

    piece: int | str
    source: int
    target: int

    @property
    def source_label(self) -> str:
        """The source peg's letter."""
        return PEG_LETTERS[self.source]

    @property
    def target_label(self) -> str:
        """The target peg's letter."""
        return PEG_LETTERS[self.target]

    def __str__(self) -> str:
        return f"{self.piece}:{self.source_label}{self.target_label}"


PegRef = int | str


class Puzzle(ABC, Generic[S]):
    """Base class of the tower puzzles. Subclasses define states and rules.

    Besides states, moves and the solver, a puzzle answers what the other
    layers need to know about the apparatus (:attr:`kind`, :attr:`size`,
    :attr:`pieces`, :attr:`capacities`, :attr:`is_classic`, :attr:`label`,
    :attr:`code`, :meth:`random_state`), so that no code outside
    :mod:`tol_tasks.puzzles` asks which class it is.
    """

    #: Number of pegs.
    n_pegs: int

    #: The task's name in data and files: ``"hanoi"`` or ``"london"``.
    kind: str

    # -------------------------------------------------------------- identity
    @property
    @abstractmethod
    def size(self) -> int:
        """Number of pieces: disks (Hanoi) or balls (London)."""

    @property
    @abstractmethod
    def pieces(self) -> tuple:
        """Every piece, as states and moves name it: disks 1 (smallest) to n, or ball letters."""

    @property
    @abstractmethod
    def capacities(self) -> tuple[int, ...]:
        """How many pieces each peg can hold, left to right."""

    @property
    def is_classic(self) -> bool:
        """The classic 3-peg Tower of Hanoi without a rule on which pegs a move joins.

        Its state graph is the Sierpinski graph and its queries need no search.
        """
        return False

    @property
    def label(self) -> str:
        """A short label for tables: ``3 disks``, ``4 disks, 4 pegs, adjacent``, ``RGB 3/2/1``
        (a puzzle without one of its own is labelled by its :attr:`code`)."""
        return self.code

    @property
    @abstractmethod
    def code(self) -> str:
        """The apparatus as one token, as the event log's ``puzzle`` column holds it:
        ``hanoi:<disks>:<pegs>:<adjacent only 0/1>`` or ``london:<balls>:<capacities>``,
        e.g. ``hanoi:3:3:0``, ``london:RGB:3-2-1`` (read back by :func:`~tol_tasks.puzzles.from_code`).
        """

    # ----------------------------------------------------------------- states
    @abstractmethod
    def parse(self, text: str) -> S:
        """Read a state from its canonical text form."""

    @abstractmethod
    def from_pegs(self, pegs: Sequence[Sequence]) -> S:
        """Build a state from each peg's pieces, listed bottom to top."""

    @abstractmethod
    def pegs_of(self, state: S | str) -> tuple[tuple, ...]:
        """Each peg's pieces, bottom to top."""

    @abstractmethod
    def states(self) -> Iterator[S]:
        """Every legal state, in a fixed order."""

    def random_state(self, rng: random.Random) -> S:
        """A legal state drawn with ``rng`` (the same generator state gives the same state)."""
        return rng.choice(list(self.states()))

    @property
    @abstractmethod
    def n_states(self) -> int:
        """Number of legal states."""

    @abstractmethod
    def _coerce(self, state: S | str, what: str = "state") -> S:
        """A state of this puzzle from a state or its text; raise StateError otherwise."""

    # ------------------------------------------------------------------ moves
    @abstractmethod
    def _check_move(self, state: S, source: int, target: int) -> Move:
        """The move, or IllegalMoveError naming the broken rule (pegs already valid)."""

    @abstractmethod
    def _apply(self, state: S, move: Move) -> S:
        """The state after a move already known to be legal."""

    def peg_label(self, peg: int) -> str:
        """The letter of peg ``peg`` (0 is A)."""
        return PEG_LETTERS[peg]

    def _peg_index(self, peg: PegRef, role: str) -> int:
        if isinstance(peg, str) and len(peg) == 1 and peg.upper() in PEG_LETTERS[: self.n_pegs]:
            return PEG_LETTERS.index(peg.upper())
        if isinstance(peg, int) and not isinstance(peg, bool) and 0 <= peg < self.n_pegs:
            return peg
        raise IllegalMoveError(
            f"{role} peg {peg!r} does not exist: this puzzle has pegs "
            f"{self._peg_range()} (or indices 0-{self.n_pegs - 1}).",
            RULE_NO_SUCH_PEG,
        )

    def _peg_range(self) -> str:
        return f"{PEG_LETTERS[0]}-{PEG_LETTERS[self.n_pegs - 1]}"

    def check_move(self, state: S | str, source: PegRef, target: PegRef) -> Move:
        """The move from ``source`` to ``target``, or raise :class:`IllegalMoveError`.

        The error's ``rule`` attribute names the rule broken: ``same_peg``,
        ``empty_source``, ``larger_on_smaller``, ``peg_full``,
        ``forbidden_pair`` or ``no_such_peg``.
        """
        s = self._coerce(state)
        i = self._peg_index(source, "source")
        j = self._peg_index(target, "target")
        if i == j:
            raise IllegalMoveError(
                f"source and target are both peg {PEG_LETTERS[i]}: a move takes the top "
                "piece to a different peg.",
                RULE_SAME_PEG,
            )
        return self._check_move(s, i, j)

    def move(self, state: S | str, source: PegRef, target: PegRef) -> S:
        """The state after moving the top piece of ``source`` onto ``target``.

        Raises
        ------
        IllegalMoveError
            If the move breaks a rule; its ``rule`` attribute says which.
        """
        s = self._coerce(state)
        return self._apply(s, self.check_move(s, source, target))

    def apply(self, state: S | str, move: Move) -> S:
        """The state after ``move``; the move's piece must be the source peg's top piece."""
        s = self._coerce(state)
        checked = self.check_move(s, move.source, move.target)
        if checked.piece != move.piece:
            raise IllegalMoveError(
                f"move {move} takes piece {move.piece!r} from peg {move.source_label}, but "
                f"the top piece there is {checked.piece!r}.",
                RULE_WRONG_PIECE,
            )
        return self._apply(s, checked)

    def legal_moves(self, state: S | str) -> list[Move]:
        """Every legal move from ``state``, ordered by source then target peg."""
        s = self._coerce(state)
        out = []
        for i in range(self.n_pegs):
            for j in range(self.n_pegs):
                if i != j:
                    try:  # noqa: SIM105 (suppress() is slower in this hot loop)
                        out.append(self._check_move(s, i, j))
                    except IllegalMoveError:
                        pass
        return out

    def neighbors(self, state: S | str) -> list[S]:
        """The states one legal move away, in the order of :meth:`legal_moves`."""
        s = self._coerce(state)
        return [self._apply(s, m) for m in self.legal_moves(s)]

    # ----------------------------------------------------------------- solver
    @abstractmethod
    def _distance(self, start: S, goal: S) -> int:
        """Shortest distance; -1 if the goal cannot be reached."""

    @abstractmethod
    def _count_paths(self, start: S, goal: S) -> int:
        """Number of shortest paths; 0 if the goal cannot be reached."""

    def _reachable_distance(self, start: S, goal: S) -> int:
        d = self._distance(start, goal)
        if d < 0:
            raise UnreachableGoalError(
                f"goal {goal} cannot be reached from {start}: no sequence of legal moves "
                "leads there. Suggested fix: choose a goal in the same connected part of "
                "the state graph, or give the pegs more capacity."
            )
        return d

    def distance(self, start: S | str, goal: S | str) -> int:
        """Fewest moves from ``start`` to ``goal``.

        Raises
        ------
        UnreachableGoalError
            If no sequence of legal moves leads from ``start`` to ``goal``.
        """
        return self._reachable_distance(self._coerce(start, "start"), self._coerce(goal, "goal"))

    def is_reachable(self, start: S | str, goal: S | str) -> bool:
        """Whether some sequence of legal moves leads from ``start`` to ``goal``."""
        return self._distance(self._coerce(start, "start"), self._coerce(goal, "goal")) >= 0

    def count_optimal_paths(self, start: S | str, goal: S | str) -> int:
        """Number of distinct shortest move sequences from ``start`` to ``goal`` (1 if equal)."""
        s, g = self._coerce(start, "start"), self._coerce(goal, "goal")
        self._reachable_distance(s, g)
        return self._count_paths(s, g)

    def optimal_moves(self, state: S | str, goal: S | str) -> list[Move]:
        """Every legal move from ``state`` that starts a shortest path to ``goal``.

        Empty when ``state`` is the goal. Ordered as :meth:`legal_moves`.
        """
        s, g = self._coerce(state), self._coerce(goal, "goal")
        d = self._reachable_distance(s, g)
        return [m for m in self.legal_moves(s) if self._distance(self._apply(s, m), g) == d - 1]

    def solve(self, start: S | str, goal: S | str) -> Iterator[Move]:
        """An optimal move sequence from ``start`` to ``goal``, produced lazily.

        Where several shortest paths exist, the first optimal move in the order
        of :meth:`legal_moves` is taken at each step. Memory stays small even
        for a 64-disk tower (2**64 - 1 moves).
        """
        s, g = self._coerce(start, "start"), self._coerce(goal, "goal")
        d = self._reachable_distance(s, g)
        return self._walk(s, g, d)

    def _walk(self, s: S, g: S, d: int) -> Iterator[Move]:
        while d > 0:
            for m in self.legal_moves(s):
                nxt = self._apply(s, m)
                if self._distance(nxt, g) == d - 1:
                    yield m
                    s, d = nxt, d - 1
                    break
            else:  # pragma: no cover - would mean the distance function is wrong
                raise RuntimeError(f"no optimal move from {s} towards {g}")
