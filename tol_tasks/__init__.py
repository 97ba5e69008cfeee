"""tol-tasks: Tower of Hanoi and Tower of London for neuropsychology.

The puzzle model and exact solver::

    >>> from tol_tasks import Hanoi, London
    >>> p = Hanoi(disks=3)
    >>> p.distance("BAA", "ABA")
    6
    >>> p.count_optimal_paths("BAA", "ABA")
    2
    >>> London().distance("GR|B|", "|RG|B")
    3

Nothing imported here needs PsychoPy or a display.
"""

from __future__ import annotations

from tol_tasks.puzzles.base import Move, Puzzle
from tol_tasks.puzzles.hanoi import Hanoi, HanoiState
from tol_tasks.puzzles.london import London, LondonState

from .errors import (
    IllegalMoveError,
    PuzzleDefinitionError,
    PuzzleTooLargeError,
    StateError,
    TolTasksError,
    UnreachableGoalError,
)

#: The version of tol-tasks, declared here only: the package metadata (hatch), the browser
#: bundle (web/build.mjs), CITATION.cff (checked by a test) and every file written read it.
__version__ = "0.2.0"

__all__ = [
    "Hanoi",
    "HanoiState",
    "IllegalMoveError",
    "London",
    "LondonState",
    "Move",
    "Puzzle",
    "PuzzleDefinitionError",
    "PuzzleTooLargeError",
    "StateError",
    "TolTasksError",
    "UnreachableGoalError",
    "__version__",
]
