"""Drawing the task with PsychoPy, in ``height`` units that scale with the window."""

from __future__ import annotations

from dataclasses import dataclass

from psychopy import visual

from tol_tasks.config import DEFAULT_BALL_COLORS, DEFAULT_DISK_COLORS, PEG_LETTERS
from tol_tasks.protocol_format.model import LoadedProtocol
from tol_tasks.puzzles.base import Puzzle
from tol_tasks.puzzles.hanoi import Hanoi


@dataclass
class PegArea:
    """A peg's clickable rectangle, in height units (centre, size)."""

    x: float
    y: float
    w: float
    h: float
    unit: float  # height of one piece on this board
    scale: float


class TaskScreen:
    """Draws pegs, pieces, the goal, counters and texts; converts pointer positions."""

    def __init__(self, win: visual.Window, protocol: LoadedProtocol, messages: dict[str, str]):
        self.win = win
        self.lp = protocol
        self.d = protocol.model.display
        self.msg = messages
        self.W, self.H = (int(v) for v in win.size)
        self.aspect = self.W / self.H
        self.text = visual.TextStim(
            win, text="", height=0.035, color=self.d.text_color, wrapWidth=self.aspect * 0.85
        )
        self.small = visual.TextStim(win, text="", height=0.028, color=self.d.text_color)
        self.rect = visual.Rect(win, width=1, height=1, lineWidth=0)
        self.circle = visual.Circle(win, radius=0.5, edges=48, lineWidth=0)
        self.image = None

    # ------------------------------------------------------------ geometry
    def to_pixels(self, x: float, y: float) -> tuple[float, float]:
        """Height units (origin centre, y up) to window pixels (origin top-left, y down)."""
        return x * self.H + self.W / 2, self.H / 2 - y * self.H

    def to_units(self, px: float, py: float) -> tuple[float, float]:
        return (px - self.W / 2) / self.H, (self.H / 2 - py) / self.H

    def layout(self, puzzle: Puzzle, base_y: float = -0.42, scale: float = 1.0, x0: float = 0.0):
        """Peg areas for ``puzzle``: a list of :class:`PegArea` (centre x, base y...)."""
        n = puzzle.n_pegs
        width = min(self.aspect * 0.9, 1.3) * scale
        spacing = width / n
        caps = self._capacities(puzzle)
        unit = self._piece_height(puzzle) * scale
        areas = []
        for i in range(n):
            h = unit * (caps[i] + 0.6)
            x = x0 + (i - (n - 1) / 2) * spacing
            areas.append(PegArea(x, base_y + h / 2, spacing * 0.92, h, unit, scale))
        return areas

    def _capacities(self, puzzle: Puzzle) -> list[int]:
        if isinstance(puzzle, Hanoi):
            return [puzzle.n_disks] * puzzle.n_pegs
        return list(puzzle.capacities)

    def _piece_height(self, puzzle: Puzzle) -> float:
        most = max(self._capacities(puzzle))
        return min(0.11, 0.4 / (most + 0.6)) * self.d.piece_scale

    def hit(self, areas: list[PegArea], px: float, py: float) -> int | None:
        """Which peg a pointer position (window pixels) falls on, if any."""
        x, y = self.to_units(px, py)
        for i, a in enumerate(areas):
            if abs(x - a.x) <= a.w / 2 and abs(y - a.y) <= a.h / 2 + 0.02:
                return i
        return None

    def pixel_rects(self, areas: list[PegArea]) -> list[dict]:
        """Peg rectangles in window pixels, for the sidecar."""
        out = []
        for i, a in enumerate(areas):
            left, top = self.to_pixels(a.x - a.w / 2, a.y + a.h / 2)
            out.append(
                {"peg": PEG_LETTERS[i], "left": round(left, 1), "top": round(top, 1),
                 "width": round(a.w * self.H, 1), "height": round(a.h * self.H, 1)}
            )  # fmt: skip
        return out

    # --------------------------------------------------------------- drawing
    def _color(self, puzzle: Puzzle, piece) -> str:
        colors = self.d.piece_colors
        if isinstance(puzzle, Hanoi):
            return colors.get(
                str(piece), DEFAULT_DISK_COLORS[(piece - 1) % len(DEFAULT_DISK_COLORS)]
            )
        return colors.get(piece, DEFAULT_BALL_COLORS.get(piece, "#888888"))

    def draw_board(self, puzzle: Puzzle, state, areas, held: int | None = None, drag=None):
        unit, scale = areas[0].unit, areas[0].scale
        cols = puzzle.pegs_of(state)
        base = areas[0].y - areas[0].h / 2
        for a in areas:  # pegs and the base
            self.rect.fillColor = self.d.peg_color
            self.rect.width, self.rect.height = 0.012 * scale + 0.004, a.h
            self.rect.pos = (a.x, a.y)
            self.rect.draw()
        self.rect.width = (areas[-1].x - areas[0].x) + areas[0].w
        self.rect.height = 0.012 * scale
        self.rect.pos = ((areas[0].x + areas[-1].x) / 2, base - 0.006 * scale)
        self.rect.draw()
        for i, col in enumerate(cols):
            for level, piece in enumerate(col):
                lifted = held == i and level == len(col) - 1
                x = areas[i].x
                y = base + unit * (level + 0.5)
                if lifted:
                    if drag is not None:
                        x, y = drag
                    else:
                        y = areas[i].y + areas[i].h / 2 + unit * 0.8
                self._draw_piece(puzzle, piece, x, y, unit, areas[i].w, lifted)

    def _draw_piece(self, puzzle, piece, x, y, unit, peg_w, lifted) -> None:
        color = self._color(puzzle, piece)
        outline = self.d.highlight_color if lifted else None
        if isinstance(puzzle, Hanoi):
            n = puzzle.n_disks
            w = peg_w * (0.3 + 0.65 * (piece / n))
            stim = self.rect
            stim.width, stim.height = w, unit * 0.9
        else:
            stim = self.circle
            stim.size = (unit * 0.92, unit * 0.92)
        stim.pos = (x, y)
        stim.fillColor = color
        stim.lineColor = outline
        stim.lineWidth = 4 if lifted else 0
        stim.draw()
        stim.lineWidth = 0

    def draw_text(self, text: str, pos=(0, 0), small: bool = False) -> None:
        stim = self.small if small else self.text
        stim.text = text
        stim.pos = pos
        stim.draw()

    def draw_page(self, page, base_dir) -> None:
        if page.image and base_dir is not None:
            img = visual.ImageStim(self.win, image=str(base_dir / page.image), pos=(0, 0.15))
            img.size = img.size * min(1.0, 0.45 / img.size[1])
            img.draw()
            self.draw_text(page.text, pos=(0, -0.2))
        else:
            self.draw_text(page.text, pos=(0, 0.05))
        self.draw_text(self.msg["continue"], pos=(0, -0.42), small=True)
