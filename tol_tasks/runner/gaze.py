"""Eye tracking through PsychoPy's ioHub: any ioHub eye tracker, recorded on the session clock.

With an ``eyetracking`` section, the session launches ioHub with the protocol's tracker
(the ``psychopy-eyetracker-*`` plugins, or MouseGaze, where the mouse plays the eye),
runs its calibration, and records from the session's start to its end. The samples are
kept in a file of their own beside the log (``<log>_gaze.tsv``: ``time`` on the session
clock, ``x`` and ``y`` in window pixels from the top-left, like the sidecar's regions,
``pupil``, ``valid``). The regions of interest (the goal, the workspace and each of their
pegs) are written to the sidecar's ``eyetracking`` section, from which ``tol-score``
computes its gaze measures.

The samples are taken off the frame: a thread of the recorder asks ioHub for them every
:data:`POLL_S` seconds and writes them (a request to ioHub's process cost 0.6 ms a frame
at the median and up to 33 ms at the 99th percentile on a loaded machine when the frame
loop asked it). ioHub keeps the samples in its buffer between two requests, so none is
lost; the frame only checks that the thread still runs. At the session's end
(:meth:`GazeRecorder.stop`) the recording stops, the samples left in ioHub's buffer are
written, the file is closed, and only then is the count written to the sidecar: every
sample in the file is counted, once.
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

from psychopy import core

from tol_tasks.errors import TolTasksError
from tol_tasks.protocol_format.neuro import EyeTracking
from tol_tasks.session_data.names import give_name
from tol_tasks.session_data.sidecar import EyeTrackingRecord

from .iohub_input import iohub_port, launch

#: The columns of the samples file.
SAMPLE_COLUMNS = ("time", "x", "y", "pupil", "valid")

#: How often the recorder's thread asks ioHub for the samples that came (seconds). ioHub
#: keeps a tracker's events in a buffer (``event_buffer_length``, 1024 by default: half a
#: second of a 2000 Hz tracker) until they are asked for.
POLL_S = 0.05

#: How long the session's end waits for the thread's last request to ioHub (seconds).
_STOP_WAIT_S = 30.0

#: Two readings of the session clock around one of PsychoPy's clock, further apart than
#: this (the thread was descheduled between them), are read again (see ``_offset``).
_OFFSET_BRACKET_S = 0.0005


class GazeError(TolTasksError, RuntimeError):
    """The eye tracker cannot be started."""


def gaze_path(log: Path) -> Path:
    """The samples file of the session whose event log is ``log``."""
    return log.with_name(f"{log.stem}_gaze.tsv")


class GazeRecorder:
    """An ioHub eye tracker recording into the session's samples file (see the module)."""

    def __init__(self, win, spec: EyeTracking, clock, path: Path):
        self.win, self.spec, self.clock, self.path = win, spec, clock, path
        config = {spec.tracker: {"name": "tracker", **spec.settings}}
        try:
            self.io = launch(win, iohub_port(), **config)
        except Exception as exc:
            raise GazeError(f"ioHub could not start the eye tracker {spec.tracker} ({exc}).",
                            field="eyetracking.tracker", value=spec.tracker,
                            fix="check the tracker's plugin is installed (pip install "
                            "psychopy-eyetracker-<maker>), connected and its settings.") from None  # fmt: skip
        self.tracker = self.io.getDevice("tracker")
        if self.tracker is None:
            self.io.quit()
            raise GazeError(f"ioHub started without the eye tracker {spec.tracker}.",
                            field="eyetracking.tracker", value=spec.tracker,
                            fix="check the device class and its settings (the plugin's "
                            "documentation lists them).")  # fmt: skip
        self.calibration = None
        if spec.calibrate:
            self.calibration = str(self.tracker.runSetupProcedure())
        self.samples = 0
        self._file = open(path, "x", encoding="utf-8", newline="")  # noqa: SIM115
        self._file.write("\t".join(SAMPLE_COLUMNS) + "\n")
        w, h = (float(v) for v in win.size)
        self._size = (w, h)
        _one_request_at_a_time(self.io)
        self.tracker.setRecordingState(True)
        self._error: BaseException | None = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="tol-tasks gaze", daemon=True)
        self._thread.start()

    def _pixels(self, x: float, y: float) -> tuple[float, float]:
        """Window units (ioHub reports in the window's) to pixels from the top-left."""
        w, h = self._size
        units = self.win.units
        if units == "height":
            x, y = x * h, y * h
        elif units == "norm":
            x, y = x * w / 2, y * h / 2
        return x + w / 2, h / 2 - y

    def take(self, before: float | None = None) -> None:
        """Called every frame (a tap of the input): the samples are written by the recorder's
        thread, off the frame; this only raises, in the session, what stopped that thread.
        ``before`` bounds nothing (the samples go to their own file)."""
        if self._error is not None:
            raise GazeError(f"the eye tracker's samples could not be read or written "
                            f"({self._error}); those before are in {self.path.name}.",
                            field="eyetracking.tracker", value=self.spec.tracker,
                            fix="check the tracker's connection and the disk, then resume the "
                            "session (tol-run --resume).") from self._error  # fmt: skip

    def _poll(self) -> None:
        """The recorder's thread: the samples that came, every :data:`POLL_S` s, until stopped."""
        try:
            while not self._stopping.wait(POLL_S):
                self._write_new()
        except BaseException as exc:  # handed to the session by take()
            self._error = exc

    def _offset(self) -> float:
        """PsychoPy's time (ioHub's) less the session clock's, now: both read between two
        readings of the session clock less than :data:`_OFFSET_BRACKET_S` apart (a thread
        descheduled between two reads would shift a whole batch of samples)."""
        best = None
        for _ in range(5):
            a = self.clock.getTime()
            theirs = core.getTime()
            b = self.clock.getTime()
            if best is None or b - a < best[0]:
                best = (b - a, theirs - (a + b) / 2)
            if b - a <= _OFFSET_BRACKET_S:
                break
        return best[1]

    def _write_new(self) -> None:
        """Write the samples that came since the last look (ioHub hands each over once)."""
        # ioHub's times are PsychoPy's core.getTime(); the session clock is offset from it,
        # by an offset taken at every look (a change of the computer's time moves it).
        events = self.tracker.getEvents()
        if not events:
            return
        offset = self._offset()
        lines = []
        for e in events:
            kind = type(e).__name__
            if kind.startswith("MonocularEyeSample"):
                gx, gy, pupil = e.gaze_x, e.gaze_y, getattr(e, "pupil_measure1", None)
            elif kind.startswith("BinocularEyeSample"):
                gx, gy = (e.left_gaze_x + e.right_gaze_x) / 2, (e.left_gaze_y + e.right_gaze_y) / 2
                pupil = getattr(e, "left_pupil_measure1", None)
            else:
                continue
            valid = gx == gx and gy == gy and not getattr(e, "status", 0)
            px, py = self._pixels(gx, gy) if valid else (float("nan"), float("nan"))
            lines.append(f"{e.time - offset:.6f}\t{px:.1f}\t{py:.1f}\t"
                         f"{'' if pupil is None else pupil}\t{int(bool(valid))}\n")  # fmt: skip
        if lines:
            self._file.writelines(lines)
            self._file.flush()
            self.samples += len(lines)

    def stop(self) -> None:
        """End the recording: the thread ends, the tracker stops recording, the samples left
        in ioHub's buffer are written and the file is closed (once; then :meth:`record`'s
        count is every sample of the file)."""
        if self._file.closed:
            return
        self._stopping.set()
        self._thread.join(timeout=_STOP_WAIT_S)
        try:
            if self._thread.is_alive():  # ioHub's process does not answer: the session ends
                raise TimeoutError(f"ioHub did not answer for {_STOP_WAIT_S:.0f} s")
            self.tracker.setRecordingState(False)
            self._write_new()
        except Exception as exc:  # said as a GazeError below
            self._error = self._error or exc
        finally:
            self._file.close()
        if self._error is not None:
            self.take()  # raises what stopped the thread

    def rename(self, path: Path) -> None:
        """Move the samples file to ``path`` (never over a file), as its session's log took
        another name; the samples go on into it."""
        give_name(self.path, path)  # FileExistsError if taken: nothing is replaced
        self.path = path

    def record(self, regions: list[dict]) -> EyeTrackingRecord:
        """The sidecar's ``eyetracking`` section."""
        return EyeTrackingRecord(
            tracker=self.spec.tracker, samples_file=self.path.name, samples=self.samples,
            calibration=self.calibration, fixation_ms=self.spec.fixation_ms, regions=regions,
            coordinates="window pixels from the top-left corner, x right, y down",
            screen_size=list(self.spec.screen_size) if self.spec.screen_size else None,
            screen_distance=self.spec.screen_distance,
        )  # fmt: skip

    def close(self) -> None:
        """Stop (if not yet: see :meth:`stop`) and end ioHub's process; never raises."""
        with contextlib.suppress(Exception):
            self.stop()
        with contextlib.suppress(Exception):
            self._file.close()
        with contextlib.suppress(Exception):
            self.io.quit()


