"""Input events and the pairing of on-arrival events with the window's (no PsychoPy).

Pure logic, so that it can be tested without a display: :class:`InputEvent` is
what every input source produces; :class:`Reconciler` decides which of the
events seen by an on-arrival source and by the window are the same press.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class InputEvent:
    """A press, release or key, with its time on the session clock.

    ``x``, ``y`` are window pixels from the top-left; ``source`` is mouse, key
    or simulated; ``stamp`` says how the time was taken.
    """

    kind: str  # "press", "release", "key"
    t: float
    x: float | None = None
    y: float | None = None
    key: str | None = None
    source: str = "mouse"
    stamp: str = "polled"


#: A window event and an on-arrival event are the same press when the window's
#: stamp is at most this much after the arrival stamp (polling lags by up to a
#: frame or two, more on a loaded machine) ...
MATCH_AFTER_S = 0.5
#: ... or at most this much before it (the two clocks read the same time base).
MATCH_BEFORE_S = 0.05
#: How long a window event waits for its on-arrival twin before it is handled
#: as polled; the source's pipe is read every frame, so its events are faster.
HOLD_S = 0.06


@dataclass
class Reconciler:
    """Pairs on-arrival events with the window's events (pure logic, no PsychoPy).

    :meth:`add` takes both streams of one poll and returns the events to
    handle, in time order: every on-arrival event at once, and every window
    event that no on-arrival event accounts for once it has waited
    :data:`HOLD_S` (at once when the source is gone).
    """

    unmatched_presses: int = 0
    unmatched_keys: int = 0
    _recent: list = field(default_factory=list)  # [event, matched] of on-arrival events
    _held: list = field(default_factory=list)  # window events waiting for a twin

    @staticmethod
    def _same(a: InputEvent, w: InputEvent) -> bool:
        if a.kind != w.kind or (a.kind == "key" and a.key != w.key):
            return False
        return -MATCH_BEFORE_S <= w.t - a.t <= MATCH_AFTER_S

    def add(self, arrived: list[InputEvent], window: list[InputEvent], now: float,
            source_alive: bool = True) -> list[InputEvent]:  # fmt: skip
        out: list[InputEvent] = []
        for a in arrived:
            twin = next((w for w in self._held if self._same(a, w)), None)
            if twin is not None:
                self._held.remove(twin)
                self._recent.append([a, True])
            else:
                self._recent.append([a, False])
            out.append(a)
        for w in window:
            pair = next((r for r in self._recent if not r[1] and self._same(r[0], w)), None)
            if pair is not None:
                pair[1] = True
            else:
                self._held.append(w)
        keep = []
        for w in self._held:
            if not source_alive or now - w.t >= HOLD_S:
                if w.kind == "press":
                    self.unmatched_presses += 1
                elif w.kind == "key":
                    self.unmatched_keys += 1
                out.append(w)
            else:
                keep.append(w)
        self._held = keep
        self._recent = [r for r in self._recent if now - r[0].t <= MATCH_AFTER_S + 1.0]
        out.sort(key=lambda e: e.t)
        return out
