"""A session's record: its event log and sidecar, written as the session runs.

Every row goes through :meth:`SessionRecord.write` (participant and session
filled in, the time read from the session clock unless given); the sidecar
is saved when the session starts, when a block starts, when a scan starts (written
by a thread beside the session, which goes on at once), when the input source is lost
and when the session ends. :meth:`SessionRecord.finish` never raises:
whatever happens, what was written stays and the sidecar says how it ended.

When the data cannot be written where they belong (the folder deleted, moved,
unmounted or made read-only, a full disk: at a row or at a sidecar save),
:meth:`SessionRecord.finish` saves every row and the sidecar to the rescue
folder (:mod:`.rescue`) and returns a :class:`SessionStoppedError` that says where
they are and how to continue.
"""

from __future__ import annotations

import contextlib
import sys
import threading

from tol_tasks.session_data.detail import format_detail
from tol_tasks.session_data.eventlog import EventLogWriteError
from tol_tasks.session_data.livelog import EventLog
from tol_tasks.session_data.plan import BlockStart
from tol_tasks.session_data.sidecar import (
    BlockRecord,
    InputLost,
    Sidecar,
    sidecar_text,
    write_sidecar,
)
from tol_tasks.session_data.trial_rows import in_time_order

from .experiment import TaskSetupError
from .metadata import now_iso
from .prepare import Prepared
from .rescue import SessionStoppedError, SidecarWriteError, rescue_copy
from .settings import CLI

