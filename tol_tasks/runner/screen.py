"""Drawing the task with PsychoPy, in ``height`` units that scale with the window.

Every stimulus is built once (per board and puzzle) and afterwards only the
attributes that changed are written: in PsychoPy each attribute write
rebuilds vertices or colours, which cost most of a frame when one shared
rectangle was re-shaped for every peg and piece (see ``benchmarks/bench_frames.py``).
A frame in which nothing changed writes no attribute at all; pieces move by
position only; text stimuli get new text only when the text changes.
"""

from __future__ import annotations

from psychopy import visual

from tol_tasks.config import PEG_LETTERS
from tol_tasks.protocol_format.model import LoadedProtocol
from tol_tasks.puzzles.base import Puzzle

from .geometry import PegArea

#: Units of every stimulus the task draws, whatever the caller's window uses.
UNITS = "height"


class Label:
    """A text stimulus whose text and position are written only when they change."""

    def __init__(self, win, *, height: float, color, wrap: float | None = None):
        self.stim = visual.TextStim(
            win, text="", height=height, color=color, wrapWidth=wrap, units=UNITS
        )
        self._text: str | None = ""
        self._pos: tuple[float, float] = (0.0, 0.0)

    def draw(self, text: str, pos=(0.0, 0.0)) -> None:
        pos = (float(pos[0]), float(pos[1]))
        if text != self._text:
            self.stim.text = text
            self._text = text
        if pos != self._pos:
            self.stim.pos = pos
            self._pos = pos
        self.stim.draw()


class BoardView:
    """One board (the participant's or the goal) of one puzzle, its stimuli built once.

    :meth:`show` places the pieces for a state; a piece whose place did not
    change is not touched, so showing the same state again writes nothing.
    """

    def __init__(self, win, puzzle: Puzzle, areas: list[PegArea], display):
        self.puzzle = puzzle
        self.areas = areas
        self.highlight = display.highlight_color
        unit, scale = areas[0].unit, areas[0].scale
        self.base_y = areas[0].y - areas[0].h / 2
        self.unit = unit
        self._static = [
            visual.Rect(win, width=0.012 * scale + 0.004, height=a.h, pos=(a.x, a.y),
                        fillColor=display.peg_color, lineWidth=0, units=UNITS)
            for a in areas
        ]  # fmt: skip
        self._static.append(
            visual.Rect(
                win,
                width=(areas[-1].x - areas[0].x) + areas[0].w,
                height=0.012 * scale,
                pos=((areas[0].x + areas[-1].x) / 2, self.base_y - 0.006 * scale),
                fillColor=display.peg_color,
                lineWidth=0,
                units=UNITS,
            )
        )
        self.pieces: dict = {}
        peg_w = areas[0].w
        for piece in puzzle.pieces:
            color = display.piece_color(puzzle, piece)
            if puzzle.kind == "hanoi":  # disks, wider the larger
                w = peg_w * (0.3 + 0.65 * (piece / puzzle.size))
                stim = visual.Rect(win, width=w, height=unit * 0.9, fillColor=color,
                                   lineColor=self.highlight, lineWidth=0, units=UNITS)  # fmt: skip
            else:
                stim = visual.Circle(win, radius=unit * 0.46, edges=48, fillColor=color,
                                     lineColor=self.highlight, lineWidth=0, units=UNITS)  # fmt: skip
            self.pieces[piece] = stim
        # display.piece_labels: the ball's letter (the disk's number) on each piece.
        self.labels: dict = {}
        for piece in puzzle.pieces:
            label = display.piece_label(puzzle, piece)
            if label is not None:
                self.labels[piece] = visual.TextStim(win, text=label[0], color=label[1],
                                                     height=unit * 0.5, bold=True, units=UNITS)  # fmt: skip
        self._pos: dict = dict.fromkeys(self.pieces)
        self._outlined: set = set()
        self._shown = None
        self._order: list = []
        # Copy trials: a triangle pointing down at the peg to put the piece on.
        self.marker = visual.Polygon(win, edges=3, radius=unit * 0.32, ori=180,
                                     fillColor=self.highlight, lineWidth=0, units=UNITS)  # fmt: skip
        self._marker_peg: int | None = None

    def marker_pos(self, peg: int) -> tuple[float, float]:
        """Where the copy trials' marker sits: just above the top of ``peg``."""
        a = self.areas[peg]
        return float(a.x), float(a.y + a.h / 2 + self.unit * 0.4)

    def show(self, state, held: int | None = None, drag=None, cue=None) -> None:
        """Place the pieces for ``state`` (``held``: the peg whose top piece is lifted).

        ``cue`` (copy trials): (from peg, to peg) of the move to make; the top
        piece of the first is outlined, the second is marked.
        """
        key = (state, held, drag, cue)
        if key == self._shown:
            return
        self._shown = key
        lifted = None
        cued = None
        order = []
        for i, col in enumerate(self.puzzle.pegs_of(state)):
            a = self.areas[i]
            for level, piece in enumerate(col):
                x, y = a.x, self.base_y + self.unit * (level + 0.5)
                if cue is not None and cue[0] == i and level == len(col) - 1:
                    cued = piece
                if held == i and level == len(col) - 1:
                    lifted = piece
                    x, y = drag if drag is not None else (x, a.y + a.h / 2 + self.unit * 0.8)
                pos = (float(x), float(y))
                if self._pos[piece] != pos:
                    self.pieces[piece].pos = pos
                    if piece in self.labels:
                        self.labels[piece].pos = pos
                    self._pos[piece] = pos
                order.append(piece)
        outlined = {p for p in (lifted, cued) if p is not None}
        for piece in self._outlined - outlined:
            self.pieces[piece].lineWidth = 0
        for piece in outlined - self._outlined:
            self.pieces[piece].lineWidth = 4
        self._outlined = outlined
        target = cue[1] if cue is not None else None
        if target is not None and target != self._marker_peg:
            self.marker.pos = self.marker_pos(target)
        self._marker_peg = target
        # The lifted piece is drawn last, above the others.
        if lifted is not None:
            order.remove(lifted)
            order.append(lifted)
        self._order = [s for p in order for s in (self.pieces[p], self.labels.get(p)) if s]

    def draw(self) -> None:
        for stim in self._static:
            stim.draw()
        for stim in self._order:
            stim.draw()
        if self._marker_peg is not None:
            self.marker.draw()


