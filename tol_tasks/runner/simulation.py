"""The simulated participant's times (no PsychoPy here, so that scripts and tests can set them)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

#: Under ``--simulate``, the most one frame adds to the time a limit counts (seconds of the
#: session clock): a machine that stalls the program longer (a loaded test machine) must
#: not make the simulated participant run out of time.
STALL_S = 0.25


@dataclass(frozen=True)
class SimulatedTimes:
    """How long the simulated participant thinks and moves (medians, in seconds).

    A problem's first pick-up comes ``plan + reach`` after onset, each later
    pick-up ``think + reach`` after the previous placement, and a piece is put
    down ``click + carry`` after it was taken. In a copy trial there is no
    thinking: each pick-up comes ``reach`` after the move is shown. So a yoked
    copy recovers ``plan`` as the initial thinking time and ``think`` as the
    subsequent thinking time per move. Each time is drawn log-normal around
    its median with ``spread`` (its sigma); ``spread=0`` makes them fixed.
    ``copy_error_rate`` is the chance that a copy move starts with the wrong
    piece (refused).
    """

    plan: float = 2.6
    think: float = 0.5
    reach: float = 0.4
    carry: float = 0.4
    click: float = 0.06
    spread: float = 0.4
    error_rate: float = 0.15
    illegal_rate: float = 0.08
    copy_error_rate: float = 0.05

    def as_dict(self) -> dict:
        return asdict(self)
