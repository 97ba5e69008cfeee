"""Event markers out: every logged event with a code, sent to Lab Streaming Layer and to a
serial trigger port as it is written, right after the flip that showed it.

The codes are declared once, in the event log's codebook (``marker_codes``); a protocol's
``markers.codes`` replaces any of them (0: not sent). Each marker is sent when its row is
written, and the row's ``detail`` says so: ``marker`` (the code), ``marker_lsl`` (the
marker's LSL timestamp) and ``marker_serial`` (session time just before the byte was
written to the port).

- LSL: one string channel, irregular rate, content type ``Markers`` (the convention of
  LabRecorder and the field's readers), each sample ``event=<name>;code=<n>;row=<row>``,
  stamped with the event's own time (the flip, or the press) on LSL's clock: the
  session clock plus the offset measured when the outlet opened (``pylsl.local_clock``
  and the session clock, :class:`~tol_tasks.runner.clock.SessionClock`, both count on the
  system's monotonic clock, so a change of the computer's time moves neither; the offset
  is recorded).
- Serial: the code as one byte, then 0 after ``markers.pulse`` seconds (a reset thread)
  unless another code was written meanwhile, as the Brain Products TriggerBox and
  similar USB trigger boxes expect (see ``docs/neuroimaging.md``).
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import threading
import time

from tol_tasks.errors import TolTasksError
from tol_tasks.protocol_format.neuro import Markers
from tol_tasks.session_data.detail import format_detail
from tol_tasks.session_data.sidecar import MarkersRecord

from .hardware import marker_codes
from .scanner import open_serial

#: The install hint for LSL.
LSL_HINT = "install the neuro extra: pip install 'tol-tasks[neuro]' (pylsl, which carries liblsl)"


#: Seconds the LSL outlet stays open after the session, for recorders to get the last markers.
LSL_LINGER = 0.5


class MarkerError(TolTasksError, ValueError):
    """The markers cannot be sent as the protocol asks (no pylsl)."""


class _SerialPulse:
    """A serial trigger line: the code now, 0 after ``pulse`` s unless a newer code came."""

    def __init__(self, port: str, baudrate: int, pulse: float):
        self.port = open_serial(port, baudrate, "markers.serial")
        self.pulse = pulse
        self._written = 0  # how many codes were written (the reset checks it did not change)
        self._high = False  # a code is on the line
        self._lock = threading.Lock()

    def write(self, code: int) -> None:
        with self._lock:
            self.port.write(bytes([code]))
            self._written += 1
            self._high = True
            mine = self._written
        if self.pulse > 0:
            timer = threading.Timer(self.pulse, self._reset, args=(mine,))
            timer.daemon = True
            timer.start()

    def _reset(self, mine: int) -> None:
        with self._lock:
            if self._written == mine and self._high and not self.port.closed:
                self.port.write(b"\0")
                self._high = False

    def close(self) -> None:
        """Leave the line at rest (after the last pulse), then close the port."""
        time.sleep(self.pulse)
        with self._lock, contextlib.suppress(Exception):
            if self._high:
                self.port.write(b"\0")
                self.port.flush()
            self.port.close()


class MarkerOut:
    """Sends each event with a code to LSL and the serial port (see the module's description)."""

    def __init__(self, spec: Markers, clock, port: str | None = None):
        self.spec, self.clock = spec, clock
        self.codes = marker_codes(spec)
        self.sent = 0
        self.outlet = self.offset = None
        self.serial = None
        if spec.lsl:
            self._open_lsl()
        serial = port or spec.serial
        if serial:
            self.serial = _SerialPulse(serial, spec.baudrate, spec.pulse)
        self.serial_port = serial

    def _open_lsl(self) -> None:
        try:
            import pylsl
        except ImportError:
            raise MarkerError("markers.lsl needs pylsl, which is not installed.",
                              field="markers.lsl", value=True, fix=LSL_HINT) from None  # fmt: skip
        info = pylsl.StreamInfo(self.spec.lsl_name, "Markers", 1, pylsl.IRREGULAR_RATE,
                                pylsl.cf_string, f"tol-tasks-{self.spec.lsl_name}")  # fmt: skip
        codes = info.desc().append_child("codes")
        for name, code in self.codes.items():
            codes.append_child_value(name, str(code))
        self.outlet = pylsl.StreamOutlet(info)
        if self.spec.lsl_wait and not self.outlet.wait_for_consumers(self.spec.lsl_wait):
            print(f"tol-tasks: warning: no recorder connected to the LSL marker stream "
                  f"{self.spec.lsl_name!r} within {self.spec.lsl_wait:g} s (markers.lsl_wait); "
                  "the session starts anyway and a recorder that connects later misses the "
                  "markers sent before.", file=sys.stderr)  # fmt: skip
        self.local_clock = pylsl.local_clock
        # LSL's clock minus the session clock: the reading with the shortest bracket of five.
        samples = []
        for _ in range(5):
            a = self.clock.getTime()
            lsl = pylsl.local_clock()
            b = self.clock.getTime()
            samples.append((b - a, lsl - (a + b) / 2))
        self.offset = min(samples)[1]
        self._spread = statistics.pstdev(s[1] for s in samples)

    def send(self, event_name: str | None, values: dict, row: int) -> dict:
        """Send the event ``event_name`` of row ``row`` (its ``values``: time...) if it has a
        code; the pairs its ``detail`` gets (empty: no marker)."""
        code = self.codes.get(event_name or "")
        if code is None:
            return {}
        out = {"marker": code}
        if self.serial is not None:
            out["marker_serial"] = f"{self.clock.getTime():.6f}"
            self.serial.write(code)
        if self.outlet is not None:
            stamp = values["time"] + self.offset
            self.outlet.push_sample([format_detail(event=event_name, code=code, row=row)], stamp)
            out["marker_lsl"] = f"{stamp:.6f}"
        self.sent += 1
        return out

    def record(self) -> MarkersRecord:
        """The sidecar's ``markers`` section."""
        return MarkersRecord(
            lsl_name=self.spec.lsl_name if self.outlet is not None else None,
            lsl_clock_offset=self.offset, serial_port=self.serial_port,
            pulse=self.spec.pulse if self.serial is not None else None, codes=self.codes,
            sent=self.sent,
        )  # fmt: skip

    def close(self) -> None:
        """Close the port; keep the LSL outlet a moment for its recorders to get the last
        markers (a process that ends at once takes them with it)."""
        if self.serial is not None:
            self.serial.close()
        if self.outlet is not None and self.outlet.have_consumers():
            time.sleep(LSL_LINGER)
        self.outlet = None


def open_markers(model, clock, settings) -> MarkerOut | None:
    """The session's markers (None without a ``markers`` section, or with nothing to send to)."""
    spec = model.markers
    if spec is None or not (spec.lsl or spec.serial or settings.marker_port):
        return None
    return MarkerOut(spec, clock, settings.marker_port)
