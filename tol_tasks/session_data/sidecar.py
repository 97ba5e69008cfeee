"""The JSON sidecar that describes a session: its model, written down once, and its file.

The sidecar sits beside the event log (same name, ``.json``) and says what
the log alone cannot: who and which session, the protocol (with its full
text and SHA-256), the software, the screen and window, how time and input
were taken, frame statistics, the block orders drawn, counterbalancing and
every resume. :class:`Sidecar` is its model: every key, its type and its
meaning, from which the shipped JSON Schema
(``codebook/sidecar-v4.schema.json``) and the reference page
(``docs/sidecar.md``) are generated.

Any recorder can fill it. The PsychoPy runner fills every section; a
recorder without a window (a browser, an importer of another tool's files)
leaves out what it does not have (``screen``, ``window``, ``timing``,
``frames``, ``layout``: all optional), names itself in ``recorder``, its
input in ``source``, and lists in ``unavailable`` the event-log columns and
measures it could not record.

Versions: 1 (tol-tasks 0.1) had no ``recorder``, ``source`` or
``unavailable``; version 2 adds them; version 3 adds ``session_attempt`` and
``earlier_attempts`` (a session started again on purpose) and
``instruction_pages`` (what the participant read); version 4 adds the status
``interrupted`` (a signal ended the session, ``signal`` names it), the counts
``timing.unmatched_keys`` and ``timing.late_twins`` (``timing.unmatched_presses``
now counts the whole session, across its resumes) and ``quit_prompts`` (the quit
key's confirmation screens). Sidecars of every readable version read into the
current model (:meth:`Sidecar.read`); unknown keys are kept.

Writing: :func:`write_sidecar` writes a temporary file that is then renamed
over the old one, so the sidecar on disk is always a whole JSON document. It
is written when a session starts (status ``incomplete``) and again when it
ends (``completed``, ``aborted``, ``interrupted`` or ``crashed``).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tol_tasks.config import MAX_SIDECAR_BYTES
from tol_tasks.errors import TolTasksError

#: Version of the sidecar written by this release.
SIDECAR_VERSION = 4

#: Every sidecar version this release reads.
READABLE_SIDECAR_VERSIONS = (1, 2, 3, 4)

#: How a session ended (``incomplete`` while it runs, or after a crash that left no end).
STATUSES = ("incomplete", "completed", "aborted", "interrupted", "crashed")

Status = Literal["incomplete", "completed", "aborted", "interrupted", "crashed"]


class SidecarError(TolTasksError, ValueError):
    """A sidecar cannot be read: not JSON, or a key missing or of the wrong type."""


def _opt(description: str) -> Any:
    """An optional key: null when the recorder does not have it."""
    return Field(None, description=description)


def _req(description: str) -> Any:
    """A key every sidecar has."""
    return Field(description=description)


def _many(description: str) -> Any:
    """A list, empty when there is nothing to list."""
    return Field(default_factory=list, description=description)


class _Section(BaseModel):
    # Unknown keys are kept (a lab's note, a later version's key): a sidecar is never refused
    # for holding more than this release knows.
    model_config = ConfigDict(extra="allow")


class ProtocolCopy(_Section):
    """The protocol the session ran, copied whole (a session can be re-run or resumed from it)."""

    name: str = _req("The protocol's name.")
    version: str | None = _opt("The protocol's own version (its `version` key).")
    path: str | None = _opt("Where the protocol file was read from (null: not a file).")
    sha256: str = _req("SHA-256 of `text`, the protocol file's exact bytes as UTF-8.")
    text: str = _req("The protocol file's exact text.")


class Recorder(_Section):
    """What recorded the session."""

    name: str = _req("`tol-run`, `TowerTask` (a PsychoPy script or Builder "
                      "experiment), or another recorder's name (a browser plugin, an importer).")  # fmt: skip
    version: str | None = _opt("The recorder's version.")
    runtime: str | None = _opt("What it ran in, e.g. `PsychoPy 2026.2.5` or a browser.")


class Source(_Section):
    """Provenance of a session converted from another tool's files (absent when recorded here)."""

    format: str = _req("The original data's format, e.g. `pebl-tol`.")
    files: list[str] = _many("The original files' names.")
    sha256: list[str] = _many("SHA-256 of each original file.")
    note: str | None = _opt("Anything the conversion assumed or left out.")


