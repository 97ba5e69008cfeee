"""Opening a session: its input, window, log and sidecar, in the order that keeps a session
cut off at any instant whole (see :func:`open_session`)."""

from __future__ import annotations

import dataclasses
import time

from tol_tasks.session_data.eventlog import EventLogWriteError
from tol_tasks.session_data.livelog import EventLog

from .clock import session_clock
from .files import next_session_paths
from .focus import FocusWatch
from .frames import FrameRecorder
from .gaze import GazeRecorder, gaze_path, regions
from .heap import FrozenHeap
from .markers import open_markers
from .metadata import continue_sidecar, session_sidecar, set_resumed_clock
from .play import Stage
from .rescue import SessionNotStartedError, SidecarWriteError
from .scanner import TappedInput, open_scan
from .screen import TaskScreen
from .session import SessionRecord
from .sources import open_input
from .steps import StepRunner
from .window import WindowClaim, check_window


def open_session(task) -> None:
    """Open the input, the log and the sidecar of ``task`` (a
    :class:`~tol_tasks.runner.engine.TowerTask`) at its first problem.

    Everything slow (the input source, the refresh rate) comes first; the log and the
    sidecar are then written one right after the other, so that a session cut off at
    any moment leaves nothing, a log its sidecar lets ``--resume`` continue, or a log
    that never started (no event; kept, and recognised as such, never blocking).
    """
    task._interrupts.armed = True  # from here, a signal ends the session at a frame
    try:
        _open_record(task)
    except BaseException:
        stage = getattr(task, "_stage", None)
        if stage is not None:
            stage.input.close()
        if getattr(task, "_window", None) is not None:
            task._window.restore()
        if getattr(task, "_heap", None) is not None:
            task._heap.release()
        task.prepared.release()
        raise


def _open_record(task) -> None:
    check_window(task.win)
    p, s = task.prepared, task.settings
    task._window = WindowClaim(task.win, task.model.display.background)
    task._window.claim()
    # A change of the computer's time moves it not (a caller's clock only sets where 0 is).
    clock = session_clock(task._given_clock)
    if p.resume:
        set_resumed_clock(clock, p.resume)  # before the input reads the clock
    screen = TaskScreen(task.win, task.protocol, task.msg)
    model = task.model
    answers = tuple(k for b in model.blocks if b.planning for k in b.planning.keys or ())
    inp, task.fallback_reason = open_input(task.win, screen, clock, s, model.input, answers)
    # The scanner's triggers and the eye tracker's samples are taken at every poll; the
    # eye tracker (ioHub) and the markers (LSL may wait for its recorder) start before the log.
    scan = open_scan(model, clock, s, task._write)
    task._gaze = None
    if model.eyetracking is not None:
        task._gaze = GazeRecorder(task.win, model.eyetracking, clock, gaze_path(p.log))
    focus = FocusWatch.install(task.win, clock, task._write, [])  # attention_lost/back rows
    taps = [t for t in (scan, task._gaze, focus) if t is not None]
    if taps:
        inp = TappedInput(inp, taps)
    markers = open_markers(model, clock, s)
    frames = FrameRecorder(task.win)
    task._stage = Stage(screen, frames, inp, clock, task._write, task.protocol, task.view,
                        speed=s.speed if s.simulate else 1.0, simulate=bool(s.simulate),
                        interrupts=task._interrupts, confirm_quit=not s.quit_at_once,
                        quit_enabled=task.quit_enabled)  # fmt: skip
    task._heap = FrozenHeap()  # no full collection of the start-up's objects in a trial
    frames.measure_refresh(task.msg["preparing"])  # before anything of the task is drawn
    sidecar = session_sidecar(
        p, language=task.language, win=task.win, stage=task._stage, clock=clock,
        clock_zero_monotonic=time.monotonic() - clock.getTime(),
        fallback_reason=task.fallback_reason, owns_window=task._owns_window,
        experiment=task.rows.reference(),
    )  # fmt: skip
    if p.resume:
        continue_sidecar(sidecar, p.resume)
    if task._gaze is not None:
        sidecar.eyetracking = task._gaze.record(regions(task._stage, model.task.puzzle()))
    if markers is not None:
        sidecar.markers = markers.record()
    sidecar.counterbalance = task.plan.counterbalance_record()
    frames.trials = sidecar.frames.trials  # one list: the recorder appends, the sidecar saves
    if focus is not None:
        focus.lost = sidecar.window.focus_lost  # likewise
    task._stage.quit_prompts = sidecar.quit_prompts
    task._interrupts.check()  # a signal while starting: nothing is written
    last_trial = p.resume.progress.last_trial if p.resume else 0
    try:
        if p.resume:
            log = EventLog.append(p.log, fsync=s.fsync, watch=True)
        else:
            log, p = _new_log(task, sidecar)
    except OSError as exc:
        raise SessionNotStartedError(
            p, f"{p.log} could not be written ({exc.strerror or exc})"
        ) from None
    record = SessionRecord(p, log, sidecar, clock, last_trial)
    record.input_source = inp
    record.markers = markers
    try:
        record.save()
    except SidecarWriteError as exc:
        log.close()
        raise SessionNotStartedError(p, exc.message.split("; every row")[0]) from None
    task._record = record
    inp.on_lost = lambda t, reason: task._record.input_lost(t, reason, inp.method)
    task._steps = StepRunner(task._stage, task._record, task.rows, task.results,
                             task.language, scan)  # fmt: skip
    try:
        task._record.begin(task.plan.form)
    except EventLogWriteError as exc:
        raise task._finish("crashed", exc) or exc from None


def _new_log(task, sidecar) -> tuple[EventLog, object]:
    """A new session's log, created (never over a file) under the name :func:`.prepare` chose;
    if another session of the participant took that name first (started in the same
    millisecond into the same folder, as two sessions started at once can be), under the
    next free one (:func:`.files.next_session_paths`), which the sidecar and the samples
    file then follow. Returns the log and the session's :class:`~.prepare.Prepared`."""
    p = task.prepared
    while True:
        try:
            log = EventLog(p.log, fsync=task.settings.fsync, watch=True)
        except FileExistsError:
            log_path, sidecar_path = next_session_paths(p.log)
            if task._gaze is not None:
                task._gaze.rename(gaze_path(log_path))
                sidecar.eyetracking.samples_file = task._gaze.path.name
            p = task.prepared = dataclasses.replace(p, log=log_path, sidecar=sidecar_path)
            sidecar.event_log = log_path.name
            continue
        return log, p
