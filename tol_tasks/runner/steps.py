"""Carrying out the session plan's steps on a running session.

Each step of :mod:`tol_tasks.session_data.plan` is done here: the instruction
pages and messages on the screen, a block's start and a discontinue in the
record, and an attempt: the problem (:class:`~.play.ProblemTrial`), its
feedback and pause, and the yoked copy trial that follows it when rule R7
says so, its result added to the ExperimentHandler whatever happens.
"""

from __future__ import annotations

import sys

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
from .play import AbortSession, CopyTrial, ProblemTrial, Stage
from .results import ProblemResult
from .session import SessionRecord


class StepRunner:
    """Carries out steps on ``stage``, writing to ``record``; each attempt's result goes to
    ``results`` and to the ExperimentHandler ``rows``."""

    def __init__(self, stage: Stage, record: SessionRecord, rows: ExperimentRows,
                 results: list[ProblemResult], language: str):  # fmt: skip
        self.stage = stage
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
            stage.instructions(self.language)
        elif isinstance(step, Message):
            stage.message(stage.messages[step.key], step.seconds)
        elif isinstance(step, Pause):
            stage.pause(stage.messages[step.key], f"pause-{step.block}")
        elif isinstance(step, BlockPages):
            stage.block_pages(step.block, self.language)
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
        trial = ProblemTrial(stage, step.problem, step.block, step.attempt, rec.next_trial(),
                             rec.events_path.name)  # fmt: skip
        try:
            result = trial.play()
        except AbortSession:
            self.results.append(trial.result)
            self.rows.add(trial.result)
            raise
        self.results.append(result)
        try:
            if step.feedback:
                trial.feedback()
            stage.wait(stage.model.timing.inter_trial_interval)
            if copy_follows(step, trial.outcome):
                self._copy(step, trial, result)
        finally:
            self.rows.add(result)
        return trial.outcome

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
