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

The engine never closes or re-creates the window; it writes the event log and sidecar of
``tol-run`` (a thin shell over it), and one row per problem attempt to an ``ExperimentHandler``.

:class:`TowerTask` is a thin front: its plan (:mod:`tol_tasks.session_data.plan`) decides
what runs; the runner's modules carry it out: :mod:`.play` (the frame loop), :mod:`.session`
and :mod:`.metadata` (the record), :mod:`.window`, :mod:`.frames`, :mod:`.inputs`,
:mod:`.experiment` (the ExperimentHandler rows) and :mod:`.steps`.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from psychopy import logging as psychopy_logging

from tol_tasks.config import COPY_SOURCES
from tol_tasks.protocol_format.loaded import LoadedProtocol, ProblemSpec
from tol_tasks.protocol_format.model import Copy
from tol_tasks.protocol_format.problem import ProblemError, check_problem
from tol_tasks.session_data.eventlog import EventLogWriteError
from tol_tasks.session_data.plan import Attempt, End, SessionPlan
from tol_tasks.session_data.quality import run_warnings

from .experiment import ExperimentRows, TaskSetupError
from .frames import FrameRecorder
from .gaze import GazeError, regions
from .interrupt import Interrupts, SessionInterrupted
from .opening import open_session
from .play import AbortSession
from .prepare import Prepared, prepare
from .rescue import SessionStoppedError
from .results import EXPERIMENT_COLUMNS, ProblemResult, RunResult
from .session import SessionRecord, check_clock
from .settings import RunSettings
from .simulation import SimulatedTimes
from .window import check_window

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
    participant, session, output, language, input_timing, simulate, seed, speed, fsync, bids_names, extra_fields, new_attempt, quit_at_once, rescue, trigger_port, marker_port
        The run's settings: see :class:`~tol_tasks.runner.settings.RunSettings`,
        where each is declared, described and checked (``tol-run`` offers the
        same). ``simulate`` may be a :class:`SimulatedTimes` to fix the simulated
        participant's thinking and movement times. A session that already has
        a log in ``output`` is refused (:class:`~tol_tasks.runner.prepare.SessionExistsError`)
        unless ``new_attempt`` starts it again on purpose; one that runs in another process
        is refused (:class:`~tol_tasks.runner.lock.SessionLockedError`): the task holds the
        session's lock from here until the session ends or :meth:`close`.
    experiment : psychopy.data.ExperimentHandler, optional
        Gets one row per problem attempt (columns :data:`EXPERIMENT_COLUMNS`,
        prefixed with ``name.``).
    clock : psychopy.core.Clock, optional
        The caller's clock (Builder's ``globalClock``): time 0 of the session, which
        then counts on the monotonic clock (:func:`~tol_tasks.runner.clock.session_clock`).
        Without one, session time 0 is the first problem's start.
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
                 new_attempt: bool = False, quit_at_once: bool = False,
                 rescue: str | Path | None = None, trigger_port: str | None = None,
                 marker_port: str | None = None, experiment=None, clock=None,
                 name: str = "tower", next_entry: bool = True):  # fmt: skip
        check_window(win)
        rows = ExperimentRows(experiment, name, next_entry)
        settings = RunSettings(
            participant=participant, session=session, output=output, language=language,
            input_timing=input_timing, simulate=simulate, seed=seed, speed=speed, fsync=fsync,
            bids_names=bids_names, extra_fields=extra_fields or {}, new_attempt=new_attempt,
            quit_at_once=quit_at_once, rescue=rescue, trigger_port=trigger_port,
            marker_port=marker_port,
        )  # fmt: skip
        check_clock(clock)
        self._setup(win, prepare(settings, protocol), rows, clock, owns_window=False)

    @classmethod
    def from_prepared(cls, win, prepared: Prepared, *, experiment=None, clock=None,
                      name: str = "tower", next_entry: bool = True, owns_window: bool = False,
                      interrupts: Interrupts | None = None) -> TowerTask:  # fmt: skip
        """A task for a session already checked by :func:`~tol_tasks.runner.prepare.prepare`
        (its protocol read once, its settings, its files, or the session to resume).

        ``owns_window``: the caller opened the window for the task alone (``tol-run``;
        recorded in the sidecar). ``interrupts``: where the caller's signal handlers note
        a signal (:mod:`.interrupt`; ``tol-run``), which ends the session at its next frame.
        """
        check_window(win)
        rows = ExperimentRows(experiment, name, next_entry)
        check_clock(clock)
        task = cls.__new__(cls)
        task._setup(win, prepared, rows, clock, owns_window=owns_window, interrupts=interrupts)
        return task

    def _setup(self, win, prepared: Prepared, rows: ExperimentRows, clock, *,
               owns_window: bool, interrupts: Interrupts | None = None) -> None:  # fmt: skip
        self.win = win
        self.prepared = prepared
        self.settings = s = prepared.settings
        self.protocol: LoadedProtocol = prepared.protocol
        self.model = self.protocol.model
        self.language = s.language or self.model.instructions.default_language
        self.view = self.protocol.resolve(self.language)  # what it plays, as the browser does
        self.msg = self.view.messages
        self.plan = SessionPlan.for_session(self.protocol, s.participant, s.session,
                                            resume=prepared.resume, view=self.view)  # fmt: skip
        self.rows = rows
        self.results: list[ProblemResult] = []
        self.fallback_reason: str | None = None
        self._given_clock = clock
        self._owns_window = owns_window
        self._record: SessionRecord | None = None
        self._ran = False  # run() was called
        #: What the examiner should know about the recording, once the session has ended
        #: (dropped frames, polled stamps, attention lost, refresh rate off the declared one).
        self.warnings: list[str] = []
        #: Whether the protocol's quit key ends the session (False: a Builder experiment
        #: whose "Enable Escape" is off). Set before the first problem.
        self.quit_enabled = True
        self._interrupts = interrupts or Interrupts()

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
        (:meth:`run_problem` cannot be called after it: the session has ended).

        Raises
        ------
        SessionStoppedError
            A row or the sidecar could not be written where it belongs (the data folder
            lost or full): everything recorded is in the rescue folder, the message says
            where and how to resume.
        SessionNotStartedError
            The log or the first sidecar could not be written (nothing was recorded).
        SessionInterrupted
            A signal came before anything was written.
        """
        if self.status is not None:
            raise TaskSetupError(f"the session has ended ({self.status}); run() plays the protocol "
                                 "once.", fix="create a new TowerTask (another session number).")  # fmt: skip
        self._ran = True
        self._open()
        status, failure = "crashed", None
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
            try:
                self._record.abort(ab.t, ab.stamp)
            except EventLogWriteError as exc:
                failure = exc
        except SessionInterrupted:
            status = "interrupted"
        except EventLogWriteError as exc:
            failure = exc
        except BaseException as exc:
            self._record.sidecar.error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            end_error = self._finish(status, failure)
        if end_error is not None:
            raise end_error
        rec = self._record
        return RunResult(rec.events_path, rec.sidecar_path, rec.status, rec.log.rows_written,
                         **rec.counts(), signal=rec.sidecar.signal,
                         warnings=tuple(self.warnings))  # fmt: skip

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
            failure = None
            try:
                self._record.abort(ab.t, ab.stamp)
            except EventLogWriteError as exc:
                failure = exc
            end_error = self._finish("aborted", failure)
            if end_error is not None:
                raise end_error from None
        except EventLogWriteError as exc:
            raise self._finish("crashed", exc) or exc from None
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
        else:
            self.prepared.release()  # never opened: the session's lock goes

    def __enter__(self) -> TowerTask:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------ opening, ending
    def _open(self) -> None:
        """Open the input, the log and the sidecar at the first problem (once): see
        :func:`.opening.open_session`."""
        if self._record is None:
            open_session(self)

    def _write(self, event_name: str | None = None, **values) -> None:
        self._record.write(event_name, **values)

    def _finish(self, status: str, failure: EventLogWriteError | None = None
                ) -> SessionStoppedError | None:  # fmt: skip
        """End the record (never raises); the window is the caller's again, the lock goes.

        Returns the error to raise when the data could not all be written where they
        belong (then in the rescue folder)."""
        scan = getattr(getattr(self, "_steps", None), "scan", None)
        if scan is not None:
            self._record.sidecar.scanner = scan.record()
        gaze = getattr(self, "_gaze", None)
        if gaze is not None:
            with contextlib.suppress(GazeError):  # stopped first: the count is the file's
                gaze.stop()
            self._record.sidecar.eyetracking = gaze.record(
                regions(self._stage, self.model.task.puzzle())
            )
        try:
            return self._record.finish(status, self._stage.input, self._stage.frames,
                                       failure=failure, signal=self._interrupts.signal
                                       if status == "interrupted" else None)  # fmt: skip
        finally:
            self._window.restore()
            self._heap.release()
            self.prepared.release()
            self._warn()

    def _warn(self) -> None:
        try:
            meta = self._record.sidecar.model_dump(mode="json")
            self.warnings = run_warnings(meta, self.model.display.refresh_rate, self.language)
        except Exception as exc:  # pragma: no cover - the summary never stops the ending
            self.warnings = [f"the end-of-run summary could not be made: {exc}"]
        if not self._owns_window:  # tol-run (which owns its window) prints them itself
            for line in self.warnings:
                print(f"tol-tasks: warning: {line}", file=sys.stderr)
