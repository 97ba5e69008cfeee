"""The screen of a planning-only problem (One Touch Stockings style): where its boards and its
numbered answer boxes go, for the PsychoPy runner and the browser alike.

The start and the goal are laid out as an instruction page shows the task screen
(:meth:`~tol_tasks.display.layout.ScreenLayout.page_view`: the goal always above the start,
both smaller and raised), and the row of boxes goes under them, where a page's text goes
(``places.caption_y``), centred, :data:`CHOICE_STEP` boxes apart, never wider than the
design box (smaller boxes when there are many). Box units, as everything in
:mod:`tol_tasks.display.layout`; :meth:`PlanningScreen.scaled` gives a window's height units.
"""

from __future__ import annotations

from dataclasses import dataclass

from .layout import BOX_WIDTH, ScreenLayout, screen_layout

#: A box's side (box units) when the row has room for it.
CHOICE_BOX = 0.08
#: The distance between two boxes' centres, in boxes.
CHOICE_STEP = 1.4
#: The share of the design box's width the row may take.
CHOICE_ROW = 0.9
#: The height of a box's number, in boxes.
CHOICE_TEXT = 0.5


@dataclass(frozen=True)
class PlanningScreen:
    """A planning-only problem's screen: the boards (``view``: the goal above the start) and
    the answer boxes (``boxes``: each one's centre, left to right; ``box``: their side)."""

    view: ScreenLayout
    boxes: tuple[tuple[float, float], ...]
    box: float

    def scaled(self, f: float) -> PlanningScreen:
        """Every length multiplied by ``f`` (see :func:`~tol_tasks.display.layout.fit_factor`)."""
        return PlanningScreen(
            self.view.scaled(f), tuple((x * f, y * f) for x, y in self.boxes), self.box * f
        )

    @property
    def text_height(self) -> float:
        """The height of the numbers in the boxes."""
        return self.box * CHOICE_TEXT

    def box_at(self, x: float, y: float) -> int | None:
        """Which box a point (the same units) falls on, if any."""
        half = self.box / 2
        for k, (cx, cy) in enumerate(self.boxes):
            if abs(x - cx) <= half and abs(y - cy) <= half:
                return k
        return None

    def as_dict(self) -> dict:
        """The screen as data (the browser draws from it and hit-tests its boxes)."""
        return {"view": self.view.as_dict(), "boxes": [list(c) for c in self.boxes],
                "box": self.box, "text_height": self.text_height}  # fmt: skip


def planning_screen(puzzle, display, largest: int | None, choices: int) -> PlanningScreen:
    """The screen of a planning-only problem on ``puzzle`` with ``choices`` boxes.

    Parameters
    ----------
    puzzle : Puzzle
        The problem's apparatus (its ``kind`` and ``capacities``).
    display : Display
        The protocol's display settings (``piece_scale``; the goal is always shown, above).
    largest : int or None
        The most disks of the session's Tower of Hanoi problems (the session's piece size).
    choices : int
        How many numbered boxes the row has.
    """
    d = display.model_copy(update={"show_goal": True, "goal_position": "top"})
    view = screen_layout(puzzle.kind, puzzle.capacities, d, largest).page_view()
    step = min(CHOICE_BOX * CHOICE_STEP, BOX_WIDTH * CHOICE_ROW / choices)
    box = min(CHOICE_BOX, step / CHOICE_STEP * 1.25)
    y = view.places.caption_y
    boxes = tuple(((k - (choices - 1) / 2) * step, y) for k in range(choices))
    return PlanningScreen(view, boxes, box)
