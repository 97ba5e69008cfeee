"""Exceptions raised by tol-tasks.

Every error on bad input says where the input was, which field held what
value, and how to fix it. A command line tool prints it as it is, without a
traceback; code that needs one of those facts reads it from the error's
attributes, never from its text::

    try:
        check_problem(puzzle, "GRX|B|", "|RB|G")
    except ProblemError as exc:
        exc.field, exc.value, exc.fix   # 'start', 'GRX|B|', "write each peg's balls ..."
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import Any


class _NoValue:
    """The marker of an error that names no bad value (``value`` is None when None was bad)."""

    def __repr__(self) -> str:
        return "NO_VALUE"


NO_VALUE: Any = _NoValue()


class TolTasksError(Exception):
    """Base class of every error tol-tasks raises on bad input.

    Parameters
    ----------
    message : str
        What is wrong, in a sentence that can be shown as it is (it usually
        names the place, the field and the value too).
    where : str, optional
        The input: a file (with its line or row), a component, a call.
    field : str, optional
        The field, column, parameter or argument that holds the bad value.
    value : optional
        The bad value (:data:`NO_VALUE` when the error is about no single value).
    fix : str, optional
        How to put it right; added to the text as ``Suggested fix: ...``.

    Attributes
    ----------
    message, where, field, value, fix
        As given, for code that reacts to the error (``str(exc)`` is for people).
    """

    def __init__(self, message: str = "", *, where: str | None = None, field: str | None = None,
                 value: Any = NO_VALUE, fix: str | None = None) -> None:  # fmt: skip
        self.message = message
        self.where = where
        self.field = field
        self.value = value
        self.fix = fix
        super().__init__(f"{message} Suggested fix: {fix}" if fix else message)

    @property
    def has_value(self) -> bool:
        """Whether the error names a bad value."""
        return self.value is not NO_VALUE


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


def quiet_on_closed_pipe(main: Callable[..., int]) -> Callable[..., int]:
    """A command's ``main`` that ends quietly when its reader goes away (``tol-protocol list |
    head``): no ``BrokenPipeError`` traceback, status 0 (the reader had all it wanted)."""

    @functools.wraps(main)
    def wrapper(*args: Any, **kwargs: Any) -> int:
        try:
            status = main(*args, **kwargs)
            sys.stdout.flush()  # what is still buffered meets the closed pipe here
            return status
        except BrokenPipeError:
            # Python flushes stdout again at exit; point it at nothing so that it stays quiet.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            return 0

    return wrapper
