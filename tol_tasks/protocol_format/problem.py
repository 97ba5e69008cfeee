"""The checks of one problem: the only place that says what makes a start, a goal and limits runnable.

Pure. The same rules, and the same words, wherever a problem comes from:

- a protocol file (:mod:`._checks` turns each :class:`ProblemFault` into an
  issue located at the file's line),
- the embedding API (:meth:`tol_tasks.runner.TowerTask.problem`, before a
  problem runs) and the Builder component (every conditions row, before a
  window opens), through :func:`check_problem`, which raises the first fault
  as a :class:`ProblemError` whose attributes name the field, the value and
  the fix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import Any

from tol_tasks.config import MAX_DISTANCE, MAX_MOVE_LIMIT, MAX_SECONDS
from tol_tasks.errors import PuzzleTooLargeError, TolTasksError
from tol_tasks.puzzles.base import Puzzle

#: The fields of a problem that :func:`problem_faults` checks, in the order it checks them.
PROBLEM_FIELDS = ("start", "goal", "min_moves", "time_limit", "move_limit")


@dataclass(frozen=True)
class ProblemFault:
    """One reason a problem cannot run: the field, its value, what is wrong (a sentence that
    names the value), the fix."""

    field: str
    value: Any
    message: str
    fix: str


@dataclass(frozen=True)
class CheckedProblem:
    """A problem that can run: its states parsed and its minimum computed."""

    start: Any
    goal: Any
    min_moves: int


class ProblemError(TolTasksError, ValueError):
    """A problem given in code or in a conditions file cannot be run.

    Attributes
    ----------
    problem : str
        What is wrong, without the place, field and value (``message`` has them).
    """

    def __init__(self, fault: ProblemFault, where: str) -> None:
        super().__init__(
            f"{where}: {fault.field}: {fault.message}",
            where=where,
            field=fault.field,
            value=fault.value,
            fix=fault.fix,
        )
        self.problem = fault.message


def parse_state(puzzle: Puzzle, spec: Any):
    """A state from a state text (``"GR|B|"``) or one list per peg, bottom to top."""
    if isinstance(spec, str):
        return puzzle.parse(spec)
    return puzzle.from_pegs(spec)


def _positive(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, Real) and value > 0


#: The largest value each limit may take.
_LIMITS = {"time_limit": MAX_SECONDS, "move_limit": MAX_MOVE_LIMIT}


def _limit_fault(name: str, value: Any) -> ProblemFault | None:
    """What is wrong with a time or move limit (None: nothing, or no limit)."""
    if value is None:
        return None
    if not _positive(value) or not math.isfinite(value):
        return ProblemFault(name, value, f"{value!r} is not a positive number.",
                            "give a positive number, or None for no limit.")  # fmt: skip
    if value > _LIMITS[name]:
        unit = " seconds (a day)" if name == "time_limit" else " moves"
        return ProblemFault(name, value, f"{value!r} is more than the {_LIMITS[name]:g}{unit} a "
                            "limit may be.", f"give at most {_LIMITS[name]:g}, or None for no "
                            "limit.")  # fmt: skip
    return None


def puzzle_fault(puzzle: Puzzle) -> str | None:
    """Why no score could be computed on ``puzzle`` (its distances too large), or None.

    A 3-peg Tower of Hanoi of n disks needs up to 2**n - 1 moves between two of its
    states; the scores hold distances up to :data:`~tol_tasks.config.MAX_DISTANCE`.
    (Every other puzzle is solved by exact search, bounded far lower.)
    """
    n = puzzle.size
    if puzzle.kind == "hanoi" and getattr(puzzle, "n_pegs", 3) == 3 and 2**n - 1 > MAX_DISTANCE:
        return (f"{n} disks on 3 pegs: the fewest moves between two of its states reach "
                f"2**{n} - 1 = {2**n - 1}, more than the {MAX_DISTANCE} (2**63 - 1) the scores "
                "can hold; at most 63 disks.")  # fmt: skip
    return None


def problem_faults(puzzle: Puzzle, start: Any, goal: Any, *, min_moves: Any = None,
                   time_limit: Any = None, move_limit: Any = None,
                   ) -> tuple[list[ProblemFault], CheckedProblem | None]:  # fmt: skip
    """Every fault of one problem on ``puzzle``, and the checked problem when there is none.

    ``min_moves`` is the minimum a protocol states (None: not stated); the
    limits are None for none. A start or goal that does not parse stops the
    checks that need both states.
    """
    faults: list[ProblemFault] = []
    states = {}
    for name, spec in (("start", start), ("goal", goal)):
        try:
            states[name] = parse_state(puzzle, spec)
        except TolTasksError as exc:
            faults.append(ProblemFault(name, spec, str(exc).rstrip(".") + ".",
                                       f"write a valid state of {puzzle!r}."))  # fmt: skip
    for name, value in (("time_limit", time_limit), ("move_limit", move_limit)):
        fault = _limit_fault(name, value)
        if fault is not None:
            faults.append(fault)
    too_big = puzzle_fault(puzzle)
    if too_big is not None:
        faults.append(ProblemFault("disks", puzzle.size, too_big, "use 63 disks or fewer."))
        return faults, None
    if len(states) < 2:
        return faults, None
    s, g = states["start"], states["goal"]
    if s == g:
        faults.append(ProblemFault("goal", goal, f"the goal {g} equals the start: the problem is "
                                   "solved before it begins.", "choose a different goal."))  # fmt: skip
        return faults, None
    try:
        reachable = puzzle.is_reachable(s, g)
        d = puzzle.distance(s, g) if reachable else None
    except PuzzleTooLargeError as exc:  # too many states for an exact search
        field = "disks" if puzzle.kind == "hanoi" else "balls"
        faults.append(ProblemFault(field, puzzle.size, exc.message, exc.fix or ""))
        return faults, None
    if not reachable:
        faults.append(ProblemFault("goal", goal, f"the goal {g} cannot be reached from the start {s}.",
                                   "choose a goal reachable by legal moves, or give the pegs "
                                   "more capacity."))  # fmt: skip
        return faults, None
    if min_moves is not None and min_moves != d:
        faults.append(ProblemFault("min_moves", min_moves, f"states {min_moves}, but the fewest "
                                   f"moves from {s} to {g} is {d}.", f"write 'min_moves: {d}', "
                                   "or remove the line: tol-tasks computes it."))  # fmt: skip
    if move_limit is not None and _positive(move_limit) and move_limit < d:
        faults.append(ProblemFault("move_limit", move_limit, f"a move limit of {move_limit} makes "
                                   f"the problem unsolvable: it needs {d} moves.",
                                   f"allow at least {d} moves."))  # fmt: skip
    return faults, (None if faults else CheckedProblem(s, g, d))


def check_problem(puzzle: Puzzle, start: Any, goal: Any, *, time_limit: Any = None,
                  move_limit: Any = None, where: str = "problem") -> CheckedProblem:  # fmt: skip
    """Parse and check a problem; return it with its minimum moves.

    Raises
    ------
    ProblemError
        The first fault (see :func:`problem_faults`), its message beginning
        with ``where`` and the field, its attributes naming the field, the
        value and the fix.
    """
    faults, checked = problem_faults(puzzle, start, goal, time_limit=time_limit,
                                     move_limit=move_limit)  # fmt: skip
    if faults:
        raise ProblemError(faults[0], where)
    return checked