class Software(_Section):
    """Versions of the software that recorded the session."""

    tol_tasks: str | None = _opt("tol-tasks' version.")
    psychopy: str | None = _opt("PsychoPy's version (null: not PsychoPy).")
    python: str | None = _opt("Python's version.")
    os: str | None = _opt("The operating system (`platform.platform()`).")


class Screen(_Section):
    """The screen the window was on."""

    index: int | None = _opt("Which screen (0: the first).")
    size: list[int] | None = _opt("Its size in pixels, [width, height].")


class Window(_Section):
    """The window the task drew in."""

    size: list[int] | None = _opt("Size in pixels, [width, height].")
    position: list[int] | None = _opt("Top-left corner on the screen in pixels (null: unknown).")
    fullscreen: bool | None = _opt("Whether it filled the screen.")
    units: str | None = _opt("The units the task drew in (`height`).")
    owner: str | None = _opt("`tol-run` (it opened the window) or `caller` "
                              "(the experiment's own window).")  # fmt: skip
    focus_lost: list[float] = _many("Session times it lost the keyboard and mouse "
                                     "(an attention_lost row each).")  # fmt: skip


class InputLost(_Section):
    """The on-arrival input source died mid-session; the session went on polled."""

    time: float = _req("Session time of the loss, seconds.")
    reason: str = _req("Why, as the source reported it.")
    method_before: str = _req("The method until then.")
    method_after: str = _req("The method after (`polled`).")


class Timing(_Section):
    """How times were taken. Every time in the event log is on one session clock."""

    clock: str | None = _opt("The session clock, in words.")
    clock_function: str | None = _opt("The function that reads it.")
    clock_zero: float | None = _opt("`clock_function()` at session time 0.")
    clock_zero_monotonic: float | None = _opt("`time.monotonic()` at session time 0.")
    input_method: str | None = _opt("How presses were stamped: `xinput2-raw`, "
                                     "`iohub` (on arrival) or `polled` (once per frame).")  # fmt: skip
    input_fallback_reason: str | None = _opt("Why on-arrival input could not "
                                              "be had (null: it was, or polled was asked for).")  # fmt: skip
    input_reconciled: str | None = _opt("How on-arrival and window events are paired, in words.")
    unmatched_presses: int | None = _opt(
        "Presses and releases only the window saw while the on-arrival source ran (handled, "
        "stamped polled): over the whole session, its resumes included (versions 1 to 3: "
        "since the last resume)."
    )
    unmatched_keys: int | None = _opt(
        "Keys only the window saw while the on-arrival source ran (handled, stamped polled), "
        "over the whole session (null: versions 1 to 3)."
    )
    late_twins: int | None = _opt(
        "Presses, releases and keys the on-arrival source reported after the window's copy "
        "had been handled (stamped polled): recognised as the same press and dropped, over "
        "the whole session (null: versions 1 to 3)."
    )
    input_lost: InputLost | None = _opt("Set when the on-arrival source died.")
    expected_resolution_s: float | None = _opt(
        "The stamps' expected resolution in seconds (null: unknown)."
    )
    trial_onset: str | None = _opt("What a trial's onset time is, in words.")
    frame_work: str | None = _opt("What the frame work figures measure, in words.")


class Frames(_Section):
    """Frame statistics: per trial (as in the `trial_end` and `copy_end` rows) and for the session."""

    trials: list[dict[str, Any]] = _many(
        "One entry per trial: `trial`, `problem_id`, `copy_of` (copy trials), "
        "`frames`, `dropped_frames`, `frame_period_ms`, `period_source`, "
        "`frame_interval_mean_ms`, `frame_interval_max_ms`, `frame_work_median_ms`, "
        "`frame_work_p99_ms`, `frame_work_max_ms` (see the event-log codebook).",
    )
    total_frames: int | None = _opt("Frames drawn in all trials.")
    total_dropped_frames: int | None = _opt("Dropped frames in all trials.")
    frame_interval_max_ms: float | None = _opt("The longest frame interval, ms.")
    frame_interval_mean_ms: float | None = _opt("The mean frame interval, ms.")
    frame_work_median_ms: float | None = _opt("Median work per frame, ms.")
    frame_work_p99_ms: float | None = _opt("99th percentile of work per frame, ms.")
    frame_work_max_ms: float | None = _opt("The most work in one frame, ms.")