#: The counts a sidecar keeps over a whole session (``timing``), resumes included.
_COUNTS = ("unmatched_presses", "unmatched_keys", "late_twins")


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
        self.input_source = None  # set by the session: its counts go into the sidecar
        self.last_time = float("-inf")  # the latest time of the rows written by this run
        self._saving: threading.Thread | None = None  # a save written beside (save)
        self._save_failed: SidecarWriteError | None = None  # its error
        t = sidecar.timing
        # The counts of the runs before a resume (kept in the sidecar): the session's go on.
        self._counts_before = {k: (getattr(t, k, None) or 0) if t else 0 for k in _COUNTS}

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
        """One row of the log; ``time`` is the session clock's now unless given. A row
        whose time is before a row already written is written now, its own time in
        ``detail`` (:func:`~tol_tasks.session_data.trial_rows.in_time_order`)."""
        now = self.clock.getTime()
        values.setdefault("time", now)
        values = in_time_order(values, self.last_time, now)
        self.last_time = max(self.last_time, values["time"])
        if self.markers is not None:
            sent = self.markers.send(event_name, values, self.log.rows_written + 1)
            if sent:
                values["detail"] = ";".join(filter(None, (values.get("detail"),
                                                          format_detail(sent))))  # fmt: skip
        s = self.prepared.settings
        self.log.write(participant=s.participant, session=s.session, event=event_name, **values)

    def abort(self, pressed: float, stamp: str | None) -> None:
        """The ``abort`` row of the quit key pressed at ``pressed``, stamped ``stamp``."""
        self.write("abort", time=pressed, stamp=stamp, input="key")

    def counts(self) -> dict[str, int]:
        """The session's counts of unmatched presses and keys and of late twins: the runs
        before a resume and this one."""
        inp = self.input_source
        return {k: v + (getattr(inp, k, 0) if inp is not None else 0)
                for k, v in self._counts_before.items()}  # fmt: skip

    def save(self, *, beside: bool = False) -> None:
        """Write the sidecar as it stands (with the counts so far).

        ``beside``: its text is made here and written by a thread beside the caller, which
        goes on at once (a scan's start: the first problem is due, whatever the disk); the
        next save, or the session's end, waits for it first and raises its error. Saves
        reach the disk in the order they were asked for.

        Raises
        ------
        SidecarWriteError
            It (or a save written beside before it) could not be written; the rows are
            untouched.
        """
        self.saved()
        if self.sidecar.timing is not None:
            for key, value in self.counts().items():
                setattr(self.sidecar.timing, key, value)
        text, rows = sidecar_text(self.sidecar.to_dict()), self.log.rows_written
        if beside:
            self._saving = threading.Thread(target=self._write_beside, args=(text, rows),
                                            name="tol-tasks sidecar", daemon=False)  # fmt: skip
            self._saving.start()
        else:
            self._write(text, rows)

    def saved(self) -> None:
        """Wait for a save written beside (:meth:`save`), if any; raise its error."""
        thread, self._saving = self._saving, None
        if thread is not None:
            thread.join()
            failed, self._save_failed = self._save_failed, None
            if failed is not None:
                raise failed

    def _write_beside(self, text: str, rows: int) -> None:
        try:
            self._write(text, rows)
        except SidecarWriteError as exc:
            self._save_failed = exc

    def _write(self, text: str, rows: int) -> None:
        try:
            write_sidecar(self.sidecar_path, text)
        except OSError as exc:
            raise SidecarWriteError(
                f"{self.sidecar_path}: the sidecar could not be written "
                f"({exc.strerror or exc}); every row up to {rows} is kept.",
                where=str(self.log.path), field="sidecar",
                fix="free some space or fix the folder, then resume the session.",
            ) from None  # fmt: skip

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
    def finish(self, status: str, input_source, frames, *, failure: EventLogWriteError | None = None,
               signal: str | None = None) -> SessionStoppedError | None:  # fmt: skip
        """Write the session's end, save the sidecar, close the input and the log; never raise.

        ``status``: completed, aborted, interrupted (``signal`` names the signal) or
        crashed; ``failure``: the row or sidecar that could not be written, if that is
        what stopped it. Returns the :class:`SessionStoppedError` to raise when the data could
        not all be written where they belong (they are then in the rescue folder).
        """
        with contextlib.suppress(Exception):
            input_source.close()
        try:
            self.saved()  # a save written beside that failed stops it as any other would
        except SidecarWriteError as exc:
            failure = failure or exc
        side = self.sidecar
        for key, value in frames.summary().items():
            setattr(side.frames, key, value)
        if failure is not None:
            status = "crashed"
        if status not in ("crashed", "interrupted"):
            try:
                self.write("session_end", reason=status)
            except EventLogWriteError as exc:
                status, failure = "crashed", exc
        if failure is None:
            try:  # every row on the disk before the sidecar counts them
                self.log.sync()
            except EventLogWriteError as exc:
                status, failure = "crashed", exc
        if failure is not None:
            side.error = failure.message
        side.status, side.end_time, side.rows_written = status, now_iso(), self.log.rows_written
        side.signal = signal
        self.status = status
        if self.markers is not None:
            side.markers = self.markers.record()
            with contextlib.suppress(Exception):
                self.markers.close()
        try:
            self.save()
        except SidecarWriteError as exc:
            failure = failure or exc
            if failure is exc:
                side.error = exc.message
        stopped = self._stopped(failure) if failure is not None else None
        self.log.close()
        return stopped

    def _stopped(self, failure: EventLogWriteError) -> SessionStoppedError:
        """Save the rows and the sidecar to the rescue folder; say where and how to go on."""
        log = self.prepared.log
        try:
            data = self.log.read_back()
        except OSError as exc:  # pragma: no cover - the open file itself unreadable
            data, why = None, f"the log could not be read back ({exc.strerror})"
        copy = None
        if data is not None:
            copy, why = rescue_copy(data, log.name, self.sidecar, self.prepared.settings.rescue)
        rows = self.log.rows_written
        lost = self.log.lost_folder()
        if copy is not None:
            kept = f"Every event up to row {rows} was saved to the rescue folder {copy.parent}"
            kept += " (the event log and its sidecar)" if lost else f", and is kept in {log}"
        else:
            kept = (f"No rescue copy could be made ({why})" +
                    ("." if lost else f"; every event up to row {rows} is kept in {log}"))  # fmt: skip
        resume_from = copy if lost and copy is not None else log
        if lost:
            fix = (f"put the data folder back (or copy both files from {copy.parent} into it) "
                   f"and continue there, or continue from the rescue copy: {CLI} --resume "
                   f"{copy}" if copy is not None else f"put the data folder back, then: "
                   f"{CLI} --resume {log}")  # fmt: skip
        else:
            fix = f"free some space or fix the folder, then continue with: {CLI} --resume {log}"
            if copy is not None:
                fix += f" (or continue from the rescue copy: {CLI} --resume {copy})"
        return SessionStoppedError(f"{failure.message} The session stopped. {kept}.", log=log,
                              rescue=copy, resume_from=resume_from, fix=fix)  # fmt: skip

    def mark_crashed(self, error: str) -> None:
        """Record a crash the process cannot survive (the display lost): status and error."""
        side = self.sidecar
        side.status, side.end_time, side.rows_written = "crashed", now_iso(), self.log.rows_written
        side.error = error
        with contextlib.suppress(Exception):
            self.log.sync()
        with contextlib.suppress(Exception):
            self.save()
