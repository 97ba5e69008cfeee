"""One participant session in a real PsychoPy window, every event logged as it happens."""

from __future__ import annotations

import contextlib
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import psychopy
from psychopy import core, visual
from psychopy import logging as psychopy_logging
from psychopy.clock import getTime

from tol_tasks import __version__
from tol_tasks.protocol_format.model import LoadedProtocol
from tol_tasks.session_data.eventlog import EVENT_LOG_VERSION, EventLog, EventLogWriteError
from tol_tasks.session_data.resume import ResumePlan
from tol_tasks.session_data.sidecar import SIDECAR_VERSION, write_sidecar
from tol_tasks.session_data.trial import TrialState, block_order, puzzle_code

from .arrival import open_arrival_input
from .files import RunConfig
from .inputs import PolledInput, SimulatedParticipant
from .prepare import Prepared, prepare
from .screen import TaskScreen

#: Size of the participant's board and of the goal, relative to the full layout.
BOARD_SCALE = 0.95
GOAL_SCALE = 0.5

# PsychoPy prints a warning per slow frame; dropped frames go into the data instead.
psychopy_logging.console.setLevel(psychopy_logging.ERROR)


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


def run_session(config: RunConfig, prepared: Prepared | None = None) -> RunResult:
    """Run a session. Bad protocols, ids and folders are refused before anything is written.

    Raises
    ------
    TolTasksError
        From :func:`~tol_tasks.runner.prepare.prepare`, before the window opens.
    """
    p = prepared or prepare(config)
    return _Session(config, p.protocol, p.log, p.sidecar, resume=p.resume).run()


