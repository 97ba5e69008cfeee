"""Colour maths of the protocol format: checking a colour, the pieces' default colours, and
the colour of a label written on a piece.

No drawing here: the runner's screen, the browser board and the scorer's pictures read
the colours the resolved protocol (:meth:`tol_tasks.protocol_format.loaded.LoadedProtocol.resolve`)
gives them.
"""

from __future__ import annotations

from tol_tasks.config import COLOR_NAMES, CSS_COLORS, DEFAULT_BALL_COLORS, DEFAULT_DISK_COLORS
from tol_tasks.puzzles.base import Puzzle

#: The colour of a piece that has neither a protocol colour nor a default one.
FALLBACK_PIECE_COLOR = "#888888"


def checked_color(value: str) -> str:
    """``value`` as a colour the protocol format accepts (lower case), else ValueError."""
    v = value.strip()
    low = v.lower()
    if low in COLOR_NAMES:
        return low
    if len(v) in (4, 7) and v.startswith("#") and all(c in "0123456789abcdefABCDEF" for c in v[1:]):
        return low
    raise ValueError(f"{value!r} is not a colour")


def default_piece_color(puzzle: Puzzle, piece) -> str | None:
    """A piece's colour when the protocol gives none (None: the piece has no default).

    Tower of Hanoi disks take :data:`~tol_tasks.config.DEFAULT_DISK_COLORS` in
    turn from the smallest; Tower of London balls the colour of their letter
    in :data:`~tol_tasks.config.DEFAULT_BALL_COLORS`.
    """
    if puzzle.kind == "hanoi":
        return DEFAULT_DISK_COLORS[(piece - 1) % len(DEFAULT_DISK_COLORS)]
    return DEFAULT_BALL_COLORS.get(piece)


def rgb_of(color: str) -> tuple[float, float, float]:
    """A checked colour (a hex code or one of :data:`~tol_tasks.config.CSS_COLORS`) as sRGB 0-1."""
    h = CSS_COLORS.get(color, color).lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    return tuple(int(h[i : i + 2], 16) / 255 for i in (0, 2, 4))


def label_color(color: str) -> str:
    """Black or white, whichever reads better on ``color`` (a piece's label).

    By relative luminance (WCAG 2): black when the colour's contrast with black is
    at least its contrast with white (luminance above 0.179).
    """
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb_of(color)]
    luminance = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    return "#000000" if (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) else "#ffffff"
