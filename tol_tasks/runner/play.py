"""Playing on the window: the frame loop of a problem attempt or a yoked copy trial (the
screens between them are the stage's, :mod:`.stage`).

Both kinds of trial begin the same way (:meth:`TrialBase._begin`: the first
frame is drawn and its flip time is the onset) and run the same frame loop
(:meth:`TrialBase._loop`): every press, release and key goes to the trial's
state machine (:mod:`tol_tasks.session_data.trial`), and each action it
returns is written to the log. What differs is drawn and logged by
:class:`ProblemTrial` and :class:`CopyTrial`.
"""

from __future__ import annotations

from collections.abc import Callable

from tol_tasks.display.layout import NOTICE_S
from tol_tasks.protocol_format.loaded import ProblemSpec
from tol_tasks.session_data import trial_rows as rows
from tol_tasks.session_data.detail import format_detail
from tol_tasks.session_data.trial import CopyState, TrialState
from tol_tasks.session_data.trial_rows import moves_text

from .results import ProblemResult
from .simulation import STALL_S
from .stage import (
    CONTROLS,
    QUIT_CONFIRM,
    RESUME_READY,
    AbortSession,
    Stage,
    on_screen,
    peg_actions,
)

__all__ = ["CONTROLS", "QUIT_CONFIRM", "RESUME_READY", "AbortSession", "CopyTrial",
           "ProblemTrial", "Stage", "feedback_text", "peg_actions"]  # fmt: skip


class TrialBase:
    """A trial on the board: its onset and its frame loop (shared by problems and copies)."""

    state: TrialState | CopyState

    def __init__(self, stage: Stage, spec: ProblemSpec, base: dict):
        self.stage = stage
        self.spec = spec
        self.base = base  # the columns every row of the trial carries
        self.first_pick: float | None = None
        self.drag = None
        self._onset: list[float] = []  # receives the onset (the first frame's flip time)
        self._counted = (0.0, None)  # the time a limit counts so far, and the clock then

    def limit_time(self, now: float) -> float:
        """The time the trial's limits count at session time ``now``.

        For a person, the time since the onset. For the simulated participant, that time
        times its speed, with each frame adding at most :data:`.simulation.STALL_S` of the clock: a
        stalled process does not eat the simulated participant's time.
        """
        if not self.stage.simulate:
            return now - self.t0
        counted, last = self._counted
        step = min(max(now - (self.t0 if last is None else last), 0.0), STALL_S)
        self._counted = (counted + step * self.stage.speed, now)
        return self._counted[0]

    def draw(self) -> None:  # pragma: no cover - each kind draws its own
        raise NotImplementedError

    @property
    def t0(self) -> float:
        """The onset: session time of the flip that first showed the trial."""
        return self._onset[0]

    def prepare(self) -> None:
        """Draw the trial once, unseen (into the back buffer, cleared at once), before its
        onset is due: the first drawing's one-time work (text layouts and textures: 44 ms
        for a session's first problem, 2.5 ms for the next, 2026-11-28) then falls while the
        screen before it still shows, not between the due onset and its first flip."""
        self.draw()
        self.stage.frames.win.clearBuffer()

    def _begin(self) -> float:
        """Draw the first frame and flip it: its flip time is the onset (returned)."""
        self.stage.trial = self.base["trial"]
        self._onset = self.stage.frames.next_flip_time(self.stage.clock)
        self.draw()
        self.stage.frames.start()
        self.stage.frames.flip()
        return self.t0

    def _on_event(self, ev, name: str, row: dict) -> None:
        if name == "pick_up" and self.first_pick is None:
            self.first_pick = ev.t - self.t0

    def _loop(self, areas, after_flip: Callable[[], None] | None = None) -> None:
        """The frame loop until the trial is done.

        Every press, release and key is turned into the trial's peg actions;
        each action it returns is logged and passed to :meth:`_on_event`.
        """
        st, trial, t0, base = self.stage, self.state, self.t0, self.base
        screen, mode = st.screen, st.model.input.mode
        peg_keys = list(st.model.input.keys or [])
        st.input.on_trial(trial, areas, st.clock.getTime())
        while not trial.done:
            for ev in on_screen(st.events(), t0):  # pressed before the onset: not meant for it
                results = peg_actions(ev, trial, mode, peg_keys, screen, areas)
                if mode == "drag" and ev.kind == "release":
                    self.drag = None
                for r in results:
                    name = r.pop("event")
                    st.write(time=ev.t, trial_time=ev.t - t0, x=ev.x, y=ev.y, input=ev.source,
                             stamp=ev.stamp, event_name=name, **base, **r)  # fmt: skip
                    self._on_event(ev, name, r)
            now = st.clock.getTime()
            st.input.after(trial, now)
            for r in trial.tick(self.limit_time(now)):
                st.write(time=now, trial_time=now - t0, stamp="clock",
                         event_name=r.pop("event"), **base, **r)  # fmt: skip
            if mode == "drag" and trial.held is not None and not st.simulate:
                self.drag = st.input.pointer()
            self.draw()
            st.frames.flip()
            if after_flip is not None:
                after_flip()

    def _stop(self, copy_of: int | None = None) -> tuple[str, float]:
        """Stop the frame record: the trial's frame statistics (as ``detail``) and its duration."""
        self.stage.trial = None
        frames = self.stage.frames.stop(self.base["trial"], self.spec.id, copy_of)
        return format_detail(frames), self.stage.clock.getTime() - self.t0