class PegRect(_Section):
    """A peg's clickable rectangle on the participant's board."""

    peg: str = _req("The peg's letter.")
    left: float = _req("Left edge, window pixels from the left.")
    top: float = _req("Top edge, window pixels from the top.")
    width: float = _req("Width in pixels.")
    height: float = _req("Height in pixels.")


class Layout(_Section):
    """Where the pegs were, so that the log's `x`, `y` can be related to them."""

    puzzle: str = _req("The apparatus, as the event log's `puzzle` column writes it.")
    pegs: list[PegRect] = _many("Each peg's rectangle.")
    coordinates: str | None = _opt("The coordinate system, in words.")


class Simulation(_Section):
    """The simulated participant's settings (a simulated session is never real data)."""

    seed: int | None = _opt("Its random seed (null: 0).")
    speed: float | None = _opt("How many times faster than a person it played.")
    plan: float | None = _opt("Median planning time before a problem's first move, s.")
    think: float | None = _opt("Median thinking time before each later move, s.")
    reach: float | None = _opt("Median time to reach for a piece, s.")
    carry: float | None = _opt("Median time to carry a piece, s.")
    click: float | None = _opt("Duration of a click, s.")
    spread: float | None = _opt("Sigma of the log-normal times (0: fixed).")
    error_rate: float | None = _opt("Chance of a legal non-optimal move.")
    illegal_rate: float | None = _opt("Chance of trying an illegal move first.")
    copy_error_rate: float | None = _opt("Chance of taking the wrong piece in a copy trial.")


class ExperimentRef(_Section):
    """The PsychoPy ExperimentHandler the task added rows to."""

    name: str = _req("The prefix of the task's columns.")
    data_file: str = _req("The handler's data file name.")


class BlockRecord(_Section):
    """A block as it ran: its problems' order and the shuffle's seed."""

    name: str = _req("The block's name.")
    order: list[str] = _many("Problem ids in the order run.")
    shuffled: bool = Field(False, description="Whether the order was shuffled.")
    seed: int | None = _opt("The shuffle's seed (drawn and kept when the protocol gave none).")


class CounterbalanceRecord(_Section):
    """The counterbalanced form this session got."""

    by: str = _req("Assigned by `session` or `participant`.")
    form: str = _req("The form's name (`order-k` for a Latin-square order).")
    blocks: list[str] = _req("The blocks it ran, in order.")


class ResumeRecord(_Section):
    """One resume of an interrupted session."""

    time: str = _req("When it was resumed (local time, ISO 8601).")
    after_row: int = _req("The last complete row of the log before it.")
    previous_status: str | None = _opt("The sidecar's status before it.")
    interrupted: list[str] = _many("[block, problem id] of the "
                                   "attempt cut off (run again from its start), or empty.")  # fmt: skip
    note: str = Field(
        "", description="E.g. that the protocol had changed or came from this sidecar's copy."
    )


class ScanDesign(_Section):
    """The design a scanner session's durations were locked to, with what was drawn."""

    trial_duration: float = _req("Seconds each test problem stayed on screen at most.")
    fixation: Any = _req("The fixation after each slot: seconds, or {min, max} for a jitter.")
    lead_in: float = Field(0.0, description="Seconds of fixation before the first test problem.")
    seed: int | None = _opt("The seed the jittered fixations were drawn from.")
    fixations: list[float] = _many("The fixation after each test problem, as drawn, in order.")


