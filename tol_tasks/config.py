"""Constants shared across tol-tasks, kept in one place."""

from __future__ import annotations

#: Peg labels, left to right. Pegs are numbered 0, 1, 2, ... internally and
#: written A, B, C, ... in state texts, moves, logs and messages.
PEG_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: Largest number of pegs a puzzle may have (one letter each).
MAX_PEGS = len(PEG_LETTERS)

#: Largest number of Tower of Hanoi disks (3-peg queries stay exact and O(n)
#: far beyond this; the bound only keeps state texts readable).
MAX_DISKS = 1024

#: Tower of London defaults (Shallice 1982): red, green and blue balls on pegs
#: that hold 3, 2 and 1 balls.
DEFAULT_BALLS = "RGB"
DEFAULT_CAPACITIES = (3, 2, 1)

#: Above this number of states, exact breadth-first search refuses to run
#: instead of exhausting memory. 4**10: Hanoi with 4 pegs and 10 disks fits.
MAX_SEARCH_STATES = 4**10

#: How many per-goal distance tables each puzzle keeps.
DISTANCE_TABLE_CACHE = 64

# Names of the rules an illegal move breaks (IllegalMoveError.rule). They are
# written to the event log, so they are part of the data contract.
RULE_EMPTY_SOURCE = "empty_source"
RULE_LARGER_ON_SMALLER = "larger_on_smaller"
RULE_PEG_FULL = "peg_full"
RULE_FORBIDDEN_PAIR = "forbidden_pair"
RULE_SAME_PEG = "same_peg"
RULE_NO_SUCH_PEG = "no_such_peg"
RULE_WRONG_PIECE = "wrong_piece"

RULES = (
    RULE_EMPTY_SOURCE,
    RULE_LARGER_ON_SMALLER,
    RULE_PEG_FULL,
    RULE_FORBIDDEN_PAIR,
    RULE_SAME_PEG,
    RULE_NO_SUCH_PEG,
    RULE_WRONG_PIECE,
)
