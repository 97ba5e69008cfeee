"""Signals that end a session cleanly: Ctrl-C (SIGINT), SIGTERM (a shutdown, ``kill``) and
SIGHUP (the terminal closed); no PsychoPy here.

``tol-run`` installs :func:`handling_signals` for its whole run. Before the
session's files exist a signal stops the program at once (nothing was
written). Once they do (:attr:`Interrupts.armed`), the handler only notes the
signal: the session's loop sees it at its next frame (:meth:`Interrupts.check`
raises :class:`SessionInterrupted`), so a row is never cut in half; the
session then ends like any other, its sidecar saying ``interrupted`` and the
signal, and ``tol-run`` prints how to resume and exits with
:func:`exit_status` (128 + the signal's number, as a shell reports it: 130
for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP). A SIGHUP that was ignored when
``tol-run`` started (``nohup tol-run ...``) stays ignored: the session goes on when the
terminal closes, as the person who typed ``nohup`` asked.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from dataclasses import dataclass

#: The signals a session ends cleanly on (those the platform has).
SIGNALS = tuple(name for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class SessionInterrupted(Exception):  # noqa: N818 - a signal, not an error
    """A signal (``name``, e.g. ``SIGTERM``) ended the session."""

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


@dataclass
class Interrupts:
    """The signal received, if any; ``armed`` once the session's files are being written."""

    signal: str | None = None
    armed: bool = False

    def check(self) -> None:
        """Raise :class:`SessionInterrupted` if a signal came."""
        if self.signal is not None:
            raise SessionInterrupted(self.signal)

    def receive(self, name: str) -> None:
        """A signal came: note it (the first one); stop at once while nothing is written."""
        if self.signal is None:
            self.signal = name
        if not self.armed:
            raise SessionInterrupted(name)


def exit_status(name: str) -> int:
    """The exit status of a program ended by the signal ``name`` (128 + its number)."""
    return 128 + int(getattr(signal, name))


def _asked_to_ignore(name: str) -> bool:
    """Whether ``name`` is SIGHUP and was ignored when the program started: ``nohup tol-run``
    (or ``setsid``, a service) asks that closing the terminal leave the session running."""
    return name == "SIGHUP" and signal.getsignal(signal.SIGHUP) == signal.SIG_IGN


@contextlib.contextmanager
def handling_signals(interrupts: Interrupts) -> Iterator[Interrupts]:
    """Send :data:`SIGNALS` to ``interrupts`` while the block runs (the main thread only;
    a SIGHUP ignored at start, under ``nohup``, stays ignored)."""

    def handler(signum, _frame) -> None:
        interrupts.receive(signal.Signals(signum).name)

    previous = {}
    try:
        for name in SIGNALS:
            if _asked_to_ignore(name):
                continue
            previous[name] = signal.signal(getattr(signal, name), handler)
    except ValueError:  # not the main thread: the caller's own handlers stay
        pass
    try:
        yield interrupts
    finally:
        for name, old in previous.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(getattr(signal, name), old)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold :data:`SIGNALS` back while the block runs; one that came meanwhile is handled after.

    For work a signal must not cut in the middle, such as importing PsychoPy (a
    signal raised inside ``import numpy`` leaves it half imported, and the next
    import fails with a RecursionError instead of the session ending cleanly).
    Where the platform cannot hold signals (Windows), the block runs as it is.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = {getattr(signal, name) for name in SIGNALS}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