def _one_request_at_a_time(io) -> None:
    """ioHub's client sends a request and reads its reply on one socket: requests from two
    threads (the recorder's, and the session's if it asks ioHub anything) would read each
    other's replies. Every request of the connection ``io`` goes through one lock."""
    lock = threading.Lock()
    send = io._sendToHubServer

    def one_at_a_time(tx_data):
        with lock:
            return send(tx_data)

    io._sendToHubServer = one_at_a_time


def regions(stage, puzzle) -> list[dict]:
    """The regions of interest of a problem on ``stage``: the goal, the workspace (the
    participant's board) and each of their pegs, as window-pixel rectangles."""
    board, goal = stage.boards(puzzle)
    screen = stage.screen
    out = []

    def bbox(name, rects):
        left = min(r["left"] for r in rects)
        top = min(r["top"] for r in rects)
        right = max(r["left"] + r["width"] for r in rects)
        bottom = max(r["top"] + r["height"] for r in rects)
        out.append({"name": name, "left": left, "top": top, "width": right - left,
                    "height": bottom - top})  # fmt: skip

    for name, layout in (("workspace", board), ("goal", goal)):
        if layout is None:
            continue
        rects = screen.pixel_rects(layout.pegs)
        bbox(name, rects)
        for r in rects:
            out.append({"name": f"{name}_{r['peg']}", **{k: r[k] for k in
                        ("left", "top", "width", "height")}})  # fmt: skip
    return out
