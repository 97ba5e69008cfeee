"""Tables that describe problems: minimum moves, paths, configuration types."""

from __future__ import annotations

from typing import Any

from tol_tasks.puzzles.base import Puzzle

from .loaded import LoadedProtocol

#: Columns of :func:`describe_protocol`, in order.
DESCRIBE_COLUMNS = (
    "block",
    "id",
    "puzzle",
    "start",
    "goal",
    "min_moves",
    "shortest_paths",
    "optimal_first_moves",
    "start_type",
    "goal_type",
    "largest_moves_twice",
    "time_limit",
    "move_limit",
    "copy",
)


def configuration_type(puzzle: Puzzle, state: Any) -> str:
    """Classify a configuration as ``tower``, ``partial tower`` or ``flat``.

    ``tower``: every piece on one peg. ``flat``: the pieces spread as evenly as
    the pegs allow (no peg holds more than ``ceil(pieces / pegs)``; for three
    balls on three pegs, one on each). ``partial tower``: anything else. These
    are the start and goal types of the Tower of London literature (e.g.
    Kaller et al. 2004), extended to any number of pieces.
    """
    heights = [len(col) for col in puzzle.pegs_of(state)]
    pieces = sum(heights)
    if max(heights) == pieces:
        return "tower"
    if max(heights) <= -(-pieces // len(heights)):
        return "flat"
    return "partial tower"


def puzzle_label(puzzle: Puzzle) -> str:
    """A short label: ``3 disks``, ``4 disks, 4 pegs, adjacent``, ``RGB 3/2/1``."""
    return puzzle.label


def describe_problem(puzzle: Puzzle, start: Any, goal: Any) -> dict[str, Any]:
    """Minimum moves, path counts and configuration types of one problem."""
    twice: bool | None = None
    if puzzle.is_classic:
        twice = puzzle.largest_disk_moves_twice(start, goal)
    return {
        "puzzle": puzzle_label(puzzle),
        "start": str(start),
        "goal": str(goal),
        "min_moves": puzzle.distance(start, goal),
        "shortest_paths": puzzle.count_optimal_paths(start, goal),
        "optimal_first_moves": len(puzzle.optimal_moves(start, goal)),
        "start_type": configuration_type(puzzle, start),
        "goal_type": configuration_type(puzzle, goal),
        "largest_moves_twice": twice,
    }


def describe_protocol(protocol: LoadedProtocol) -> list[dict[str, Any]]:
    """One row per problem (practice first), with the columns of :data:`DESCRIBE_COLUMNS`.

    ``copy`` says what a yoked copy trial after the problem shows (own or
    optimal moves), or None without one. ``largest_moves_twice`` is None where it is not defined (puzzles other than
    the classic 3-peg Tower of Hanoi).
    """
    rows = []
    copies = {b.name: b.copies for b in protocol.model.blocks}
    for spec in protocol.all_problems():
        row = {"block": spec.block, "id": spec.id}
        row.update(describe_problem(spec.puzzle, spec.start, spec.goal))
        row["time_limit"] = spec.time_limit
        row["move_limit"] = spec.move_limit
        c = None if spec.practice else copies.get(spec.block)
        # The yoked copy trial that follows the problem, if any (see docs/protocols.md).
        row["copy"] = (
            None if c is None else c.moves + (" (unsolved too)" if c.unsolved == "copy" else "")
        )
        rows.append({k: row[k] for k in DESCRIBE_COLUMNS})
    return rows


def format_table(rows: list[dict[str, Any]], columns=DESCRIBE_COLUMNS) -> str:
    """Rows as an aligned plain-text table."""

    def cell(v: Any) -> str:
        if v is None:
            return "-"
        if isinstance(v, bool):
            return "yes" if v else "no"
        if isinstance(v, float) and v.is_integer():
            return str(int(v))
        return str(v)

    cells = [[c.replace("_", " ") for c in columns]] + [[cell(r[c]) for c in columns] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    lines = [
        "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
