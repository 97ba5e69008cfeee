"""The Tower of Hanoi: ``n`` disks on 3 or more pegs.

State text: one peg letter per disk, **largest disk first** (the notation of
the seed articles). ``"BBAA"`` has the two largest disks on peg B and the two
smallest on peg A. Disks are numbered from the smallest: disk 1 is the
smallest, disk ``n`` the largest.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import product

from tol_tasks.config import (
    MAX_DISKS,
    MAX_PEGS,
    PEG_LETTERS,
    RULE_EMPTY_SOURCE,
    RULE_FORBIDDEN_PAIR,
    RULE_LARGER_ON_SMALLER,
)
from tol_tasks.errors import IllegalMoveError, PuzzleDefinitionError, StateError

from . import _hanoi3
from ._search import DistanceTables, check_search_size
from .base import Move, Puzzle


@dataclass(frozen=True, slots=True)
class HanoiState:
    """An immutable Tower of Hanoi configuration.

    Attributes
    ----------
    pegs : tuple of int
        The peg index of each disk, largest disk first (0 is peg A).
    """

    pegs: tuple[int, ...]
    _h3: object = field(default=None, init=False, repr=False, compare=False)
    _high: int = field(default=0, init=False, repr=False, compare=False)
    _tower: int = field(default=-1, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        pegs = self.pegs
        object.__setattr__(self, "_high", max(pegs) if pegs else 0)
        first = pegs[0] if pegs else -1
        tower = first if pegs.count(first) == len(pegs) else -1
        object.__setattr__(self, "_tower", tower)

    @property
    def n_disks(self) -> int:
        """Number of disks."""
        return len(self.pegs)

    def peg_of(self, disk: int) -> int:
        """Peg index of ``disk`` (1 = smallest)."""
        return self.pegs[len(self.pegs) - disk]

    @property
    def tower_peg(self) -> int | None:
        """The peg holding every disk, or None if the disks are spread out."""
        return None if self._tower < 0 else self._tower

    def _code3(self):
        code = self._h3
        if code is None:
            code = _hanoi3.encode(self.pegs)
            object.__setattr__(self, "_h3", code)
        return code

    def __str__(self) -> str:
        return "".join(PEG_LETTERS[p] for p in self.pegs)

    def __repr__(self) -> str:
        return f"HanoiState({str(self)!r})"


class Hanoi(Puzzle[HanoiState]):
    """Tower of Hanoi with ``disks`` disks and ``pegs`` pegs.

    Parameters
    ----------
    disks : int
        Number of disks, 1 to 1024.
    pegs : int
        Number of pegs, 3 (the default) or more.
    adjacent_only : bool
        Forbid moves between pegs that are not neighbours, so with 3 pegs no
        direct move between A and C (the "adjacent moves only" variant,
        whose tower-to-tower solution takes ``3**n - 1`` moves).
    max_states : int, optional
        Bound on exact breadth-first search (used for 4 or more pegs and the
        adjacent-only rule); larger puzzles raise
        :class:`~tol_tasks.errors.PuzzleTooLargeError` when queried.

    Notes
    -----
    With 3 pegs and no adjacency rule every query is exact and O(n) without
    search, so a 64-disk tower is answered in microseconds. Everything else
    is exact by breadth-first search with cached per-goal distance tables.
    """

    def __init__(
        self,
        disks: int = 3,
        pegs: int = 3,
        adjacent_only: bool = False,
        *,
        max_states: int | None = None,
    ) -> None:
        if isinstance(disks, bool) or not isinstance(disks, int) or not 1 <= disks <= MAX_DISKS:
            raise PuzzleDefinitionError(
                f"disks={disks!r}: a Tower of Hanoi needs a whole number of disks from 1 to "
                f"{MAX_DISKS}."
            )
        if isinstance(pegs, bool) or not isinstance(pegs, int) or not 3 <= pegs <= MAX_PEGS:
            raise PuzzleDefinitionError(
                f"pegs={pegs!r}: a Tower of Hanoi needs a whole number of pegs from 3 to "
                f"{MAX_PEGS}."
            )
        self.n_disks = disks
        self.n_pegs = pegs
        self.adjacent_only = bool(adjacent_only)
        self._max_states = max_states
        self._exact3 = pegs == 3 and not self.adjacent_only
        self._tables: DistanceTables | None = None
        self._pow = [pegs**i for i in range(disks + 1)]
        self._letter_index = {c: i for i, c in enumerate(PEG_LETTERS[:pegs])}

    kind = "hanoi"

    # -------------------------------------------------------------- identity
    @property
    def size(self) -> int:
        return self.n_disks

    @property
    def pieces(self) -> tuple[int, ...]:
        return tuple(range(1, self.n_disks + 1))

    @property
    def capacities(self) -> tuple[int, ...]:
        return (self.n_disks,) * self.n_pegs

    @property
    def is_classic(self) -> bool:
        return self._exact3

    @property
    def label(self) -> str:
        out = f"{self.n_disks} disk{'s' if self.n_disks != 1 else ''}"
        if self.n_pegs != 3:
            out += f", {self.n_pegs} pegs"
        return out + (", adjacent" if self.adjacent_only else "")

    @property
    def code(self) -> str:
        return f"hanoi:{self.n_disks}:{self.n_pegs}:{int(self.adjacent_only)}"

    def _params(self) -> tuple:
        return (self.n_disks, self.n_pegs, self.adjacent_only)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hanoi) and self._params() == other._params()

    def __hash__(self) -> int:
        return hash(("Hanoi", *self._params()))

    def __repr__(self) -> str:
        extra = ", adjacent_only=True" if self.adjacent_only else ""
        return f"Hanoi(disks={self.n_disks}, pegs={self.n_pegs}{extra})"

    # ---------------------------------------------------------------- states
    def _expected_form(self) -> str:
        return (
            f"write one peg letter ({self._peg_range()}) per disk, largest disk first, "
            f'e.g. "{PEG_LETTERS[0] * self.n_disks}"'
        )

    def parse(self, text: str) -> HanoiState:
        """Read a state from its text: one peg letter per disk, largest disk first.

        Raises
        ------
        StateError
            Naming the position, the bad character or count, and the expected form.
        """
        if not isinstance(text, str):
            raise StateError(f"{text!r} is not a state text: {self._expected_form()}.")
        t = text.strip().upper()
        if len(t) != self.n_disks:
            raise StateError(
                f'"{text}": {len(t)} letters given, but this puzzle has {self.n_disks} '
                f"disk{'s' if self.n_disks != 1 else ''}; {self._expected_form()}."
            )
        fast = tuple(map(self._letter_index.get, t))
        if None not in fast:
            return HanoiState(fast)
        for pos, ch in enumerate(t):
            disk = self.n_disks - pos
            idx = PEG_LETTERS.find(ch) if ch.isalpha() and ch.isascii() else -1
            if idx < 0:
                raise StateError(
                    f'"{text}": character {pos + 1} (disk {disk}) is {ch!r}, not a peg '
                    f"letter; {self._expected_form()}."
                )
            if idx >= self.n_pegs:
                raise StateError(
                    f'"{text}": character {pos + 1} (disk {disk}) is on peg {ch}, but this '
                    f"puzzle has pegs {self._peg_range()}; {self._expected_form()}."
                )
        raise AssertionError("unreachable: some letter failed the fast path")  # pragma: no cover

    def from_pegs(self, pegs: Sequence[Sequence[int]]) -> HanoiState:
        """Build a state from each peg's disks listed bottom to top, e.g. ``[[3, 1], [2], []]``."""
        if isinstance(pegs, str) or len(pegs) != self.n_pegs:
            raise StateError(
                f"{pegs!r}: give one list per peg ({self.n_pegs} lists), each peg's disks "
                "bottom to top, e.g. "
                + repr([list(range(self.n_disks, 0, -1))] + [[]] * (self.n_pegs - 1))
            )
        where: dict[int, int] = {}
        for i, column in enumerate(pegs):
            prev = None
            for disk in column:
                if (
                    isinstance(disk, bool)
                    or not isinstance(disk, int)
                    or not 1 <= disk <= self.n_disks
                ):
                    raise StateError(
                        f"{pegs!r}: peg {PEG_LETTERS[i]} lists {disk!r}, but disks are numbered "
                        f"1 (smallest) to {self.n_disks}."
                    )
                if disk in where:
                    raise StateError(f"{pegs!r}: disk {disk} is listed twice.")
                if prev is not None and disk > prev:
                    raise StateError(
                        f"{pegs!r}: on peg {PEG_LETTERS[i]} disk {disk} lies on the smaller "
                        f"disk {prev}; list each peg's disks bottom to top, largest first."
                    )
                where[disk] = i
                prev = disk
        missing = [d for d in range(1, self.n_disks + 1) if d not in where]
        if missing:
            raise StateError(f"{pegs!r}: disk(s) {', '.join(map(str, missing))} missing.")
        return HanoiState(tuple(where[d] for d in range(self.n_disks, 0, -1)))

    def random_state(self, rng: random.Random) -> HanoiState:
        """A state drawn with ``rng``: each disk, largest first, on a peg drawn at random."""
        cols: list[list[int]] = [[] for _ in range(self.n_pegs)]
        for disk in range(self.n_disks, 0, -1):
            cols[rng.randrange(self.n_pegs)].append(disk)
        return self.from_pegs(cols)

    def tower(self, peg: int | str = 0) -> HanoiState:
        """The perfect tower: every disk on ``peg``."""
        return HanoiState((self._peg_index(peg, "tower"),) * self.n_disks)

    def pegs_of(self, state: HanoiState | str) -> tuple[tuple[int, ...], ...]:
        s = self._coerce(state)
        out: list[list[int]] = [[] for _ in range(self.n_pegs)]
        for pos, p in enumerate(s.pegs):
            out[p].append(self.n_disks - pos)
        return tuple(tuple(c) for c in out)

    def states(self) -> Iterator[HanoiState]:
        """Every state, in text order (``AAA``, ``AAB``, ...)."""
        check_search_size(self.n_states, repr(self), self._max_states)
        for pegs in product(range(self.n_pegs), repeat=self.n_disks):
            yield HanoiState(pegs)

    @property
    def n_states(self) -> int:
        return self.n_pegs**self.n_disks

    def _coerce(self, state: HanoiState | str, what: str = "state") -> HanoiState:
        if isinstance(state, HanoiState):
            if len(state.pegs) != self.n_disks or state._high >= self.n_pegs:
                raise StateError(
                    f"{what} {state} is not a state of {self!r}: {self._expected_form()}."
                )
            return state
        if isinstance(state, str):
            return self.parse(state)
        raise StateError(
            f"{what} {state!r} is neither a HanoiState nor a state text; {self._expected_form()}."
        )

    # ----------------------------------------------------------------- moves
    def _allowed(self, i: int, j: int) -> bool:
        return not self.adjacent_only or abs(i - j) == 1

    def _check_move(self, state: HanoiState, source: int, target: int) -> Move:
        pegs = state.pegs
        n = len(pegs)
        top_s = top_t = 0  # disk numbers of the top disks (0: empty peg)
        for pos in range(n - 1, -1, -1):
            p = pegs[pos]
            if p == source and not top_s:
                top_s = n - pos
            elif p == target and not top_t:
                top_t = n - pos
            if top_s and top_t:
                break
        a, b = PEG_LETTERS[source], PEG_LETTERS[target]
        if not top_s:
            raise IllegalMoveError(f"cannot move from peg {a}: it is empty.", RULE_EMPTY_SOURCE)
        if not self._allowed(source, target):
            raise IllegalMoveError(
                f"cannot move disk {top_s} directly from peg {a} to peg {b}: this puzzle "
                "allows moves between neighbouring pegs only.",
                RULE_FORBIDDEN_PAIR,
            )
        if top_t and top_t < top_s:
            raise IllegalMoveError(
                f"cannot move disk {top_s} from peg {a} onto disk {top_t} on peg {b}: a "
                "larger disk may not be placed on a smaller one.",
                RULE_LARGER_ON_SMALLER,
            )
        return Move(top_s, source, target)

    def _apply(self, state: HanoiState, move: Move) -> HanoiState:
        pegs = list(state.pegs)
        pegs[self.n_disks - move.piece] = move.target
        return HanoiState(tuple(pegs))

    # ---------------------------------------------------------------- search
    def _code(self, s: HanoiState) -> int:
        code = 0
        p = self.n_pegs
        for peg in s.pegs:  # largest first: most significant digit first
            code = code * p + peg
        return code

    def _neighbor_codes(self, code: int) -> list[int]:
        p, n, pw = self.n_pegs, self.n_disks, self._pow
        tops = [-1] * p
        found = 0
        c = code
        for k in range(n):
            peg = c % p
            c //= p
            if tops[peg] < 0:
                tops[peg] = k
                found += 1
                if found == p:
                    break
        out = []
        for i in range(p):
            ki = tops[i]
            if ki < 0:
                continue
            for j in range(p):
                if j != i and (tops[j] < 0 or tops[j] > ki) and self._allowed(i, j):
                    out.append(code + (j - i) * pw[ki])
        return out

    def _search(self) -> DistanceTables:
        if self._tables is None:
            check_search_size(self.n_states, repr(self), self._max_states)
            self._tables = DistanceTables(self.n_states, self._neighbor_codes)
        return self._tables

    def _distance(self, start: HanoiState, goal: HanoiState) -> int:
        if self._exact3:
            return _hanoi3.distance(start._code3(), goal._code3(), goal._tower)
        return self._search().table(self._code(goal))[self._code(start)]

    def _count_paths(self, start: HanoiState, goal: HanoiState) -> int:
        if self._exact3:
            return _hanoi3.count_paths(start._code3(), goal._code3())
        return self._search().count_paths(self._code(start), self._code(goal))

    def largest_disk_moves_twice(self, start: HanoiState | str, goal: HanoiState | str) -> bool:
        """Whether every shortest path moves the largest differing disk twice.

        Only defined for the classic 3-peg puzzle, where that disk moves once
        or twice (Hinz 1992); False when start equals goal or when a shortest
        path exists that moves it once.
        """
        self._require_classic("largest_disk_moves_twice")
        s, g = self._coerce(start, "start"), self._coerce(goal, "goal")
        opts = _hanoi3.options(s._code3(), g._code3())
        return opts is not None and opts[1] < opts[0]

    # ------------------------------------------------------- classic solution
    def _require_classic(self, what: str) -> None:
        if not self._exact3:
            raise PuzzleDefinitionError(
                f"{what} is defined for the classic 3-peg puzzle only, not {self!r}. "
                "Suggested fix: use distance(), optimal_moves() or solve(), which work for "
                "every puzzle."
            )

    def _classic_args(self, m: int, source, target, first: int) -> tuple[int, int]:
        self._require_classic("The binary solution")
        last = (1 << self.n_disks) - 1
        if isinstance(m, bool) or not isinstance(m, int) or not first <= m <= last:
            raise ValueError(
                f"move number {m!r} is outside the classic solution of {self.n_disks} disks, "
                f"which has moves {first} to {last:,} (2**{self.n_disks} - 1)."
            )
        i = self._peg_index(source, "source")
        j = self._peg_index(target, "target")
        if i == j:
            raise ValueError(f"source and target are both peg {PEG_LETTERS[i]}.")
        return i, j

    def nth_move(self, m: int, source: int | str = 0, target: int | str = 2) -> Move:
        """Move number ``m`` (from 1) of the optimal tower-to-tower solution.

        Computed directly from the binary digits of ``m`` in O(n), so
        ``Hanoi(64).nth_move(2**63)`` is instant (it moves disk 64 from A to C).
        """
        i, j = self._classic_args(m, source, target, 1)
        k = _hanoi3.classic_disk(m)
        a = _hanoi3.classic_peg(self.n_disks, k, m - 1, i, j)
        b = _hanoi3.classic_peg(self.n_disks, k, m, i, j)
        return Move(k, a, b)

    def state_after(self, m: int, source: int | str = 0, target: int | str = 2) -> HanoiState:
        """The configuration after ``m`` moves of the optimal tower-to-tower solution."""
        i, j = self._classic_args(m, source, target, 0)
        n = self.n_disks
        return HanoiState(tuple(_hanoi3.classic_peg(n, k, m, i, j) for k in range(n, 0, -1)))
