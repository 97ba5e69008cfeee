"""Where everything on the participant's screen goes: the one layout of a session.

Every place is computed here, once, in *box units*: the height of a 4:3 box (the design
box, :data:`BOX_WIDTH` wide and 1 high, origin at its centre, y up) in which the whole
task screen is laid out. A window of any shape shows the box centred, scaled by
:func:`fit_factor` (1 when the window is at least 4:3, smaller for a narrower window), so
that nothing moves relative to anything else when the window changes.

A session has one layout (:func:`session_layout`): one piece size and one peg size for
all its problems, from the largest problem of the protocol (the Tower of Hanoi's pegs are
as tall as its largest problem needs, in every problem), so that the practice's two disks
are the size of the test's; the goal is drawn at :data:`GOAL_FRACTION` of the board; the
counters, the feedback (and the notice of a refused move) and the goal's label each have
one place, which never covers a peg or a piece (a lifted piece included).

The PsychoPy runner (:mod:`tol_tasks.runner.screen`) draws from :class:`ScreenLayout`;
the browser gets it as data in ``protocol.json`` (:meth:`ScreenLayout.as_dict`, written
by :mod:`tol_tasks.web.compile`), and the jsPsych ``tower`` plugin, which plays problems
that no protocol declares, runs the port ``web/src/layout.js`` (listed in
``web/ports.toml``, cross-checked by the tests).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

#: The design box's width in box units (its height is 1): a 4:3 box.
BOX_WIDTH = 4 / 3
#: The goal board's size relative to the participant's board.
GOAL_FRACTION = 0.6
#: The largest piece (height of a disk, diameter of a ball), in box units.
MAX_UNIT = 0.11
#: The width the pegs of a board take when it has the width to itself.
BOARD_WIDTH = 1.15
#: Height of the counters' and labels' text, and of the page and feedback text.
LABEL_HEIGHT = 0.03
TEXT_HEIGHT = 0.038
#: Where the counters (moves, time left) are drawn: nothing else goes above
#: ``COUNTER_Y - LABEL_HEIGHT``; nothing goes below ``BOTTOM``.
COUNTER_Y = 0.45
#: How far the counters keep from the box's sides. The moves counter is drawn from its left
#: end, the time left up to its right end: a long text ("Tiempo restante: 120 s") grows
#: inwards and stays in the window whatever the language.
COUNTER_MARGIN = 0.05
BOTTOM = -0.47
#: The free band of the feedback and of the notice of a refused move, and the goal's label.
BAND = 0.08
GOAL_LABEL = 0.045
#: A board's base, and a peg's rod, in box units (at the board's full size).
BASE_HEIGHT = 0.014
ROD_WIDTH = 0.018
#: A piece lifted from its peg: its centre this many pieces above the peg's top, and the
#: room kept above every peg for it (its top edge included).
LIFT_CENTRE = 0.8
LIFT_ROOM = 1.3
#: A peg's clickable area is its rectangle widened to this share of the peg spacing, and
#: taller by this much at each end.
PEG_SHARE = 0.92
HIT_MARGIN = 0.02
#: An instruction page that shows the board (and the goal): the task screen drawn at this
#: size, moved up by this much, above the page's text.
PAGE_BOARD_SCALE = 0.5
PAGE_BOARD_UP = 0.235
#: The gap between the participant's board and a goal at its side, and the box's margins.
SIDE_GAP = 0.08
SIDE_MARGIN = 0.04
#: How long the notice of a refused move stays, in seconds, from the first frame that shows it.
NOTICE_S = 1.2


@dataclass(frozen=True)
class PegArea:
    """A peg's clickable rectangle (centre ``x``, ``y``, size ``w``, ``h``), with the height
    of one piece on its board (``unit``) and the board's size (``scale``: 1, or
    :data:`GOAL_FRACTION` for the goal)."""

    x: float
    y: float
    w: float
    h: float
    unit: float
    scale: float


@dataclass(frozen=True)
class BoardLayout:
    """One board (the participant's or the goal): its pegs, base and rods, and the size of a
    piece on it. ``largest``: the most disks of a Tower of Hanoi problem in the session (a
    disk's width is its number's share of it, the same in every problem)."""

    kind: str
    pegs: tuple[PegArea, ...]
    unit: float
    scale: float
    base: tuple[float, float, float, float]  # centre x, centre y, width, height
    rod_width: float
    largest: int

    @property
    def base_y(self) -> float:
        """The top of the base: where the lowest piece sits."""
        return self.base[1] + self.base[3] / 2

    def piece_size(self, piece) -> tuple[float, float]:
        """Width and height of ``piece`` (a disk's number, a ball's letter) on this board."""
        if self.kind == "hanoi":
            w = self.pegs[0].w * (0.3 + 0.65 * (int(piece) / self.largest))
            return w, self.unit * 0.9
        return self.unit * 0.92, self.unit * 0.92

    def piece_xy(self, peg: int, level: int) -> tuple[float, float]:
        """The centre of the piece at ``level`` (0: the bottom) of ``peg``."""
        return self.pegs[peg].x, self.base_y + self.unit * (level + 0.5)

    def lifted_xy(self, peg: int) -> tuple[float, float]:
        """The centre of a piece lifted above ``peg`` (the one picked up, held)."""
        a = self.pegs[peg]
        return a.x, a.y + a.h / 2 + self.unit * LIFT_CENTRE

    def marker_xy(self, peg: int) -> tuple[float, float]:
        """Where the marker of a peg to put a piece on goes: just above its top."""
        a = self.pegs[peg]
        return a.x, a.y + a.h / 2 + self.unit * 0.4

    @property
    def top(self) -> float:
        """The highest point anything on this board reaches (a lifted piece included)."""
        return max(a.y + a.h / 2 for a in self.pegs) + self.unit * LIFT_ROOM

    def scaled(self, f: float) -> BoardLayout:
        return replace(
            self,
            pegs=tuple(
                PegArea(a.x * f, a.y * f, a.w * f, a.h * f, a.unit * f, a.scale) for a in self.pegs
            ),
            unit=self.unit * f,
            base=tuple(v * f for v in self.base),
            rod_width=self.rod_width * f,
        )

    def shifted(self, dy: float) -> BoardLayout:
        """The board moved up by ``dy``."""
        return replace(
            self,
            pegs=tuple(PegArea(a.x, a.y + dy, a.w, a.h, a.unit, a.scale) for a in self.pegs),
            base=(self.base[0], self.base[1] + dy, self.base[2], self.base[3]),
        )

    def as_dict(self) -> dict:
        """The board as data (the browser draws from it): every peg with the centre of each
        of its levels, of a lifted piece and of the marker."""
        return {
            "kind": self.kind,
            "unit": self.unit,
            "scale": self.scale,
            "largest": self.largest,
            "base": list(self.base),
            "rod_width": self.rod_width,
            "pegs": [
                {
                    "x": a.x,
                    "y": a.y,
                    "w": a.w,
                    "h": a.h,
                    "lifted_y": self.lifted_xy(i)[1],
                    "marker_y": self.marker_xy(i)[1],
                }
                for i, a in enumerate(self.pegs)
            ],
        }


@dataclass(frozen=True)
class Places:
    """The fixed places of the texts of a task screen (box units), and text sizes.

    Each place is a text's centre, except the counters': ``moves`` is the left end of the
    moves counter and ``time`` the right end of the time left (see ``COUNTER_MARGIN``).
    """

    moves: tuple[float, float]
    time: tuple[float, float]
    text_y: float  # the feedback and the notice of a refused move
    goal_label: tuple[float, float] | None
    copy_label: tuple[float, float]
    label_height: float = LABEL_HEIGHT
    text_height: float = TEXT_HEIGHT
    wrap: float = BOX_WIDTH * 0.85
    #: An instruction page: its text alone (centre y); with an image, the image (centre y,
    #: greatest height) and the text under it; the line saying how to go on.
    page_y: float = 0.05
    image_y: float = 0.15
    image_height: float = 0.45
    caption_y: float = -0.2
    continue_y: float = -0.43

    def scaled(self, f: float) -> Places:
        out = {}
        for name, value in vars(self).items():
            if value is None:
                out[name] = None
            elif isinstance(value, tuple):
                out[name] = tuple(v * f for v in value)
            else:
                out[name] = value * f
        return Places(**out)


@dataclass(frozen=True)
class ScreenLayout:
    """A session's task screen: the participant's board, the goal (None when hidden) and the
    places of the texts, in box units (:meth:`scaled` for a window's height units)."""

    board: BoardLayout
    goal: BoardLayout | None
    places: Places

    def scaled(self, f: float) -> ScreenLayout:
        """The layout with every length multiplied by ``f`` (see :func:`fit_factor`)."""
        return ScreenLayout(
            self.board.scaled(f),
            None if self.goal is None else self.goal.scaled(f),
            self.places.scaled(f),
        )

    def page_view(self) -> ScreenLayout:
        """The task screen as an instruction page shows it: smaller (:data:`PAGE_BOARD_SCALE`)
        and above the page's text (which goes at ``places.caption_y``)."""
        s, up = PAGE_BOARD_SCALE, PAGE_BOARD_UP
        small = self.scaled(s)
        goal = None if small.goal is None else small.goal.shifted(up)
        label = None
        if goal is not None:  # the label keeps its size: its place too, above the goal
            label = (small.places.goal_label[0],
                     max(a.y + a.h / 2 for a in goal.pegs) + GOAL_LABEL / 2)  # fmt: skip
        places = replace(self.places, text_y=small.places.text_y + up, goal_label=label)
        return ScreenLayout(small.board.shifted(up), goal, places)

    def as_dict(self) -> dict:
        p = self.places
        return {
            "box_width": BOX_WIDTH,
            "board": self.board.as_dict(),
            "goal": None if self.goal is None else self.goal.as_dict(),
            "places": {k: list(v) if isinstance(v, tuple) else v for k, v in vars(p).items()},
        }


def fit_factor(aspect: float) -> float:
    """How much the design box is scaled in a window of ``aspect`` (width / height): 1 when
    the box fits at full height, else the window's width over the box's."""
    return min(1.0, aspect / BOX_WIDTH)


def hit(pegs: Sequence[PegArea], x: float, y: float) -> int | None:
    """Which peg a point (the same units as ``pegs``) falls on, if any."""
    for i, a in enumerate(pegs):
        if abs(x - a.x) <= a.w / 2 and abs(y - a.y) <= a.h / 2 + HIT_MARGIN:
            return i
    return None


def _board(kind, capacities, unit, scale, width, x0, bottom, largest) -> BoardLayout:
    n = len(capacities)
    spacing = width / n
    base_h = BASE_HEIGHT * scale
    base_top = bottom + base_h
    pegs = []
    for i, cap in enumerate(capacities):
        h = unit * (cap + 0.6)
        pegs.append(PegArea(x0 + (i - (n - 1) / 2) * spacing, base_top + h / 2,
                            spacing * PEG_SHARE, h, unit, scale))  # fmt: skip
    base_w = (pegs[-1].x - pegs[0].x) + pegs[0].w
    base = (x0, bottom + base_h / 2, base_w, base_h)
    return BoardLayout(kind, tuple(pegs), unit, scale, base, ROD_WIDTH * scale, largest)


def _unit(fit: float, piece_scale: float, spacing: float) -> float:
    """One piece's height: the largest that fits (at most :data:`MAX_UNIT`), times the
    protocol's ``piece_scale``, never more than fits, nor wider than a peg's place."""
    room = min(fit, spacing * 0.9)
    return min(min(MAX_UNIT, room) * piece_scale, room)


def screen_layout(kind: str, capacities: Sequence[int], display, largest: int | None = None
                  ) -> ScreenLayout:  # fmt: skip
    """The task screen for an apparatus of ``kind`` ('hanoi' or 'london') whose pegs hold
    ``capacities`` pieces, as ``display`` (the protocol's ``display`` settings: ``show_goal``,
    ``goal_position``, ``piece_scale``) places it. ``largest``: the most disks of the
    session's Tower of Hanoi problems (default: the largest capacity)."""
    caps = tuple(int(c) for c in capacities)
    most = max(caps)
    largest = int(largest or most)
    g = GOAL_FRACTION
    free = (COUNTER_Y - LABEL_HEIGHT) - BOTTOM
    ps = float(display.piece_scale)
    side = display.show_goal and display.goal_position in ("left", "right")
    half = BOX_WIDTH / 2
    if not display.show_goal or side:
        width = BOARD_WIDTH
        if side:
            width = min(BOARD_WIDTH, (BOX_WIDTH - 2 * SIDE_MARGIN - SIDE_GAP) / (1 + g))
        fixed = BASE_HEIGHT + BAND
        unit = _unit((free - fixed) / (most + 0.6 + LIFT_ROOM), ps, width / len(caps))
        slack = free - fixed - unit * (most + 0.6 + LIFT_ROOM)
        bottom = BOTTOM + slack / 2
        x_board = x_goal = 0.0
        if side:
            total = width * (1 + g) + SIDE_GAP
            sign = 1 if display.goal_position == "right" else -1
            x_board = -sign * (total / 2 - width / 2)
            x_goal = sign * (total / 2 - width * g / 2)
        board = _board(kind, caps, unit, 1.0, width, x_board, bottom, largest)
        goal = label = None
        if side:
            goal = _board(kind, caps, unit * g, g, width * g, x_goal, bottom, largest)
            label = (x_goal, max(a.y + a.h / 2 for a in goal.pegs) + GOAL_LABEL / 2)
        band = (board.top, board.top + BAND + slack / 2)
    else:  # the goal above the board
        width = BOARD_WIDTH
        fixed = BASE_HEIGHT * (1 + g) + BAND + GOAL_LABEL
        per_unit = (most + 0.6) * (1 + g) + LIFT_ROOM
        unit = _unit((free - fixed) / per_unit, ps, width / len(caps))
        slack = (free - fixed - unit * per_unit) / 3
        board = _board(kind, caps, unit, 1.0, width, 0.0, BOTTOM + slack, largest)
        band = (board.top, board.top + BAND + slack)
        goal = _board(kind, caps, unit * g, g, width * g, 0.0, band[1], largest)
        label = (0.0, max(a.y + a.h / 2 for a in goal.pegs) + GOAL_LABEL / 2)
    places = Places(
        moves=(-half + COUNTER_MARGIN, COUNTER_Y),
        time=(half - COUNTER_MARGIN, COUNTER_Y),
        text_y=(band[0] + band[1]) / 2,
        goal_label=label,
        copy_label=(0.0, COUNTER_Y),
    )
    return ScreenLayout(board, goal, places)


def puzzle_layout(puzzle, display, largest: int | None = None) -> ScreenLayout:
    """The task screen of one puzzle (a :class:`~tol_tasks.puzzles.base.Puzzle`)."""
    return screen_layout(puzzle.kind, puzzle.capacities, display, largest)


def largest_puzzle(protocol):
    """The protocol's apparatus at its largest: for the Tower of Hanoi, with the most disks
    any of its problems has (its own, its block's or the practice's, else the task's)."""
    task = protocol.task
    if task.type != "hanoi":
        return task.puzzle()
    counts = [task.disks]
    for group in (protocol.practice, *protocol.blocks):
        if group.disks:
            counts.append(group.disks)
        counts += [p.disks for p in group.problems if p.disks]
    return task.puzzle(max(counts))


def session_layout(protocol) -> ScreenLayout:
    """The one layout of every problem of a session of ``protocol`` (the pydantic
    ``Protocol``): sizes from its largest problem (:func:`largest_puzzle`)."""
    puzzle = largest_puzzle(protocol)
    return puzzle_layout(puzzle, protocol.display, largest=puzzle.size)
