"""The tower task engine: a protocol or single problems on a window the caller owns.

::

    from psychopy import visual, data
    from tol_tasks.runner import TowerTask

    win = visual.Window(fullscr=True, units="height")
    exp = data.ExperimentHandler(name="battery", dataFileName="data/P001_battery")
    task = TowerTask(win, "london-shallice", participant="P001", session=1,
                     output="data", experiment=exp)
    task.run()      # the whole protocol, then the session ends; or, instead of run(),
    # task.run_problem(start="GR|B|", goal="|RB|G")   # one problem at a time
    task.close()    # the window stays open

The engine never closes or re-creates the window. It writes the same event
log and sidecar as ``tol-run`` (which is a thin shell over it) and, given an
``ExperimentHandler``, adds one row per problem attempt to it.

:class:`TowerTask` is a thin front: what a session runs is decided by its
plan (:mod:`tol_tasks.session_data.plan`); it carries the plan's steps out
with the pieces of the runner, each in a module of its own: the trials'
frame loop (:mod:`.play`), the record of the session (:mod:`.session`, its
sidecar from :mod:`.metadata`), the window (:mod:`.window`), the frames
(:mod:`.frames`), the input sources (:mod:`.inputs`) and the
ExperimentHandler rows (:mod:`.experiment`); the steps are carried out by
:mod:`.steps`.
"""

from __future__ import annotations

import time
from pathlib import Path

from psychopy import core
from psychopy import logging as psychopy_logging

from tol_tasks.config import COPY_SOURCES
from tol_tasks.protocol_format.model import Copy, LoadedProtocol, ProblemSpec
from tol_tasks.protocol_format.problem import ProblemError, check_problem
from tol_tasks.session_data.eventlog import EventLog, EventLogWriteError
from tol_tasks.session_data.plan import Attempt, End, SessionPlan

from .experiment import ExperimentRows, TaskSetupError
from .frames import FrameRecorder
from .gaze import GazeRecorder, gaze_path, regions
from .markers import open_markers
from .metadata import continue_sidecar, session_sidecar, set_resumed_clock
from .play import AbortSession, Stage
from .prepare import Prepared, prepare
from .results import EXPERIMENT_COLUMNS, ProblemResult, RunResult
from .scanner import TappedInput, open_scan
from .screen import TaskScreen
from .session import SessionRecord, check_clock
from .settings import RunSettings
from .simulation import SimulatedTimes
from .sources import open_input
from .steps import StepRunner
from .window import WindowClaim, check_window

__all__ = ["EXPERIMENT_COLUMNS", "ProblemResult", "RunResult", "TaskSetupError", "TowerTask"]

# PsychoPy prints a warning per slow frame; dropped frames go into the data instead.
psychopy_logging.console.setLevel(psychopy_logging.ERROR)


