"""The scoring conventions: choices where published tools disagree, recorded with every output."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal


@dataclass(frozen=True)
class Conventions:
    """Choices where published tools disagree; recorded with every output.

    Attributes
    ----------
    same_peg_drop_counts : bool
        Count putting a piece back on its own peg as a move (default False,
        as PEBL; Experiment Factory counts every pick-up).
    violations_count : bool
        Count each rule violation as a move too (default False; Inquisit's
        D-KEFS-style scoring adds one per violation).
    planning_ends : {"pick_up", "move"}
        Planning time ends at the first pick-up (default; Experiment Factory's
        first-click latency) or at the first completed move (PEBL's first-move
        time, D-KEFS first-move time).
    include_practice : bool
        Include practice problems in sessions.csv and the wide table (default
        False; they are always in trials.csv and moves.csv, marked).
    """

    same_peg_drop_counts: bool = False
    violations_count: bool = False
    planning_ends: Literal["pick_up", "move"] = "pick_up"
    include_practice: bool = False

    def __post_init__(self) -> None:
        if self.planning_ends not in ("pick_up", "move"):
            raise ValueError(f"planning_ends={self.planning_ends!r}: choose 'pick_up' or 'move'.")

    def as_dict(self) -> dict:
        return asdict(self)


#: One line per convention, as the codebook explains it.
EXPLAINED = {
    "same_peg_drop_counts": "whether putting a piece back on its own peg counts as a move",
    "violations_count": "whether each rule violation also counts as a move",
    "planning_ends": "planning time ends at the first pick-up ('pick_up') or first completed "
    "move ('move')",
    "include_practice": "whether practice problems enter sessions.csv and wide.csv",
}
