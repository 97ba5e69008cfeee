"""The tower task engine: a protocol or single problems on a window the caller owns.

::

    from psychopy import visual, data
    from tol_tasks.runner import TowerTask

    win = visual.Window(fullscr=True, units="height")
    exp = data.ExperimentHandler(name="battery", dataFileName="data/P001_battery")
    task = TowerTask(win, "london-shallice", participant="P001", session=1,
                     output="data", experiment=exp)
    task.run()                                      # the whole protocol
    task.run_problem(start="GR|B|", goal="|RB|G")   # or one problem
    task.close()                                    # the window stays open

The engine never closes or re-creates the window. It writes the same event
log and sidecar as ``tol-run`` (which is a thin shell over it) and, given an
``ExperimentHandler``, adds one row per problem attempt to it.
"""

from __future__ import annotations

import contextlib
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import psychopy
from psychopy import core, visual
from psychopy import logging as psychopy_logging
from psychopy.clock import getTime

from tol_tasks import __version__
from tol_tasks.config import COPY_SOURCES, INPUT_TIMINGS, PEG_LETTERS
from tol_tasks.errors import TolTasksError
from tol_tasks.protocol_format.model import Copy, LoadedProtocol, ProblemSpec
from tol_tasks.protocol_format.problem import ProblemError, check_problem
from tol_tasks.session_data.eventlog import EVENT_LOG_VERSION, EventLog, EventLogWriteError
from tol_tasks.session_data.resume import ResumePlan
from tol_tasks.session_data.sidecar import SIDECAR_VERSION, write_sidecar
from tol_tasks.session_data.trial import (
    CopyState,
    TrialState,
    block_order,
    copy_sequence,
    puzzle_code,
)

from .arrival import open_arrival_input
from .files import RunConfig
from .frames import frame_stats, frame_summary
from .inputs import PolledInput, SimulatedParticipant
from .prepare import Prepared, prepare
from .screen import UNITS, TaskScreen
from .simulation import SimulatedTimes

#: Size of the participant's board and of the goal, relative to the full layout.
BOARD_SCALE = 0.95
GOAL_SCALE = 0.5

#: Columns the engine adds to an ExperimentHandler, one row per problem attempt
#: (each prefixed with the task's ``name`` and a dot, as Builder components do).
EXPERIMENT_COLUMNS = (
    "problem_id", "block", "attempt", "start", "goal", "min_moves", "moves", "solved",
    "outcome", "planning_time", "total_time", "event_log", "copy_trial", "copy_outcome",
    "copy_moves", "copy_refused", "copy_first_move_latency", "copy_total_time",
)  # fmt: skip

# PsychoPy prints a warning per slow frame; dropped frames go into the data instead.
psychopy_logging.console.setLevel(psychopy_logging.ERROR)


class TaskSetupError(TolTasksError, ValueError):
    """The engine was given something it cannot run with (a closed window, a wrong object)."""


class AbortSession(Exception):  # noqa: N818 - a signal, not an error
    """The quit key was pressed."""

    def __init__(self, t: float):
        self.t = t


@dataclass
class RunResult:
    """Where the data went and how the session ended."""

    events: Path
    sidecar: Path
    status: str
    rows: int


@dataclass
class ProblemResult:
    """One attempt at one problem, as added to the ExperimentHandler.

    ``outcome`` is solved, time_out, move_limit or aborted (the quit key);
    ``planning_time`` is the time from onset to the first pick-up (None if none).
    The ``copy_`` fields describe the yoked copy trial that followed it (None
    without one): its trial number, outcome (copied or aborted), moves made,
    refused actions, onset to first pick-up and onset to its end, in seconds.
    Thinking times are derived from the event log by ``tol-score``.
    """

    problem_id: str
    block: str
    attempt: int
    start: str
    goal: str
    min_moves: int
    moves: int
    solved: bool
    outcome: str
    planning_time: float | None
    total_time: float
    event_log: str
    copy_trial: int | None = None
    copy_outcome: str | None = None
    copy_moves: int | None = None
    copy_refused: int | None = None
    copy_first_move_latency: float | None = None
    copy_total_time: float | None = None


