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
from tol_tasks.display.colors import edge_color
from tol_tasks.display.demo import DemoFrame, demonstration, frame_at
from tol_tasks.display.layout import BoardLayout, PegArea, fit_factor, hit, session_layout
from tol_tasks.errors import IllegalMoveError
from tol_tasks.protocol_format.loaded import LoadedProtocol
from tol_tasks.puzzles.base import Puzzle

#: Units of every stimulus the task draws, whatever the caller's window uses.
UNITS = "height"


class Label:
    """A text stimulus whose text and position are written only when they change."""

    def __init__(self, win, *, height: float, color, wrap: float | None = None,
                 anchor: str = "center"):  # fmt: skip
        self.stim = visual.TextStim(
            win, text="", height=height, color=color, wrapWidth=wrap, units=UNITS,
            anchorHoriz=anchor, alignText=anchor,
        )  # fmt: skip
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
    """One board (the participant's or the goal) of one puzzle, its stimuli built once, placed
    as the display model's :class:`~tol_tasks.display.BoardLayout` says.

    :meth:`show` places the pieces for a state; a piece whose place did not
    change is not touched, so showing the same state again writes nothing.
    """

    def __init__(self, win, puzzle: Puzzle, layout: BoardLayout, display):
        self.puzzle = puzzle
        self.layout = layout
        self.areas = layout.pegs
        self.highlight = display.highlight_color
        self.unit = unit = layout.unit
        areas = layout.pegs
        self._static = [
            visual.Rect(win, width=layout.rod_width, height=a.h, pos=(a.x, a.y),
                        fillColor=display.peg_color, lineWidth=0, units=UNITS)
            for a in areas
        ]  # fmt: skip
        bx, by, bw, bh = layout.base
        self._static.append(visual.Rect(win, width=bw, height=bh, pos=(bx, by),
                                        fillColor=display.peg_color, lineWidth=0, units=UNITS))  # fmt: skip
        self.pieces: dict = {}
        for piece in puzzle.pieces:
            color = display.piece_color(puzzle, piece)
            w, h = layout.piece_size(piece)
            edge = edge_color(color, display.background)
            if puzzle.kind == "hanoi":  # disks, wider the larger
                stim = visual.Rect(win, width=w, height=h, fillColor=color, lineColor=edge,
                                   lineWidth=2.5, units=UNITS)  # fmt: skip
            else:
                stim = visual.Circle(win, radius=w / 2, edges=48, fillColor=color,
                                     lineColor=edge, lineWidth=2.5, units=UNITS)  # fmt: skip
            self.pieces[piece] = stim
        self._edges = {p: s.lineColor for p, s in self.pieces.items()}
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
        # display.show_legal_targets: a ring above each peg the held piece may go on.
        self.show_targets = bool(getattr(display, "show_legal_targets", False))
        self._targets: list = []
        self._target_stims = [
            visual.Circle(win, radius=unit * 0.22, edges=32, pos=self.marker_pos(i),
                          fillColor=None, lineColor=self.highlight, lineWidth=3, units=UNITS)
            for i in range(len(layout.pegs))
        ] if self.show_targets else []  # fmt: skip

    def marker_pos(self, peg: int) -> tuple[float, float]:
        """Where the copy trials' marker sits: just above the top of ``peg``."""
        x, y = self.layout.marker_xy(peg)
        return float(x), float(y)

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
        layout = self.layout
        for i, col in enumerate(self.puzzle.pegs_of(state)):
            for level, piece in enumerate(col):
                x, y = layout.piece_xy(i, level)
                if cue is not None and cue[0] == i and level == len(col) - 1:
                    cued = piece
                if held == i and level == len(col) - 1:
                    lifted = piece
                    x, y = drag if drag is not None else layout.lifted_xy(i)
                pos = (float(x), float(y))
                if self._pos[piece] != pos:
                    self.pieces[piece].pos = pos
                    if piece in self.labels:
                        self.labels[piece].pos = pos
                    self._pos[piece] = pos
                order.append(piece)
        outlined = {p for p in (lifted, cued) if p is not None}
        for piece in self._outlined - outlined:
            self.pieces[piece].lineColor = self._edges[piece]
            self.pieces[piece].lineWidth = 2.5
        for piece in outlined - self._outlined:
            self.pieces[piece].lineColor = self.highlight
            self.pieces[piece].lineWidth = 4
        self._outlined = outlined
        target = cue[1] if cue is not None else None
        if target is not None and target != self._marker_peg:
            self.marker.pos = self.marker_pos(target)
        self._marker_peg = target
        self._targets = self.legal_targets(state, held) if self.show_targets else []
        # The lifted piece is drawn last, above the others.
        if lifted is not None:
            order.remove(lifted)
            order.append(lifted)
        self._order = [s for p in order for s in (self.pieces[p], self.labels.get(p)) if s]

    def legal_targets(self, state, held: int | None) -> list[int]:
        """The pegs the piece held above peg ``held`` may be put on, by the puzzle's rules."""
        if held is None:
            return []
        out = []
        for j in range(self.puzzle.n_pegs):
            if j != held:
                try:
                    self.puzzle.check_move(state, held, j)
                except IllegalMoveError:
                    continue
                out.append(j)
        return out

    def draw(self) -> None:
        for stim in self._static:
            stim.draw()
        for peg in self._targets:
            self._target_stims[peg].draw()
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
        #: The session's one layout (the display model), in this window's height units.
        self.fit = fit_factor(self.aspect)
        self.layout = session_layout(protocol.model).scaled(self.fit)
        self.places = self.layout.places
        color = self.d.text_color
        self.text = Label(win, height=self.places.text_height, color=color, wrap=self.places.wrap)
        self.small = Label(win, height=self.places.label_height, color=color)
        # One label per place on the screen, so that each keeps its own text.
        self.labels: dict[str, Label] = {}
        self._boards: dict = {}
        self._pages: dict = {}
        self._page_view = None

    def label(self, name: str, small: bool = True, anchor: str = "center") -> Label:
        """The text stimulus kept for one place on the screen (built on first use); its
        position is its centre, or its left or right end (``anchor``)."""
        if name not in self.labels:
            self.labels[name] = Label(
                self.win,
                height=self.places.label_height if small else self.places.text_height,
                color=self.d.text_color,
                wrap=None if small else self.places.wrap,
                anchor=anchor,
            )
        return self.labels[name]

    # ------------------------------------------------------------ geometry
    def to_pixels(self, x: float, y: float) -> tuple[float, float]:
        """Height units (origin centre, y up) to window pixels (origin top-left, y down)."""
        return x * self.H + self.W / 2, self.H / 2 - y * self.H

    def to_units(self, px: float, py: float) -> tuple[float, float]:
        return (px - self.W / 2) / self.H, (self.H / 2 - py) / self.H

    def hit(self, areas, px: float, py: float) -> int | None:
        """Which peg a pointer position (window pixels) falls on, if any (none for a press
        whose position is unknown: outside the window)."""
        if px is None or py is None:
            return None
        return hit(areas, *self.to_units(px, py))

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
    def board(self, name: str, puzzle: Puzzle, layout: BoardLayout) -> BoardView:
        """The board ``name`` ("board" or "goal") for ``puzzle``, built once and reused."""
        key = (name, puzzle.code, layout)
        view = self._boards.get(key)
        if view is None:
            view = self._boards[key] = BoardView(self.win, puzzle, layout, self.d)
        return view

    def draw_text(self, text: str, pos=(0, 0), small: bool = False) -> None:
        (self.small if small else self.text).draw(text, pos)

    def _shown_views(self):
        """The page view's boards (the first problem's start and goal), the demonstration's
        frames and the place of its notice, built once."""
        if self._page_view is None:
            spec = next(iter(self.lp.all_problems()))
            view = session_layout(self.lp.model).page_view().scaled(self.fit)
            board = BoardView(self.win, spec.puzzle, view.board, self.d)
            goal = BoardView(self.win, spec.puzzle, view.goal, self.d) if view.goal else None
            if goal is not None:
                goal.show(spec.goal)
            frames = demonstration(spec.puzzle, spec.start)
            # The notice of the refused move: above the board, as in a problem.
            notice_y = view.board.top + self.places.label_height
            self._page_view = (spec, view, board, goal, frames, notice_y)
        return self._page_view

    def draw_shown(self, show: str, t: float) -> DemoFrame | None:
        """What a page shows above its text: the board and the goal of the first problem
        (``board``), or the demonstration at ``t`` seconds (``demo``; the frame drawn)."""
        spec, view, board, goal, frames, notice_y = self._shown_views()
        if show == "board":
            board.show(spec.start)
            board.draw()
            if goal is not None:
                goal.draw()
                self.label("page_goal_label").draw(self.msg["goal_label"], view.places.goal_label)
            return None
        frame = frame_at(frames, t)
        over = view.board.lifted_xy(frame.over) if frame.over is not None else None
        board.show(frame.state, frame.held, over)
        board.draw()
        if frame.refused:
            self.label("page_notice").draw(self.msg[f"illegal_{frame.refused}"], (0, notice_y))
        return frame

    def draw_page(self, page, base_dir, t: float = 0.0) -> None:
        """One instruction page; ``t``: seconds since it was first shown (a demonstration)."""
        p = self.places
        if page.show and not (page.image and base_dir is not None):
            self.draw_shown(page.show, t)
            self.label("page_caption", small=False).draw(page.text, pos=(0, p.caption_y))
        elif page.image and base_dir is not None:
            img = self._pages.get(page.image)
            if img is None:
                img = visual.ImageStim(
                    self.win, image=str(base_dir / page.image), pos=(0, p.image_y), units=UNITS
                )
                img.size = img.size * min(1.0, p.image_height / img.size[1])
                self._pages[page.image] = img
            img.draw()
            self.label("page_caption", small=False).draw(page.text, pos=(0, p.caption_y))
        else:
            self.label("page", small=False).draw(page.text, pos=(0, p.page_y))
        self.label("continue").draw(self.msg["continue"], pos=(0, p.continue_y))