class _Session:
    def __init__(self, config: RunConfig, lp: LoadedProtocol, csv_path: Path, json_path: Path,
                 resume: ResumePlan | None = None):  # fmt: skip
        self.cfg = config
        self.lp = lp
        self.model = lp.model
        self.csv_path, self.json_path = csv_path, json_path
        self.language = config.language or self.model.instructions.default_language
        self.msg = lp.messages(self.language)
        self.trial_no = 0
        self.speed = config.speed if config.simulate else 1.0
        self.fallback_reason: str | None = None
        self.frame_stats: list[dict] = []
        self.resume = resume
        self.progress = resume.progress if resume else None

    # ---------------------------------------------------------------- run
    def run(self) -> RunResult:
        d = self.model.display
        fullscr = d.fullscreen and not self.cfg.windowed
        self.win = visual.Window(
            size=list(d.window_size), fullscr=fullscr, screen=d.screen, units="height",
            color=d.background, allowGUI=not fullscr, checkTiming=False,
        )  # fmt: skip
        self.clock = core.Clock()
        self._display_lost_handler = _on_display_loss(self)
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
            self.input = SimulatedParticipant(
                self.win, self.screen, self.clock, keys, seed=seed, speed=self.speed,
                mode=self.model.input.mode,
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
        status = "crashed"
        try:
            if self.resume:
                block, pid = self.progress.interrupted or ("", "")
                self._write("resume", detail=f"after_row={self.progress.last_row};interrupted={block}/{pid}"
                            + (f";note={self.resume.protocol_note}" if self.resume.protocol_note else ""))  # fmt: skip
            else:
                form = f";form={self.form}" if self.form else ""
                self._write(
                    "session_start", detail=f"protocol={self.lp.name};sha256={self.lp.sha256}{form}"
                )
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
            status = self.meta["status"]
        if end_error is not None:
            raise end_error
        return RunResult(self.csv_path, self.json_path, status, self.log.rows_written)

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
        """Write the session's end, save the sidecar, close everything; never raise.

        Returns the error that stopped the last row being written, if any.
        """
        error = None
        with contextlib.suppress(Exception):
            if hasattr(self.input, "close"):
                self.input.close()
        self.meta["frames"].update(_frame_summary(self.frame_stats))
        if status != "crashed":
            try:
                self._write("session_end", reason=status)
            except EventLogWriteError as exc:
                status, error = "crashed", exc
                self.meta["error"] = str(exc)
        self.meta.update(status=status, end_time=_now_iso(), rows_written=self.log.rows_written)
        try:
            write_sidecar(self.json_path, self.meta)
        except OSError as exc:
            print(f"tol-run: warning: the sidecar {self.json_path} could not be updated "
                  f"({exc.strerror}); the event log is complete up to row {self.log.rows_written}.",
                  file=sys.stderr)  # fmt: skip
        finally:
            self.log.close()
            with contextlib.suppress(Exception):
                self.win.close()
        return error

    def _real_input(self, keys):
        """On-arrival input where possible, else polled input with a warning and a reason."""
        if self.cfg.input_timing == "polled":
            reason = "polled timing requested (--input-timing polled)"
            inp = PolledInput(self.win, self.screen, self.clock, keys)
        else:
            inp, reason = open_arrival_input(self.win, self.screen, self.clock, keys)
        if reason:
            print(
                f"tol-run: warning: input is polled once per frame, so presses are stamped up to "
                f"a frame late: {reason}.",
                file=sys.stderr,
            )
        return inp, reason

    # ------------------------------------------------------------ metadata
    def _measure_refresh(self) -> float | None:
        rate = self.win.getActualFrameRate(nIdentical=10, nMaxFrames=60, nWarmUpFrames=5)
        return float(rate) if rate else None

    def _metadata(self) -> dict:
        probe = self.lp.block_problems(0)[0].puzzle
        areas = self.screen.layout(probe)
        try:
            pos = list(self.win.winHandle.get_location())
        except Exception:  # pragma: no cover - some backends cannot tell
            pos = None
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
                       "fullscreen": bool(self.win._isFullScr), "units": "height"},
            "refresh_rate_hz": self.refresh,
            "timing": {
                "clock": "psychopy.core.Clock, zero at session start; every event and flip; "
                "session time = psychopy.clock.getTime() - clock_zero",
                "clock_function": "psychopy.clock.getTime",
                "clock_zero": self.clock.getLastResetTime(),
                "clock_zero_monotonic": self.clock_zero_monotonic,
                "input_method": self.input.method,
                "input_fallback_reason": self.fallback_reason,
                "expected_resolution_s": (
                    0.001 if self.input.method == "xinput2-raw"
                    else (1 / self.refresh) if self.refresh and self.refresh <= 300 else None
                ),
                "trial_onset": "callOnFlip of the first frame showing the problem",
            },
            "frames": {"trials": self.frame_stats},
            "layout": {"puzzle": puzzle_code(probe), "pegs": self.screen.pixel_rects(areas),
                       "coordinates": "window pixels from the top-left"},
            "simulate": {"seed": self.cfg.seed, "speed": self.speed} if self.cfg.simulate else None,
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
    def _wait(self, seconds: float, draw) -> None:
        end = self.clock.getTime() + seconds / self.speed
        while self.clock.getTime() < end:
            self._check_quit(self.input.poll())
            draw()
            self.win.flip()

    def _message(self, text: str, seconds: float) -> None:
        self._wait(seconds, lambda: self.screen.draw_text(text))

    def _instructions(self) -> None:
        for k, page in enumerate(self.lp.pages(self.language), start=1):
            shown = self._flip_time()
            self.screen.draw_page(page, self.lp.path.parent if self.lp.path else None)
            self.win.flip()
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
                self.screen.draw_page(page, self.lp.path.parent if self.lp.path else None)
                self.win.flip()

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
                    spec, block.name, attempt, feedback=self.model.feedback != "none"
                )
                if outcome == "solved":
                    break
            failures = 0 if outcome == "solved" else failures + 1
            if block.discontinue_after and failures >= block.discontinue_after:
                self._write("discontinue", block=block.name,
                            detail=f"after={failures} consecutive failures")  # fmt: skip
                break

    def _trial(self, spec, block_name: str, attempt: int, feedback: bool) -> str:
        self.trial_no += 1
        trial = TrialState(spec, self.model.rules, attempt=attempt)
        puzzle = spec.puzzle
        d = self.model.display
        areas, goal_areas = self._boards(puzzle)
        base = {
            "block": block_name,
            "trial": self.trial_no,
            "attempt": attempt,
            "problem_id": spec.id,
        }
        mode = self.model.input.mode
        peg_keys = list(self.model.input.keys or [])
        drag_pos = None

        def draw():
            if goal_areas:
                top = max(a.y + a.h / 2 for a in goal_areas)
                self.screen.draw_text(self.msg["goal_label"], pos=(0, top + 0.035), small=True)
                self.screen.draw_board(puzzle, spec.goal, goal_areas)
            self.screen.draw_board(puzzle, trial.state, areas, held=trial.held, drag=drag_pos)
            if d.show_move_counter:
                self.screen.draw_text(
                    self.msg["moves_label"].format(moves=trial.moves),
                    pos=(-0.45 * self.screen.aspect + 0.12, 0.45),
                    small=True,
                )
            if d.show_time_left and spec.time_limit and onset:
                left = max(0, spec.time_limit - (self.clock.getTime() - onset[0]))
                self.screen.draw_text(
                    self.msg["time_label"].format(seconds=int(left + 0.999)),
                    pos=(0.45 * self.screen.aspect - 0.15, 0.45),
                    small=True,
                )
            if notice and self.clock.getTime() < notice[1]:
                self.screen.draw_text(notice[0], pos=(0, -0.05), small=True)

        notice: list = []
        onset = self._flip_time()
        draw()
        self.win.frameIntervals = []
        self.win.recordFrameIntervals = True
        self.win.flip()
        t0 = onset[0]
        self._write("trial_onset", time=t0, trial_time=0.0, state=str(spec.start), goal=str(spec.goal),
                    puzzle=puzzle_code(puzzle), moves=0, stamp="flip", **base)  # fmt: skip
        self.input.on_trial(trial, areas, self.clock.getTime())
        while not trial.done:
            evs = self.input.poll()
            self._check_quit(evs)
            for ev in evs:
                results = []
                if ev.kind == "key":
                    if mode == "keys" and ev.key in peg_keys:
                        peg = peg_keys.index(ev.key)
                        results = trial.pick(peg) if trial.held is None else trial.drop(peg)
                elif mode == "drag":
                    peg = self.screen.hit(areas, ev.x, ev.y)
                    if ev.kind == "press" and peg is not None:
                        results = trial.pick(peg)
                    elif ev.kind == "release":
                        results = trial.drop(peg)
                        drag_pos = None
                elif ev.kind == "press":
                    peg = self.screen.hit(areas, ev.x, ev.y)
                    if peg is not None:
                        results = trial.pick(peg) if trial.held is None else trial.drop(peg)
                for r in results:
                    self._write(time=ev.t, trial_time=ev.t - t0, x=ev.x, y=ev.y, input=ev.source,
                                stamp=ev.stamp, event_name=r.pop("event"), **base, **r)  # fmt: skip
                    if r.get("reason") and d.show_illegal_message:
                        text = self.msg.get(f"illegal_{r['reason']}")
                        if text:
                            notice[:] = [text, self.clock.getTime() + 1.2 / self.speed]
            now = self.clock.getTime()
            self.input.after(trial, now)
            for r in trial.tick((now - t0) * self.speed if self.cfg.simulate else now - t0):
                self._write(
                    time=now,
                    trial_time=now - t0,
                    stamp="clock",
                    event_name=r.pop("event"),
                    **base,
                    **r,
                )
            if mode == "drag" and trial.held is not None and not self.cfg.simulate:
                drag_pos = self.input.pointer()
            draw()
            self.win.flip()
        self.win.recordFrameIntervals = False
        intervals = list(self.win.frameIntervals)
        frames = _frame_stats(intervals, self.refresh)
        detail = ";".join(
            f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in frames.items()
        )
        self.frame_stats.append({"trial": self.trial_no, "problem_id": spec.id, **frames})
        self._write("trial_end", trial_time=self.clock.getTime() - t0, reason=trial.outcome,
                    state=str(trial.state), moves=trial.moves, detail=detail, **base)  # fmt: skip
        if feedback:
            text = self._feedback_text(trial, spec)
            self._write("feedback", detail=f"text={text}", **base)
            self._wait(
                self.model.timing.feedback_duration,
                lambda: (draw(), self.screen.draw_text(text, pos=(0, -0.1))),
            )
        self._wait(self.model.timing.inter_trial_interval, lambda: None)
        return trial.outcome

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


