"""The geometry of the task's screen that needs no window (no PsychoPy here): a peg's area,
and where a line of text goes between the boards. In ``height`` units from the centre of
the window, y up, as :mod:`tol_tasks.runner.screen` draws them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class PegArea:
    """A peg's clickable rectangle, in height units (centre, size)."""

    x: float
    y: float
    w: float
    h: float
    unit: float  # height of one piece on this board
    scale: float


#: Where the move counter and the time left are drawn (height units from the centre), and
#: the height of their text: nothing else is placed above ``TOP_LABELS_Y - LABEL_HEIGHT``.
TOP_LABELS_Y = 0.45
LABEL_HEIGHT = 0.028
#: What a piece lifted above its peg (or the goal's label) adds above a board, in pieces.
LIFT = 1.3


def text_band_y(boards: list[list[PegArea]]) -> float:
    """The height (y) at which a line of text between the boards covers no peg and no piece.

    Every board takes the whole width from just under its base to above its highest
    peg by a lifted piece (``LIFT`` pieces; above the goal board, its label); the
    counters take the top. The text goes in the middle of the tallest free band left
    (the feedback, and the notice of an illegal move). The web runner's ``textBandY``
    (``web/src/board.js``) is the same; a test compares them.
    """
    taken = [(TOP_LABELS_Y - LABEL_HEIGHT, 0.5)]
    for areas in boards:
        first = areas[0]
        bottom = first.y - first.h / 2 - 0.012 * first.scale
        top = max(a.y + a.h / 2 for a in areas) + max(first.unit * LIFT, 2 * LABEL_HEIGHT)
        taken.append((bottom, top))
    taken.sort()
    gaps, reached = [], -0.5
    for lo, hi in taken:
        if lo > reached:
            gaps.append((lo - reached, reached, lo))
        reached = max(reached, hi)
    _, lo, hi = max(gaps)
    return (lo + hi) / 2
