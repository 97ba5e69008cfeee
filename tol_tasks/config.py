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

#: The longest time a protocol may set (a time limit, a pause, feedback), in seconds: a
#: day. Longer is a typo (or ``.inf``), which no session, browser or table could carry out.
MAX_SECONDS = 86_400.0

#: The largest move limit a problem may have.
MAX_MOVE_LIMIT = 1_000_000

#: The largest number of moves between two states the scores hold: their tables are 64-bit
#: integers. A 3-peg Tower of Hanoi of n disks needs up to 2**n - 1 moves, so at most 63
#: disks (the adjacent-only rule, 3**n - 1, is bounded far lower by exact search).
MAX_DISTANCE = 2**63 - 1

#: Bounds on reading a protocol file (YAML or JSON): its size in bytes, how deep its values
#: nest, and how many values it holds once its YAML aliases are expanded (a file of a few
#: lines can otherwise expand to billions: the "billion laughs").
MAX_PROTOCOL_BYTES = 1_000_000
MAX_PROTOCOL_DEPTH = 40
MAX_PROTOCOL_VALUES = 250_000

#: The largest sidecar (JSON) read, in bytes: a long session's is a few megabytes.
MAX_SIDECAR_BYTES = 64_000_000

#: The largest window a protocol may ask for, in pixels per side.
MAX_WINDOW_PIXELS = 16_384

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

#: Colour names accepted in protocol files besides hex codes like "#ff8800", with the
#: values PsychoPy and browsers give them (CSS).
CSS_COLORS = {
    "white": "#ffffff", "black": "#000000", "red": "#ff0000", "green": "#008000",
    "blue": "#0000ff", "yellow": "#ffff00", "orange": "#ffa500", "purple": "#800080",
    "grey": "#808080", "gray": "#808080", "darkgrey": "#a9a9a9", "darkgray": "#a9a9a9",
    "lightgrey": "#d3d3d3", "lightgray": "#d3d3d3", "brown": "#a52a2a", "pink": "#ffc0cb",
    "cyan": "#00ffff", "magenta": "#ff00ff", "navy": "#000080", "teal": "#008080",
    "olive": "#808000", "maroon": "#800000", "silver": "#c0c0c0", "lime": "#00ff00",
    "gold": "#ffd700", "violet": "#ee82ee", "indigo": "#4b0082", "crimson": "#dc143c",
    "coral": "#ff7f50", "salmon": "#fa8072", "khaki": "#f0e68c", "beige": "#f5f5dc",
    "tan": "#d2b48c",
}  # fmt: skip
COLOR_NAMES = frozenset(CSS_COLORS)

#: Default colours of Tower of London balls, by letter. Chosen so that every pair stays
#: apart in normal vision and in simulated protanopia, deuteranopia and tritanopia (and
#: each from the default background): tests/test_palette.py states the distances. The
#: letter keeps its colour family (R red, G green, B blue, Y yellow, P purple, O orange,
#: W white); K is grey, since a black ball would vanish on the dark background.
DEFAULT_BALL_COLORS = {
    "R": "#f1240a",
    "G": "#51d1b0",
    "B": "#0d63ba",
    "Y": "#fee588",
    "P": "#b69cf0",
    "O": "#ff9a00",
    "K": "#817784",
    "W": "#f1ffff",
}

#: Default colours of Tower of Hanoi disks, smallest first (repeated as needed); apart in
#: the same sense as the balls' (besides, disks differ in size).
DEFAULT_DISK_COLORS = (
    "#e11956", "#d99f24", "#e5fa07", "#27b9a0", "#00ffdc",
    "#c627ff", "#0f07b6", "#bdb0fd", "#767396", "#713f09",
)  # fmt: skip

#: How presses can be stamped: on arrival (X Input 2 listener, else ioHub), one of
#: them, or polled once per frame (``tol-run --input-timing``, ``TowerTask(input_timing=)``).
INPUT_TIMINGS = ("auto", "xinput2", "iohub", "polled")

#: What a yoked copy trial shows: the participant's own moves, or a shortest solution.
COPY_SOURCES = ("own", "optimal")

#: Identifiers: problem ids, protocol names, block names.
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
