"""Colours of what the participant sees: a piece's default colour, the colour of the label
written on it, and the contrast between two colours (WCAG 2), all from checked colours (a
hex code or a CSS name of :data:`~tol_tasks.config.CSS_COLORS`)."""

from __future__ import annotations

from tol_tasks.config import CSS_COLORS, DEFAULT_BALL_COLORS, DEFAULT_DISK_COLORS


def default_piece_color(puzzle, piece) -> str | None:
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


def luminance(color: str) -> float:
    """The relative luminance of a colour (WCAG 2), 0 (black) to 1 (white)."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb_of(color)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast_ratio(a: str, b: str) -> float:
    """The contrast ratio of two colours (WCAG 2): 1 (the same) to 21 (black on white)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def label_color(color: str) -> str:
    """Black or white, whichever reads better on ``color`` (a piece's label).

    By relative luminance (WCAG 2): black when the colour's contrast with black is
    at least its contrast with white (luminance above 0.179).
    """
    lum = luminance(color)
    return "#000000" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "#ffffff"


def shade(color: str, factor: float) -> str:
    """``color`` darkened (``factor`` below 1) or lightened towards white (above 1), as hex:
    the edge and the lit top of a piece, so that it reads as an object with depth."""
    rgb = rgb_of(color)
    out = [c * factor for c in rgb] if factor <= 1 else [c + (1 - c) * (factor - 1) for c in rgb]
    return "#" + "".join(f"{round(min(1.0, max(0.0, c)) * 255):02x}" for c in out)


#: The least contrast (WCAG 2, non-text) a piece's edge has with the background.
EDGE_CONTRAST = 3.0


def edge_color(color: str, background: str) -> str:
    """The rim drawn round a piece of ``color`` on ``background``: a darker shade of the
    piece (depth) when the piece stands out from the background by :data:`EDGE_CONTRAST`,
    else the shade of it, lighter or darker, that does, so that no piece is lost in the
    background (a dark blue disk on a dark screen)."""
    if contrast_ratio(color, background) >= EDGE_CONTRAST:
        return shade(color, 0.55)
    light = luminance(background) < 0.18
    for step in range(1, 11):
        edge = shade(color, 1 + step / 10 if light else 1 - step / 10)
        if contrast_ratio(edge, background) >= EDGE_CONTRAST:
            return edge
    return "#ffffff" if light else "#000000"
