"""Ball names as the letters of tol-tasks' Tower of London, and the puzzle they make.

A tool that names its balls (``"red"``, ``"green"``...) has them lettered here, in the
order they are met (:class:`Letters`); the puzzle of a trial is made once for its balls
and capacities (:func:`london`), as a file of many sessions asks for the same few.
"""

from __future__ import annotations

from functools import lru_cache
from string import ascii_uppercase

from tol_tasks.config import DEFAULT_BALLS
from tol_tasks.puzzles import London


def ball_names(a, b, c) -> bool:
    """Whether three pegs are lists of ball names (texts)."""
    if not (isinstance(a, list) and isinstance(b, list) and isinstance(c, list)):
        return False
    try:
        "".join(a + b + c)  # in C; a name that is not a text raises
    except TypeError:
        return all(isinstance(x, str) for x in a + b + c)  # a str subclass is one too
    return True


class Letters:
    """Ball names as ball letters: the name's first letter when free, else the next free one."""

    def __init__(self) -> None:
        self.of: dict[str, str] = {}

    def letter(self, name: str) -> str:
        got = self.of.get(name)
        if got is None:
            used = set(self.of.values())
            first = name[:1].upper()
            got = (
                first
                if first in ascii_uppercase and first not in used
                else next(c for c in ascii_uppercase if c not in used)
            )
            self.of[name] = got
        return got

    def learn(self, state: list[list[str]]) -> None:
        """Give each ball of ``state`` its letter, in order, if it has none yet."""
        of = self.of
        for peg in state:
            for ball in peg:
                if ball not in of:
                    self.letter(ball)

    def text(self, state: list[list[str]]) -> str:
        """``state`` (pegs of ball names, bottom first) in the puzzle's notation."""
        of = self.of
        try:
            return "|".join(["".join([of[b] for b in peg]) for peg in state])
        except KeyError:  # a ball not lettered yet: lettered in order
            return "|".join("".join(self.letter(b) for b in peg) for peg in state)


@lru_cache(maxsize=256)
def ball_order(letters: frozenset[str]) -> str:
    """The puzzle's balls: R, G, B first (tol-tasks' own order), then the alphabet."""
    return "".join(sorted(letters, key=_rank))


def _rank(letter: str) -> tuple[int, str]:
    return (DEFAULT_BALLS.index(letter), "") if letter in DEFAULT_BALLS else (99, letter)


def london(balls: str, capacities: tuple[int, ...]) -> London:
    """The puzzle of these balls and capacities, made once for capacities of whole numbers
    (anything else: ``London``'s own error, at every call)."""
    if all(type(c) is int for c in capacities):
        return _london(balls, capacities)
    return London(balls, capacities)


@lru_cache(maxsize=256)
def _london(balls: str, capacities: tuple[int, ...]) -> London:
    return London(balls, capacities)
