"""Puzzle codes: the apparatus as one token (the event log's ``puzzle`` column), read back.

:attr:`Puzzle.code <tol_tasks.puzzles.base.Puzzle.code>` writes a code;
:func:`from_code` reads one. These are the only two places that know the form.
"""

from __future__ import annotations

from functools import lru_cache

from tol_tasks.errors import PuzzleDefinitionError, TolTasksError

from .base import Puzzle
from .hanoi import Hanoi
from .london import London


@lru_cache(maxsize=256)
def from_code(code: str) -> Puzzle:
    """The puzzle of a code such as ``hanoi:3:3:0`` or ``london:RGB:3-2-1``.

    Puzzles are immutable, so equal codes may share one object.

    Raises
    ------
    PuzzleDefinitionError
        Naming the code and the expected form.

    Examples
    --------
    >>> from_code("hanoi:4:3:1")
    Hanoi(disks=4, pegs=3, adjacent_only=True)
    >>> from_code("london:RGB:3-2-1").code
    'london:RGB:3-2-1'
    """
    parts = str(code).split(":")
    try:
        if parts[0] == Hanoi.kind and len(parts) == 4 and parts[3] in ("0", "1"):
            return Hanoi(int(parts[1]), int(parts[2]), parts[3] == "1")
        if parts[0] == London.kind and len(parts) == 3:
            return London(parts[1], tuple(int(c) for c in parts[2].split("-")))
    except (ValueError, TolTasksError):
        pass
    raise PuzzleDefinitionError(
        f"puzzle {code!r} is not a puzzle code such as hanoi:3:3:0 (disks, pegs, adjacent-only "
        "0 or 1) or london:RGB:3-2-1 (balls, capacities)"
    )