class ScannerRecord(_Section):
    """How a scanner session was synchronised (protocol section ``scanner``)."""

    trigger: str = _req("`key` or `serial`.")
    key: str | None = _opt("The trigger key (trigger `key`).")
    stamp: str = _req("How the trigger rows were stamped: `polled` (a key) or `arrival` (serial).")
    dummy_volumes: int = _req("Triggers discarded at the start (logged, not counted).")
    tr: float | None = _opt("The declared repetition time, seconds.")
    volumes: int = Field(0, description="Triggers seen in the session, dummy volumes included.")
    start: float | None = _opt("Session time of the first counted volume (null: never came).")
    missed_triggers: int | None = _opt("Triggers that did not come (gaps over 1.5 TR; null: "
                                       "no TR declared).")  # fmt: skip
    design: ScanDesign | None = _opt("The design (null: none; durations as the protocol says).")


class MarkersRecord(_Section):
    """Where the session's event markers went (protocol section ``markers``)."""

    lsl_name: str | None = _opt("The LSL marker stream's name (null: no LSL).")
    lsl_clock_offset: float | None = _opt("LSL's clock minus the session clock, seconds, "
                                          "measured when the outlet opened.")  # fmt: skip
    serial_port: str | None = _opt("The serial trigger port (null: none).")
    pulse: float | None = _opt("Seconds before the serial line was set back to 0.")
    codes: dict[str, int] = Field(default_factory=dict, description="Each event's byte code.")
    sent: int = Field(0, description="Markers sent.")


class Region(_Section):
    """A region of interest of the screen, in window pixels."""

    name: str = _req("`goal`, `workspace` (the participant's board), or a peg of either, "
                     "e.g. `goal_A`, `workspace_B`.")  # fmt: skip
    left: float = _req("Left edge, window pixels from the left.")
    top: float = _req("Top edge, window pixels from the top.")
    width: float = _req("Width in pixels.")
    height: float = _req("Height in pixels.")


class EyeTrackingRecord(_Section):
    """The eye tracker recorded through ioHub (protocol section ``eyetracking``)."""

    tracker: str = _req("The ioHub device class.")
    samples_file: str = _req("The samples file's name (beside the log): time, x, y, pupil, "
                             "valid, tab-separated.")  # fmt: skip
    samples: int = Field(0, description="Samples written.")
    calibration: str | None = _opt("What the tracker's calibration returned (null: none run).")
    fixation_ms: float = _req("Milliseconds in a region that make a fixation on it.")
    coordinates: str | None = _opt("The samples' and regions' coordinates, in words.")
    screen_size: list[float] | None = _opt("The screen's visible width and height, metres.")
    screen_distance: float | None = _opt("From the eyes to the screen, metres.")
    regions: list[Region] = _many("The regions of interest.")


class QuitPrompt(_Section):
    """The quit key was pressed and the participant was asked to confirm (the log has it as
    a page, ``problem_id`` ``quit-confirm``)."""

    time: float = _req("Session time of the quit key press, seconds.")
    answered: float | None = _opt("Session time of the answer (null: none, the session was "
                                  "cut off first).")  # fmt: skip
    ended_session: bool = Field(False, description="Whether the answer ended the session.")
    trial: int | None = _opt("The trial it came in (null: between trials).")


