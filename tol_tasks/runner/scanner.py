"""Scanner synchronisation: the trigger, the dummy volumes, and durations locked to a design.

With a ``scanner`` section in the protocol, the session waits for the scanner's trigger
before its first test problem (practice comes before, outside the scan). Every trigger is
logged as a ``trigger`` row (``detail``: ``volume``, counted from 1 at the first trigger,
and ``dummy``); the first trigger after the dummy volumes also gets a ``scan_start`` row:
time zero of the scan, to which the BIDS export refers every onset. Triggers that come
during the session are logged the same way, on the frame they are seen (the input
source is wrapped: :class:`TriggerTap`).

With ``scanner.design``, each test problem's slot is locked to the scan's clock: its
scheduled onset is the first counted volume plus ``lead_in`` plus the slots before it
(``trial_duration`` + the fixation after each, fixed or drawn from the design's seed);
the problem is on screen at most ``trial_duration``, then a fixation cross stays until
the next scheduled onset (a ``fixation`` row with the scheduled and drawn durations).

Triggers come from a key (PsychoPy's keyboard buffer: the scanner's interface types
it, or PsychoPy's scanner emulator puts it there) or from a serial line (a reader
thread stamps each byte on arrival; pyserial, the ``neuro`` extra).
"""

from __future__ import annotations

import contextlib
import random
import threading
from dataclasses import dataclass, field

from psychopy import event

from tol_tasks.errors import TolTasksError
from tol_tasks.protocol_format.neuro import Jitter, Scanner
from tol_tasks.session_data.detail import format_detail
from tol_tasks.session_data.sidecar import ScanDesign, ScannerRecord

from .inputs import InputSource

#: The install hint for the serial port (scanner triggers and markers).
SERIAL_HINT = "install the neuro extra: pip install 'tol-tasks[neuro]' (pyserial)"


class ScannerError(TolTasksError, RuntimeError):
    """The scanner's trigger cannot be read (a serial port that does not open)."""


def open_serial(port: str, baudrate: int, what: str):
    """A pyserial port, or an error naming the port and the fix."""
    try:
        import serial
    except ImportError:
        raise ScannerError(f"{what} needs pyserial, which is not installed.", field=what,
                           value=port, fix=SERIAL_HINT) from None  # fmt: skip
    try:
        return serial.Serial(port, baudrate=baudrate, timeout=0.1)
    except (serial.SerialException, OSError) as exc:
        raise ScannerError(f"the serial port {port} cannot be opened ({exc}).", field=what,
                           value=port, fix="check the cable and the port's name (ls /dev/tty* "
                           "on Linux, the Device Manager on Windows) and that no other "
                           "program holds it.") from None  # fmt: skip


class KeyTriggers:
    """Triggers typed as a key: read from PsychoPy's keyboard buffer, which keeps the time
    each key was put there (at the key's dispatch by the window: up to a frame late for a
    real keyboard interface; the exact time for PsychoPy's emulator)."""

    stamp = "polled"

    def __init__(self, key: str, clock):
        self.key, self.clock = key, clock

    def poll(self) -> list[float]:
        return [t for _, t in event.getKeys(keyList=[self.key], timeStamped=self.clock)]

    def close(self) -> None:
        pass


class SerialTriggers:
    """Triggers as bytes on a serial line, stamped on arrival by a reader thread."""

    stamp = "arrival"

    def __init__(self, port: str, baudrate: int, byte: int | None, clock):
        self._port = open_serial(port, baudrate, "scanner.port")
        self.clock, self.byte = clock, byte
        self._times: list[float] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, name="tol-scanner", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            try:
                data = self._port.read(1)
            except Exception:
                return
            t = self.clock.getTime()
            if data and (self.byte is None or data[0] == self.byte):
                with self._lock:
                    self._times.append(t)

    def poll(self) -> list[float]:
        with self._lock:
            out, self._times = self._times, []
        return out

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=1)
        self._port.close()


def fixation_durations(design, count: int, seed: int) -> list[float]:
    """The fixation after each of ``count`` test problems: fixed, or uniform between the
    design's ``min`` and ``max`` from ``seed`` (rounded to the millisecond)."""
    fix = design.fixation
    if not isinstance(fix, Jitter):
        return [float(fix)] * count
    rng = random.Random(seed)
    return [round(rng.uniform(fix.min, fix.max), 3) for _ in range(count)]


