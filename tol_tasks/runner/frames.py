"""Frames: every flip, the frame intervals and work of each trial, and their statistics.

*Frame interval*: from one flip to the next, as PsychoPy records it.
*Frame work*: from the return of one flip to the call of the next: the time
the task itself spends polling input and drawing, which must stay well inside
a refresh period (16.7 ms at 60 Hz) for no frame to be dropped.

:class:`FrameRecorder` flips the window and records; the statistics are pure
functions (no PsychoPy is imported here).
"""

from __future__ import annotations

import math
import statistics
import time

#: Refresh rates a real display can have; outside it (e.g. Xvfb, no vsync) the
#: measured rate is not a frame period and the trial's median interval is used.
PLAUSIBLE_REFRESH_HZ = (20.0, 300.0)


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0-100), nearest rank, of a non-empty list."""
    ordered = sorted(values)
    k = max(0, math.ceil(q / 100 * len(ordered)) - 1)
    return ordered[k]


def work_stats(work: list[float]) -> dict:
    """Median, 99th percentile and maximum of per-frame work (seconds in, milliseconds out)."""
    if not work:
        return {}
    return {
        "frame_work_median_ms": round(1000 * statistics.median(work), 3),
        "frame_work_p99_ms": round(1000 * percentile(work, 99), 3),
        "frame_work_max_ms": round(1000 * max(work), 3),
    }


def frame_stats(intervals: list[float], refresh: float | None, work: list[float] = ()) -> dict:
    """A trial's frame statistics: frames, dropped frames, the period used, intervals and work.

    Written as ``key=value`` pairs in the trial_end row and kept in the sidecar.
    """
    if not intervals:
        return {"frames": 0, "dropped_frames": 0, **work_stats(list(work))}
    lo, hi = PLAUSIBLE_REFRESH_HZ
    if refresh and lo <= refresh <= hi:
        period, source = 1 / refresh, "refresh"
    else:
        period, source = statistics.median(intervals), "median"
    return {
        "frames": len(intervals) + 1,
        "dropped_frames": sum(1 for v in intervals if v > 1.5 * period),
        "frame_period_ms": round(1000 * period, 3),
        "period_source": source,
        "frame_interval_mean_ms": round(1000 * statistics.fmean(intervals), 3),
        "frame_interval_max_ms": round(1000 * max(intervals), 3),
        **work_stats(list(work)),
    }


def frame_summary(trials: list[dict], work: list[float] = ()) -> dict:
    """Session-wide frame statistics for the sidecar (``work``: every frame's work, seconds)."""
    frames = sum(t.get("frames", 0) for t in trials)
    out = {
        "total_frames": frames,
        "total_dropped_frames": sum(t.get("dropped_frames", 0) for t in trials),
        "frame_interval_max_ms": max(
            (t.get("frame_interval_max_ms", 0) for t in trials), default=None
        ),
        "frame_interval_mean_ms": (
            sum(t.get("frame_interval_mean_ms", 0) * t.get("frames", 0) for t in trials) / frames
            if frames
            else None
        ),
    }
    if work:
        out.update(work_stats(list(work)))
    else:  # a resumed session without its earlier frames: the worst trial's figures
        for key in ("frame_work_median_ms", "frame_work_p99_ms", "frame_work_max_ms"):
            vals = [t[key] for t in trials if key in t]
            out[key] = max(vals) if vals else None
    return out


class FrameRecorder:
    """Flips the window, keeping each frame's work; records the frames of each trial.

    ``trials`` gets one entry per trial (:meth:`stop`), the sidecar's
    ``frames.trials``; ``work`` holds every frame's work in the session.
    """

    def __init__(self, win, trials: list[dict] | None = None):
        self.win = win
        self.refresh: float | None = None
        self.trials: list[dict] = trials if trials is not None else []
        self.work: list[float] = []
        self._trial_work: list[float] | None = None
        self._since_flip: float | None = None

    def measure_refresh(self, message: str) -> float | None:
        """The window's refresh rate, measured (None if it cannot be), with ``message`` (the
        participant's "preparing" text) on the screen meanwhile, not PsychoPy's own English
        "Attempting to measure frame rate of screen"."""
        rate = self.win.getActualFrameRate(nIdentical=10, nMaxFrames=60, nWarmUpFrames=5,
                                           infoMsg=message)  # fmt: skip
        self.refresh = float(rate) if rate else None
        return self.refresh

    def flip(self) -> None:
        """Flip, keeping the work done since the previous flip returned."""
        if self._since_flip is not None:
            self.work.append(time.perf_counter() - self._since_flip)
            if self._trial_work is not None:
                self._trial_work.append(self.work[-1])
        self.win.flip()
        self._since_flip = time.perf_counter()

    def next_flip_time(self, clock) -> list[float]:
        """A list that receives ``clock``'s time of the next flip (empty until it happens)."""
        box: list[float] = []
        self.win.callOnFlip(lambda: box.append(clock.getTime()))
        return box

    @property
    def recording(self) -> bool:
        """Whether a trial's frames are being recorded."""
        return self._trial_work is not None

    def start(self) -> None:
        """Record the frames of a trial from now."""
        self.win.frameIntervals = []
        self.win.recordFrameIntervals = True
        self._trial_work = []

    def stop(self, trial: int, problem_id: str, copy_of: int | None = None) -> dict:
        """Stop recording; keep and return the trial's statistics (:func:`frame_stats`)."""
        self.win.recordFrameIntervals = False
        frames = frame_stats(list(self.win.frameIntervals), self.refresh, self._trial_work or [])
        self._trial_work = None
        entry = {"trial": trial, "problem_id": problem_id, **frames}
        if copy_of is not None:
            entry["copy_of"] = copy_of
        self.trials.append(entry)
        return frames

    def summary(self) -> dict:
        """The session's figures (:func:`frame_summary`)."""
        return frame_summary(self.trials, self.work)
