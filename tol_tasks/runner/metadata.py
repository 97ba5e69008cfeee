"""The sidecar of a session recorded in PsychoPy: every section filled from the window, the
clock, the input and the protocol; and, on a resume, what the interrupted session's sidecar
keeps."""

from __future__ import annotations

import platform
import sys
import time

import psychopy

from tol_tasks import __version__
from tol_tasks.session_data.eventlog import EVENT_LOG_VERSION
from tol_tasks.session_data.resume import ResumePlan
from tol_tasks.session_data.sidecar import (
    Frames,
    Layout,
    PegRect,
    ProtocolCopy,
    Recorder,
    ResumeRecord,
    Screen,
    Sidecar,
    Simulation,
    Software,
    Timing,
    Window,
)

from .clock import COUNTER
from .events import HOLD_S
from .prepare import Prepared
from .screen import UNITS

#: How each on-arrival method stamps, in seconds (polled input: one frame).
_ARRIVAL_RESOLUTION_S = {"xinput2-raw": 0.001, "iohub": 0.001}


_HOLD_MS = round(HOLD_S * 1000)
#: How the two copies of each press were paired, in words (the sidecar's input_reconciled).
_RECONCILED = {
    "ident": "each press, release and key is handled once: the on-arrival source's copy and "
    "the window's are paired by the X server's own time of the event (the same for both), "
    "whatever the delay between them; the paired press keeps the arrival stamp and the "
    "window's position; a window event without a twin is handled, stamped polled and counted "
    "(unmatched_presses, unmatched_keys) once the source has confirmed, by a round trip to "
    "the X server, that it has none",
    "ident-hold": "each press, release and key is handled once: the on-arrival source's copy "
    "and the window's are paired by the X server's own time of the event (the same for both), "
    "whatever the delay between them; the paired press keeps the arrival stamp and the "
    f"window's position; a window event whose twin has not come within {_HOLD_MS} ms is handled, "
    "stamped polled, and counted (unmatched_presses, unmatched_keys) unless its twin comes "
    "later, which is then known by that time and dropped (late_twins)",
    "time": "each press, release and key is handled once: the on-arrival source's copy and "
    "the window's are paired by their stamps (same kind and key, closest in time); a window "
    f"event whose twin has not come within {_HOLD_MS} ms is handled, stamped polled, and counted "
    "(unmatched_presses, unmatched_keys) unless its twin comes later, which is then dropped "
    "(late_twins)",
    "polled": "no on-arrival source: every press is the window's own, stamped polled",
}


def inp_mode(inp) -> str:
    """How the session's input pairs its streams: ``ident``, ``time`` or ``polled``."""
    inp = getattr(inp, "inner", inp)  # under the scanner's, eye tracker's or focus's taps
    reconciler = getattr(inp, "reconciler", None)
    return reconciler.mode if reconciler is not None else "polled"