class ProblemTrial(TrialBase):
    """One attempt at a problem: onset, the frame loop, its end, and its feedback.

    :meth:`play` returns the attempt's :class:`ProblemResult`; if the quit key
    cuts it off, :attr:`result` holds the aborted result and
    :class:`AbortSession` goes on up.
    """

    def __init__(self, stage: Stage, spec: ProblemSpec, block: str, attempt: int, trial_no: int,
                 event_log: str):  # fmt: skip
        super().__init__(stage, spec, {"block": block, "trial": trial_no, "attempt": attempt,
                                       "problem_id": spec.id})  # fmt: skip
        self.state = TrialState(spec, stage.model.rules, attempt=attempt)
        self.event_log = event_log
        self.result: ProblemResult | None = None
        self.notice: tuple[str, float | None] | None = None
        screen, puzzle = stage.screen, spec.puzzle
        board, goal = stage.boards(puzzle)
        self.areas = board.pegs
        self.board = screen.board("board", puzzle, board)
        self.goal = screen.board("goal", puzzle, goal) if goal else None
        if self.goal is not None:
            self.goal.show(spec.goal)
        # The counters: moves from its left end, the time left up to its right end (Places).
        self.labels = {k: screen.label(k) for k in ("goal_label", "notice")}
        self.labels["moves"] = screen.label("moves", anchor="left")
        self.labels["time_left"] = screen.label("time_left", anchor="right")
        places = screen.places
        self.goal_pos = places.goal_label
        self.moves_pos = places.moves
        self.time_pos = places.time
        # The notice of an illegal move and the feedback: one place, covering no peg or piece.
        self.text_pos = (0.0, places.text_y)

    @property
    def outcome(self) -> str | None:
        return self.state.outcome

    def draw(self) -> None:
        st, trial, d, msg = self.stage, self.state, self.stage.model.display, self.stage.messages
        if self.goal is not None:
            self.labels["goal_label"].draw(msg["goal_label"], self.goal_pos)
            self.goal.draw()
        self.board.show(trial.state, trial.held, self.drag)
        self.board.draw()
        if d.show_move_counter:
            self.labels["moves"].draw(msg["moves_label"].format(moves=trial.moves), self.moves_pos)
        limit = self.spec.time_limit
        if d.show_time_left and limit and self._onset:
            left = max(0, limit - self.limit_time(st.clock.getTime()))
            self.labels["time_left"].draw(msg["time_label"].format(seconds=int(left + 0.999)),
                                          self.time_pos)  # fmt: skip
        if self.notice:
            text, until = self.notice
            now = st.clock.getTime()
            if until is None:  # its first frame: shown for its time from here, however late
                until = now + NOTICE_S / st.speed
                self.notice = (text, until)
            if now < until:
                self.labels["notice"].draw(text, self.text_pos)

    def prepare(self) -> None:
        """:meth:`TrialBase.prepare`, the time left too (drawn from the first frame on)."""
        limit = self.spec.time_limit
        if self.stage.model.display.show_time_left and limit:
            text = self.stage.messages["time_label"].format(seconds=int(limit + 0.999))
            self.labels["time_left"].draw(text, self.time_pos)
        super().prepare()

    def _on_event(self, ev, name: str, row: dict) -> None:
        super()._on_event(ev, name, row)
        if row.get("reason") and self.stage.model.display.show_illegal_message:
            text = self.stage.messages.get(f"illegal_{row['reason']}")
            if text:
                self.notice = (text, None)  # its time starts with the frame that shows it

    def play(self) -> ProblemResult:
        st, spec = self.stage, self.spec
        t0 = self._begin()
        onset = rows.onset_row(spec.start, spec.goal, spec.puzzle.code)
        st.write(onset.pop("event"), time=t0, trial_time=0.0, stamp="flip", **self.base, **onset)
        try:
            self._loop(self.areas)
        except AbortSession:
            self.result = self._end("aborted")
            raise
        self.result = self._end(self.state.outcome)
        return self.result

    def _end(self, outcome: str) -> ProblemResult:
        """Frame statistics, the trial_end row (not for an aborted attempt), the result."""
        detail, total = self._stop()
        trial, spec = self.state, self.spec
        if outcome != "aborted":
            end = rows.end_row(trial.state, trial.moves, trial.outcome, detail)
            self.stage.write(end.pop("event"), trial_time=total, **self.base, **end)
        return ProblemResult(
            problem_id=spec.id, block=self.base["block"], attempt=self.base["attempt"],
            start=str(spec.start), goal=str(spec.goal), min_moves=spec.min_moves,
            moves=trial.moves, solved=outcome == "solved", outcome=outcome,
            planning_time=self.first_pick, total_time=total, event_log=self.event_log,
        )  # fmt: skip

    def feedback(self) -> None:
        """Say whether the problem was solved (the feedback row), over the final board."""
        text = feedback_text(self.state, self.spec, self.stage.model.feedback, self.stage.messages)
        self.stage.write("feedback", detail=format_detail(text=text), **self.base)
        label = self.stage.screen.label("feedback")
        self.notice = None  # the feedback takes its place
        self.stage.wait(self.stage.model.timing.feedback_duration,
                        lambda: (self.draw(), label.draw(text, self.text_pos)))  # fmt: skip


