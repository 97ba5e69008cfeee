"""Carrying out the session plan's steps on a running session.

Each step of :mod:`tol_tasks.session_data.plan` is done here: the instruction
pages and messages on the screen, a block's start and a discontinue in the
record, and an attempt: the problem (:class:`~.play.ProblemTrial`), its
feedback and pause, and the yoked copy trial that follows it when rule R7
says so, its result added to the ExperimentHandler whatever happens.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable

from tol_tasks.session_data.detail import format_detail
from tol_tasks.session_data.plan import (
    MESSAGE_SECONDS,
    Attempt,
    BlockPages,
    BlockStart,
    Discontinue,
    Instructions,
    Message,
    Pause,
    Step,
    copy_follows,
)
from tol_tasks.session_data.trial import copy_sequence

from .experiment import ExperimentRows
from .planning import PlanningTrial
from .play import AbortSession, CopyTrial, ProblemTrial
from .results import ProblemResult
from .scanner import ScanClock
from .session import SessionRecord
from .stage import Stage


class StepRunner:
    """Carries out steps on ``stage``, writing to ``record``; each attempt's result goes to
    ``results`` and to the ExperimentHandler ``rows``."""

    def __init__(self, stage: Stage, record: SessionRecord, rows: ExperimentRows,
                 results: list[ProblemResult], language: str,
                 scan: ScanClock | None = None):  # fmt: skip
        self.stage = stage
        self.scan = scan
        #: The planning-only blocks (name -> their Planning): their problems are answered.
        self._planning = {b.name: b.planning for b in stage.model.blocks if b.planning}
        self.record = record
        self.rows = rows
        self.results = results
        self.language = language
        self._copy_shown = False
        self._copies_refused = False

    def carry_out(self, step: Step) -> str | None:
        """Carry out one step of the plan; an attempt's outcome, else None."""
        stage = self.stage
        if isinstance(step, Attempt):
            return self.attempt(step)
        if isinstance(step, Instructions):
            stage.instructions()
        elif isinstance(step, Message):
            stage.message(stage.messages[step.key], step.seconds)
        elif isinstance(step, Pause):
            stage.pause(stage.messages[step.key], f"pause-{step.block}")
        elif isinstance(step, BlockPages):
            stage.block_pages(step.block)
        elif isinstance(step, BlockStart):
            self.record.start_block(step)
        elif isinstance(step, Discontinue):
            self.record.discontinue(step.block, step.failures)
        else:  # pragma: no cover - a step kind the plan added and the runner does not know
            raise TypeError(f"the runner cannot carry out a {step.kind!r} step")
        return None

    def attempt(self, step: Attempt) -> str:
        """One attempt: the problem, its feedback and pause, and a copy trial if one follows."""
        stage, rec = self.stage, self.record
        locked = due = None
        if self.scan is not None and not step.problem.practice:
            step, due, locked = self.scan_slot(step)
        trial = self._trial(step, rec.next_trial())
        planning = trial.planning if isinstance(trial, PlanningTrial) else None
        if due is not None:  # the lead-in, or the rest of the last slot: the trial is ready
            fixate(stage, self.record, due, None, prepare=trial.prepare)
        try:
            result = trial.play()
        except AbortSession:
            self.results.append(trial.result)
            self.rows.add(trial.result)
            raise
        self.results.append(result)
        try:
            if step.feedback and planning is None:
                trial.feedback()
            if locked is not None:
                fixate(stage, self.record, *locked)
            else:
                stage.wait(stage.model.timing.inter_trial_interval)
            if planning is None and copy_follows(step, trial.outcome):
                self._copy(step, trial, result)
        finally:
            self.rows.add(result)
        return trial.outcome

    def _trial(self, step: Attempt, number: int) -> ProblemTrial | PlanningTrial:
        """The trial of ``step`` (its number in the session ``number``), not begun."""
        rec = self.record
        planning = self._planning.get(step.block) if not step.problem.practice else None
        if planning is not None:
            return PlanningTrial(self.stage, step.problem, step.block, step.attempt, number,
                                 planning, rec.events_path.name)  # fmt: skip
        return ProblemTrial(self.stage, step.problem, step.block, step.attempt, number,
                            rec.events_path.name)  # fmt: skip

    def scan_slot(self, step: Attempt) -> tuple[Attempt, float | None, tuple | None]:
        """Before a test problem in a scanner session: wait for the scan to start (the first
        time; the problem drawn once, unseen, meanwhile); with a design, the problem's time
        limit held to its slot, its scheduled onset, and the fixation that follows it (its
        scheduled end and drawn duration)."""
        scan, stage = self.scan, self.stage
        design = scan.spec.design
        if design is not None:
            spec = step.problem
            if spec.time_limit is None or spec.time_limit > design.trial_duration:
                spec = dataclasses.replace(spec, time_limit=design.trial_duration)
                step = dataclasses.replace(step, problem=spec)
        if scan.start is None:
            # Its first drawing's one-time work done before the scan, not after its start.
            wait_for_scan(stage, scan, prepare=lambda: self._trial(step, 0).prepare())
            self.record.sidecar.scanner = scan.record()
            self.record.save(beside=True)  # the first problem is due: no wait for the disk
        due = scan.next_onset
        if due is None:  # no design: the problem as the protocol says
            return step, None, None
        return step, due, scan.slot_ended()

    def _copy(self, step: Attempt, trial: ProblemTrial, result: ProblemResult) -> None:
        """The yoked copy trial of ``trial`` (rule R7 of the plan)."""
        if self.record.log.version < 2:
            self._warn_no_copies()
            return
        spec = step.problem
        sequence = copy_sequence(spec.puzzle, spec.start, spec.goal, trial.state.placed,
                                 step.copies.moves)  # fmt: skip
        if not sequence:  # an own-moves copy of an attempt without a completed move
            return
        if not self._copy_shown:
            self.stage.message(self.stage.messages["copy_start"], MESSAGE_SECONDS["copy_start"])
            self._copy_shown = True
        copy = CopyTrial(self.stage, spec, step.block, step.attempt, self.record.next_trial(),
                         trial.base["trial"], sequence, step.copies.moves)  # fmt: skip
        copy.play(result)

    def _warn_no_copies(self) -> None:
        """A resumed format 1 log has no copy_of column: its session runs no copies."""
        if not self._copies_refused:
            self._copies_refused = True
            print(f"tol-tasks: warning: {self.record.events_path} is a format 1 event log "
                  "(written before copy trials); the resumed session runs no copy trials. "
                  "Start a new session to have them.", file=sys.stderr)  # fmt: skip