class Sidecar(BaseModel):
    """A session's sidecar (version 4). See the module's description and ``docs/sidecar.md``."""

    model_config = ConfigDict(extra="allow", title="tol-tasks session sidecar")

    sidecar_version: int = Field(SIDECAR_VERSION, description="The sidecar format's version.")
    event_log: str = _req("The event log's file name (beside the sidecar).")
    event_log_version: int = _req("The event log's format version.")
    status: Status = Field("incomplete", description="`incomplete` while the session runs (or "
                           "after a crash that left no end), then `completed`, `aborted` (the "
                           "quit key), `interrupted` (a signal: Ctrl-C, the system shutting "
                           "down, the terminal closed; `signal` names it; version 4) or "
                           "`crashed` (`error` says why).")  # fmt: skip
    participant: str = _req("The participant id.")
    session: int = _req("The session number.")
    session_attempt: int | None = _opt(
        "Which start of this participant's session of this protocol the log is: 1 for the "
        "first; 2, 3... for a session started again on purpose while earlier logs of it were "
        "in the folder (`tol-run --new-attempt`, `TowerTask(new_attempt=True)`, a Builder "
        "experiment run again). Null: not recorded (versions 1 and 2, recorders that cannot "
        "see the folder)."
    )
    earlier_attempts: list[str] = _many("The event logs of "
                                        "this session that were in the folder when this "
                                        "attempt started (file names), oldest first.")  # fmt: skip
    extra_fields: dict[str, Any] = Field(
        default_factory=dict, description="The protocol's participant fields, as given."
    )
    language: str | None = _opt("The language of the participant's texts.")
    instruction_pages: list[str] | None = _opt(
        "The text of each instruction page shown before the practice, in order, in the "
        "session's language: the protocol's own pages, or the pages tol-tasks made from the "
        "protocol when it has none (empty: `instructions: none`). Null: not recorded "
        "(versions 1 and 2)."
    )
    start_time: str | None = _opt("When the session started (local time, ISO 8601).")
    end_time: str | None = _opt("When it ended (null while it runs).")
    recorder: Recorder | None = _opt("What recorded it (version 2; null in version 1).")
    source: Source | None = _opt("For converted data: where it came from.")
    unavailable: list[str] = _many("Event-log columns or "
                                   "measures the recorder could not record (their cells are "
                                   "empty, never invented).")  # fmt: skip
    protocol: ProtocolCopy = _req("The protocol, whole.")
    software: Software | None = _opt("Software versions.")
    screen: Screen | None = _opt("The screen (null: no screen, e.g. imported).")
    window: Window | None = _opt("The window.")
    refresh_rate_hz: float | None = _opt("The measured refresh rate (null: unknown).")
    timing: Timing | None = _opt("How times and presses were taken.")
    frames: Frames | None = _opt("Frame statistics.")
    layout: Layout | None = _opt("Where the pegs were on the screen.")
    simulate: Simulation | None = _opt("The simulated participant's settings (null: a person).")
    experiment: ExperimentRef | None = _opt("The PsychoPy ExperimentHandler it added rows to.")
    blocks: list[BlockRecord] = _many("The blocks as they started, in order.")
    counterbalance: CounterbalanceRecord | None = _opt("The form (null: not counterbalanced).")
    resumes: list[ResumeRecord] = _many("Every resume, in order.")
    scanner: ScannerRecord | None = _opt("The scanner's synchronisation (null: not a scan).")
    markers: MarkersRecord | None = _opt("The event markers sent (null: none).")
    eyetracking: EyeTrackingRecord | None = _opt("The eye tracker (null: none).")
    rows_written: int = Field(
        0, description="Rows of the event log when the sidecar was last written."
    )
    error: str | None = _opt("What stopped a crashed session.")
    signal: str | None = _opt("The signal that interrupted the session, e.g. `SIGINT` "
                              "(Ctrl-C), `SIGTERM`, `SIGHUP` (null: none; version 4).")  # fmt: skip
    quit_prompts: list[QuitPrompt] = _many("Each time the quit key asked the participant "
                                           "to confirm, in order (version 4).")  # fmt: skip

    # --------------------------------------------------------------- files
    @classmethod
    def from_dict(cls, data: Any, where: str = "<sidecar>") -> Sidecar:
        """The model of a sidecar's JSON data (of any readable version).

        Raises
        ------
        SidecarError
            Naming the file, the key, the value and the fix.
        """
        if not isinstance(data, dict):
            raise SidecarError(f"{where}: not a tol-tasks sidecar (not a JSON object).",
                               where=where, fix="give the .json file written beside the event log.")  # fmt: skip
        version = data.get("sidecar_version")
        if version not in READABLE_SIDECAR_VERSIONS:
            raise SidecarError(
                f"{where}: sidecar_version={version!r} is not one this release reads "
                f"({', '.join(map(str, READABLE_SIDECAR_VERSIONS))}).", where=where,
                field="sidecar_version", value=version,
                fix="read it with the tol-tasks release that wrote it, or a newer one.",
            )  # fmt: skip
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            key = ".".join(str(p) for p in err["loc"])
            value = err.get("input")
            what = "is missing" if err["type"] == "missing" else f"= {value!r}: {err['msg']}"
            raise SidecarError(f"{where}: key {key!r} {what}.", where=where, field=key,
                               value=value if err["type"] != "missing" else None,
                               fix="restore the sidecar from a backup (sidecars are written "
                               "by the recorder, never by hand).") from None  # fmt: skip

    @classmethod
    def read(cls, path: str | Path) -> Sidecar:
        """Read and check the sidecar at ``path``.

        Raises
        ------
        SidecarError
            The file is missing, not JSON, or does not hold a sidecar.
        """
        p = Path(path)
        try:
            data = read_sidecar(p)
        except OSError as exc:
            raise SidecarError(f"{p}: cannot be read ({exc.strerror}).", where=str(p),
                               fix="give the .json file written beside the event log.") from None  # fmt: skip
        except SidecarError:
            raise
        except ValueError as exc:
            raise SidecarError(f"{p}: not JSON ({exc}).", where=str(p),
                               fix="restore the sidecar from a backup.") from None  # fmt: skip
        return cls.from_dict(data, str(p))

    def to_dict(self) -> dict[str, Any]:
        """The sidecar as JSON data, in the current version (every key of the model)."""
        out = self.model_dump(mode="json")
        out["sidecar_version"] = SIDECAR_VERSION
        return out

    def write(self, path: str | Path) -> None:
        """Write the sidecar to ``path`` atomically (see :func:`write_sidecar`)."""
        write_sidecar(path, self.to_dict())

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The JSON Schema of the current version (shipped as ``codebook/sidecar-v4.schema.json``)."""
        schema = cls.model_json_schema()
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"https://tol-tasks.org/schemas/sidecar-v{SIDECAR_VERSION}.schema.json",
            **schema,
        }


def new_file_mode() -> int:
    """The mode a new file gets under the process's umask (0644 under the usual 022)."""
    try:  # Linux says it without changing it (setting it is process-wide, threads included)
        status = Path("/proc/self/status").read_text(encoding="ascii")
        umask = int(next(ln.split()[1] for ln in status.splitlines() if ln.startswith("Umask:")), 8)
    except (OSError, StopIteration, ValueError, IndexError):
        umask = os.umask(0o022)
        os.umask(umask)
    return 0o666 & ~umask