@dataclass
class ScanClock:
    """What the session knows of the scan: its triggers, its start and the design's schedule."""

    spec: Scanner
    triggers: object  # KeyTriggers or SerialTriggers
    write: object  # the record's write
    volumes: int = 0  # triggers seen
    start: float | None = None  # session time of the first counted volume
    last: float | None = None
    missed: int = 0
    seed: int | None = None
    fixations: list[float] = field(default_factory=list)
    slots: int = 0  # test problems scheduled so far
    next_onset: float | None = None  # session time the next test problem is due

    def take(self, before: float | None = None) -> None:
        """Log the triggers that came since the last look (called every frame). A row's time
        is when the trigger was seen, or ``before`` if earlier (the time of the participant's
        first event read in the same look, whose row comes next: the log's times never go
        backwards); ``at`` in its detail is the trigger's own time (the keyboard buffer's,
        or the serial byte's arrival), which the scan's schedule and the BIDS onsets use."""
        times = self.triggers.poll()
        seen = _no_later(self.triggers.clock.getTime(), before) if times else None
        for t in times:
            self.volumes += 1
            dummy = self.volumes <= self.spec.dummy_volumes
            tr = self.spec.tr
            if tr and self.last is not None and t - self.last > 1.5 * tr:
                self.missed += round((t - self.last) / tr) - 1
            self.last = t
            at = f"{t:.6f}"
            self.write("trigger", time=_no_later(max(seen, t), before), stamp="clock", input="scanner",
                       detail=format_detail(volume=self.volumes, dummy=dummy, at=at,
                                            at_stamp=self.triggers.stamp))  # fmt: skip
            if not dummy and self.start is None:
                self.start = t
                self.write("scan_start", time=_no_later(max(seen, t), before), stamp="clock", input="scanner",
                           detail=format_detail(volume=self.volumes, at=at,
                                                dummy_volumes=self.spec.dummy_volumes))  # fmt: skip
                if self.spec.design is not None:
                    self.next_onset = t + self.spec.design.lead_in

    def close(self) -> None:
        self.triggers.close()

    def plan(self, tests: int, seed: int | None) -> None:
        """Draw the design's fixations for ``tests`` test problems (the seed drawn if none)."""
        design = self.spec.design
        if design is None:
            return
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
        self.fixations = fixation_durations(design, tests, self.seed)

    def slot_ended(self) -> tuple[float, float] | None:
        """The next test problem's scheduled onset and this slot's fixation (None: no design)."""
        design = self.spec.design
        if design is None or self.next_onset is None:
            return None
        k = self.slots
        fix = self.fixations[k] if k < len(self.fixations) else self.fixations[-1]
        self.slots += 1
        due = self.next_onset
        self.next_onset = due + design.trial_duration + fix
        return self.next_onset, fix

    def record(self) -> ScannerRecord:
        """The sidecar's ``scanner`` section."""
        spec, design = self.spec, self.spec.design
        drawn = None
        if design is not None:
            drawn = ScanDesign(**{**design.model_dump(mode="json"), "seed": self.seed},
                               fixations=self.fixations[: self.slots])  # fmt: skip
        return ScannerRecord(
            trigger=spec.trigger, key=spec.key if spec.trigger == "key" else None,
            stamp=self.triggers.stamp, dummy_volumes=spec.dummy_volumes, tr=spec.tr,
            volumes=self.volumes, start=self.start,
            missed_triggers=self.missed if spec.tr else None, design=drawn,
        )  # fmt: skip


def _no_later(t: float, before: float | None) -> float:
    """``t``, or ``before`` if that is earlier (None: no bound)."""
    return t if before is None else min(t, before)


class TappedInput(InputSource):
    """An input source that also has each of ``taps`` take what came (the scanner's triggers,
    the eye tracker's samples, the window's focus changes) every time it is polled (every
    frame of every screen), and hands on the participant's input unchanged.

    The participant's input is read first: the taps' rows are written before the caller
    writes that input's rows, so a tap's row is given a time no later than the earliest of
    those events (``before``), and the log's times never go backwards (a click that brings
    the focus back, or a press in the frame of a trigger, would otherwise follow a row
    stamped after it)."""

    def __init__(self, inner: InputSource, taps: list):
        self.inner, self.taps = inner, taps
        self.method = inner.method

    def poll(self):
        events = self.inner.poll()
        before = min((e.t for e in events), default=None)
        for tap in self.taps:
            tap.take(before)
        return events

    def pointer(self):
        return self.inner.pointer()

    @property
    def unmatched_presses(self) -> int:
        return self.inner.unmatched_presses

    @property
    def unmatched_keys(self) -> int:
        return self.inner.unmatched_keys

    @property
    def late_twins(self) -> int:
        return self.inner.late_twins

    @property
    def on_lost(self):
        return self.inner.on_lost

    @on_lost.setter
    def on_lost(self, value) -> None:
        self.inner.on_lost = value

    def on_page(self, now):
        self.inner.on_page(now)

    def on_pause(self, now, key):
        self.inner.on_pause(now, key)

    def on_trial(self, trial, areas, now):
        self.inner.on_trial(trial, areas, now)

    def after(self, trial, now):
        self.inner.after(trial, now)

    def close(self):
        try:
            for tap in self.taps:
                with contextlib.suppress(Exception):
                    tap.close()
        finally:
            self.inner.close()


def open_triggers(spec: Scanner, clock, port: str | None = None):
    """The trigger reader the protocol asks for (``port``: the serial port to read)."""
    if spec.trigger == "serial":
        return SerialTriggers(port, spec.baudrate, spec.byte, clock)
    return KeyTriggers(spec.key, clock)


def open_scan(model, clock, settings, write) -> ScanClock | None:
    """The session's scan (None without a ``scanner`` section): its trigger reader, and the
    design's fixations drawn for the protocol's test problems."""
    spec = model.scanner
    if spec is None:
        return None
    port = settings.trigger_port or spec.port
    if spec.trigger == "serial" and not port:
        raise ScannerError("scanner.trigger is serial but no port is given.",
                           field="scanner.port", value=None, fix="give scanner.port in the "
                           "protocol, or tol-run --trigger-port PORT.")  # fmt: skip
    scan = ScanClock(spec, open_triggers(spec, clock, port), write)
    tests = sum(len(b.problems) * b.attempts for b in model.blocks)
    scan.plan(tests, spec.design.seed if spec.design else None)
    return scan
