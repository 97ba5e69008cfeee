"""Input events and the pairing of on-arrival events with the window's (no PsychoPy).

Pure logic, so that it can be tested without a display: :class:`InputEvent` is
what every input source produces; :class:`Reconciler` decides which of the
events seen by an on-arrival source and by the window are the same press.

Every press reaches the program twice: once through the on-arrival source (a
process that stamps it the moment it arrives) and once through the window.
The two copies can come in either order and any time apart (a loaded machine
delays either). The reconciler hands each press on exactly once:

- **By identity** (``mode="ident"``; the X Input 2 listener beside an X11
  window): both copies carry the X server's own time of the event (``ident``),
  the same for both, so they are paired exactly whatever the delay. A window
  event whose twin has not come is not guessed about: the reconciler asks the
  source to *sync* (:attr:`Reconciler.request`: the listener makes a round
  trip to the X server and answers once it has read every event the server
  sent before it). Once the answer is in, a twin that has not come never will:
  the window's copy is handled, stamped ``polled``, and counted.
- **By identity, without sync** (``mode="ident-hold"``; ioHub beside an X11
  window, whose events keep the X server's time as ``device_time``): paired
  exactly as above, and handed on in the server's order; ioHub cannot be asked
  to sync, so a window event waits :data:`HOLD_S` for its twin, then is
  handled stamped ``polled``. Stamps cannot pair close presses when one copy
  is hundreds of milliseconds late, or stamped late (ioHub stamps what it
  reads when it reads it): the server's time can.
- **By time** (``mode="time"``; sources without the server's time: ioHub on
  Windows and macOS): copies of one kind (and key) whose stamps are close
  (:data:`MATCH_BEFORE_S`, :data:`MATCH_AFTER_S`) are one press. A window
  event waits :data:`HOLD_S` for its twin, then is handled stamped ``polled``.
  Where both copies carry an identity they are paired by it even here.

Either way a twin that comes after its press was handled (the window's copy
handled as polled, then the source's late copy) is recognised and dropped
(:attr:`Reconciler.late_twins`), never handled a second time; and events are
handed on in the order they happened (an event waits while an earlier one is
undecided). If the source dies, window events go through at once.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


@dataclass
class InputEvent:
    """A press, release or key, with its time on the session clock.

    ``x``, ``y`` are window pixels from the top-left; ``source`` is mouse, touch,
    key or simulated; ``stamp`` says how the time was taken (``arrival`` or
    ``polled``); ``ident`` is the X server's time of the event in milliseconds
    where the source has it (the same for both copies of one press), else None.
    """

    kind: str  # "press", "release", "key"
    t: float
    x: float | None = None
    y: float | None = None
    key: str | None = None
    source: str = "mouse"
    stamp: str = "polled"
    ident: int | None = None


#: By time: a window event and an on-arrival event are the same press when the window's
#: stamp is at most this much after the arrival stamp (the window's stamp is taken when its
#: event is dispatched, a frame or more late, much more on a loaded machine) ...
MATCH_AFTER_S = 1.0
#: ... or at most this much before it (the two clocks read the same time base).
MATCH_BEFORE_S = 0.05
#: By time: how long a window event waits for its on-arrival twin before it is handled as
#: polled (a twin that comes later is still recognised and dropped).
HOLD_S = 0.06
#: How many handled events are remembered for a late twin (whatever its delay).
REMEMBERED = 512

#: What :meth:`Reconciler._take` returns for a twin found among events already handled.
_LATE = object()


@dataclass
class _Pending:
    event: InputEvent
    seen: float  # session time the window event was read
    request: int | None = None  # the sync request that decides it (by identity)


def _order(e: InputEvent, by_ident: bool):
    return e.ident if by_ident and e.ident is not None else e.t


@dataclass
class Reconciler:
    """Pairs on-arrival events with the window's events (see the module's description).

    ``mode``: ``ident`` (both streams carry the X server's time; undecided window
    events wait for a sync), ``ident-hold`` (both carry it, the source cannot sync:
    undecided window events wait :data:`HOLD_S`) or ``time`` (paired by stamps where
    either copy has no identity; undecided window events wait :data:`HOLD_S`).

    Attributes
    ----------
    unmatched_presses, unmatched_keys : int
        Presses and keys only the window saw while the source ran (handled as polled, no
        twin ever came).
    late_twins : int
        On-arrival events dropped as the twin of a press already handled as polled (the
        source was late; by identity or by time, not where the source syncs).
    request : int or None
        A sync the caller should ask the source for (set by :meth:`add`; by identity).
    requested : list of InputEvent
        The window events that sync is for (the source may answer at once when it has
        already seen each one's twin, or a later event).
    """

    mode: str = "time"
    unmatched_presses: int = 0
    unmatched_keys: int = 0
    late_twins: int = 0
    request: int | None = None
    requested: list = field(default_factory=list)
    _asked: int = 0  # the last sync request made
    _synced: int = 0  # the last sync answered
    _pending: list = field(default_factory=list)  # window events undecided
    _ready: list = field(default_factory=list)  # decided, waiting for earlier pending ones
    _arrivals: deque = field(default_factory=lambda: deque(maxlen=REMEMBERED))  # no twin yet
    _polled: deque = field(default_factory=lambda: deque(maxlen=REMEMBERED))  # handled polled

    @property
    def by_ident(self) -> bool:
        """Both streams carry the X server's time: paired, and handed on in order, by it."""
        return self.mode in ("ident", "ident-hold")

    @property
    def syncs(self) -> bool:
        """Undecided window events wait for the source's sync (else :data:`HOLD_S`)."""
        return self.mode == "ident"

    @staticmethod
    def _same_kind(a: InputEvent, w: InputEvent) -> bool:
        return a.kind == w.kind and (a.kind != "key" or a.key == w.key)

    def _exact(self, a: InputEvent, w: InputEvent) -> bool:
        return (self._same_kind(a, w) and a.ident is not None and w.ident is not None
                and a.ident == w.ident)  # fmt: skip

    def _near(self, a: InputEvent, w: InputEvent) -> bool:
        return self._same_kind(a, w) and -MATCH_BEFORE_S <= w.t - a.t <= MATCH_AFTER_S

    def _twin(self, a: InputEvent, w: InputEvent) -> bool:
        """The same press: by identity when both have one, else by time."""
        if a.ident is not None and w.ident is not None:
            return self._exact(a, w)
        return self._near(a, w)

    @staticmethod
    def _closest(a: InputEvent, w: InputEvent) -> float:
        """How far apart two copies are (0 when paired by identity)."""
        return 0.0 if a.ident is not None and a.ident == w.ident else abs(w.t - a.t)

    def _take(self, pools, event: InputEvent, match, arrival: bool):
        """Remove the closest item of ``pools`` ((items, event of an item) pairs) that
        ``match``es ``event``; return its event if it was in the first pool, :data:`_LATE`
        if in another, or None."""
        best = None
        for k, (items, of) in enumerate(pools):
            for i, item in enumerate(items):
                other = of(item)
                a, w = (event, other) if arrival else (other, event)
                if match(a, w):
                    gap = self._closest(a, w)
                    if best is None or gap < best[0]:
                        best = (gap, k, i)
        if best is None:
            return None
        _, k, i = best
        items, of = pools[k]
        taken = of(items[i])
        del items[i]
        return taken if k == 0 else _LATE

    def add(self, arrived: list[InputEvent], window: list[InputEvent], now: float,
            source_alive: bool = True, synced: int | None = None) -> list[InputEvent]:  # fmt: skip
        """Take both streams of one poll; return the events to handle, in the order they
        happened.

        ``arrived``: the on-arrival source's events, as read; ``window``: the window's;
        ``now``: the session time; ``source_alive``: False once the source died (window
        events then go through at once); ``synced``: the last sync answer read with
        ``arrived`` (by identity).
        """
        waiting, handled = (self._pending, lambda p: p.event), (self._polled, lambda w: w)
        for a in arrived:
            found = self._take([waiting, handled], a, self._twin, arrival=True)
            if found is _LATE:  # its window copy was already handled, as polled: not missed, late
                self.late_twins += 1
                self.unmatched_presses -= a.kind == "press"
                self.unmatched_keys -= a.kind == "key"
                continue
            if found is not None:  # its window copy was waiting: handled once, here
                w = found
                if w.ident is not None and w.ident == a.ident:
                    a.x, a.y = w.x, w.y  # where the window says it was
            else:
                self._arrivals.append(a)
            self._ready.append(a)
        for w in window:
            twin = self._twin_of(w)
            if twin is None:
                self._pending.append(_Pending(w, now))
            elif w.ident is not None and twin.ident == w.ident:
                # The window's copy says exactly where the press was (the source only where
                # the pointer was when it read it); it is not handed on yet, or just now.
                twin.x, twin.y = w.x, w.y
        if synced is not None:
            self._synced = max(self._synced, synced)
        self._decide(now, source_alive)
        return self._release()

    def _twin_of(self, w: InputEvent) -> InputEvent | None:
        """Remove and return the on-arrival copy of the window event ``w``, if it came."""
        for i, a in enumerate(self._arrivals):
            exact = a.ident is not None and w.ident is not None
            if self._twin(a, w) and (exact or self._is_closest(a, w)):
                del self._arrivals[i]
                return a
        return None

    def _is_closest(self, a: InputEvent, w: InputEvent) -> bool:
        gap = abs(w.t - a.t)
        return all(not self._twin(b, w) or abs(w.t - b.t) >= gap for b in self._arrivals)

    def _decide(self, now: float, alive: bool) -> None:
        """Hand on each pending window event whose twin can no longer come."""
        self.request = None
        self.requested = []
        keep = []
        for p in self._pending:
            if not alive:
                self._ready.append(p.event)  # no source: the window's events are all there is
                continue
            if self.syncs and p.request is None:
                # A sync answers for what happened before it was asked: one asked now (one a
                # poll at most, for every window event read in it).
                if self.request is None:
                    self._asked += 1
                    self.request = self._asked
                p.request = self._asked
                self.requested.append(p.event)
            answered = (p.request <= self._synced if self.syncs
                        else now - p.seen >= HOLD_S)  # fmt: skip
            if not answered:
                keep.append(p)
                continue
            w = p.event
            # Last chance, by time: the listener's copy may carry another identity (a touch
            # the server stamped twice) and must still not give one press twice. ioHub's
            # copies are not guessed about: where both carry an identity, one with another
            # identity is another press (a close click), never this one's twin.
            last = self._near if self.syncs else self._twin
            if self._take([(self._arrivals, lambda a: a)], w, last, arrival=False):
                continue
            self.unmatched_presses += w.kind == "press"
            self.unmatched_keys += w.kind == "key"
            self._polled.append(w)
            self._ready.append(w)
        self._pending = keep

    def _release(self) -> list[InputEvent]:
        """The decided events that no undecided one came before, in the order they happened."""
        by_ident = self.by_ident
        if self._pending:
            first = min(_order(p.event, by_ident) for p in self._pending)
            out = [e for e in self._ready if _order(e, by_ident) < first]
            self._ready = [e for e in self._ready if _order(e, by_ident) >= first]
        else:
            out, self._ready = self._ready, []
        out.sort(key=lambda e: _order(e, by_ident))
        return out

    @property
    def waiting(self) -> float | None:
        """Session time since the oldest undecided window event was read (None: none), for
        a caller that gives up on a source that never answers."""
        return min((p.seen for p in self._pending), default=None)