def feedback_text(trial: TrialState, spec: ProblemSpec, kind: str, msg: dict[str, str]) -> str:
    """The feedback after an attempt: solved (with the moves, for ``kind`` ``moves``) or not."""
    if trial.outcome == "solved":
        if kind == "moves":
            return msg["moves_feedback"].format(moves=trial.moves, min_moves=spec.min_moves)
        return msg["solved"]
    lead = {"time_out": msg["time_out"], "move_limit": msg["move_limit"]}.get(trial.outcome, "")
    return (lead + " " + msg["not_solved"]).strip()


class CopyTrial(TrialBase):
    """A yoked copy trial of problem attempt ``copy_of``: the moves shown one at a time.

    The board is the problem's, in the same place and size, at the
    problem's start and without the goal; the piece to take is outlined and
    the peg to put it on marked. Each move shown is logged (``copy_cue``) with
    the flip that showed it.
    """

    def __init__(self, stage: Stage, spec: ProblemSpec, block: str, attempt: int, trial_no: int,
                 copy_of: int, sequence: list[tuple[int, int]], source: str):  # fmt: skip
        super().__init__(stage, spec, {"block": block, "trial": trial_no, "attempt": attempt,
                                       "problem_id": spec.id, "copy_of": copy_of})  # fmt: skip
        self.state = CopyState(spec, sequence, attempt=attempt)
        self.sequence = sequence
        self.source = source
        board = stage.boards(spec.puzzle)[0]
        self.areas = board.pegs
        self.board = stage.screen.board("board", spec.puzzle, board)
        self.label = stage.screen.label("copy_label")
        # The cue drawn last: [flip-time box, move index, piece, state]; logged once its flip is known.
        self.cue: list = [None, -1, None, ""]

    def draw(self) -> None:
        trial = self.state
        shown = trial.cue
        if shown is not None and self.cue[1] != trial.moves:
            self.cue[:] = [self.stage.frames.next_flip_time(self.stage.clock), trial.moves,
                           trial.top_piece(shown[0]), str(trial.state)]  # fmt: skip
        self.label.draw(self.stage.messages["copy_label"], self.stage.screen.places.copy_label)
        self.board.show(trial.state, trial.held, self.drag, cue=shown)
        self.board.draw()

    def _log_cue(self) -> None:
        box, k, piece, state = self.cue
        if box is not None and len(box) == 1:
            cue = rows.copy_cue_row(state, k, piece, self.sequence[k])
            self.stage.write(cue.pop("event"), time=box[0], trial_time=box[0] - self.t0,
                             stamp="flip", **self.base, **cue)  # fmt: skip
            box.append(None)  # logged

    def play(self, result: ProblemResult) -> None:
        """Run the copy; its outcome goes into ``result``'s ``copy_`` fields."""
        st, spec = self.stage, self.spec
        t0 = self._begin()
        onset = rows.onset_row(spec.start, self.state.end_state(), spec.puzzle.code,
                               {"source": self.source, "sequence": moves_text(self.sequence)},
                               copy=True)  # fmt: skip
        st.write(onset.pop("event"), time=t0, trial_time=0.0, stamp="flip", **self.base, **onset)
        self._log_cue()
        outcome = "aborted"
        try:
            self._loop(self.areas, after_flip=self._log_cue)
            outcome = self.state.outcome
        finally:
            self._end(outcome, result)
        st.wait(st.model.timing.inter_trial_interval)

    def _end(self, outcome: str, result: ProblemResult) -> None:
        detail, total = self._stop(self.base["copy_of"])
        trial = self.state
        if outcome != "aborted":
            end = rows.end_row(trial.state, trial.moves, outcome, detail, copy=True)
            self.stage.write(end.pop("event"), trial_time=total, **self.base, **end)
        result.copy_trial = self.base["trial"]
        result.copy_outcome = outcome
        result.copy_moves = trial.moves
        result.copy_refused = trial.refused
        result.copy_first_move_latency = self.first_pick
        result.copy_total_time = total
