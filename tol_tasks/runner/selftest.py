"""A lab computer's timing, checked before data are collected (``tol-timing``).

Opens the task's window as ``tol-run`` does, measures the refresh rate, starts the
on-arrival input source ``tol-run`` would start (X Input 2 on Linux/X11, else PsychoPy's
ioHub; polled when neither starts, with the reason), then redraws a moving stimulus on
every frame for a while, recording each frame interval. The result says how presses would
be stamped, the refresh rate and how many frames were dropped, in a sentence a methods
section can quote.
"""

from __future__ import annotations

import contextlib
import platform
from dataclasses import dataclass

from psychopy import __version__ as psychopy_version
from psychopy import visual

from tol_tasks import __version__

from .arrival import open_arrival_input
from .clock import SessionClock
from .frames import PLAUSIBLE_REFRESH_HZ, FrameRecorder

#: What each input method is called in a methods section.
METHOD_WORDS = {
    "xinput2-raw": "on arrival by the X Input 2 extension of the X server",
    "iohub": "on arrival by PsychoPy's ioHub",
    "polled": "when polled once per frame (up to one frame late)",
}


@dataclass(frozen=True)
class TimingCheck:
    """What :func:`timing_self_test` found."""

    input_method: str  #: as the sidecar's ``timing.input_method`` records it
    polled_reason: str | None  #: why presses would be polled, if they would
    refresh_rate_hz: float | None  #: measured (None: could not be)
    frames: int
    dropped_frames: int  #: intervals over 1.5 frame periods
    frame_period_ms: float | None
    period_source: str | None  #: refresh (the measured rate) or median (of the intervals)
    frame_interval_max_ms: float | None
    window: str  #: full screen or windowed, and its size
    system: str  #: tol-tasks, PsychoPy and the operating system

    def methods_text(self) -> str:
        """The result as sentences for a methods section."""
        words = METHOD_WORDS.get(self.input_method, f"by {self.input_method}")
        share = 100 * self.dropped_frames / max(1, self.frames - 1)
        drops = (f"in a {self.frames}-frame check, {self.dropped_frames} frames "
                 f"({share:.2f}%) were dropped (intervals over 1.5 frame periods)")  # fmt: skip
        if self.plausible_refresh:
            display = f"The display ({self.window}) refreshed at {self.refresh_rate_hz:.1f} Hz; "
        else:
            measured = (f"{self.refresh_rate_hz:.1f} Hz" if self.refresh_rate_hz
                        else "not measurable")  # fmt: skip
            display = (f"The display ({self.window}) has no refresh rate a screen can have "
                       f"(measured: {measured}): vertical sync is off or absent (a virtual "
                       "display?), so frames are timed against their median interval and this "
                       "computer's stimulus timing cannot be vouched for; ")  # fmt: skip
        return f"Responses were time-stamped {words}. {display}{drops}. ({self.system}.)"

    @property
    def plausible_refresh(self) -> bool:
        """Whether the measured refresh rate is one a real display has."""
        lo, hi = PLAUSIBLE_REFRESH_HZ
        return self.refresh_rate_hz is not None and lo <= self.refresh_rate_hz <= hi


@dataclass(frozen=True)
class _Geometry:
    """The window's height units to pixels and back, as the task's screen converts them
    (the input sources place presses with it; no pegs here)."""

    W: float
    H: float

    def to_pixels(self, x: float, y: float) -> tuple[float, float]:
        return x * self.H + self.W / 2, self.H / 2 - y * self.H

    def to_units(self, px: float, py: float) -> tuple[float, float]:
        return (px - self.W / 2) / self.H, (self.H / 2 - py) / self.H


def timing_self_test(
    seconds: float = 10.0, *, windowed: bool = False, screen: int = 0,
    input_timing: str = "auto",
) -> TimingCheck:  # fmt: skip
    """Open a window, start the input source, draw for ``seconds``; what was found.

    Parameters
    ----------
    seconds : float
        How long the moving stimulus is drawn (frames recorded).
    windowed : bool
        A window instead of the full screen (the full screen is what sessions use).
    screen : int
        Which screen (0: the first).
    input_timing : str
        ``auto``, ``xinput2`` or ``iohub``: the on-arrival source to try, as ``tol-run``'s
        ``--input-timing``.
    """
    win = visual.Window(size=(1024, 768), fullscr=not windowed, screen=screen, units="height",
                        color="black", allowGUI=windowed, checkTiming=False)  # fmt: skip
    inp = None
    try:
        recorder = FrameRecorder(win)
        refresh = recorder.measure_refresh("Checking the timing of this computer ...")
        clock = SessionClock()
        geometry = _Geometry(*(float(v) for v in win.size))
        inp, reason = open_arrival_input(win, geometry, clock, ["escape"], input_timing)
        bar = visual.Rect(win, width=0.05, height=0.5, fillColor="white", lineColor=None)
        label = visual.TextStim(win, "Timing check: nothing to do", pos=(0, 0.4), height=0.04)
        recorder.start()
        end = clock.getTime() + seconds
        while clock.getTime() < end:
            bar.pos = (0.4 * ((clock.getTime() * 0.5) % 2 - 1), 0)
            bar.draw()
            label.draw()
            recorder.flip()
            inp.poll()  # as a session does on every frame
        stats = recorder.stop(1, "timing-check")
        size = "x".join(str(int(v)) for v in win.size)
        return TimingCheck(
            input_method=inp.method, polled_reason=reason, refresh_rate_hz=refresh,
            frames=stats["frames"], dropped_frames=stats["dropped_frames"],
            frame_period_ms=stats.get("frame_period_ms"), period_source=stats.get("period_source"),
            frame_interval_max_ms=stats.get("frame_interval_max_ms"),
            window=f"{'windowed' if windowed else 'full screen'}, {size} px",
            system=f"tol-tasks {__version__}, PsychoPy {psychopy_version}, {platform.platform()}",
        )  # fmt: skip
    finally:
        if inp is not None:
            with contextlib.suppress(Exception):
                inp.close()
        with contextlib.suppress(Exception):
            win.close()