class TaskScreen:
    """Geometry (peg areas, pixel conversions) and the task's text stimuli for one window."""

    def __init__(self, win: visual.Window, protocol: LoadedProtocol, messages: dict[str, str]):
        self.win = win
        self.lp = protocol
        self.d = protocol.model.display
        self.msg = messages
        self.W, self.H = (int(v) for v in win.size)
        self.aspect = self.W / self.H
        color = self.d.text_color
        self.text = Label(win, height=0.035, color=color, wrap=self.aspect * 0.85)
        self.small = Label(win, height=0.028, color=color)
        # One label per place on the screen, so that each keeps its own text.
        self.labels: dict[str, Label] = {}
        self._boards: dict = {}
        self._pages: dict = {}

    def label(self, name: str, small: bool = True) -> Label:
        """The text stimulus kept for one place on the screen (built on first use)."""
        if name not in self.labels:
            self.labels[name] = Label(
                self.win,
                height=0.028 if small else 0.035,
                color=self.d.text_color,
                wrap=None if small else self.aspect * 0.85,
            )
        return self.labels[name]

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
        caps = puzzle.capacities
        unit = self._piece_height(puzzle) * scale
        areas = []
        for i in range(n):
            h = unit * (caps[i] + 0.6)
            x = x0 + (i - (n - 1) / 2) * spacing
            areas.append(PegArea(x, base_y + h / 2, spacing * 0.92, h, unit, scale))
        return areas

    def _piece_height(self, puzzle: Puzzle) -> float:
        most = max(puzzle.capacities)
        return min(0.11, 0.4 / (most + 0.6)) * self.d.piece_scale

    def hit(self, areas: list[PegArea], px: float, py: float) -> int | None:
        """Which peg a pointer position (window pixels) falls on, if any (none for a press
        whose position is unknown: outside the window)."""
        if px is None or py is None:
            return None
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
    def board(self, name: str, puzzle: Puzzle, areas: list[PegArea]) -> BoardView:
        """The board ``name`` ("board" or "goal") for ``puzzle``, built once and reused."""
        key = (name, puzzle.code, tuple((a.x, a.y, a.w, a.h) for a in areas))
        view = self._boards.get(key)
        if view is None:
            view = self._boards[key] = BoardView(self.win, puzzle, areas, self.d)
        return view

    def draw_text(self, text: str, pos=(0, 0), small: bool = False) -> None:
        (self.small if small else self.text).draw(text, pos)

    def draw_page(self, page, base_dir) -> None:
        if page.image and base_dir is not None:
            img = self._pages.get(page.image)
            if img is None:
                img = visual.ImageStim(
                    self.win, image=str(base_dir / page.image), pos=(0, 0.15), units=UNITS
                )
                img.size = img.size * min(1.0, 0.45 / img.size[1])
                self._pages[page.image] = img
            img.draw()
            self.label("page_caption", small=False).draw(page.text, pos=(0, -0.2))
        else:
            self.label("page", small=False).draw(page.text, pos=(0, 0.05))
        self.label("continue").draw(self.msg["continue"], pos=(0, -0.42))