class TowerTask:
    """Tower of Hanoi or Tower of London problems on a PsychoPy window the caller owns.

    Parameters
    ----------
    win : psychopy.visual.Window
        An open window. The engine draws in ``height`` units whatever the
        window's own units, sets the protocol's background while it runs and
        restores the window's colour on :meth:`close`. It never closes it.
    protocol : str, Path or LoadedProtocol
        A protocol file, a bundled protocol's name (``"london-shallice"``) or a
        loaded protocol. Its apparatus, display and input settings apply to
        :meth:`run_problem` too.
    participant : str
        Participant id (letters, digits, ``-_.``).
    session : int
        Session number.
    output : str or Path
        Folder of the event log and its JSON sidecar.
    experiment : psychopy.data.ExperimentHandler, optional
        Gets one row per problem attempt (columns :data:`EXPERIMENT_COLUMNS`,
        prefixed with ``name.``).
    clock : psychopy.core.Clock, optional
        The caller's clock; event times are read from it (recorded in the
        sidecar). Without one the engine starts its own at the first problem.
    name : str
        Prefix of the ExperimentHandler columns.
    simulate, seed, speed
        Let the simulated participant play (for piloting and tests);
        ``simulate`` may be a :class:`SimulatedTimes` to fix its thinking and
        movement times.
    language, input_timing, fsync, bids_names, extra_fields
        As for ``tol-run``.

    Raises
    ------
    TolTasksError
        Before anything is drawn or written: an unknown protocol, a bad
        participant id, an unwritable folder, a closed window, an
        ``experiment`` that is not an ExperimentHandler.
    """

    def __init__(self, win, protocol, *, participant: str, session: int = 1,
                 output: str | Path = "data", experiment=None, clock=None, name: str = "tower",
                 language: str | None = None, simulate: bool | SimulatedTimes = False,
                 seed: int | None = None,
                 speed: float = 1.0, input_timing: str = "auto", fsync: bool = True,
                 bids_names: bool = False, extra_fields: dict | None = None,
                 next_entry: bool = True, _config: RunConfig | None = None,
                 _prepared: Prepared | None = None):  # fmt: skip
        _check_window(win)
        _check_experiment(experiment)
        if input_timing not in INPUT_TIMINGS:
            raise TaskSetupError(
                f"input_timing={input_timing!r} is not a timing method. Suggested fix: use one "
                f"of {', '.join(INPUT_TIMINGS)}."
            )
        if clock is not None and not callable(getattr(clock, "getTime", None)):
            raise TaskSetupError(
                f"clock={clock!r} has no getTime(). Suggested fix: pass a psychopy.core.Clock "
                "(e.g. Builder's globalClock), or leave clock out to let the task keep its own."
            )
        if isinstance(protocol, LoadedProtocol):
            config = _config or RunConfig(protocol=protocol.path or protocol.name,
                                          participant=participant)  # fmt: skip
        else:
            config = _config or RunConfig(protocol=protocol, participant=participant)
        if _config is None:
            config.session = session
            config.output = Path(output)
            config.language = language
            config.simulate = simulate
            config.seed = seed
            config.speed = speed
            config.input_timing = input_timing
            config.fsync = fsync
            config.bids_names = bids_names
            config.extra_fields = dict(extra_fields or {})
        if isinstance(protocol, LoadedProtocol) and _prepared is None:
            _prepared = prepare(config, protocol=protocol)
        p = _prepared or prepare(config)
        self.win = win
        self.cfg = config
        self.lp = p.protocol
        self.model = self.lp.model
        self.csv_path, self.json_path = p.log, p.sidecar
        self.resume: ResumePlan | None = p.resume
        self.progress = self.resume.progress if self.resume else None
        self.experiment = experiment
        self.name = name
        self.next_entry = next_entry
        self.language = config.language or self.model.instructions.default_language
        if self.language not in self.lp.languages():
            raise TaskSetupError(
                f"language={self.language!r}: the protocol {self.lp.name!r} has no texts in it. "
                f"Suggested fix: choose one of {', '.join(self.lp.languages())}."
            )
        self.msg = self.lp.messages(self.language)
        self.speed = config.speed if config.simulate else 1.0
        self._given_clock = clock
        self.trial_no = 0
        self.fallback_reason: str | None = None
        self.frame_stats: list[dict] = []
        self._work: list[float] = []
        self._opened = False
        self.status: str | None = None  # set when the session has ended
        self.results: list[ProblemResult] = []

    # ------------------------------------------------------------- public
    @property
    def aborted(self) -> bool:
        """True once the participant pressed the quit key."""
        return self.status == "aborted"

    def run(self) -> RunResult:
        """Run the whole protocol (instructions, practice, blocks), then end the session."""
        self._open()
        status = "crashed"
        try:
            if not (self.progress and self.progress.instructions_done):
                self._instructions()
            self._practice()
            for i in self.block_indices:
                self._block(i)
            self._message(self.msg["end"], 2.0)
            status = "completed"
        except AbortSession as ab:
            status = "aborted"
            self._write("abort", time=ab.t, input="key")
        except EventLogWriteError as exc:
            self.meta["error"] = str(exc)  # status stays "crashed"; re-raised after the clean-up
            raise
        finally:
            end_error = self._finish(status)
        if end_error is not None:
            raise end_error
        return RunResult(self.csv_path, self.json_path, self.status, self.log.rows_written)

    def run_problem(self, start, goal, *, problem_id: str | None = None,
                    time_limit: float | None = None, move_limit: int | None = None,
                    block: str = "problems", feedback: bool | None = None,
                    disks: int | None = None, copy: str | None = None,
                    copy_unsolved: bool = False) -> ProblemResult:  # fmt: skip
        """Run one problem on the protocol's apparatus; return its result.

        ``start`` and ``goal`` are state texts (``"GR|B|"``, ``"AAA"``) or one
        list per peg. The quit key ends the session: the result's outcome is
        ``aborted`` and :attr:`aborted` is True; later calls raise.

        ``copy``: ``"own"`` or ``"optimal"`` to follow the problem with a yoked
        copy trial (the participant's own moves, or a shortest solution, shown
        one at a time); ``copy_unsolved``: copy an unsolved problem too. See
        "Copy trials" in ``docs/protocols.md``.
        """
        if copy is not None and copy not in COPY_SOURCES:
            raise TaskSetupError(
                f"copy={copy!r} is not a kind of copy trial. Suggested fix: use 'own' (the "
                "participant's own moves), 'optimal' (a shortest solution) or None (no copy)."
            )
        copies = Copy(moves=copy, unsolved="copy" if copy_unsolved else "skip") if copy else None
        if self.status is not None:
            raise TaskSetupError(
                f"the session has ended ({self.status}); no more problems can be run. "
                "Suggested fix: create a new TowerTask for a new session."
            )
        spec = self.problem(start, goal, problem_id=problem_id, time_limit=time_limit,
                            move_limit=move_limit, block=block, disks=disks)  # fmt: skip
        self._open()
        if not any(b["name"] == block for b in self.meta["blocks"]):
            self.meta["blocks"].append({"name": block, "order": [], "shuffled": False,
                                        "seed": None})  # fmt: skip
            self._write("block_start", block=block, detail="order=;seed=None")
        self.meta["blocks"][-1]["order"].append(spec.id)
        write_sidecar(self.json_path, self.meta)
        show = self.model.feedback != "none" if feedback is None else feedback
        self._claim_window()
        try:
            self._trial(spec, block, 1, feedback=show, copies=copies)
        except AbortSession as ab:
            # The attempt's result is kept (outcome "aborted" if it was cut off, its own
            # outcome if the quit key came during its feedback); the session ends.
            self._write("abort", time=ab.t, input="key")
            self._finish("aborted")
        finally:
            # Between problems the window is the caller's again (its own background).
            self._restore_window()
        return self.results[-1]

    def problem(self, start, goal, *, problem_id: str | None = None,
                time_limit: float | None = None, move_limit: int | None = None,
                block: str = "problems", disks: int | None = None) -> ProblemSpec:  # fmt: skip
        """Check one problem on the protocol's apparatus without running it.

        Raises
        ------
        TolTasksError
            A state that does not parse, an unreachable goal, a goal equal to
            the start, or bad limits, with the value and the fix.
        """
        puzzle = self.model.task.puzzle(disks)
        where = f"problem {problem_id!r}" if problem_id else "run_problem"
        try:
            s, g, min_moves = check_problem(puzzle, start, goal, time_limit=time_limit,
                                            move_limit=move_limit, where=where)  # fmt: skip
        except ProblemError as exc:
            raise TaskSetupError(str(exc)) from None
        pid = problem_id or f"p{len(self.results) + 1:02d}"
        return ProblemSpec(id=str(pid), block=block, puzzle=puzzle, start=s, goal=g,
                           min_moves=min_moves, time_limit=time_limit,
                           move_limit=int(move_limit) if move_limit is not None else None)  # fmt: skip

    def close(self, status: str = "completed") -> None:
        """End the session (if it has not ended), save the sidecar; the window stays open.

        ``status``: ``completed``, or ``aborted`` when the caller's experiment
        was ended early (e.g. Escape in another part of a Builder experiment).
        """
        if status not in ("completed", "aborted"):
            raise TaskSetupError(
                f"status={status!r} is not how a session can end. Suggested fix: use "
                "'completed' or 'aborted'."
            )
        if self._opened and self.status is None:
            end_error = self._finish(status)
            if end_error is not None:
                raise end_error
        elif self._opened:
            self._restore_window()

    def __enter__(self) -> TowerTask:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------ opening
    def _open(self) -> None:
        """Open the log, the input and the sidecar at the first problem (once)."""
        if self._opened:
            return
        _check_window(self.win)
        self._opened = True
        self._last_result: ProblemResult | None = None
        d = self.model.display
        self._old_color = self.win.color.copy() if hasattr(self.win.color, "copy") else None
        self._old_colorspace = getattr(self.win, "colorSpace", "rgb")
        self.win.colorSpace = "rgb"
        self.win.color = d.background
        self.clock = self._given_clock or core.Clock()
        if self.resume:
            # Continue the interrupted session's clock, so its times keep increasing.
            zero = self.resume.meta.get("timing", {}).get("clock_zero")
            now = getTime() - zero if zero is not None else 0.0
            _set_clock(self.clock, max(now, self.progress.last_time + 0.001))
            self.trial_no = self.progress.last_trial
            self.log = EventLog.append(self.csv_path, fsync=self.cfg.fsync)
        else:
            self.log = EventLog(self.csv_path, fsync=self.cfg.fsync)
        self.screen = TaskScreen(self.win, self.lp, self.msg)
        keys = [self.model.input.quit_key, "space"]
        if self.model.input.mode == "keys":
            keys += list(self.model.input.keys or [])
        if self.cfg.simulate:
            seed = 0 if self.cfg.seed is None else self.cfg.seed
            times = self.cfg.simulate if isinstance(self.cfg.simulate, SimulatedTimes) else None
            self.input = SimulatedParticipant(
                self.win, self.screen, self.clock, keys, seed=seed, speed=self.speed,
                mode=self.model.input.mode, times=times,
            )  # fmt: skip
            self.input.peg_keys = list(self.model.input.keys or [])
        else:
            self.input, self.fallback_reason = self._real_input(keys)
        self.refresh = self._measure_refresh()
        self.clock_zero_monotonic = time.monotonic() - self.clock.getTime()
        self.meta = self._metadata()
        if self.resume:
            old = self.resume.meta
            for key in ("start_time", "blocks", "extra_fields"):
                self.meta[key] = old.get(key, self.meta[key])
            self.meta["frames"]["trials"] = (
                old.get("frames", {}).get("trials", []) + self.frame_stats
            )
            self.frame_stats = self.meta["frames"]["trials"]
            self.meta["resumes"] = [*old.get("resumes", []), {
                "time": _now_iso(), "after_row": self.progress.last_row,
                "previous_status": old.get("status"), "interrupted": list(self.progress.interrupted or []),
                "note": self.resume.protocol_note,
            }]  # fmt: skip
        self.form, self.block_indices = self._form()
        write_sidecar(self.json_path, self.meta)
        if self.resume:
            block, pid = self.progress.interrupted or ("", "")
            self._write("resume", detail=f"after_row={self.progress.last_row};interrupted={block}/{pid}"
                        + (f";note={self.resume.protocol_note}" if self.resume.protocol_note else ""))  # fmt: skip
        else:
            form = f";form={self.form}" if self.form else ""
            self._write(
                "session_start", detail=f"protocol={self.lp.name};sha256={self.lp.sha256}{form}"
            )

    def _form(self) -> tuple[str | None, list[int]]:
        """The counterbalanced form and its blocks (the recorded ones when resuming)."""
        names = [b.name for b in self.model.blocks]
        recorded = self.resume.meta.get("counterbalance") if self.resume else None
        if recorded:
            form, indices = recorded["form"], [names.index(b) for b in recorded["blocks"]]
        else:
            form, indices = self.lp.form_for(self.cfg.participant, self.cfg.session)
        cb = self.model.counterbalance
        self.meta["counterbalance"] = (
            {"by": cb.by, "form": form, "blocks": [names[i] for i in indices]} if cb else None
        )
        return form, indices

    def _finish(self, status: str) -> EventLogWriteError | None:
        """Write the session's end, save the sidecar, close the input; never raise.

        Returns the error that stopped the last row being written, if any.
        """
        error = None
        with contextlib.suppress(Exception):
            if hasattr(self.input, "close"):
                self.input.close()
        self.meta["frames"].update(frame_summary(self.frame_stats, self._work))
        self.meta["timing"]["unmatched_presses"] = getattr(self.input, "unmatched_presses", 0)
        if status != "crashed":
            try:
                self._write("session_end", reason=status)
            except EventLogWriteError as exc:
                status, error = "crashed", exc
                self.meta["error"] = str(exc)
        self.meta.update(status=status, end_time=_now_iso(), rows_written=self.log.rows_written)
        self.status = status
        try:
            write_sidecar(self.json_path, self.meta)
        except OSError as exc:
            print(f"tol-tasks: warning: the sidecar {self.json_path} could not be updated "
                  f"({exc.strerror}); the event log is complete up to row {self.log.rows_written}.",
                  file=sys.stderr)  # fmt: skip
        finally:
            self.log.close()
            self._restore_window()
        return error

    def _claim_window(self) -> None:
        """The protocol's background while the task draws."""
        self.win.colorSpace = "rgb"
        self.win.color = self.model.display.background

    def _restore_window(self) -> None:
        with contextlib.suppress(Exception):
            if self._old_color is not None and not getattr(self.win, "_closed", False):
                self.win.colorSpace = self._old_colorspace
                self.win.color = self._old_color

    def _real_input(self, keys):
        """On-arrival input where possible, else polled input with a warning and a reason."""
        method = self.cfg.input_timing
        if method == "polled":
            reason = "polled timing requested (--input-timing polled)"
            inp = PolledInput(self.win, self.screen, self.clock, keys)
        else:
            inp, reason = open_arrival_input(self.win, self.screen, self.clock, keys, method)
        if reason:
            print(
                f"tol-tasks: warning: input is polled once per frame, so presses are stamped up "
                f"to a frame late: {reason}.",
                file=sys.stderr,
            )
        if hasattr(inp, "on_lost"):
            inp.on_lost = self._input_lost
        return inp, reason

    def _input_lost(self, t: float, reason: str) -> None:
        """The on-arrival source died: say so in the log and the sidecar; go on polled."""
        self._write("input_lost", time=t, stamp="clock",
                    detail=f"reason={reason};method={self.input.method};now=polled")  # fmt: skip
        self.meta["timing"]["input_lost"] = {
            "time": t, "reason": reason, "method_before": self.input.method, "method_after": "polled",
        }  # fmt: skip
        write_sidecar(self.json_path, self.meta)
        print(f"tol-tasks: warning: on-arrival input lost at {t:.3f} s ({reason}); the session "
              "goes on with the window's own events, stamped polled.", file=sys.stderr)  # fmt: skip

    # ------------------------------------------------------------ metadata
    def _measure_refresh(self) -> float | None:
        rate = self.win.getActualFrameRate(nIdentical=10, nMaxFrames=60, nWarmUpFrames=5)
        return float(rate) if rate else None

    def _metadata(self) -> dict:
        probe = self.lp.block_problems(0)[0].puzzle
        areas = self._boards(probe)[0]  # the participant's board, as the trials draw it
        try:
            pos = list(self.win.winHandle.get_location())
        except Exception:  # pragma: no cover - some backends cannot tell
            pos = None
        clock_source = (
            "the caller's clock (psychopy.core.Clock)" if self._given_clock is not None
            else "psychopy.core.Clock, zero at session start"
        )  # fmt: skip
        return {
            "sidecar_version": SIDECAR_VERSION,
            "event_log": self.csv_path.name,
            "event_log_version": EVENT_LOG_VERSION,
            "status": "incomplete",
            "participant": self.cfg.participant,
            "session": self.cfg.session,
            "extra_fields": self.cfg.extra_fields,
            "language": self.language,
            "start_time": _now_iso(),
            "end_time": None,
            "protocol": {
                "name": self.lp.name, "version": self.model.version,
                "path": str(self.lp.path) if self.lp.path else None,
                "sha256": self.lp.sha256, "text": self.lp.text,
            },
            "software": {
                "tol_tasks": __version__, "psychopy": psychopy.__version__,
                "python": sys.version.split()[0], "os": platform.platform(),
            },
            "screen": {"index": self.model.display.screen,
                       "size": [int(v) for v in self.win.monitor.getSizePix() or self.win.size]},
            "window": {"size": [int(v) for v in self.win.size], "position": pos,
                       "fullscreen": bool(self.win._isFullScr), "units": UNITS,
                       "owner": "tol-run" if self.cfg.owns_window else "caller"},
            "refresh_rate_hz": self.refresh,
            "timing": {
                "clock": f"{clock_source}; every event and flip; "
                "session time = psychopy.clock.getTime() - clock_zero",
                "clock_function": "psychopy.clock.getTime",
                "clock_zero": self.clock.getLastResetTime(),
                "clock_zero_monotonic": self.clock_zero_monotonic,
                "input_method": self.input.method,
                "input_fallback_reason": self.fallback_reason,
                "input_reconciled": "every press the window receives is handled; one that the "
                                    "on-arrival source also reported keeps its arrival stamp, "
                                    "one it did not is stamped polled and counted in "
                                    "unmatched_presses",
                "unmatched_presses": 0,
                "input_lost": None,
                "expected_resolution_s": (
                    0.001 if self.input.method in ("xinput2-raw", "iohub")
                    else (1 / self.refresh) if self.refresh and self.refresh <= 300 else None
                ),
                "trial_onset": "callOnFlip of the first frame showing the problem",
                "frame_work": "from the return of one flip to the call of the next "
                              "(input polling and drawing), per trial and for the session",
            },
            "frames": {"trials": self.frame_stats},
            "layout": {"puzzle": puzzle_code(probe), "pegs": self.screen.pixel_rects(areas),
                       "coordinates": "window pixels from the top-left"},
            "simulate": (
                {"seed": self.cfg.seed, "speed": self.speed, **self.input.times.as_dict()}
                if self.cfg.simulate else None
            ),
            "experiment": (
                {"name": self.name, "data_file": str(getattr(self.experiment, "dataFileName", ""))}
                if self.experiment is not None else None
            ),
            "blocks": [],
            "rows_written": 0,
        }  # fmt: skip

    # ------------------------------------------------------------- logging
    def _write(self, event_name: str | None = None, **kw) -> None:
        kw.setdefault("time", self.clock.getTime())
        self.log.write(participant=self.cfg.participant, session=self.cfg.session,
                       event=event_name, **kw)  # fmt: skip

    def _check_quit(self, events) -> None:
        for ev in events:
            if ev.kind == "key" and ev.key == self.model.input.quit_key:
                raise AbortSession(ev.t)

    # -------------------------------------------------------------- screens
    def _flip(self) -> None:
        """Flip, keeping the work done since the previous flip returned."""
        if self._since_flip is not None:
            self._work.append(time.perf_counter() - self._since_flip)
            if self._trial_work is not None:
                self._trial_work.append(self._work[-1])
        self.win.flip()
        self._since_flip = time.perf_counter()

    _since_flip: float | None = None
    _trial_work: list[float] | None = None
    _copy_shown = False
    _copies_refused = False

    def _wait(self, seconds: float, draw) -> None:
        end = self.clock.getTime() + seconds / self.speed
        while self.clock.getTime() < end:
            self._check_quit(self.input.poll())
            draw()
            self._flip()

    def _message(self, text: str, seconds: float) -> None:
        label = self.screen.label("message", small=False)
        self._wait(seconds, lambda: label.draw(text))

    def _instructions(self) -> None:
        base_dir = self.lp.path.parent if self.lp.path else None
        for k, page in enumerate(self.lp.pages(self.language), start=1):
            shown = self._flip_time()
            self.screen.draw_page(page, base_dir)
            self._flip()
            self._write("page_shown", time=shown[0], problem_id=f"page-{k}", stamp="flip")
            self.input.on_page(self.clock.getTime())
            while True:
                evs = self.input.poll()
                self._check_quit(evs)
                done = [
                    e for e in evs if e.kind == "release" or (e.kind == "key" and e.key == "space")
                ]
                if done:
                    self._write("page_left", time=done[0].t, problem_id=f"page-{k}",
                                input=done[0].source, stamp=done[0].stamp)  # fmt: skip
                    break
                self.screen.draw_page(page, base_dir)
                self._flip()

    # ------------------------------------------------------------- problems
    def _practice(self) -> None:
        p = self.model.practice
        specs = self.lp.practice_problems()
        if not specs:
            return
        tries = p.max_attempts if p.repeat_until_solved else 1
        if self.progress and all(self.progress.finished("practice", s.id, tries) for s in specs):
            return
        self._message(self.msg["practice_start"], 1.5)
        for spec in specs:
            used = self.progress.attempts_used("practice", spec.id) if self.progress else 0
            if self.progress and self.progress.finished("practice", spec.id, tries):
                continue
            for attempt in range(used + 1, tries + 1):
                outcome = self._trial(spec, "practice", attempt, feedback=True)
                if outcome == "solved":
                    break
                if attempt < tries:
                    self._message(self.msg["try_again"], self.model.timing.feedback_duration)

    def _block(self, index: int) -> None:
        block = self.model.blocks[index]
        specs = self.lp.block_problems(index)
        recorded = next((b for b in self.meta["blocks"] if b["name"] == block.name), None)
        if recorded is not None:  # a resumed session: the same order, shuffled or not
            ids = [s.id for s in specs]
            order = [ids.index(pid) for pid in recorded["order"]]
            prog = self.progress
            if (
                prog is None
                or block.name in prog.discontinued
                or all(prog.finished(block.name, specs[i].id, block.attempts) for i in order)
            ):
                return
        else:
            order, seed = block_order(len(specs), block.order, block.seed)
            self.meta["blocks"].append({"name": block.name, "order": [specs[i].id for i in order],
                                        "shuffled": block.order == "shuffled", "seed": seed})  # fmt: skip
            write_sidecar(self.json_path, self.meta)
            form = f";form={self.form}" if self.form else ""
            self._write("block_start", block=block.name,
                        detail=f"order={','.join(specs[i].id for i in order)};seed={seed}{form}")  # fmt: skip
            if index == self.block_indices[0] and self.lp.practice_problems():
                self._message(self.msg["test_start"], 1.5)
        failures = 0
        for i in order:
            spec = specs[i]
            used = self.progress.attempts_used(block.name, spec.id) if self.progress else 0
            if self.progress and self.progress.finished(block.name, spec.id, block.attempts):
                continue
            for attempt in range(used + 1, block.attempts + 1):
                outcome = self._trial(
                    spec, block.name, attempt, feedback=self.model.feedback != "none",
                    copies=block.copies, last_attempt=attempt == block.attempts,
                )  # fmt: skip
                if outcome == "solved":
                    break
            failures = 0 if outcome == "solved" else failures + 1
            if block.discontinue_after and failures >= block.discontinue_after:
                self._write("discontinue", block=block.name,
                            detail=f"after={failures} consecutive failures")  # fmt: skip
                break

    def _trial(self, spec: ProblemSpec, block_name: str, attempt: int, feedback: bool,
               copies: Copy | None = None, last_attempt: bool = True) -> str:  # fmt: skip
        self.trial_no += 1
        trial = TrialState(spec, self.model.rules, attempt=attempt)
        puzzle = spec.puzzle
        d = self.model.display
        screen = self.screen
        areas, goal_areas = self._boards(puzzle)
        board = screen.board("board", puzzle, areas)
        goal = screen.board("goal", puzzle, goal_areas) if goal_areas else None
        if goal is not None:
            goal.show(spec.goal)
            goal_top = max(a.y + a.h / 2 for a in goal_areas) + 0.035
        base = {"block": block_name, "trial": self.trial_no, "attempt": attempt,
                "problem_id": spec.id}  # fmt: skip
        notice: list = []
        goal_label, moves_label = screen.label("goal_label"), screen.label("moves")
        time_label, notice_label = screen.label("time_left"), screen.label("notice")
        moves_pos = (-0.45 * screen.aspect + 0.12, 0.45)
        time_pos = (0.45 * screen.aspect - 0.15, 0.45)
        moves_text = self.msg["moves_label"]
        time_text = self.msg["time_label"]
        first_pick: list[float] = []
        drag = [None]

        def draw():
            if goal is not None:
                goal_label.draw(self.msg["goal_label"], (0, goal_top))
                goal.draw()
            board.show(trial.state, trial.held, drag[0])
            board.draw()
            if d.show_move_counter:
                moves_label.draw(moves_text.format(moves=trial.moves), moves_pos)
            if d.show_time_left and spec.time_limit and onset:
                left = max(0, spec.time_limit - (self.clock.getTime() - onset[0]))
                time_label.draw(time_text.format(seconds=int(left + 0.999)), time_pos)
            if notice and self.clock.getTime() < notice[1]:
                notice_label.draw(notice[0], (0, -0.05))

        def on_event(ev, name, r):
            if name == "pick_up" and not first_pick:
                first_pick.append(ev.t - t0)
            if r.get("reason") and d.show_illegal_message:
                text = self.msg.get(f"illegal_{r['reason']}")
                if text:
                    notice[:] = [text, self.clock.getTime() + 1.2 / self.speed]

        onset = self._flip_time()
        draw()
        self._start_frames()
        self._flip()
        t0 = onset[0]
        self._write("trial_onset", time=t0, trial_time=0.0, state=str(spec.start), goal=str(spec.goal),
                    puzzle=puzzle_code(puzzle), moves=0, stamp="flip", **base)  # fmt: skip
        try:
            self._play(trial, areas, t0, base, draw, drag, on_event)
        except AbortSession:
            self._end_trial(spec, trial, t0, base, first_pick, outcome="aborted")
            self._add_to_experiment(self._last_result)
            raise
        self._end_trial(spec, trial, t0, base, first_pick, outcome=trial.outcome)
        result = self._last_result
        try:
            if feedback:
                text = self._feedback_text(trial, spec)
                self._write("feedback", detail=f"text={text}", **base)
                fb = screen.label("feedback")
                self._wait(self.model.timing.feedback_duration,
                           lambda: (draw(), fb.draw(text, (0, -0.1))))  # fmt: skip
            self._wait(self.model.timing.inter_trial_interval, lambda: None)
            wanted = trial.outcome == "solved" or (last_attempt and copies is not None
                                                    and copies.unsolved == "copy")  # fmt: skip
            if copies is not None and wanted and self.log.version < 2:
                self._warn_no_copies()
            elif copies is not None and wanted:
                sequence = copy_sequence(puzzle, spec.start, spec.goal, trial.placed, copies.moves)
                if sequence:
                    self._copy_trial(spec, block_name, attempt, base["trial"], sequence,
                                     copies.moves, result)  # fmt: skip
        finally:
            self._add_to_experiment(result)
        return trial.outcome

    def _warn_no_copies(self) -> None:
        """A resumed format 1 log has no copy_of column: its session runs no copies."""
        if not self._copies_refused:
            self._copies_refused = True
            print(f"tol-tasks: warning: {self.csv_path} is a format 1 event log (written before "
                  "copy trials); the resumed session runs no copy trials. Start a new session "
                  "to have them.", file=sys.stderr)  # fmt: skip

    def _play(self, trial, areas, t0, base, draw, drag, on_event, after_flip=None) -> None:
        """The frame loop of one trial (a problem or a copy) until it is done.

        Every press, release and key is turned into the trial's peg actions;
        each action it returns is logged and passed to ``on_event``.
        """
        screen = self.screen
        mode = self.model.input.mode
        peg_keys = list(self.model.input.keys or [])
        self.input.on_trial(trial, areas, self.clock.getTime())
        while not trial.done:
            evs = self.input.poll()
            self._check_quit(evs)
            for ev in evs:
                results = []
                if ev.t < t0 and ev.kind != "key":
                    continue  # pressed before the problem was on screen: not meant for it
                if ev.kind == "key":
                    if mode == "keys" and ev.key in peg_keys:
                        peg = peg_keys.index(ev.key)
                        results = trial.pick(peg) if trial.held is None else trial.drop(peg)
                elif mode == "drag":
                    peg = screen.hit(areas, ev.x, ev.y)
                    if ev.kind == "press" and peg is not None:
                        results = trial.pick(peg)
                    elif ev.kind == "release":
                        results = trial.drop(peg)
                        drag[0] = None
                elif ev.kind == "press":
                    peg = screen.hit(areas, ev.x, ev.y)
                    if peg is not None:
                        results = trial.pick(peg) if trial.held is None else trial.drop(peg)
                for r in results:
                    name = r.pop("event")
                    self._write(time=ev.t, trial_time=ev.t - t0, x=ev.x, y=ev.y, input=ev.source,
                                stamp=ev.stamp, event_name=name, **base, **r)  # fmt: skip
                    on_event(ev, name, r)
            now = self.clock.getTime()
            self.input.after(trial, now)
            for r in trial.tick((now - t0) * self.speed if self.cfg.simulate else now - t0):
                self._write(time=now, trial_time=now - t0, stamp="clock",
                            event_name=r.pop("event"), **base, **r)  # fmt: skip
            if mode == "drag" and trial.held is not None and not self.cfg.simulate:
                drag[0] = self.input.pointer()
            draw()
            self._flip()
            if after_flip is not None:
                after_flip()

    def _copy_trial(self, spec: ProblemSpec, block_name: str, attempt: int, copy_of: int,
                    sequence: list[tuple[int, int]], source: str, result: ProblemResult) -> None:  # fmt: skip
        """A yoked copy trial after problem attempt ``copy_of``: the moves shown one at a time.

        The board is the problem's, in the same place and size, at the
        problem's start and without the goal; the piece to take is outlined and
        the peg to put it on marked. The outcome goes into ``result``'s
        ``copy_`` fields.
        """
        if not self._copy_shown:
            self._message(self.msg["copy_start"], 1.5)
            self._copy_shown = True
        self.trial_no += 1
        trial = CopyState(spec, sequence, attempt=attempt)
        puzzle = spec.puzzle
        areas = self._boards(puzzle)[0]
        board = self.screen.board("board", puzzle, areas)
        label = self.screen.label("copy_label")
        label_text = self.msg["copy_label"]
        base = {"block": block_name, "trial": self.trial_no, "attempt": attempt,
                "problem_id": spec.id, "copy_of": copy_of}  # fmt: skip
        first_pick: list[float] = []
        drag = [None]
        # The cue drawn last: [flip-time box, move index, piece, state]; logged once its flip is known.
        cue: list = [None, -1, None, ""]

        def draw():
            shown = trial.cue
            if shown is not None and cue[1] != trial.moves:
                cue[:] = [
                    self._flip_time(),
                    trial.moves,
                    trial.top_piece(shown[0]),
                    str(trial.state),
                ]
            label.draw(label_text, (0, 0.42))
            board.show(trial.state, trial.held, drag[0], cue=shown)
            board.draw()

        def on_event(ev, name, r):
            if name == "pick_up" and not first_pick:
                first_pick.append(ev.t - t0)

        def log_cue():
            box, k, piece, state = cue
            if box is not None and len(box) == 1:
                a, b = sequence[k]
                self._write("copy_cue", time=box[0], trial_time=box[0] - t0, piece=piece,
                            from_peg=PEG_LETTERS[a], to_peg=PEG_LETTERS[b], moves=k, state=state,
                            stamp="flip", **base)  # fmt: skip
                box.append(None)  # logged

        onset = self._flip_time()
        draw()
        self._start_frames()
        self._flip()
        t0 = onset[0]
        moves_text = ",".join(f"{PEG_LETTERS[a]}>{PEG_LETTERS[b]}" for a, b in sequence)
        self._write("copy_onset", time=t0, trial_time=0.0, state=str(spec.start),
                    goal=str(trial.end_state()), puzzle=puzzle_code(puzzle), moves=0, stamp="flip",
                    detail=f"source={source};sequence={moves_text}", **base)  # fmt: skip
        log_cue()

        outcome = "aborted"
        try:
            self._play(trial, areas, t0, base, draw, drag, on_event, after_flip=log_cue)
            outcome = trial.outcome
        finally:
            self._end_copy(trial, t0, base, first_pick, outcome, result)
        self._wait(self.model.timing.inter_trial_interval, lambda: None)

    def _start_frames(self) -> None:
        self.win.frameIntervals = []
        self.win.recordFrameIntervals = True
        self._trial_work = []

    def _stop_frames(self, problem_id: str, copy_of: int | None = None) -> dict:
        self.win.recordFrameIntervals = False
        intervals = list(self.win.frameIntervals)
        frames = frame_stats(intervals, self.refresh, self._trial_work or [])
        self._trial_work = None
        entry = {"trial": self.trial_no, "problem_id": problem_id, **frames}
        if copy_of is not None:
            entry["copy_of"] = copy_of
        self.frame_stats.append(entry)
        return frames

    @staticmethod
    def _frame_detail(frames: dict) -> str:
        return ";".join(
            f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in frames.items()
        )

    def _end_copy(self, trial, t0, base, first_pick, outcome, result) -> None:
        frames = self._stop_frames(base["problem_id"], base["copy_of"])
        total = self.clock.getTime() - t0
        if outcome != "aborted":
            self._write("copy_end", trial_time=total, reason=outcome, state=str(trial.state),
                        moves=trial.moves, detail=self._frame_detail(frames), **base)  # fmt: skip
        result.copy_trial = base["trial"]
        result.copy_outcome = outcome
        result.copy_moves = trial.moves
        result.copy_refused = trial.refused
        result.copy_first_move_latency = first_pick[0] if first_pick else None
        result.copy_total_time = total

    def _end_trial(self, spec, trial, t0, base, first_pick, outcome) -> None:
        """Frame statistics, the trial_end row (not for an aborted trial), the result."""
        frames = self._stop_frames(spec.id)
        total = self.clock.getTime() - t0
        if outcome != "aborted":
            self._write("trial_end", trial_time=total, reason=trial.outcome,
                        state=str(trial.state), moves=trial.moves,
                        detail=self._frame_detail(frames), **base)  # fmt: skip
        result = self._result(spec, base["block"], base["attempt"],
                              first_pick[0] if first_pick else None, outcome,
                              moves=trial.moves, total=total)  # fmt: skip
        self.results.append(result)
        self._last_result = result

    def _result(self, spec, block, attempt, planning, outcome, moves=0, total=0.0):
        return ProblemResult(
            problem_id=spec.id, block=block, attempt=attempt, start=str(spec.start),
            goal=str(spec.goal), min_moves=spec.min_moves, moves=moves,
            solved=outcome == "solved", outcome=outcome, planning_time=planning,
            total_time=total, event_log=self.csv_path.name,
        )  # fmt: skip

    def _add_to_experiment(self, result: ProblemResult) -> None:
        exp = self.experiment
        if exp is None:
            return
        for col in EXPERIMENT_COLUMNS:
            exp.addData(f"{self.name}.{col}", getattr(result, col))
        if self.next_entry:
            exp.nextEntry()

    def _flip_time(self) -> list[float]:
        """A list that receives the session-clock time of the next flip."""
        box: list[float] = []
        self.win.callOnFlip(lambda: box.append(self.clock.getTime()))
        return box

    def _boards(self, puzzle):
        """Peg areas of the participant's board and of the goal (None if hidden)."""
        if not self.model.display.show_goal:
            return self.screen.layout(puzzle, base_y=-0.4, scale=BOARD_SCALE), None
        pos = self.model.display.goal_position
        if pos == "top":
            return (
                self.screen.layout(puzzle, base_y=-0.46, scale=BOARD_SCALE),
                self.screen.layout(puzzle, base_y=0.14, scale=GOAL_SCALE),
            )
        side = self.screen.aspect * 0.25 * (1 if pos == "right" else -1)
        return (
            self.screen.layout(puzzle, base_y=-0.4, scale=0.6, x0=-side * 0.8),
            self.screen.layout(puzzle, base_y=-0.1, scale=0.35, x0=side * 1.3),
        )

    def _feedback_text(self, trial, spec) -> str:
        if trial.outcome == "solved":
            if self.model.feedback == "moves":
                return self.msg["moves_feedback"].format(
                    moves=trial.moves, min_moves=spec.min_moves
                )
            return self.msg["solved"]
        lead = {"time_out": self.msg["time_out"], "move_limit": self.msg["move_limit"]}.get(
            trial.outcome, ""
        )
        return (lead + " " + self.msg["not_solved"]).strip()