#: Refresh rates a real display can have; outside it (e.g. Xvfb, no vsync) the
#: measured rate is not a frame period and the trial's median interval is used.
PLAUSIBLE_REFRESH_HZ = (20.0, 300.0)


def _frame_stats(intervals: list[float], refresh: float | None) -> dict:
    """A trial's frame statistics: frames, dropped frames, the period used, mean and max.

    Written as ``key=value`` pairs in the trial_end row and kept in the sidecar.
    """
    if not intervals:
        return {"frames": 0, "dropped_frames": 0}
    lo, hi = PLAUSIBLE_REFRESH_HZ
    if refresh and lo <= refresh <= hi:
        period, source = 1 / refresh, "refresh"
    else:
        period, source = statistics.median(intervals), "median"
    return {
        "frames": len(intervals) + 1,
        "dropped_frames": sum(1 for v in intervals if v > 1.5 * period),
        "frame_period_ms": round(1000 * period, 3),
        "period_source": source,
        "frame_interval_mean_ms": round(1000 * statistics.fmean(intervals), 3),
        "frame_interval_max_ms": round(1000 * max(intervals), 3),
    }


def _frame_summary(trials: list[dict]) -> dict:
    """Session-wide frame statistics for the sidecar."""
    frames = sum(t.get("frames", 0) for t in trials)
    return {
        "total_frames": frames,
        "total_dropped_frames": sum(t.get("dropped_frames", 0) for t in trials),
        "frame_interval_max_ms": max(
            (t.get("frame_interval_max_ms", 0) for t in trials), default=None
        ),
        "frame_interval_mean_ms": (
            sum(t.get("frame_interval_mean_ms", 0) * t.get("frames", 0) for t in trials) / frames
            if frames
            else None
        ),
    }