def sidecar_text(data: dict[str, Any]) -> str:
    """A sidecar's text, as every writer of sidecars writes it (indented JSON, a final newline)."""
    return json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"


def write_sidecar(path: Path, data: dict[str, Any] | Sidecar | str) -> None:
    """Write ``data`` as JSON to ``path`` atomically (temp file, fsync, rename); ``data``
    may be the text already made (:func:`sidecar_text`).

    The file gets the mode any new file gets (:func:`new_file_mode`, as the event log
    beside it), not the owner-only 0600 of a temporary file.
    """
    if isinstance(data, Sidecar):
        data = data.to_dict()
    text = data if isinstance(data, str) else sidecar_text(data)
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        if hasattr(os, "fchmod"):  # not on Windows, where mkstemp's mode is not owner-only
            os.fchmod(fd, new_file_mode())
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_sidecar(path: Path) -> dict[str, Any]:
    """Read a sidecar as plain JSON data (no checks; :meth:`Sidecar.read` checks and upgrades).

    Raises
    ------
    OSError, ValueError
        It cannot be read, or is not JSON.
    SidecarError
        It is larger than :data:`~tol_tasks.config.MAX_SIDECAR_BYTES` or nested too deep
        to read (no recorder writes such a file).
    """
    p = Path(path)
    with open(p, "rb") as f:
        # Sized by the file (a read of the limit itself would allocate it at every call).
        size = os.fstat(f.fileno()).st_size
        raw = f.read(min(size, MAX_SIDECAR_BYTES) + 1)
        if len(raw) > size:  # it grew while read: read on, up to the limit
            raw += f.read(MAX_SIDECAR_BYTES + 1 - len(raw))
    if len(raw) > MAX_SIDECAR_BYTES:
        raise SidecarError(f"{p}: larger than the {MAX_SIDECAR_BYTES:,} bytes a sidecar may have.",
                           where=str(p), fix="give the .json file written beside the event log.")  # fmt: skip
    try:
        return json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise SidecarError(f"{p}: its values are nested too deep to read.", where=str(p),
                           fix="restore the sidecar from a backup.") from None  # fmt: skip
