"""The session clock: PsychoPy's clock interface, counting on the system's monotonic clock.

PsychoPy's time base (``psychopy.clock.getTime``) is Psychtoolbox's ``GetSecs`` where
Psychtoolbox is installed, and on Linux that is the wall clock (``CLOCK_REALTIME``). A
change of the computer's time during a session (NTP stepping it, a virtual machine
resumed and set to the host's time, someone setting the date) moves it, and every time
read after the change moves with it: a scanner trigger or a press stamped after a step
of the clock was off by the step (a test saw two triggers sent 0.4 s apart logged 52.5 s
apart), a trial's time limit or a fixation ended at once, and the LSL markers, stamped
on LSL's monotonic clock from an offset measured at the start, no longer matched the log.

:class:`SessionClock` counts session time on :data:`COUNTER` (``CLOCK_MONOTONIC`` on
Linux and macOS, which nothing sets; QueryPerformanceCounter on Windows, PsychoPy's own
base there), and keeps PsychoPy's clock interface. Its :meth:`SessionClock.getLastResetTime`
is the PsychoPy time at which it read 0 *as of now* (PsychoPy's time now less the session
time), so the PsychoPy times of events that are converted by subtracting it, as PsychoPy
does (the window's keys and clicks, ioHub's events, the X Input 2 listener's stamps, the
keyboard buffer's scanner triggers), land on the session clock after a step too. Only an
event stamped before a step and converted after it is off, by the step. The two clocks are
read as one pair (:func:`psychopy_offset`), so that a pause of the process between the two
reads does not move the converted times.

A clock the caller gives (Builder's ``globalClock``, ``TowerTask(clock=...)``) is not stamped
on: :func:`session_clock` starts a :class:`SessionClock` at that clock's reading, so the
event log's times and the caller's (Builder's data file) agree until the computer's time
changes, and then only the log's stay real time.
"""

from __future__ import annotations

import sys
import time

from psychopy import clock as _psychopy_clock

#: The counter session time is kept on: monotonic and system-wide (the same in every process).
#: ``time.monotonic`` has a resolution of 15.6 ms on Windows, where ``time.perf_counter``
#: (QueryPerformanceCounter, as PsychoPy's own clock) is monotonic and fine.
COUNTER = time.perf_counter if sys.platform == "win32" else time.monotonic

_ISO = "%Y-%m-%d_%H:%M:%S.%f%z"


class SessionClock(_psychopy_clock.Clock):
    """A ``psychopy.core.Clock`` whose time a change of the computer's time does not move.

    ``getTime``, ``reset``, ``addTime`` and ``add`` behave as PsychoPy's (``reset(newT)``
    makes the clock read ``-newT``, as PsychoPy's does), on :data:`COUNTER`.
    """

    def __init__(self, format=float):
        super().__init__(format=format)
        self._timeAtLastReset = COUNTER()  # on COUNTER from here on
        #: Where its zero is, in words (the sidecar's ``timing.clock``): see :func:`session_clock`.
        self.origin = "zero when it was made"

    def reset(self, newT: float = 0.0) -> None:  # noqa: N803 - PsychoPy's name
        self._timeAtLastReset = COUNTER() + newT
        self._epochTimeAtLastReset = time.time()

    def getTime(self, applyZero: bool = True, format=None):  # noqa: N802, N803
        t = COUNTER() - self._timeAtLastReset
        if format in (None, "None"):
            format = self.format
        if format in (str, "str"):
            format = _ISO
        if applyZero:
            return _psychopy_clock.Timestamp(t, format, lastReset=self._epochTimeAtLastReset)
        return _psychopy_clock.Timestamp(t + self._epochTimeAtLastReset, format, lastReset=0)

    def getLastResetTime(self) -> float:  # noqa: N802 - PsychoPy's name
        """PsychoPy's time (``psychopy.clock.getTime()``) at which this clock read 0, as of
        now: a PsychoPy time less this is the session time it was."""
        return self._timeAtLastReset + psychopy_offset()


#: A pair of clock readings is taken again when the counter moved more than this between
#: them (the process was paused in between), up to :data:`_PAIR_TRIES` times.
_PAIR_GAP_S = 20e-6
_PAIR_TRIES = 8


def psychopy_offset() -> float:
    """PsychoPy's time less :data:`COUNTER`'s at one instant, now.

    The two clocks are read one after the other, so a process paused between the two reads
    (a loaded machine: milliseconds) would put every time converted with the pair off by
    the pause. PsychoPy's clock is read between two readings of the counter and taken as at
    their midpoint; of up to :data:`_PAIR_TRIES` such readings, the one whose counter
    readings are closest (at most :data:`_PAIR_GAP_S` apart ends the search): its error is
    at most half that gap.
    """
    best_gap, best = float("inf"), 0.0
    for _ in range(_PAIR_TRIES):
        before = COUNTER()
        theirs = _psychopy_clock.getTime()
        after = COUNTER()
        gap = after - before
        if gap < best_gap:
            best_gap, best = gap, theirs - (before + after) / 2
            if gap <= _PAIR_GAP_S:
                break
    return best


def session_clock(given=None) -> SessionClock:
    """The clock a session stamps its rows on.

    Parameters
    ----------
    given : psychopy.core.Clock, optional
        The caller's clock (Builder's ``globalClock``, whatever its time format). Without
        one, a new :class:`SessionClock` reads 0 now (session start).

    Returns
    -------
    SessionClock
        ``given`` itself if it is a :class:`SessionClock`; otherwise a new one that reads
        what ``given`` reads now and from then on counts on :data:`COUNTER`, so that a
        change of the computer's time, which moves PsychoPy's clocks (the wall clock with
        Psychtoolbox on Linux), does not move it. Its ``origin`` says which it is (the
        sidecar's ``timing.clock``).
    """
    if isinstance(given, SessionClock):
        return given
    ours = SessionClock()
    if given is None:
        ours.origin = "zero at session start"
        return ours
    # PsychoPy's clocks have getLastResetTime, whatever format they report times in.
    zero = getattr(given, "getLastResetTime", None)
    if callable(zero):  # reads 0 where ``given`` did: PsychoPy's time ``zero()``, on COUNTER
        ours.reset()
        ours._timeAtLastReset = float(zero()) - psychopy_offset()
    else:
        ours.reset(newT=-float(given.getTime()))
    ours.origin = (f"started at the caller's clock's reading ({type(given).__name__}, e.g. "
                   "Builder's globalClock): zero where that clock read 0 when the session "
                   "opened; a later change of the computer's time moves that clock, not this")  # fmt: skip
    return ours
