"""Eye tracking through PsychoPy's ioHub: any ioHub eye tracker, recorded on the session clock.

With an ``eyetracking`` section, the session launches ioHub with the protocol's tracker
(the ``psychopy-eyetracker-*`` plugins, or MouseGaze, where the mouse plays the eye),
runs its calibration, and records from the session's start to its end. The samples are
kept in a file of their own beside the log (``<log>_gaze.tsv``: ``time`` on the session
clock, ``x`` and ``y`` in window pixels from the top-left, like the sidecar's regions,
``pupil``, ``valid``), read every frame. The regions of interest (the goal, the workspace
and each of their pegs) are written to the sidecar's ``eyetracking`` section, from which
``tol-score`` computes its gaze measures.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from psychopy import core

from tol_tasks.errors import TolTasksError
from tol_tasks.protocol_format.neuro import EyeTracking
from tol_tasks.session_data.sidecar import EyeTrackingRecord

from .arrival import iohub_port

#: The columns of the samples file.
SAMPLE_COLUMNS = ("time", "x", "y", "pupil", "valid")


class GazeError(TolTasksError, RuntimeError):
    """The eye tracker cannot be started."""


def gaze_path(log: Path) -> Path:
    """The samples file of the session whose event log is ``log``."""
    return log.with_name(f"{log.stem}_gaze.tsv")


class GazeRecorder:
    """An ioHub eye tracker recording into the session's samples file (see the module)."""

    def __init__(self, win, spec: EyeTracking, clock, path: Path):
        from psychopy.iohub import launchHubServer

        self.win, self.spec, self.clock, self.path = win, spec, clock, path
        config = {spec.tracker: {"name": "tracker", **spec.settings}}
        try:
            self.io = launchHubServer(window=win, udp_port=iohub_port(), **config)
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
        self.tracker.setRecordingState(True)

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
        """Write the samples that came since the last look (called every frame; the samples
        go to their own file, so ``before`` bounds nothing here)."""
        # ioHub's times are PsychoPy's core.getTime(); the session clock is offset from it,
        # by an offset taken at every look (a change of the computer's time moves it).
        offset = core.getTime() - self.clock.getTime()
        lines = []
        for e in self.tracker.getEvents():
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
        with contextlib.suppress(Exception):
            self.take()
            self.tracker.setRecordingState(False)
        with contextlib.suppress(Exception):
            self._file.close()
        with contextlib.suppress(Exception):
            self.io.quit()


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
