"""The participant's screen as data: the one display model the PsychoPy runner and the
browser only draw from (no PsychoPy here, nothing that needs a window).

- :mod:`.colors`: the colours of pieces and of the labels written on them, and contrast;
- :mod:`.layout`: where everything goes (pegs, pieces, the goal, the counters, the
  feedback, the pages), with one piece size for a whole session;
- :mod:`.planning`: the screen of a planning-only problem (its boards and numbered boxes).
"""

from .colors import contrast_ratio, default_piece_color, label_color, rgb_of
from .layout import (
    BOX_WIDTH,
    GOAL_FRACTION,
    BoardLayout,
    PegArea,
    Places,
    ScreenLayout,
    fit_factor,
    hit,
    puzzle_layout,
    screen_layout,
    session_layout,
)

__all__ = [
    "BOX_WIDTH",
    "GOAL_FRACTION",
    "BoardLayout",
    "PegArea",
    "Places",
    "ScreenLayout",
    "contrast_ratio",
    "default_piece_color",
    "fit_factor",
    "hit",
    "label_color",
    "puzzle_layout",
    "rgb_of",
    "screen_layout",
    "session_layout",
]
