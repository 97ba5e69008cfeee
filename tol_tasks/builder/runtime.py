"""What a Builder script's Tower component calls: the settings check and the task on Builder's window.

The code the component writes (see :mod:`.component`) reads like this::

    tower = tol_builder.BuilderTower(towerSettings)            # before the window opens
    ...
    tower.run_problem(win, thisExp, expInfo, globalClock,
                      start=start, goal=goal, time_limit=None)  # when the Routine reaches it
    ...
    tower.close()                                               # at the end of the experiment

so that the script stays short and a lab reads what happens; the work is here. The
task's rows are stamped on a session clock started at ``globalClock``'s reading
(:func:`tol_tasks.runner.clock.session_clock`), which a change of the computer's time
does not move.
"""

from __future__ import annotations

import atexit
import sys
from pathlib import Path

from tol_tasks.errors import TolTasksError
from tol_tasks.session_data.identity import session_from_text

from .settings import BuilderSettingsError, TowerSettings, check_settings


def read_conditions(filename: str) -> list[dict]:
    """Rows of a Builder conditions file, read as Builder's own loop reads them."""
    from psychopy.data import importConditions

    return importConditions(filename)


def check_or_exit(settings: TowerSettings, folder: str | Path | None = None) -> BuilderTower:
    """Check the settings at the script's start; on a fault, say so and end the script.

    The message names the component, the parameter, the conditions row, the
    value and the fix, on standard error (Builder's Runner shows it), and the
    script ends with status 2 before any window opens. ``folder``: where
    relative conditions-file names start (the script's folder, as in Builder).
    """
    base = Path(folder) if folder is not None else Path.cwd()
    try:
        files = [(f, read_conditions(str(base / f))) for f, _ in settings.conditions]
    except Exception as exc:
        print(f'tol-tasks: error: Tower component "{settings.component}": a loop\'s conditions '
              f"file cannot be read ({exc}). Suggested fix: check the loop's conditions file.",
              file=sys.stderr)  # fmt: skip
        raise SystemExit(2) from None
    settings.conditions = files
    try:
        protocol = check_settings(settings)
    except BuilderSettingsError as exc:
        print(f"tol-tasks: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    return BuilderTower(settings, protocol)


class BuilderTower:
    """One Tower component: its Builder status, and the task session it runs problems in.

    The session (one event log and sidecar beside Builder's data file) opens
    at the first problem and ends with :meth:`close`, or when the script ends.
    """

    def __init__(self, settings: TowerSettings, protocol):
        self.settings = settings
        self.protocol = protocol
        self.task = None
        self.result = None
        # Builder's own bookkeeping attributes, set by the code it writes.
        self.status = None
        self.tStart = self.tStop = self.tStartRefresh = self.tStopRefresh = None
        atexit.register(self._end_at_exit)

    # -------------------------------------------------------------- public
    @property
    def aborted(self) -> bool:
        """True once the participant pressed the quit key."""
        return self.task is not None and self.task.aborted

    def run_problem(self, win, experiment, exp_info: dict, clock, *, start=None, goal=None,
                    time_limit=None, move_limit=None):  # fmt: skip
        """Run one problem (or, in protocol mode, the whole protocol) on Builder's window."""
        task = self._task(win, experiment, exp_info, clock)
        if self.settings.mode == "protocol":
            # Once: in a loop, the later repeats find the protocol played (its session ended).
            if task.status is None:
                self.result = task.run()
            return self.result
        copy = self.settings.copy
        self.result = task.run_problem(
            start, goal, time_limit=_blank(time_limit),
            move_limit=_blank(move_limit), block=self.settings.component,
            copy=None if copy in (None, "", "none") else copy,
            copy_unsolved=bool(self.settings.copy_unsolved),
        )  # fmt: skip
        return self.result

    # Builder calls these each repeat for parameters set from a loop ($start); the values
    # are also passed to run_problem, which is what counts.
    def setStart(self, value, log=None):  # noqa: N802 - Builder's names
        self.start = value

    def setGoal(self, value, log=None):  # noqa: N802
        self.goal = value

    def setTimeLimit(self, value=None, log=None):  # noqa: N802
        self.time_limit = value

    def setMoveLimit(self, value=None, log=None):  # noqa: N802
        self.move_limit = value

    def close(self) -> None:
        """End the task session (its log's session_end row and the sidecar)."""
        if self.task is not None:
            self.task.close()

    # ------------------------------------------------------------- private
    def _task(self, win, experiment, exp_info, clock):
        if self.task is not None:
            return self.task
        from tol_tasks.runner.clock import session_clock
        from tol_tasks.runner.engine import TowerTask

        s = self.settings
        data_file = getattr(experiment, "dataFileName", "") or ""
        output = Path(data_file).parent if data_file else Path("data")
        participant = str(exp_info.get("participant", "") or "pilot")
        session_text = str(exp_info.get("session", "1") or "1")
        # The rows are stamped on a session clock that starts at globalClock's reading (in
        # whatever format Builder's clock reports times): the log's times are Builder's
        # until the computer's time changes (NTP, a resumed virtual machine), which moves
        # globalClock (the wall clock with Psychtoolbox on Linux) and not the session clock.
        clock = session_clock(clock)
        from tol_tasks.runner.prepare import SessionExistsError
        from tol_tasks.runner.settings import BUILDER, fields_for

        run = s.run_settings()
        try:  # the experiment's dialog gives text: read by the one rule of session numbers
            session = session_from_text(session_text, field="session (the experiment's dialog)")
        except TolTasksError as exc:
            print(f'tol-tasks: error: Tower component "{s.component}": {exc}', file=sys.stderr)
            raise SystemExit(2) from None
        settings = {"participant": participant, "session": session, "output": output,
                    "experiment": experiment, "clock": clock, "name": s.component,
                    # The run settings the component has (simulate, ports...), as checked.
                    **{f.name: getattr(run, f.name) for f in fields_for(BUILDER)},
                    "next_entry": False,
                    # As Builder's own Escape: the experiment ends at once, no question.
                    "quit_at_once": True}  # fmt: skip
        try:
            try:
                self.task = TowerTask(win, self.protocol, **settings)
            except SessionExistsError as exc:
                # Builder's data files are per run: running the experiment again for the same
                # participant and session is a new attempt, recorded as such in the sidecar.
                print(f'tol-tasks: warning: Tower component "{s.component}": {exc.head} This '
                      "run is recorded as a new attempt of the session (the sidecar's "
                      "session_attempt); give another session number in the dialog to start "
                      "another session instead.", file=sys.stderr)  # fmt: skip
                self.task = TowerTask(win, self.protocol, new_attempt=True, **settings)
        except TolTasksError as exc:
            print(f'tol-tasks: error: Tower component "{s.component}": {exc}', file=sys.stderr)
            raise SystemExit(2) from None
        self.task.quit_enabled = bool(s.escape)  # the experiment's "Enable Escape"
        return self.task

    def _end_at_exit(self) -> None:
        # Escape in another Routine ends a Builder script without its end-of-experiment
        # code; the session still gets its end row (reason: aborted).
        if self.task is None:
            return
        try:
            self.task.close(status="aborted")
        except Exception as exc:  # nothing may stop the script's exit
            print(f"tol-tasks: warning: the tower session could not be ended ({exc})",
                  file=sys.stderr)  # fmt: skip


def _blank(value):
    if value is None or (isinstance(value, str) and value.strip() in ("", "None")):
        return None
    return value
