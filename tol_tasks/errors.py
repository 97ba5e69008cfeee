"""Exceptions raised by tol-tasks.

Every message names the bad value and says how to fix it, so that a command
line tool can print it as it is, without a traceback.
"""

from __future__ import annotations


class TolTasksError(Exception):
    """Base class of every error tol-tasks raises on bad input."""


class PuzzleDefinitionError(TolTasksError, ValueError):
    """A puzzle was asked for with impossible parameters (no disks, no pegs...)."""


class StateError(TolTasksError, ValueError):
    """A state text or peg list does not describe a legal state of the puzzle."""


class IllegalMoveError(TolTasksError, ValueError):
    """A move breaks a rule of the puzzle.

    Attributes
    ----------
    rule : str
        Which rule was broken, one of :data:`tol_tasks.config.RULES`.
    """

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


class UnreachableGoalError(TolTasksError, ValueError):
    """No sequence of legal moves leads from the start to the goal."""


class PuzzleTooLargeError(TolTasksError):
    """An exact search would need more states than the configured bound."""
