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

import errno
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


#: What to do when the system refuses a path, by the refusal's ``errno``.
_PATH_FIXES = {
    errno.ENAMETOOLONG: "give a shorter path (at most 255 bytes a folder or file name)",
    errno.ENOENT: "check the path: nothing is there",
    errno.ENOTDIR: "check the path: a part of it is a file, not a folder",
    errno.EISDIR: "give a file there, not a folder",
    errno.EACCES: "choose a place you may read or write, or fix its permissions",
    errno.EPERM: "choose a place you may read or write, or fix its permissions",
    errno.EROFS: "choose a folder on a disk that can be written to",
    errno.ENOSPC: "free some space, or choose another disk",
    errno.ELOOP: "check the path: its symbolic links go round in a loop",
}


def path_fix(exc: OSError) -> str:
    """How to put right the system's refusal ``exc`` of a path (by its ``errno``)."""
    return _PATH_FIXES.get(exc.errno, "check the path and that it can be read or written") + "."


def path_error(exc: OSError) -> str:
    """What a person is told of the system's refusal ``exc`` of a path: the path, the
    system's reason and a fix."""
    return f"{exc.filename}: {exc.strerror or exc}. Suggested fix: {path_fix(exc)}"


def path_errors_said(program: str) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """A command's ``main`` that ends with a message, not a traceback, when the system
    refuses a path that no check before caught (a name too long, a folder where a file
    belongs).

    The message, on standard error, is the program's name, the path, the system's reason and
    a suggested fix (:func:`path_error`); the status 2. An error that names no path is not
    this one and goes on."""

    def decorate(main: Callable[..., int]) -> Callable[..., int]:
        @functools.wraps(main)
        def wrapper(*args: Any, **kwargs: Any) -> int:
            try:
                return main(*args, **kwargs)
            except OSError as exc:
                if exc.filename is None or isinstance(exc, BrokenPipeError):
                    raise
                print(f"{program}: {path_error(exc)}", file=sys.stderr)
                return 2

        return wrapper

    return decorate
