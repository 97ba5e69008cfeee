"""Which input source a session gets: the simulated participant, polled input, or presses
stamped on arrival (polled when they cannot be had, with the reason)."""

from __future__ import annotations

import sys

from .arrival import open_arrival_input
from .inputs import InputSource, PolledInput
from .simulated_participant import SimulatedParticipant


def open_input(win, screen, clock, settings, protocol_input) -> tuple[InputSource, str | None]:
    """The session's input source, and why presses are polled when on-arrival was wanted.

    The simulated participant when ``settings.simulate``; else polled input when
    ``settings.input_timing`` is ``polled``; else on-arrival input (:mod:`.arrival`),
    polled if it cannot be had. ``protocol_input``: the protocol's ``input``
    section (its mode, peg keys and quit key). A reason to poll is also warned
    about on standard error.
    """
    keys = [protocol_input.quit_key, "space", protocol_input.examiner_key]
    peg_keys = list(protocol_input.keys or [])
    if protocol_input.mode == "keys":
        keys += peg_keys
    if settings.simulate:
        seed = 0 if settings.seed is None else settings.seed
        return SimulatedParticipant(
            win, screen, clock, keys, seed=seed, speed=settings.speed, mode=protocol_input.mode,
            times=settings.simulated_times, peg_keys=peg_keys,
        ), None  # fmt: skip
    if settings.input_timing == "polled":
        inp, reason = (
            PolledInput(win, screen, clock, keys),
            "polled timing requested (--input-timing polled)",
        )
    else:
        inp, reason = open_arrival_input(win, screen, clock, keys, settings.input_timing)
    if reason:
        print(
            f"tol-tasks: warning: input is polled once per frame, so presses are stamped up "
            f"to a frame late: {reason}.",
            file=sys.stderr,
        )
    return inp, reason
