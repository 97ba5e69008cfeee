"""The stage a session plays on: the window's screen and frames, the input, the clock, the log
writer, the protocol and the participant's texts; the screens between trials (instruction
pages, messages, pauses) and the quit key's question."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from tol_tasks.protocol_format.loaded import LoadedProtocol, Resolved
from tol_tasks.protocol_format.model import Page
from tol_tasks.session_data.trial import CopyState

from .frames import FrameRecorder
from .inputs import InputSource
from .interrupt import Interrupts
from .screen import TaskScreen

#: The ``problem_id`` of the page rows of the screen a resumed session begins with.
RESUME_READY = "resume-ready"

#: The ``problem_id`` of the page rows of the screen that asks to confirm the quit key.
QUIT_CONFIRM = "quit-confirm"

#: The ``problem_id`` of the page rows of the controls practice.
CONTROLS = "controls"


def on_screen(evs: list, since: float) -> list:
    """The events of ``evs`` pressed once the screen shown at ``since`` (its flip's time) was
    on screen. One stamped earlier was pressed before the participant could see the screen,
    so it is not meant for it; on a loaded machine it may be read only after the flip
    returned, and its row would go before the screen's (a log's times never go backwards).
    """
    return [e for e in evs if e.t >= since]


class AbortSession(Exception):  # noqa: N818 - a signal, not an error
    """The quit key was pressed at session time ``t`` (stamped ``stamp``: the press that
    ended the session, the quit key or the answer that confirmed it)."""

    def __init__(self, t: float, stamp: str | None = None):
        self.t = t
        self.stamp = stamp


@dataclass
class Stage:
    """What a running session plays on: the window's screen and frames, the input, the clock,
    the log writer, the protocol and the participant's texts.

    ``speed``: how many times faster than real time pauses pass (the simulated
    participant's speed; 1 for a person). ``simulate``: the participant is simulated
    (time limits are checked on its scaled time). ``interrupts``: the signals received
    (a session ends at the next frame after one). ``confirm_quit``: the quit key asks
    the participant to confirm (:meth:`confirm`); each time is added to ``quit_prompts``
    (the sidecar's list). ``trial``: the trial on the board (None between trials).
    """

    screen: TaskScreen
    frames: FrameRecorder
    input: InputSource
    clock: object
    write: Callable[..., None]
    protocol: LoadedProtocol
    view: Resolved
    speed: float = 1.0
    simulate: bool = False
    interrupts: Interrupts = field(default_factory=Interrupts)
    confirm_quit: bool = True
    quit_prompts: list = field(default_factory=list)
    trial: int | None = None
    #: False: the quit key does nothing (a Builder experiment whose "Enable Escape" is off).
    quit_enabled: bool = True
    _after_answer: list = field(default_factory=list, repr=False)
    _answer_stamp: str | None = field(default=None, repr=False)

    @property
    def model(self):
        return self.protocol.model

    @property
    def messages(self) -> Mapping[str, str]:
        """The participant's texts in the session's language."""
        return self.view.messages

    def events(self) -> list:
        """The input's events of this frame, with the quit key taken out: it ends the session
        (:class:`AbortSession`), once confirmed; a signal received ends it too."""
        self.interrupts.check()
        out = []
        evs = self.input.poll()
        for i, ev in enumerate(evs):
            if self.quit_enabled and ev.kind == "key" and ev.key == self.model.input.quit_key:
                if not self.confirm_quit:
                    raise AbortSession(ev.t, ev.stamp)
                if self.confirm(ev.t, evs[i + 1 :]):  # ended when the participant confirmed
                    raise AbortSession(self.quit_prompts[-1].answered, self._answer_stamp)
                return out + self._after_answer  # the events read with the answer, after it
            out.append(ev)
        return out

    def confirm(self, t: float, pending=()) -> bool:
        """Ask the participant to confirm the quit key pressed at ``t``: True if the quit key
        comes again, False on any other key or a click (the task then goes on where it was).

        ``pending``: events read with the quit key, after it (the first answers it). The
        simulated participant's own clicks answer nothing (it knows nothing of the question).
        The question is logged as a page (``problem_id`` :data:`QUIT_CONFIRM`; ``page_left``
        with the answer) and added to :attr:`quit_prompts`.
        """
        from tol_tasks.session_data.sidecar import QuitPrompt

        prompt = QuitPrompt(time=t, trial=self.trial)
        self.quit_prompts.append(prompt)
        key = self.model.input.quit_key
        text = self.messages["quit_confirm"].format(key=key.capitalize())
        label = self.screen.label("message", small=False)
        # An answer read with the quit key (pressed before the question could be shown)
        # answers it at once, the question not shown: no page row stamped by a later flip
        # goes before that press's row (a log's times never go backwards).
        answer = self._answer(list(pending), key, prompt, shown=False)
        if answer is not None:
            return answer
        shown = self.frames.next_flip_time(self.clock)
        label.draw(text)
        self.frames.flip()
        evs = self.input.poll()
        # An answer pressed before the flip that showed the question, read only now (a
        # loaded machine: the flip returned late), answers it as one read with the quit key
        # does: the question's rows not written, so none goes before the answer's row.
        answer = self._answer([e for e in evs if e.t < shown[0]], key, prompt, shown=False)
        if answer is not None:
            self._after_answer += [e for e in evs if e.t >= shown[0]]
            return answer
        self.write("page_shown", time=shown[0], problem_id=QUIT_CONFIRM, stamp="flip")
        while True:
            answer = self._answer(on_screen(evs, shown[0]), key, prompt, shown=True)
            if answer is not None:
                return answer
            label.draw(text)
            self.frames.flip()
            self.interrupts.check()
            evs = self.input.poll()

    def _answer(self, evs: list, key: str, prompt, shown: bool) -> bool | None:
        """The answer to the quit question among ``evs`` (None: none yet): True for the quit
        key again, False for another key or a release; logged as the page's end when the
        question was shown."""
        for k, ev in enumerate(evs):
            if ev.source == "simulated":
                continue
            if ev.kind == "key" or ev.kind == "release":
                self._after_answer = evs[k + 1 :]
                quit_again = ev.kind == "key" and ev.key == key
                if shown:
                    self.write("page_left", time=ev.t, problem_id=QUIT_CONFIRM,
                               input=ev.source, stamp=ev.stamp)  # fmt: skip
                prompt.answered, prompt.ended_session = ev.t, quit_again
                self._answer_stamp = ev.stamp
                return quit_again
        return None

    def wait(self, seconds: float, draw: Callable[[], None] = lambda: None) -> None:
        """Keep drawing for ``seconds`` (divided by ``speed``); the quit key still works."""
        end = self.clock.getTime() + seconds / self.speed
        while self.clock.getTime() < end:
            self.events()
            draw()
            self.frames.flip()

    def message(self, text: str, seconds: float) -> None:
        """A text alone on the screen for ``seconds``."""
        label = self.screen.label("message", small=False)
        self.wait(seconds, lambda: label.draw(text))

    def instructions(self) -> None:
        """Each instruction page until the participant clicks or presses space; then, with
        ``practice.controls``, the controls practice (:meth:`controls`)."""
        lp = self.protocol
        base_dir = lp.path.parent if lp.path else None
        for k, page in enumerate(self.view.pages, start=1):
            self.page(page, f"page-{k}", base_dir)
        if self.model.practice.controls:
            self.controls()

    def block_pages(self, block: str) -> None:
        """The block's own instruction pages (logged as pages ``<block>-page-<k>``)."""
        lp = self.protocol
        base_dir = lp.path.parent if lp.path else None
        for k, page in enumerate(self.view.block_pages.get(block, ()), start=1):
            self.page(page, f"{block}-page-{k}", base_dir)

    def pause(self, text: str, page_id: str) -> None:
        """A pause only the examiner ends: ``text`` until the protocol's examiner key is
        pressed (clicks and the space key do nothing); logged as a page (``page_shown``,
        ``page_left`` with the key)."""
        key = self.model.input.examiner_key
        hint = self.messages["examiner_hint"].format(key=key.upper())
        places = self.screen.places
        label, small = self.screen.label("pause", small=False), self.screen.label("examiner")

        def draw() -> None:
            label.draw(text, (0, places.page_y))
            small.draw(hint, (0, places.continue_y))

        shown = self.frames.next_flip_time(self.clock)
        draw()
        self.frames.flip()
        self.write("page_shown", time=shown[0], problem_id=page_id, stamp="flip")
        self.input.on_pause(self.clock.getTime(), key)
        while True:
            evs = on_screen(self.events(), shown[0])
            done = [e for e in evs if e.kind == "key" and e.key == key]
            if done:
                self.write("page_left", time=done[0].t, problem_id=page_id, input=done[0].source,
                           stamp=done[0].stamp)  # fmt: skip
                return
            draw()
            self.frames.flip()

    def controls(self) -> None:
        """The controls practice (``practice.controls``): on the session's board, at the first
        problem's start, one move of the outlined piece to the marked peg, as the protocol's
        input takes it; a wrong piece or peg is refused (the move stays shown). Logged as a
        page (``page_shown``, ``page_left`` when the move is made: ``controls``); nothing of
        it is scored."""
        spec = next(iter(self.protocol.all_problems()))
        move = spec.puzzle.legal_moves(spec.start)[0]
        trial = CopyState(spec=spec, sequence=[(move.source, move.target)], attempt=0)
        board_layout = self.screen.layout.board
        board = self.screen.board("controls", spec.puzzle, board_layout)
        label = self.screen.label("controls")
        mode, peg_keys = self.model.input.mode, list(self.model.input.keys or [])
        drag = None

        def draw() -> None:
            label.draw(self.messages["controls_try"], self.screen.places.copy_label)
            board.show(trial.state, trial.held, drag, cue=trial.cue)
            board.draw()

        shown = self.frames.next_flip_time(self.clock)
        draw()
        self.frames.flip()
        self.write("page_shown", time=shown[0], problem_id=CONTROLS, stamp="flip")
        self.input.on_trial(trial, board_layout.pegs, self.clock.getTime())
        last = None
        while not trial.done:
            for ev in on_screen(self.events(), shown[0]):
                if peg_actions(ev, trial, mode, peg_keys, self.screen, board_layout.pegs):
                    last = ev
                if mode == "drag" and ev.kind == "release":
                    drag = None
            self.input.after(trial, self.clock.getTime())
            if mode == "drag" and trial.held is not None and not self.simulate:
                drag = self.input.pointer()
            draw()
            self.frames.flip()
        self.write("page_left", time=last.t, problem_id=CONTROLS, input=last.source,
                   stamp=last.stamp)  # fmt: skip

    def ready_to_continue(self) -> None:
        """A resumed session's first screen: the participant starts again when ready (logged
        as a page, ``problem_id`` :data:`RESUME_READY`), not dropped into a running problem."""
        self.page(Page(text=self.messages["resume_ready"]), RESUME_READY)

    def page(self, page: Page, page_id: str, base_dir=None) -> None:
        """One page until the participant clicks or presses space (``page_shown`` with the
        flip that showed it, ``page_left`` with the press)."""
        shown = self.frames.next_flip_time(self.clock)
        self.screen.draw_page(page, base_dir)
        self.frames.flip()
        self.write("page_shown", time=shown[0], problem_id=page_id, stamp="flip")
        self.input.on_page(self.clock.getTime())
        since = self.clock.getTime()
        while True:
            evs = on_screen(self.events(), shown[0])
            done = [e for e in evs if e.kind == "release" or (e.kind == "key" and e.key == "space")]
            if done:
                self.write("page_left", time=done[0].t, problem_id=page_id, input=done[0].source,
                           stamp=done[0].stamp)  # fmt: skip
                return
            self.screen.draw_page(page, base_dir, (self.clock.getTime() - since) * self.speed)
            self.frames.flip()

    def boards(self, puzzle=None):
        """The participant's board and the goal's (None if hidden): the session's one layout
        (:mod:`tol_tasks.display.layout`), the same for every puzzle of the session."""
        layout = self.screen.layout
        return layout.board, layout.goal


def peg_actions(ev, trial, mode: str, peg_keys: list, screen, areas) -> list[dict]:
    """What one press, release or key does to ``trial`` (its rows), by the input mode: a key
    of ``peg_keys``, a press and release (drag), or a press on a peg then another (click)."""
    if ev.kind == "key":
        if mode == "keys" and ev.key in peg_keys:
            peg = peg_keys.index(ev.key)
            return trial.pick(peg) if trial.held is None else trial.drop(peg)
        return []
    if mode == "drag":
        peg = screen.hit(areas, ev.x, ev.y)
        if ev.kind == "press" and peg is not None:
            return trial.pick(peg)
        if ev.kind == "release":
            return trial.drop(peg)
        return []
    if ev.kind == "press":
        peg = screen.hit(areas, ev.x, ev.y)
        if peg is not None:
            return trial.pick(peg) if trial.held is None else trial.drop(peg)
    return []
