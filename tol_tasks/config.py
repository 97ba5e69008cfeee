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

# ------------------------------------------------------------------ protocols
#: Version of the protocol file format this release reads.
PROTOCOL_FORMAT = 1

#: Colour names accepted in protocol files besides hex codes like "#ff8800".
COLOR_NAMES = frozenset(
    [
        "white",
        "black",
        "red",
        "green",
        "blue",
        "yellow",
        "orange",
        "purple",
        "grey",
        "gray",
        "darkgrey",
        "darkgray",
        "lightgrey",
        "lightgray",
        "brown",
        "pink",
        "cyan",
        "magenta",
        "navy",
        "teal",
        "olive",
        "maroon",
        "silver",
        "lime",
        "gold",
        "violet",
        "indigo",
        "crimson",
        "coral",
        "salmon",
        "khaki",
        "beige",
        "tan",
    ]
)

#: Default colours of Tower of London balls, by letter.
DEFAULT_BALL_COLORS = {
    "R": "#d62728",
    "G": "#2ca02c",
    "B": "#1f77b4",
    "Y": "#f2c014",
    "P": "#9467bd",
    "O": "#ff7f0e",
    "K": "#222222",
    "W": "#eeeeee",
}

#: Default colours of Tower of Hanoi disks, smallest first (repeated as needed).
DEFAULT_DISK_COLORS = (
    "#e6194b", "#f58231", "#ffe119", "#3cb44b", "#42d4f4",
    "#4363d8", "#911eb4", "#f032e6", "#a9a9a9", "#9a6324",
)  # fmt: skip

#: How presses can be stamped: on arrival (X Input 2 listener, else ioHub), one of
#: them, or polled once per frame (``tol-run --input-timing``, ``TowerTask(input_timing=)``).
INPUT_TIMINGS = ("auto", "xinput2", "iohub", "polled")

#: What a yoked copy trial shows: the participant's own moves, or a shortest solution.
COPY_SOURCES = ("own", "optimal")

#: Identifiers: problem ids, protocol names, block names.
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