def wait_for_scan(
    stage: Stage, scan: ScanClock, *, prepare: Callable[[], None] | None = None
) -> None:
    """The waiting screen until the first counted volume (every trigger logged meanwhile; the
    quit key still works). ``prepare``: called before the screen shows (the operator starts
    the scanner once it shows: no trigger waits on it)."""
    label = stage.screen.label("message", small=False)
    text = stage.messages["scanner_wait"]
    if prepare is not None:
        prepare()
    while scan.start is None:
        stage.events()  # the input source takes the triggers; the quit key still works
        label.draw(text)
        stage.frames.flip()


def fixate(
    stage: Stage,
    record: SessionRecord,
    due: float,
    drawn: float | None,
    *,
    prepare: Callable[[], None] | None = None,
) -> None:
    """A fixation cross until the flip that comes at ``due`` (session time): the last flip
    is the one before ``due`` less half a frame, so the next screen is shown on the first
    frame at or after it. A ``fixation`` row with its first flip, the time it is due to end
    and the drawn duration (None: the lead-in, or the rest of a slot).

    ``prepare``: called once the cross shows (the next trial's unseen first drawing,
    :meth:`~tol_tasks.runner.play.TrialBase.prepare`), so that its one-time work is done
    while the cross stays on the screen, not between ``due`` and the trial's first flip."""
    clock, frames = stage.clock, stage.frames
    half = 0.5 / frames.refresh if frames.refresh else 1 / 120
    if clock.getTime() + half >= due:
        return
    cross = stage.screen.label("message", small=False)
    shown = None
    while clock.getTime() + half < due:
        stage.events()
        cross.draw("+")
        flip = frames.next_flip_time(clock) if shown is None else None
        frames.flip()
        if shown is None:
            shown = flip[0]
            detail = {"until": due, **({"drawn": drawn} if drawn is not None else {})}
            record.write("fixation", time=shown, stamp="flip", detail=format_detail(detail))
            if prepare is not None:
                prepare()