def _check_window(win) -> None:
    if not isinstance(win, visual.Window):
        raise TaskSetupError(
            f"win={win!r} is not a PsychoPy window. Suggested fix: pass the "
            "psychopy.visual.Window your experiment draws on (Builder's `win`)."
        )
    if getattr(win, "_closed", False):
        raise TaskSetupError(
            "the window has already been closed. Suggested fix: create the TowerTask (and run "
            "it) before win.close(), or open a new psychopy.visual.Window."
        )


def _check_experiment(experiment) -> None:
    if experiment is None:
        return
    from psychopy.data import ExperimentHandler

    if not isinstance(experiment, ExperimentHandler):
        raise TaskSetupError(
            f"experiment={experiment!r} is not a psychopy.data.ExperimentHandler. Suggested "
            "fix: pass your ExperimentHandler (Builder's `thisExp`), or leave experiment out."
        )


def _set_clock(clock, value: float) -> None:
    """Make ``clock`` read ``value`` now.

    PsychoPy's ``Clock.reset(newT=t)`` makes some versions' clocks read ``-t``;
    the reading is checked and the sign corrected.
    """
    clock.reset(newT=value)
    if abs(clock.getTime() - value) > abs(clock.getTime() + value):
        clock.reset(newT=-value)


def _now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")
