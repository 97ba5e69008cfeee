"""The Tower of London: coloured balls on pegs of limited capacity.

State text: each peg's balls bottom to top, pegs separated by ``|``.
``"GR|B|"`` has green under red on peg A, blue on peg B and peg C empty.
Pegs are written A, B, C from the left in moves, logs and messages.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import permutations
from math import prod

from tol_tasks.config import (
    DEFAULT_BALLS,
    DEFAULT_CAPACITIES,
    MAX_PEGS,
    PEG_LETTERS,
    RULE_EMPTY_SOURCE,
    RULE_PEG_FULL,
)
from tol_tasks.errors import IllegalMoveError, PuzzleDefinitionError, StateError

from ._search import DistanceTables, check_search_size
from .base import Move, Puzzle


@dataclass(frozen=True, slots=True)
class LondonState:
    """An immutable Tower of London configuration.

    Attributes
    ----------
    pegs : tuple of str
        Each peg's balls as colour letters, bottom to top.
    """

    pegs: tuple[str, ...]

    def __str__(self) -> str:
        return "|".join(self.pegs)

    def __repr__(self) -> str:
        return f"LondonState({str(self)!r})"


class London(Puzzle[LondonState]):
    """Tower of London with coloured balls on pegs of given capacities.

    Parameters
    ----------
    balls : str
        One capital letter per ball, e.g. ``"RGB"`` (the default: red, green,
        blue). Letters may repeat for balls of the same colour.
    capacities : sequence of int
        How many balls each peg holds, left to right; default ``(3, 2, 1)``
        (Shallice 1982).
    max_states : int, optional
        Bound on exact breadth-first search.
    """

    def __init__(
        self,
        balls: str = DEFAULT_BALLS,
        capacities: Sequence[int] = DEFAULT_CAPACITIES,
        *,
        max_states: int | None = None,
    ) -> None:
        if (
            not isinstance(balls, str)
            or not balls
            or not all(c.isascii() and c.isalpha() and c.isupper() for c in balls)
        ):
            raise PuzzleDefinitionError(
                f"balls={balls!r}: give one capital letter per ball, e.g. 'RGB'."
            )
        caps = tuple(capacities) if not isinstance(capacities, str) else ()
        if not 2 <= len(caps) <= MAX_PEGS or any(
            isinstance(c, bool) or not isinstance(c, int) or c < 1 for c in caps
        ):
            raise PuzzleDefinitionError(
                f"capacities={capacities!r}: give each peg's capacity as a whole number of at "
                f"least 1, for 2 to {MAX_PEGS} pegs, e.g. (3, 2, 1)."
            )
        if sum(caps) < len(balls):
            raise PuzzleDefinitionError(
                f"capacities={caps!r} hold {sum(caps)} balls in all, fewer than the "
                f"{len(balls)} balls {balls!r}. Suggested fix: raise a capacity or use fewer balls."
            )
        self.balls = balls
        self._capacities = caps
        self.n_pegs = len(caps)
        self._max_states = max_states
        self._sorted_balls = sorted(balls)
        self._index: dict[tuple[str, ...], int] | None = None
        self._all: list[LondonState] = []
        self._adjacency: list[list[int]] = []
        self._tables: DistanceTables | None = None

    kind = "london"

    # -------------------------------------------------------------- identity
    @property
    def size(self) -> int:
        return len(self.balls)

    @property
    def pieces(self) -> tuple[str, ...]:
        return tuple(self.balls)

    @property
    def capacities(self) -> tuple[int, ...]:
        return self._capacities

    @property
    def label(self) -> str:
        return f"{self.balls} {'/'.join(map(str, self.capacities))}"

    @property
    def code(self) -> str:
        return f"london:{self.balls}:{'-'.join(map(str, self.capacities))}"

    def _params(self) -> tuple:
        return (self.balls, self.capacities)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, London) and self._params() == other._params()

    def __hash__(self) -> int:
        return hash(("London", *self._params()))

    def __repr__(self) -> str:
        return f"London(balls={self.balls!r}, capacities={self.capacities!r})"

    # ---------------------------------------------------------------- states
    def _example(self) -> str:
        cols, rest = [], self.balls
        for cap in self.capacities:
            cols.append(rest[:cap])
            rest = rest[cap:]
        return "|".join(cols)

    def _expected_form(self) -> str:
        return (
            f"write each peg's balls bottom to top, {self.n_pegs} pegs separated by '|', "
            f'e.g. "{self._example()}"'
        )

    def parse(self, text: str) -> LondonState:
        """Read a state from its text, e.g. ``"GR|B|"``.

        Raises
        ------
        StateError
            Naming the peg, the bad ball or count, and the expected form.
        """
        if not isinstance(text, str):
            raise StateError(f"{text!r} is not a state text: {self._expected_form()}.")
        parts = [p.strip().upper() for p in text.strip().split("|")]
        if len(parts) != self.n_pegs:
            raise StateError(
                f'"{text}": {len(parts)} pegs given, but this puzzle has {self.n_pegs}; '
                f"{self._expected_form()}."
            )
        return self._validated(tuple(parts), repr(text).replace("'", '"'))

    def from_pegs(self, pegs: Sequence[Sequence[str] | str]) -> LondonState:
        """Build a state from each peg's balls bottom to top, e.g. ``[["G", "R"], ["B"], []]``."""
        if isinstance(pegs, str) or len(pegs) != self.n_pegs:
            raise StateError(
                f"{pegs!r}: give one list per peg ({self.n_pegs} lists), each peg's balls bottom "
                f"to top, e.g. {[list(c) for c in self._example().split('|')]!r}."
            )
        cols = []
        for column in pegs:
            items = list(column)
            if any(not isinstance(b, str) or len(b) != 1 for b in items):
                raise StateError(f"{pegs!r}: each ball is one letter, e.g. 'R'.")
            cols.append("".join(items).upper())
        return self._validated(tuple(cols), repr(list(map(list, pegs))))

    def _validated(self, cols: tuple[str, ...], shown: str) -> LondonState:
        known = set(self.balls)
        for i, col in enumerate(cols):
            for ch in col:
                if ch not in known:
                    raise StateError(
                        f"{shown}: ball {ch!r} on peg {PEG_LETTERS[i]} is not one of this "
                        f"puzzle's balls {', '.join(self.balls)}; {self._expected_form()}."
                    )
            if len(col) > self.capacities[i]:
                raise StateError(
                    f"{shown}: peg {PEG_LETTERS[i]} holds {len(col)} balls, but its capacity is "
                    f"{self.capacities[i]}; {self._expected_form()}."
                )
        given = Counter("".join(cols))
        want = Counter(self.balls)
        if given != want:
            problems = []
            for b in sorted(want.keys() | given.keys()):
                if given[b] < want[b]:
                    problems.append(
                        f"ball {b} is missing"
                        if want[b] == 1
                        else f"{want[b] - given[b]} {b} missing"
                    )
                elif given[b] > want[b]:
                    problems.append(f"ball {b} appears {given[b]} times")
            raise StateError(
                f"{shown}: {'; '.join(problems)}; every ball of {self.balls!r} must appear "
                "exactly once."
            )
        return LondonState(cols)

    def pegs_of(self, state: LondonState | str) -> tuple[tuple[str, ...], ...]:
        s = self._coerce(state)
        return tuple(tuple(c) for c in s.pegs)

    def _enumerate(self) -> None:
        if self._index is not None:
            return
        check_search_size(self._state_bound(), repr(self), self._max_states)
        found: set[tuple[str, ...]] = set()
        caps = self.capacities
        for order in set(permutations(self.balls)):
            self._split_into(order, 0, [], caps, found)
        self._all = [LondonState(c) for c in sorted(found)]
        self._index = {s.pegs: i for i, s in enumerate(self._all)}
        adj = []
        for s in self._all:
            adj.append([self._index[self._apply(s, m).pegs] for m in self.legal_moves(s)])
        self._adjacency = adj

    def _split_into(self, order, peg, acc, caps, found) -> None:
        if peg == len(caps) - 1:
            if len(order) <= caps[peg]:
                found.add((*acc, "".join(order)))
            return
        for k in range(min(caps[peg], len(order)) + 1):
            self._split_into(order[k:], peg + 1, [*acc, "".join(order[:k])], caps, found)

    def _state_bound(self) -> int:
        # Orderings of the balls times ways to cut them into pegs: an upper bound.
        n, p = len(self.balls), self.n_pegs
        return prod(range(1, n + 1)) * prod(range(n + 1, n + p)) // prod(range(1, p))

    def states(self) -> Iterator[LondonState]:
        """Every legal state, in text order."""
        self._enumerate()
        return iter(list(self._all))

    @property
    def n_states(self) -> int:
        self._enumerate()
        return len(self._all)

    def _coerce(self, state: LondonState | str, what: str = "state") -> LondonState:
        if isinstance(state, LondonState):
            cols = state.pegs
            if (
                len(cols) != self.n_pegs
                or any(len(c) > cap for c, cap in zip(cols, self.capacities, strict=True))
                or sorted("".join(cols)) != self._sorted_balls
            ):
                raise StateError(
                    f"{what} {state} is not a state of {self!r}: {self._expected_form()}."
                )
            return state
        if isinstance(state, str):
            return self.parse(state)
        raise StateError(
            f"{what} {state!r} is neither a LondonState nor a state text; {self._expected_form()}."
        )

    # ----------------------------------------------------------------- moves
    def _check_move(self, state: LondonState, source: int, target: int) -> Move:
        cols = state.pegs
        a, b = PEG_LETTERS[source], PEG_LETTERS[target]
        if not cols[source]:
            raise IllegalMoveError(f"cannot move from peg {a}: it is empty.", RULE_EMPTY_SOURCE)
        ball = cols[source][-1]
        cap = self.capacities[target]
        if len(cols[target]) >= cap:
            raise IllegalMoveError(
                f"cannot move ball {ball} onto peg {b}: it is full (it holds "
                f"{cap} ball{'s' if cap != 1 else ''}).",
                RULE_PEG_FULL,
            )
        return Move(ball, source, target)

    def _apply(self, state: LondonState, move: Move) -> LondonState:
        cols = list(state.pegs)
        cols[move.target] = cols[move.target] + cols[move.source][-1]
        cols[move.source] = cols[move.source][:-1]
        return LondonState(tuple(cols))

    # ---------------------------------------------------------------- search
    def _search(self) -> DistanceTables:
        if self._tables is None:
            self._enumerate()
            self._tables = DistanceTables(len(self._all), self._adjacency.__getitem__)
        return self._tables

    def _distance(self, start: LondonState, goal: LondonState) -> int:
        tables = self._search()
        index = self._index
        return tables.table(index[goal.pegs])[index[start.pegs]]

    def _count_paths(self, start: LondonState, goal: LondonState) -> int:
        tables = self._search()
        return tables.count_paths(self._index[start.pegs], self._index[goal.pegs])
