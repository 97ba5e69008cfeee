"""A puzzle state as a small picture (inline SVG): the pegs and their pieces, as the participant saw them.

Used by the session reports, where a start and a goal drawn as pegs and coloured
pieces say more to a reader than the state text (``GR|B|``). Pure Python: no
matplotlib. Pieces take the protocol's colours when it gives them, else the
task's defaults (:func:`tol_tasks.protocol_format.colors.default_piece_color`).
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from tol_tasks.protocol_format.colors import default_piece_color
from tol_tasks.puzzles.base import Puzzle

#: Size of one piece slot in the picture (SVG user units; the page scales them).
SLOT_W, SLOT_H = 14, 8
#: Space between pegs and around the picture.
GAP = 3


def board_svg(
    puzzle: Puzzle,
    state: str,
    color: Callable[[object], str] | None = None,
    label: str = "",
) -> str:
    """The picture of ``state`` (a state text of ``puzzle``) as an ``<svg>`` element.

    Parameters
    ----------
    color : callable, optional
        A piece's colour (a CSS colour); default the task's default colours, grey
        for a piece that has none.
    label : str
        The picture's accessible name (its ``<title>``); default the state text.

    Every peg is as tall as its capacity (Tower of London) or the number of disks
    (Tower of Hanoi); a disk's width grows with its size, balls are circles.
    """
    pegs = puzzle.pegs_of(state)
    height = max(puzzle.capacities) if puzzle.kind == "london" else puzzle.size
    colour = color or (lambda piece: default_piece_color(puzzle, piece) or "#888888")
    width = len(pegs) * (SLOT_W + GAP) + GAP
    total_h = height * SLOT_H + 2 * GAP
    base = total_h - GAP
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {width} {total_h}" '
        f'role="img"><title>{escape(label or state)}</title>',
        f'<line x1="{GAP / 2}" y1="{base}" x2="{width - GAP / 2}" y2="{base}" stroke="#555" '
        'stroke-width="1.5"/>',
    ]
    for i, pieces in enumerate(pegs):
        cx = GAP + i * (SLOT_W + GAP) + SLOT_W / 2
        tall = puzzle.capacities[i] if puzzle.kind == "london" else height
        parts.append(
            f'<line x1="{cx}" y1="{base}" x2="{cx}" y2="{base - tall * SLOT_H - 1}" '
            'stroke="#555" stroke-width="1.6"/>'
        )
        for level, piece in enumerate(pieces):
            fill = escape(colour(piece))
            cy = base - (level + 0.5) * SLOT_H
            if puzzle.kind == "hanoi":
                w = SLOT_W * (0.35 + 0.65 * piece / max(puzzle.size, 1))
                parts.append(
                    f'<rect x="{cx - w / 2:.2f}" y="{cy - SLOT_H / 2 + 0.4:.2f}" width="{w:.2f}" '
                    f'height="{SLOT_H - 0.8:.2f}" rx="1.5" fill="{fill}" stroke="#333" '
                    'stroke-width="0.4"/>'
                )
            else:
                parts.append(
                    f'<circle cx="{cx}" cy="{cy:.2f}" r="{SLOT_H / 2 - 0.4:.2f}" fill="{fill}" '
                    'stroke="#333" stroke-width="0.4"/>'
                )
    parts.append("</svg>")
    return "".join(parts)
