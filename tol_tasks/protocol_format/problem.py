"""One problem given outside a protocol file (the embedding API, a Builder loop): its checks.

Pure: used by :meth:`tol_tasks.runner.TowerTask.problem` before a problem runs
and by the Builder component when the script starts, before a window opens.
"""

from __future__ import annotations

from numbers import Real
from typing import Any

from tol_tasks.errors import TolTasksError
from tol_tasks.puzzles.base import Puzzle

from .model import parse_state


class ProblemError(TolTasksError, ValueError):
    """A problem given in code or in a conditions file cannot be run."""


def check_problem(puzzle: Puzzle, start: Any, goal: Any, *, time_limit: Any = None,
                  move_limit: Any = None, where: str = "problem") -> tuple[Any, Any, int]:  # fmt: skip
    """Parse and check a problem; return ``(start, goal, minimum moves)``.

    Raises
    ------
    ProblemError
        A state that does not parse, a goal equal to the start or out of
        reach, or a limit that is not a positive number or is below the
        minimum moves, each message beginning with ``where`` and ending
        with the fix.
    """
    states = []
    for field, value in (("start", start), ("goal", goal)):
        try:
            states.append(parse_state(puzzle, value))
        except TolTasksError as exc:
            raise ProblemError(f"{where}: {field}={value!r}: {exc}") from None
    s, g = states
    if s == g:
        raise ProblemError(
            f"{where}: goal={goal!r} is the start itself. Suggested fix: give a goal that "
            "differs from the start."
        )
    try:
        min_moves = puzzle.distance(s, g)
    except TolTasksError as exc:
        raise ProblemError(f"{where}: {exc}") from None
    for field, value in (("time_limit", time_limit), ("move_limit", move_limit)):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, Real) or not value > 0
        ):
            raise ProblemError(
                f"{where}: {field}={value!r} is not a positive number. Suggested fix: give "
                "a positive number, or None for no limit."
            )
    if move_limit is not None and move_limit < min_moves:
        raise ProblemError(
            f"{where}: move_limit={move_limit} is below the {min_moves} moves the problem "
            f"needs. Suggested fix: allow at least {min_moves} moves."
        )
    return s, g, min_moves
