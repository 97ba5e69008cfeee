"""A planning-only trial (One Touch Stockings style): the start and the goal, a row of numbered
boxes, and the participant's choices of how many moves the solution needs.

Logged rows: ``planning_onset`` (the flip that showed it; ``state``, ``goal``, ``puzzle``,
``detail``: the choices and the fewest moves), one ``choice`` per answer (its press or key
time, ``trial_time`` the latency from the onset, ``moves`` the number chosen, ``reason``
``correct`` or ``wrong``), and ``planning_end`` (``reason`` ``solved``, ``wrong`` when the
first choice ends the problem and was wrong, or ``time_out``; ``moves`` the choices made).
Nothing moves on the board.
"""

from __future__ import annotations

from psychopy import visual

from tol_tasks.display.planning import planning_screen
from tol_tasks.protocol_format.loaded import ProblemSpec
from tol_tasks.protocol_format.planning import Planning
from tol_tasks.session_data.detail import format_detail

from .play import TrialBase
from .results import ProblemResult
from .stage import AbortSession, Stage, on_screen

#: Seconds the simulated participant thinks before it answers (divided by its speed).
SIMULATED_THINK = 1.0


class PlanningTrial(TrialBase):
    """One planning-only problem (see the module's description)."""

    def __init__(self, stage: Stage, spec: ProblemSpec, block: str, attempt: int, trial_no: int,
                 planning: Planning, event_log: str):  # fmt: skip
        super().__init__(stage, spec, {"block": block, "trial": trial_no, "attempt": attempt,
                                       "problem_id": spec.id})  # fmt: skip
        self.planning = planning
        self.event_log = event_log
        screen, puzzle = stage.screen, spec.puzzle
        # The display model's planning screen (the browser draws the same), in height units.
        self.layout = layout = planning_screen(
            puzzle, stage.model.display, screen.layout.board.largest, len(planning.choices)
        ).scaled(screen.fit)
        view = layout.view
        self.areas = view.board.pegs
        self.board = screen.board("planning-board", puzzle, view.board)
        self.goal = screen.board("planning-goal", puzzle, view.goal)
        self.board.show(spec.start)
        self.goal.show(spec.goal)
        self.goal_top = view.places.goal_label[1]
        self.label = screen.label("goal_label")
        d, win, box = stage.model.display, screen.win, layout.box
        self.boxes = [visual.Rect(win, width=box, height=box, pos=c, units="height",
                                  lineColor=d.text_color, fillColor=None, lineWidth=2)
                      for c in layout.boxes]  # fmt: skip
        self.numbers = [visual.TextStim(win, text=str(v), pos=c, height=layout.text_height,
                                        units="height", color=d.text_color)
                        for v, c in zip(planning.choices, layout.boxes, strict=True)]  # fmt: skip
        self.choices: list[tuple[int, float]] = []  # (number chosen, latency)
        self.outcome: str | None = None

    def draw(self) -> None:
        self.label.draw(self.stage.messages["goal_label"], (0, self.goal_top))
        self.goal.draw()
        self.board.draw()
        for box, number in zip(self.boxes, self.numbers, strict=True):
            box.draw()
            number.draw()

    def _box_at(self, px: float, py: float) -> int | None:
        return self.layout.box_at(*self.stage.screen.to_units(px, py))

    def _chosen(self, ev) -> int | None:
        """The box an input event chooses (None: not a choice)."""
        keys = self.planning.keys
        if ev.kind == "key":
            return keys.index(ev.key) if keys and ev.key in keys else None
        if keys is None and ev.kind == "press" and ev.x is not None:
            return self._box_at(ev.x, ev.y)
        return None

    def play(self) -> ProblemResult:
        st, spec = self.stage, self.spec
        t0 = self._begin()
        st.write("planning_onset", time=t0, trial_time=0.0, state=str(spec.start),
                 goal=str(spec.goal), puzzle=spec.puzzle.code, stamp="flip",
                 detail=format_detail(choices=",".join(map(str, self.planning.choices)),
                                      min_moves=spec.min_moves), **self.base)  # fmt: skip
        limit = spec.time_limit
        st.input.on_page(t0)
        try:
            while self.outcome is None:
                for ev in on_screen(st.events(), t0):  # pressed before the onset: not for it
                    if limit is not None and ev.t - t0 >= limit:  # the time limit came first
                        self.outcome = "time_out"
                        break
                    k = self._chosen(ev)
                    if k is not None:
                        self._choose(
                            self.planning.choices[k], ev.t, ev.source, ev.stamp, ev.x, ev.y
                        )
                        if self.outcome is not None:
                            break
                now = st.clock.getTime()
                if self.outcome is None and st.simulate and now - t0 >= SIMULATED_THINK / st.speed:
                    self._choose(spec.min_moves, now, "simulated", "clock", None, None)
                if self.outcome is None and limit is not None and self.limit_time(now) >= limit:
                    self.outcome = "time_out"
                if self.outcome is None:
                    self.draw()
                    st.frames.flip()
        except AbortSession:  # the quit key: no planning_end row, as for a moves problem
            self.result = self._end("aborted")
            raise
        self.result = self._end(self.outcome)
        return self.result

    def _end(self, outcome: str) -> ProblemResult:
        """Frame statistics, the planning_end row (not for an aborted problem), the result."""
        st, spec = self.stage, self.spec
        detail, total = self._stop()
        if outcome != "aborted":
            st.write("planning_end", trial_time=total, reason=outcome, moves=len(self.choices),
                     detail=detail, **self.base)  # fmt: skip
        firsts = self.choices[:1]
        # For the ExperimentHandler: moves is the number of choices, planning_time the latency
        # to the first choice (tol-score's planning.csv has the measures).
        return ProblemResult(
            problem_id=spec.id, block=self.base["block"], attempt=self.base["attempt"],
            start=str(spec.start), goal=str(spec.goal), min_moves=spec.min_moves,
            moves=len(self.choices), solved=outcome == "solved", outcome=outcome,
            planning_time=firsts[0][1] if firsts else None, total_time=total,
            event_log=self.event_log,
        )  # fmt: skip

    def _choose(self, number: int, t: float, source: str, stamp: str, x, y) -> None:
        right = number == self.spec.min_moves
        latency = t - self.t0
        self.choices.append((number, latency))
        self.stage.write("choice", time=t, trial_time=latency, moves=number,
                         reason="correct" if right else "wrong", input=source, stamp=stamp,
                         x=x, y=y, **self.base)  # fmt: skip
        if right:
            self.outcome = "solved"
        elif not self.planning.until_correct:
            self.outcome = "wrong"
