"""A session's record: its event log and sidecar, written as the session runs.

Every row goes through :meth:`SessionRecord.write` (participant and session
filled in, the time read from the session clock unless given); the sidecar
is saved when the session starts, when a block starts, when the input source
is lost and when the session ends. :meth:`SessionRecord.finish` never raises:
whatever happens, what was written stays and the sidecar says how it ended.
"""

from __future__ import annotations

import contextlib
import sys

from tol_tasks.session_data.detail import format_detail
from tol_tasks.session_data.eventlog import EventLog, EventLogWriteError
from tol_tasks.session_data.plan import BlockStart
from tol_tasks.session_data.sidecar import BlockRecord, InputLost, Sidecar

from .experiment import TaskSetupError
from .metadata import now_iso
from .prepare import Prepared


def check_clock(clock) -> None:
    """The caller's clock, if any, must have ``getTime()`` (a ``psychopy.core.Clock``)."""
    if clock is not None and not callable(getattr(clock, "getTime", None)):
        raise TaskSetupError(
            f"clock={clock!r} has no getTime().", field="clock", value=clock,
            fix="pass a psychopy.core.Clock (e.g. Builder's globalClock), or leave clock out "
            "to let the task keep its own.",
        )  # fmt: skip


class SessionRecord:
    """The event log and sidecar of one session, and the clock their times are on.

    Parameters
    ----------
    prepared : Prepared
        The checked session (its files and settings).
    log : EventLog
        Open for writing (new, or continued for a resume).
    sidecar : Sidecar
        The session's sidecar, kept up to date here.
    clock
        The session clock (``getTime()``).
    last_trial : int
        The last trial number already used (a resumed session continues after it).
    """

    def __init__(self, prepared: Prepared, log: EventLog, sidecar: Sidecar, clock,
                 last_trial: int = 0):  # fmt: skip
        self.prepared = prepared
        self.log = log
        self.sidecar = sidecar
        self.clock = clock
        self.trial_no = last_trial
        self.status: str | None = None  # set when the session has ended
        self.markers = None  # a MarkerOut (runner.markers) when the session sends markers

    @property
    def events_path(self):
        return self.prepared.log

    @property
    def sidecar_path(self):
        return self.prepared.sidecar

    def next_trial(self) -> int:
        """The number of the next trial (problem attempt or copy trial)."""
        self.trial_no += 1
        return self.trial_no

    def write(self, event_name: str | None = None, **values) -> None:
        """One row of the log; ``time`` is the session clock's now unless given."""
        values.setdefault("time", self.clock.getTime())
        if self.markers is not None:
            sent = self.markers.send(event_name, values, self.log.rows_written + 1)
            if sent:
                values["detail"] = ";".join(filter(None, (values.get("detail"),
                                                          format_detail(sent))))  # fmt: skip
        s = self.prepared.settings
        self.log.write(participant=s.participant, session=s.session, event=event_name, **values)

    def save(self) -> None:
        """Write the sidecar as it stands."""
        self.sidecar.write(self.sidecar_path)

    # ---------------------------------------------------------------- events
    def begin(self, form: str | None) -> None:
        """The first row: ``session_start``, or ``resume`` for a resumed session."""
        resume = self.prepared.resume
        if resume is None:
            lp = self.prepared.protocol
            self.write("session_start", detail=format_detail(
                protocol=lp.name, sha256=lp.sha256, **({"form": form} if form else {})))  # fmt: skip
            return
        block, pid = resume.progress.interrupted or ("", "")
        note = {"note": resume.protocol_note} if resume.protocol_note else {}
        self.write("resume", detail=format_detail(after_row=resume.progress.last_row,
                                                  interrupted=f"{block}/{pid}", **note))  # fmt: skip

    def start_block(self, step: BlockStart) -> None:
        """A block begins: its order and seed in the sidecar, a ``block_start`` row."""
        self.sidecar.blocks.append(step.record())
        self.save()
        form = {"form": step.form} if step.form else {}
        self.write("block_start", block=step.block,
                   detail=format_detail(order=",".join(step.order), seed=step.seed, **form))  # fmt: skip

    def add_to_block(self, block: str, problem_id: str) -> None:
        """A problem run on its own (``run_problem``): the block is recorded at its first one."""
        if not any(b.name == block for b in self.sidecar.blocks):
            self.sidecar.blocks.append(BlockRecord(name=block))
            self.write("block_start", block=block, detail=format_detail(order="", seed=None))
        self.sidecar.blocks[-1].order.append(problem_id)
        self.save()

    def discontinue(self, block: str, failures: int) -> None:
        self.write("discontinue", block=block,
                   detail=format_detail(after=f"{failures} consecutive failures"))  # fmt: skip

    def input_lost(self, t: float, reason: str, method: str) -> None:
        """The on-arrival source died: say so in the log and the sidecar; input goes on polled."""
        self.write("input_lost", time=t, stamp="clock",
                   detail=format_detail(reason=reason, method=method, now="polled"))  # fmt: skip
        self.sidecar.timing.input_lost = InputLost(time=t, reason=reason, method_before=method,
                                                   method_after="polled")  # fmt: skip
        self.save()
        print(f"tol-tasks: warning: on-arrival input lost at {t:.3f} s ({reason}); the session "
              "goes on with the window's own events, stamped polled.", file=sys.stderr)  # fmt: skip

    # ------------------------------------------------------------------- end
    def finish(self, status: str, input_source, frames) -> EventLogWriteError | None:
        """Write the session's end, save the sidecar, close the input and the log; never raise.

        Returns the error that stopped the last row being written, if any.
        """
        error = None
        with contextlib.suppress(Exception):
            input_source.close()
        side = self.sidecar
        for key, value in frames.summary().items():
            setattr(side.frames, key, value)
        side.timing.unmatched_presses = input_source.unmatched_presses
        if status != "crashed":
            try:
                self.write("session_end", reason=status)
            except EventLogWriteError as exc:
                status, error = "crashed", exc
                side.error = str(exc)
        side.status, side.end_time, side.rows_written = status, now_iso(), self.log.rows_written
        self.status = status
        if self.markers is not None:
            side.markers = self.markers.record()
            with contextlib.suppress(Exception):
                self.markers.close()
        try:
            self.save()
        except OSError as exc:
            print(f"tol-tasks: warning: the sidecar {self.sidecar_path} could not be updated "
                  f"({exc.strerror}); the event log is complete up to row {self.log.rows_written}.",
                  file=sys.stderr)  # fmt: skip
        finally:
            self.log.close()
        return error

    def mark_crashed(self, error: str) -> None:
        """Record a crash the process cannot survive (the display lost): status and error."""
        side = self.sidecar
        side.status, side.end_time, side.rows_written = "crashed", now_iso(), self.log.rows_written
        side.error = error
        with contextlib.suppress(Exception):
            self.save()
