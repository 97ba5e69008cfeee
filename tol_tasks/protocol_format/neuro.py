"""The protocol's neuroimaging sections: the scanner's trigger and the design, event markers.

``scanner`` makes a session wait for the scanner's trigger before its first test trial,
count the dummy volumes, log every trigger, and (with ``design``) lock each trial and
the fixation after it to declared durations, fixed or jittered from a seed. ``markers``
sends every logged event as a marker to Lab Streaming Layer and to a serial trigger
port. ``docs/neuroimaging.md`` documents both.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Jitter(_Model):
    """A duration drawn uniformly between ``min`` and ``max`` seconds (from the design's seed)."""

    min: float = Field(ge=0, description="the shortest duration, seconds")
    max: float = Field(ge=0, description="the longest duration, seconds")

    @model_validator(mode="after")
    def _ordered(self) -> Jitter:
        if self.max < self.min:
            raise ValueError(f"max ({self.max}) is below min ({self.min}): give min <= max")
        return self


Duration = Annotated[
    float | Jitter,
    Field(description="seconds, or {min: S, max: S} for a duration jittered between them"),
]


class Design(_Model):
    """Trial and fixation durations locked to the scanner's clock (the first counted volume)."""

    trial_duration: float = Field(
        gt=0,
        description="seconds each test problem stays on screen at most (its own time limit, "
        "if shorter, ends it sooner); the rest of its slot shows the fixation cross",
    )
    fixation: Duration = Field(
        description="seconds of fixation cross after each test problem's slot: a number, or "
        "{min, max} jittered from the seed"
    )
    lead_in: float = Field(
        0.0, ge=0, description="seconds of fixation between the first counted volume and the "
        "first test problem",
    )  # fmt: skip
    seed: int | None = Field(
        None, description="the seed of the jittered durations (drawn and recorded if none)"
    )


class Scanner(_Model):
    """Waiting for the scanner's trigger (a key, or a byte on a serial line)."""

    trigger: Literal["key", "serial"] = Field(
        "key", description="'key': the trigger arrives as a key press (most trigger "
        "interfaces send '5' or 't' as a keyboard); 'serial': as a byte on a serial port",
    )  # fmt: skip
    key: str = Field("5", description="with trigger: key, the key the scanner sends")
    port: str | None = Field(
        None, description="with trigger: serial, the serial port, e.g. /dev/ttyUSB0 or COM3 "
        "(tol-run --trigger-port overrides it)",
    )  # fmt: skip
    baudrate: int = Field(115200, gt=0, description="with trigger: serial, the port's speed")
    byte: int | None = Field(
        None, ge=0, le=255, description="with trigger: serial, the byte value of a trigger "
        "(null: any byte)",
    )  # fmt: skip
    dummy_volumes: int = Field(
        0, ge=0, description="triggers of volumes discarded at the start (logged, not counted)"
    )
    tr: float | None = Field(
        None, gt=0, description="the repetition time, seconds (recorded; a missed trigger is "
        "reported when two are more than 1.5 TR apart)",
    )  # fmt: skip
    design: Design | None = Field(
        None, description="trial and fixation durations locked to the first counted volume"
    )

    @model_validator(mode="after")
    def _port_for_serial(self) -> Scanner:
        if self.trigger == "key" and (self.port is not None or self.byte is not None):
            raise ValueError("port and byte are for trigger: serial; leave them out with "
                             "trigger: key")  # fmt: skip
        return self


class Markers(_Model):
    """Every logged event sent as a marker (Lab Streaming Layer, a serial trigger port)."""

    lsl: bool = Field(False, description="send each event to a Lab Streaming Layer marker outlet")
    lsl_name: str = Field("tol-tasks", description="the LSL stream's name")
    lsl_wait: float = Field(
        0.0, ge=0, description="seconds to wait, before the session starts, for a recorder "
        "(e.g. LabRecorder) to connect to the marker stream, so that it gets every marker "
        "(0: do not wait; a recorder that connects later misses the markers sent before)",
    )  # fmt: skip
    serial: str | None = Field(
        None, description="a serial trigger port to write each event's byte code to, e.g. "
        "/dev/ttyACM0 or COM4 (tol-run --marker-port overrides it)",
    )  # fmt: skip
    baudrate: int = Field(115200, gt=0, description="the serial port's speed")
    pulse: float = Field(
        0.01, ge=0, description="seconds before the serial line is set back to 0 (0: never; "
        "a trigger box that makes its own pulses, such as the Brain Products TriggerBox, "
        "still wants the 0 to see the next code)",
    )  # fmt: skip
    codes: dict[str, Annotated[int, Field(ge=0, le=255)]] = Field(
        default_factory=dict,
        description="event name -> byte code (1 to 255), replacing the codebook's default "
        "code of that event (0: the event is not sent; 0 is the line at rest)",
    )


class EyeTracking(_Model):
    """An eye tracker recorded through PsychoPy's ioHub during the session."""

    tracker: str = Field(
        "eyetracker.hw.mouse.EyeTracker", description="the ioHub eye tracker's device class: "
        "eyetracker.hw.mouse.EyeTracker (MouseGaze: the mouse plays the eye, for piloting), "
        "eyetracker.hw.sr_research.eyelink.EyeTracker, eyetracker.hw.tobii.EyeTracker, "
        "eyetracker.hw.gazepoint.gp3.EyeTracker... (the psychopy-eyetracker-* plugins)",
    )  # fmt: skip
    settings: dict = Field(
        default_factory=dict, description="the device's ioHub settings (model_name, "
        "runtime_settings, calibration...: see its plugin's documentation)",
    )  # fmt: skip
    calibrate: bool = Field(
        True, description="run the tracker's calibration before the session's first screen"
    )
    fixation_ms: float = Field(
        100.0, gt=0, description="milliseconds gaze must stay in a region to count as a "
        "fixation on it (the first fixation on the workspace)",
    )  # fmt: skip
    screen_size: tuple[float, float] | None = Field(
        None, description="the screen's visible width and height in metres (recorded; BIDS "
        "eye-tracking data ask for it)",
    )  # fmt: skip
    screen_distance: float | None = Field(
        None, gt=0, description="the distance from the eyes to the screen in metres (recorded; "
        "BIDS eye-tracking data ask for it)",
    )  # fmt: skip
