"""The simulated participant: an input source that plans and moves like a person, reproducibly."""

from __future__ import annotations

import math
import random

from tol_tasks.errors import IllegalMoveError

from .events import InputEvent
from .inputs import PolledInput
from .simulation import SimulatedTimes


class SimulatedParticipant(PolledInput):
    """A participant who plans and moves like a person, reproducibly.

    Thinking and movement times follow :class:`SimulatedTimes`, divided by
    ``speed``. With probability ``error_rate`` a move is a legal but
    non-optimal one; with probability ``illegal_rate`` an illegal one is tried
    first. In a copy trial it carries out the move shown, after taking the
    wrong piece with probability ``copy_error_rate``. Its presses and releases
    are :class:`InputEvent` s at the pegs' pixel positions, handled exactly
    like the mouse's.
    """

    method = "polled"

    def __init__(self, win, screen, clock, keys, *, seed=0, speed=1.0, mode="click",
                 times: SimulatedTimes | None = None, peg_keys: list[str] = ()):  # fmt: skip
        super().__init__(win, screen, clock, keys)
        self.seed = seed
        self.rng = random.Random(seed)
        self.speed = max(speed, 1e-3)
        self.mode = mode
        self.times = times or SimulatedTimes()
        self.error_rate = self.times.error_rate
        self.illegal_rate = self.times.illegal_rate
        self.queue: list[InputEvent] = []
        self.areas = None
        self.peg_keys = list(peg_keys)

    def _lognormal(self, median: float) -> float:
        sigma = self.times.spread
        return median * math.exp(self.rng.gauss(0, sigma) if sigma else 0.0) / self.speed

    def poll(self) -> list[InputEvent]:
        out = [e for e in super().poll() if e.kind == "key"]  # Escape still works
        now = self.clock.getTime()
        while self.queue and self.queue[0].t <= now:
            ev = self.queue.pop(0)
            ev.t = now  # handled at this poll, as a real press would be
            out.append(ev)
        return out

    def _schedule(self, t: float, kind: str, peg: int | None = None, key: str | None = None):
        if kind == "key":
            self.queue.append(InputEvent("key", t, key=key, source="simulated"))
            return
        if peg is None:
            px, py = self.screen.W / 2, self.screen.H / 2
        else:
            a = self.areas[peg]
            px, py = self.screen.to_pixels(a.x + self.rng.uniform(-0.2, 0.2) * a.w, a.y)
        self.queue.append(InputEvent(kind, t, px, py, source="simulated"))

    def _click(self, t: float, peg: int | None) -> float:
        self._schedule(t, "press", peg)
        up = t + self.times.click / self.speed
        self._schedule(up, "release", peg)
        return up

    def on_page(self, now: float) -> None:
        self.queue.clear()
        self._click(now + self._lognormal(2.0), None)

    def on_pause(self, now: float, key: str) -> None:
        # The simulated examiner ends the pause with the examiner key.
        self.queue.clear()
        self._schedule(now + self._lognormal(2.0), "key", key=key)

    def on_trial(self, trial, areas, now: float) -> None:
        self.queue.clear()
        self.areas = areas
        # Each attempt at a problem draws from its own generator, so an attempt replays
        # the same moves whatever came before it (a problem restarted after a crash, too).
        copy = "copy:" if trial.kind == "copy" else ""
        self.rng = random.Random(
            f"{copy}{self.seed}:{trial.spec.block}:{trial.spec.id}:{trial.attempt}"
        )
        t = self.times
        self._plan(trial, now + self._lognormal(t.reach if copy else t.plan + t.reach))

    def after(self, trial, now: float) -> None:
        if not trial.done and not self.queue and trial.held is None:
            t = self.times
            self._plan(
                trial,
                now + self._lognormal(t.reach if trial.kind == "copy" else t.think + t.reach),
            )

    def _choose(self, trial) -> tuple[int, int]:
        p, s, g = trial.puzzle, trial.state, trial.spec.goal
        if self.rng.random() < self.illegal_rate:
            tries = [(i, j) for i in range(p.n_pegs) for j in range(p.n_pegs) if i != j]
            self.rng.shuffle(tries)
            for i, j in tries:
                if trial.top_piece(i) is None:
                    continue
                try:
                    p.check_move(s, i, j)
                except IllegalMoveError:
                    return i, j
        legal = p.legal_moves(s)
        best = p.optimal_moves(s, g)
        pool = best
        if self.rng.random() < self.error_rate and len(legal) > len(best):
            pool = [m for m in legal if m not in best]
        m = self.rng.choice(pool)
        return m.source, m.target

    def _plan(self, trial, t: float) -> None:
        if trial.kind == "copy":  # a copy trial: the move shown
            src, dst = trial.cue
            if self.rng.random() < self.times.copy_error_rate:
                wrong = [
                    i
                    for i in range(trial.puzzle.n_pegs)
                    if i != src and trial.top_piece(i) is not None
                ]
                if wrong:
                    # Take the wrong piece (refused), then, a reach later, the right one.
                    self._wrong_then(trial, t, self.rng.choice(wrong))
                    t += self._lognormal(self.times.reach)
        else:
            src, dst = self._choose(trial)
        if self.mode == "keys":
            self._schedule(t, "key", key=self.peg_keys[src])
            self._schedule(t + self._lognormal(self.times.carry), "key", key=self.peg_keys[dst])
        elif self.mode == "drag":
            self._schedule(t, "press", src)
            self._schedule(t + self._lognormal(self.times.carry + 0.1), "release", dst)
        else:
            up = self._click(t, src)
            self._click(up + self._lognormal(self.times.carry), dst)

    def _wrong_then(self, trial, t: float, peg: int) -> None:
        """A refused pick-up of ``peg``'s piece at ``t`` (a copy error)."""
        if self.mode == "keys":
            self._schedule(t, "key", key=self.peg_keys[peg])
        elif self.mode == "drag":
            self._schedule(t, "press", peg)
            self._schedule(t + self.times.click / self.speed, "release", peg)
        else:
            self._click(t, peg)
