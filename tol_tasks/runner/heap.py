"""Python's cyclic garbage collector kept off a session's frames.

A full collection walks every object the process holds: about 190,000 once PsychoPy, pyglet
and numpy are imported, 22-116 ms of processor time a collection on this project's machine
(four in a session played by the simulated participant). One that falls inside a trial
holds the frame loop that long: frames dropped, a polled press stamped late by as much. So,
once a session is set up (its window, input and screens made, before its refresh rate is
measured), what the process holds is collected once and frozen (:func:`gc.freeze`: kept
out of every later collection): collections then walk only what the session made since, a
millisecond at most. Reference counting still frees everything as before; only cycles made
before the freeze and dropped during the session wait for its end.
"""

from __future__ import annotations

import gc


class FrozenHeap:
    """The heap frozen from now until :meth:`release` (see the module's description).

    Freezing is the process's: an experiment that runs the task (Coder, Builder) gets its
    collector back as it was at :meth:`release` (unfrozen, unless it had frozen objects
    itself, which then stay frozen).
    """

    def __init__(self) -> None:
        self._ours = gc.get_freeze_count() == 0
        gc.collect()
        gc.freeze()

    def release(self) -> None:
        """Unfreeze (once), if the freeze was this session's."""
        if self._ours:
            self._ours = False
            gc.unfreeze()
