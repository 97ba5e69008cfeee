"""Build a valid protocol from constraints, reproducibly."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from tol_tasks.errors import TolTasksError
from tol_tasks.puzzles.base import Puzzle
from tol_tasks.puzzles.hanoi import Hanoi
from tol_tasks.puzzles.london import London

from .describe import configuration_type
from .instructions import with_instructions

CONFIG_TYPES = ("tower", "partial tower", "flat")

#: Enumerate every ordered pair of states up to this many pairs; sample beyond.
_EXHAUSTIVE_PAIRS = 600_000
_SAMPLE_TRIES = 200_000


class GenerationError(TolTasksError, ValueError):
    """The constraints cannot be met."""


@dataclass(frozen=True)
class GeneratorSpec:
    """What to generate. See :func:`generate_protocol`."""

    task: str = "hanoi"
    disks: int = 3
    pegs: int = 3
    adjacent_only: bool = False
    balls: str = "RGB"
    capacities: tuple[int, ...] = (3, 2, 1)
    min_moves: tuple[int, int] = (2, 7)
    per_level: int = 2
    start_type: str = "any"
    goal_type: str = "any"
    paths: str = "any"  # "unique", "multiple" or "any"
    start: str | None = None
    seed: int = 0
    name: str = "generated"
    time_limit: float | None = None
    extra: dict = field(default_factory=dict)

    def puzzle(self) -> Puzzle:
        if self.task == "hanoi":
            return Hanoi(self.disks, self.pegs, self.adjacent_only)
        if self.task == "london":
            return London(self.balls, self.capacities)
        raise GenerationError(f"task {self.task!r}: choose 'hanoi' or 'london'.")


def _check_spec(spec: GeneratorSpec) -> None:
    lo, hi = spec.min_moves
    if lo < 1 or hi < lo:
        raise GenerationError(
            f"minimum-move range {lo}-{hi} is empty or starts below 1. Suggested fix: "
            "give a range such as 3-7."
        )
    if spec.per_level < 1:
        raise GenerationError(f"per level {spec.per_level}: ask for at least 1 problem per level.")
    for label, value in (("start type", spec.start_type), ("goal type", spec.goal_type)):
        if value != "any" and value not in CONFIG_TYPES:
            raise GenerationError(
                f"{label} {value!r}: choose any, {', '.join(CONFIG_TYPES)} (quote 'partial tower')."
            )
    if spec.paths not in ("any", "unique", "multiple"):
        raise GenerationError(f"paths {spec.paths!r}: choose any, unique or multiple.")


def _candidates(spec: GeneratorSpec, puzzle: Puzzle, rng: random.Random):
    """Yield (start, goal) pairs in a reproducible order."""
    if spec.start is not None:
        start = puzzle.parse(spec.start)
        goals = list(puzzle.states()) if puzzle.n_states <= _EXHAUSTIVE_PAIRS else None
        if goals is not None:
            for g in goals:
                yield start, g
            return
        for _ in range(_SAMPLE_TRIES):
            yield start, puzzle.random_state(rng)
        return
    if puzzle.n_states**2 <= _EXHAUSTIVE_PAIRS:
        states = list(puzzle.states())
        for s in states:
            for g in states:
                yield s, g
        return
    for _ in range(_SAMPLE_TRIES):
        yield puzzle.random_state(rng), puzzle.random_state(rng)


def select_problems(spec: GeneratorSpec) -> list[tuple[str, str, int]]:
    """The chosen (start, goal, minimum) triples, sorted by minimum moves.

    Raises
    ------
    GenerationError
        Saying which level could not be filled and how many problems qualified.
    """
    _check_spec(spec)
    puzzle = spec.puzzle()
    rng = random.Random(spec.seed)
    lo, hi = spec.min_moves
    found: dict[int, dict[tuple[str, str], None]] = {k: {} for k in range(lo, hi + 1)}
    exhaustive = (
        puzzle.n_states <= _EXHAUSTIVE_PAIRS
        if spec.start is not None
        else puzzle.n_states**2 <= _EXHAUSTIVE_PAIRS
    )
    for s, g in _candidates(spec, puzzle, rng):
        if s == g or not puzzle.is_reachable(s, g):
            continue
        d = puzzle.distance(s, g)
        if d not in found:
            continue
        if not exhaustive and len(found[d]) >= spec.per_level * 20:
            continue
        if spec.start_type != "any" and configuration_type(puzzle, s) != spec.start_type:
            continue
        if spec.goal_type != "any" and configuration_type(puzzle, g) != spec.goal_type:
            continue
        if spec.paths != "any":
            unique = puzzle.count_optimal_paths(s, g) == 1
            if unique != (spec.paths == "unique"):
                continue
        found[d][(str(s), str(g))] = None
        if not exhaustive and all(len(v) >= spec.per_level * 20 for v in found.values()):
            break
    chosen = []
    for d in range(lo, hi + 1):
        pool = sorted(found[d])
        if len(pool) < spec.per_level:
            how = "exist" if exhaustive else f"were found in {_SAMPLE_TRIES:,} random draws"
            raise GenerationError(
                f"only {len(pool)} problem(s) of {d} moves with start type {spec.start_type}, "
                f"goal type {spec.goal_type} and {spec.paths} shortest paths {how} in "
                f"{puzzle!r}, but {spec.per_level} per level were asked for. Suggested fix: "
                "relax a constraint, narrow the move range or ask for fewer per level."
            )
        for s, g in rng.sample(pool, spec.per_level):
            chosen.append((s, g, d))
    return chosen


def generate_protocol(spec: GeneratorSpec, command: Sequence[str] | None = None) -> str:
    """A protocol file's text meeting ``spec``, with its instruction pages in every language
    (:func:`~tol_tasks.protocol_format.instructions.with_instructions`); the same spec always gives
    the same text."""
    problems = select_problems(spec)
    lo, hi = spec.min_moves
    lines = [
        "# Generated by tol-protocol generate; the same arguments give the same file.",
    ]
    if command:
        lines.append("# Command: " + " ".join(command))
    lines += [
        "format: 1",
        f"name: {spec.name}",
        'version: "1.0"',
        f"description: {spec.per_level} problem(s) per level from {lo} to {hi} minimum moves, "
        f"start type {spec.start_type}, goal type {spec.goal_type}, {spec.paths} shortest paths.",
        f"citation: Generated by tol-tasks with seed {spec.seed}; minimum moves computed by its solver.",
        "task:",
        f"  type: {spec.task}",
    ]
    if spec.task == "hanoi":
        lines += [f"  disks: {spec.disks}", f"  pegs: {spec.pegs}"]
        if spec.adjacent_only:
            lines.append("  adjacent_only: true")
    else:
        lines += [f"  balls: {spec.balls}", f"  capacities: {list(spec.capacities)}"]
    lines += ["blocks:", "  - name: test"]
    if spec.time_limit is not None:
        lines.append(f"    time_limit: {spec.time_limit:g}")
    lines.append("    problems:")
    width = len(str(len(problems)))
    for i, (s, g, d) in enumerate(problems, start=1):
        lines.append(f'      - {{id: p{i:0{width}d}, start: "{s}", goal: "{g}", min_moves: {d}}}')
    # The task's instruction pages in every language tol-tasks has texts in.
    return with_instructions("\n".join(lines) + "\n", f"<generated {spec.name}>")