#: Exit status of tol-run when the display is lost mid-session.
EXIT_DISPLAY_LOST = 3


def _on_display_loss(session: _Session):
    """Replace Xlib's fatal-error exit with a clear message and a marked sidecar.

    When the X server goes away, Xlib calls this handler and then exits the
    process; the handler records the loss (every event written so far is
    already on disk) and says how to continue. Returns the handler (kept
    alive by the session), or None where Xlib is not used.
    """
    try:
        from pyglet.libs.x11 import xlib
    except Exception:  # pragma: no cover - not X11
        return None

    def handler(_display) -> int:
        try:
            rows = session.log.rows_written
            session.meta.update(status="crashed", end_time=_now_iso(), rows_written=rows,
                                error="the X display was lost")  # fmt: skip
            with contextlib.suppress(Exception):
                write_sidecar(session.json_path, session.meta)
            print(
                f"tol-run: the display was lost (the X server closed the connection); every "
                f"event up to row {rows} of {session.csv_path} is kept. Suggested fix: restore "
                f"the display, then continue with: tol-run --resume {session.csv_path}",
                file=sys.stderr,
                flush=True,
            )
        finally:
            os._exit(EXIT_DISPLAY_LOST)
        return 0  # pragma: no cover - never reached

    c_handler = xlib.XIOErrorHandler(handler)
    xlib.XSetIOErrorHandler(c_handler)
    return c_handler


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