class TowerTask:
    """Tower of Hanoi or Tower of London problems on a PsychoPy window the caller owns.

    Parameters
    ----------
    win : psychopy.visual.Window
        An open window. The engine draws in ``height`` units whatever the
        window's own units, sets the protocol's background while it runs and
        restores the window's colour on :meth:`close`. It never closes it.
    protocol : str, Path or LoadedProtocol
        A protocol file, a bundled protocol's name (``"london-shallice"``) or a
        loaded protocol. Its apparatus, display and input settings apply to
        :meth:`run_problem` too.
    participant, session, output, language, input_timing, simulate, seed, speed, fsync, bids_names, extra_fields, new_attempt, trigger_port, marker_port
        The run's settings: see :class:`~tol_tasks.runner.settings.RunSettings`,
        where each is declared, described and checked (``tol-run`` offers the
        same). ``simulate`` may be a :class:`SimulatedTimes` to fix the simulated
        participant's thinking and movement times. A session that already has
        a log in ``output`` is refused (:class:`~tol_tasks.runner.prepare.SessionExistsError`)
        unless ``new_attempt`` starts it again on purpose.
    experiment : psychopy.data.ExperimentHandler, optional
        Gets one row per problem attempt (columns :data:`EXPERIMENT_COLUMNS`,
        prefixed with ``name.``).
    clock : psychopy.core.Clock, optional
        The caller's clock; event times are read from it (recorded in the
        sidecar). Without one the engine starts its own at the first problem.
    name : str
        Prefix of the ExperimentHandler columns.
    next_entry : bool
        End the ExperimentHandler's row after each problem (Builder ends its own).

    Raises
    ------
    TolTasksError
        Before anything is drawn or written: an unknown protocol, a bad
        participant id or setting, an unwritable folder, a session that already
        has a log there, a closed window, an ``experiment`` that is not an
        ExperimentHandler.
    """

    def __init__(self, win, protocol, *, participant: str, session: int = 1,
                 output: str | Path = "data", language: str | None = None,
                 input_timing: str = "auto", simulate: bool | SimulatedTimes = False,
                 seed: int | None = None, speed: float = 1.0, fsync: bool = True,
                 bids_names: bool = False, extra_fields: dict | None = None,
                 new_attempt: bool = False, trigger_port: str | None = None,
                 marker_port: str | None = None, experiment=None, clock=None, name: str = "tower",
                 next_entry: bool = True):  # fmt: skip
        check_window(win)
        rows = ExperimentRows(experiment, name, next_entry)
        settings = RunSettings(
            participant=participant, session=session, output=output, language=language,
            input_timing=input_timing, simulate=simulate, seed=seed, speed=speed, fsync=fsync,
            bids_names=bids_names, extra_fields=extra_fields or {}, new_attempt=new_attempt,
            trigger_port=trigger_port, marker_port=marker_port,
        )  # fmt: skip
        check_clock(clock)
        self._setup(win, prepare(settings, protocol), rows, clock, owns_window=False)

    @classmethod
    def from_prepared(cls, win, prepared: Prepared, *, experiment=None, clock=None,
                      name: str = "tower", next_entry: bool = True,
                      owns_window: bool = False) -> TowerTask:  # fmt: skip
        """A task for a session already checked by :func:`~tol_tasks.runner.prepare.prepare`
        (its protocol read once, its settings, its files, or the session to resume).

        ``owns_window``: the caller opened the window for the task alone (``tol-run``;
        recorded in the sidecar).
        """
        check_window(win)
        rows = ExperimentRows(experiment, name, next_entry)
        check_clock(clock)
        task = cls.__new__(cls)
        task._setup(win, prepared, rows, clock, owns_window=owns_window)
        return task

    def _setup(self, win, prepared: Prepared, rows: ExperimentRows, clock, *,
               owns_window: bool) -> None:  # fmt: skip
        self.win = win
        self.prepared = prepared
        self.settings = s = prepared.settings
        self.protocol: LoadedProtocol = prepared.protocol
        self.model = self.protocol.model
        self.language = s.language or self.model.instructions.default_language
        self.msg = self.protocol.messages(self.language)
        self.plan = SessionPlan.for_session(self.protocol, s.participant, s.session,
                                            resume=prepared.resume)  # fmt: skip
        self.rows = rows
        self.results: list[ProblemResult] = []
        self.fallback_reason: str | None = None
        self._given_clock = clock
        self._owns_window = owns_window
        self._record: SessionRecord | None = None
        self._ran = False  # run() was called

    # ------------------------------------------------------------- public
    @property
    def status(self) -> str | None:
        """How the session ended (None while it has not)."""
        return self._record.status if self._record else None

    @property
    def aborted(self) -> bool:
        """True once the participant pressed the quit key."""
        return self.status == "aborted"

    @property
    def csv_path(self) -> Path:
        """The event log."""
        return self.prepared.log

    @property
    def json_path(self) -> Path:
        """The sidecar."""
        return self.prepared.sidecar

    @property
    def record(self) -> SessionRecord | None:
        """The session's log and sidecar (None before the first problem)."""
        return self._record

    @property
    def frames(self) -> FrameRecorder | None:
        """The session's flips and frame statistics (None before the first problem)."""
        return self._stage.frames if self._record is not None else None

    def run(self) -> RunResult:
        """Run the whole protocol (instructions, practice, blocks), then end the session
        (:meth:`run_problem` cannot be called after it: the session has ended)."""
        self._ran = True
        self._open()
        status = "crashed"
        try:
            if self.prepared.resume is not None:
                self._stage.ready_to_continue()
            walk = self.plan.walk()
            step = walk.next()
            while not isinstance(step, End):
                step = walk.next(self._steps.carry_out(step))
            status = "completed"
        except AbortSession as ab:
            status = "aborted"
            self._record.write("abort", time=ab.t, input="key")
        except EventLogWriteError as exc:
            self._record.sidecar.error = str(exc)  # status stays "crashed"; re-raised below
            raise
        finally:
            end_error = self._finish(status)
        if end_error is not None:
            raise end_error
        rec = self._record
        return RunResult(rec.events_path, rec.sidecar_path, rec.status, rec.log.rows_written)

    def run_problem(self, start, goal, *, problem_id: str | None = None,
                    time_limit: float | None = None, move_limit: int | None = None,
                    block: str = "problems", feedback: bool | None = None,
                    disks: int | None = None, copy: str | None = None,
                    copy_unsolved: bool = False) -> ProblemResult:  # fmt: skip
        """Run one problem on the protocol's apparatus; return its result.

        ``start`` and ``goal`` are state texts (``"GR|B|"``, ``"AAA"``) or one
        list per peg. The quit key ends the session: the result's outcome is
        ``aborted`` and :attr:`aborted` is True; later calls raise.

        ``copy``: ``"own"`` or ``"optimal"`` to follow the problem with a yoked
        copy trial (the participant's own moves, or a shortest solution, shown
        one at a time); ``copy_unsolved``: copy an unsolved problem too. See
        "Copy trials" in ``docs/protocols.md``.
        """
        if copy is not None and copy not in COPY_SOURCES:
            raise TaskSetupError(
                f"copy={copy!r} is not a kind of copy trial.", field="copy", value=copy,
                fix="use 'own' (the participant's own moves), 'optimal' (a shortest solution) "
                "or None (no copy).",
            )  # fmt: skip
        copies = Copy(moves=copy, unsolved="copy" if copy_unsolved else "skip") if copy else None
        if self.status is not None:
            ran = " (run() plays the whole protocol, then ends the session)" if self._ran else ""
            raise TaskSetupError(
                f"the session has ended ({self.status}){ran}; no more problems can be run in it.",
                fix="play single problems with run_problem() on a TowerTask whose run() is not "
                "called, or create a new TowerTask (another session number) for them.",
            )  # fmt: skip
        spec = self.problem(start, goal, problem_id=problem_id, time_limit=time_limit,
                            move_limit=move_limit, block=block, disks=disks)  # fmt: skip
        self._open()
        self._record.add_to_block(block, spec.id)
        show = self.plan.feedback if feedback is None else feedback
        self._window.claim()
        try:
            self._steps.attempt(Attempt(spec, block, 1, feedback=show, copies=copies, last=True))
        except AbortSession as ab:
            # The attempt's result is kept (outcome "aborted" if it was cut off, its own
            # outcome if the quit key came during its feedback); the session ends.
            self._record.write("abort", time=ab.t, input="key")
            self._finish("aborted")
        finally:
            # Between problems the window is the caller's again (its own background).
            self._window.restore()
        return self.results[-1]

    def problem(self, start, goal, *, problem_id: str | None = None,
                time_limit: float | None = None, move_limit: int | None = None,
                block: str = "problems", disks: int | None = None) -> ProblemSpec:  # fmt: skip
        """Check one problem on the protocol's apparatus without running it.

        Raises
        ------
        TolTasksError
            A state that does not parse, an unreachable goal, a goal equal to
            the start, or bad limits, with the value and the fix.
        """
        puzzle = self.model.task.puzzle(disks)
        where = f"problem {problem_id!r}" if problem_id else "run_problem"
        try:
            checked = check_problem(puzzle, start, goal, time_limit=time_limit,
                                    move_limit=move_limit, where=where)  # fmt: skip
        except ProblemError as exc:
            raise TaskSetupError(exc.message, where=exc.where, field=exc.field, value=exc.value,
                                 fix=exc.fix) from None  # fmt: skip
        pid = problem_id or f"p{len(self.results) + 1:02d}"
        return ProblemSpec(id=str(pid), block=block, puzzle=puzzle, start=checked.start,
                           goal=checked.goal, min_moves=checked.min_moves, time_limit=time_limit,
                           move_limit=int(move_limit) if move_limit is not None else None)  # fmt: skip

    def close(self, status: str = "completed") -> None:
        """End the session (if it has not ended), save the sidecar; the window stays open.

        ``status``: ``completed``, or ``aborted`` when the caller's experiment
        was ended early (e.g. Escape in another part of a Builder experiment).
        """
        if status not in ("completed", "aborted"):
            raise TaskSetupError(f"status={status!r} is not how a session can end.",
                                 field="status", value=status, fix="use 'completed' or 'aborted'.")  # fmt: skip
        if self._record is not None and self.status is None:
            end_error = self._finish(status)
            if end_error is not None:
                raise end_error
        elif self._record is not None:
            self._window.restore()

    def __enter__(self) -> TowerTask:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------ opening, ending
    def _open(self) -> None:
        """Open the log, the input and the sidecar at the first problem (once)."""
        if self._record is not None:
            return
        check_window(self.win)
        p, s = self.prepared, self.settings
        self._window = WindowClaim(self.win, self.model.display.background)
        self._window.claim()
        clock = self._given_clock or core.Clock()
        if p.resume:
            set_resumed_clock(clock, p.resume)
            log = EventLog.append(p.log, fsync=s.fsync)
        else:
            log = EventLog(p.log, fsync=s.fsync)
        screen = TaskScreen(self.win, self.protocol, self.msg)
        answers = tuple(k for b in self.model.blocks if b.planning for k in b.planning.keys or ())
        inp, self.fallback_reason = open_input(self.win, screen, clock, s, self.model.input,
                                               answers)  # fmt: skip
        scan = open_scan(self.model, clock, s, self._write)
        self._gaze = None
        if self.model.eyetracking is not None:
            self._gaze = GazeRecorder(self.win, self.model.eyetracking, clock, gaze_path(p.log))
        taps = [t for t in (scan, self._gaze) if t is not None]
        if taps:
            inp = TappedInput(inp, taps)
        frames = FrameRecorder(self.win)
        frames.measure_refresh(self.msg["preparing"])  # before anything of the task is drawn
        self._stage = Stage(screen, frames, inp, clock, self._write, self.protocol, self.msg,
                            speed=s.speed if s.simulate else 1.0, simulate=bool(s.simulate))  # fmt: skip
        sidecar = session_sidecar(
            p, language=self.language, win=self.win, stage=self._stage, clock=clock,
            own_clock=self._given_clock is None,
            clock_zero_monotonic=time.monotonic() - clock.getTime(),
            fallback_reason=self.fallback_reason, owns_window=self._owns_window,
            experiment=self.rows.reference(),
        )  # fmt: skip
        if p.resume:
            continue_sidecar(sidecar, p.resume)
        if self._gaze is not None:
            sidecar.eyetracking = self._gaze.record(regions(self._stage, self.model.task.puzzle()))
        sidecar.counterbalance = self.plan.counterbalance_record()
        frames.trials = sidecar.frames.trials  # one list: the recorder appends, the sidecar saves
        last_trial = p.resume.progress.last_trial if p.resume else 0
        self._record = SessionRecord(p, log, sidecar, clock, last_trial)
        self._record.markers = open_markers(self.model, clock, s)
        if self._record.markers is not None:
            sidecar.markers = self._record.markers.record()
        inp.on_lost = lambda t, reason: self._record.input_lost(t, reason, inp.method)
        self._record.save()
        self._record.begin(self.plan.form)
        self._steps = StepRunner(self._stage, self._record, self.rows, self.results,
                                 self.language, scan)  # fmt: skip

    def _write(self, event_name: str | None = None, **values) -> None:
        self._record.write(event_name, **values)

    def _finish(self, status: str) -> EventLogWriteError | None:
        """End the record (never raises); the window is the caller's again."""
        scan = getattr(self._steps, "scan", None)
        if scan is not None:
            self._record.sidecar.scanner = scan.record()
        if self._gaze is not None:
            self._gaze.take()
            self._record.sidecar.eyetracking = self._gaze.record(
                regions(self._stage, self.model.task.puzzle())
            )
        try:
            return self._record.finish(status, self._stage.input, self._stage.frames)
        finally:
            self._window.restore()