def now_iso() -> str:
    """The local time now, ISO 8601 to the second (the sidecar's start and end times)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def session_sidecar(prepared: Prepared, *, language: str, win, stage, clock,
                    clock_zero_monotonic: float, fallback_reason: str | None,
                    owns_window: bool, experiment) -> Sidecar:  # fmt: skip
    """The sidecar of a new session (status ``incomplete``), as the session starts.

    ``stage``: the session's :class:`~tol_tasks.runner.play.Stage` (its screen,
    input and frames); ``clock``: the session's
    :class:`~tol_tasks.runner.clock.SessionClock` (its ``origin`` is recorded).
    """
    lp, s = prepared.protocol, prepared.settings
    inp, refresh = stage.input, stage.frames.refresh
    probe = stage.view.layout_puzzle
    areas = stage.boards(probe)[0].pegs  # the participant's board, as the trials draw it
    try:
        position = [int(v) for v in win.winHandle.get_location()]
    except Exception:  # pragma: no cover - some backends cannot tell
        position = None
    clock_source = (f"the session's clock (tol_tasks.runner.clock.SessionClock, on time."
                    f"{COUNTER.__name__}, which a change of the computer's time does not move), "
                    f"{getattr(clock, 'origin', 'zero at session start')}; clock_zero: "
                    "psychopy.clock.getTime() at session time 0, as of session start")  # fmt: skip
    reading = f"time.{COUNTER.__name__}() at the event less at session time 0"
    if inp.method in _ARRIVAL_RESOLUTION_S:
        resolution = _ARRIVAL_RESOLUTION_S[inp.method]
    else:
        resolution = (1 / refresh) if refresh and refresh <= 300 else None
    times = s.simulated_times  # the simulated participant's (None: a person)
    return Sidecar(
        event_log=prepared.log.name,
        event_log_version=EVENT_LOG_VERSION,
        participant=s.participant,
        session=s.session,
        session_attempt=len(prepared.earlier) + 1,
        earlier_attempts=list(prepared.earlier),
        extra_fields=s.extra_fields,
        language=language,
        instruction_pages=[page.text for page in stage.view.pages],
        start_time=now_iso(),
        recorder=Recorder(
            name="tol-run" if owns_window else "TowerTask",
            version=__version__,
            runtime=f"PsychoPy {psychopy.__version__}",
        ),
        protocol=ProtocolCopy(
            name=lp.name,
            version=lp.model.version,
            path=str(lp.path) if lp.path else None,
            sha256=lp.sha256,
            text=lp.text,
        ),
        software=Software(
            tol_tasks=__version__,
            psychopy=psychopy.__version__,
            python=sys.version.split()[0],
            os=platform.platform(),
        ),
        screen=Screen(
            index=lp.model.display.screen,
            size=[int(v) for v in win.monitor.getSizePix() or win.size],
        ),
        window=Window(
            size=[int(v) for v in win.size],
            position=position,
            fullscreen=bool(win._isFullScr),
            units=UNITS,
            owner="tol-run" if owns_window else "caller",
        ),
        refresh_rate_hz=refresh,
        timing=Timing(
            clock=f"{clock_source}; every event and flip; session time = {reading}",
            clock_function="psychopy.clock.getTime",
            clock_zero=clock.getLastResetTime(),
            clock_zero_monotonic=clock_zero_monotonic,
            input_method=inp.method,
            input_fallback_reason=fallback_reason,
            input_reconciled=_RECONCILED.get(inp_mode(inp), _RECONCILED["time"]),
            unmatched_presses=0,
            unmatched_keys=0,
            late_twins=0,
            expected_resolution_s=resolution,
            trial_onset="callOnFlip of the first frame showing the problem",
            frame_work="from the return of one flip to the call of the next (input polling "
            "and drawing), per trial and for the session",
        ),
        frames=Frames(),
        layout=Layout(
            puzzle=probe.code,
            pegs=[PegRect(**r) for r in stage.screen.pixel_rects(areas)],
            coordinates="window pixels from the top-left",
        ),
        simulate=(Simulation(seed=s.seed, speed=stage.speed, **times.as_dict()) if times else None),
        experiment=experiment,
    )


def continue_sidecar(new: Sidecar, resume: ResumePlan) -> Sidecar:
    """The sidecar of a resumed session: ``new`` with what the interrupted one keeps (its start
    time, participant fields, block orders, frames and focus losses) and one more entry in ``resumes``."""
    old, p = resume.meta, resume.progress
    new.start_time = old.start_time or new.start_time
    new.session_attempt, new.earlier_attempts = old.session_attempt, list(old.earlier_attempts)
    new.blocks = list(old.blocks)
    new.extra_fields = dict(old.extra_fields)
    new.frames.trials = list(old.frames.trials) if old.frames else []
    new.window.focus_lost = list(old.window.focus_lost) if old.window else []
    new.resumes = [*old.resumes, ResumeRecord(
        time=now_iso(), after_row=p.last_row, previous_status=old.status,
        interrupted=list(p.interrupted or []), note=resume.protocol_note,
    )]  # fmt: skip
    return new


def set_resumed_clock(clock, resume: ResumePlan) -> None:
    """Continue the interrupted session's clock, so that its times keep increasing."""
    from psychopy.clock import getTime

    zero = resume.meta.timing.clock_zero if resume.meta.timing else None
    now = getTime() - zero if zero is not None else 0.0
    value = max(now, resume.progress.last_time + 0.001)
    # PsychoPy's Clock.reset(newT=t) makes some versions' clocks read -t: checked and corrected.
    clock.reset(newT=value)
    if abs(clock.getTime() - value) > abs(clock.getTime() + value):
        clock.reset(newT=-value)
