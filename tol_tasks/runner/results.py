"""What running a session or a problem gives back (no PsychoPy here)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path


@dataclass
class RunResult:
    """Where the data went and how the session ended."""

    events: Path
    sidecar: Path
    status: str
    rows: int
    #: Presses and keys only the window saw while the on-arrival source ran (the whole
    #: session, its resumes included), and late twins recognised and dropped.
    unmatched_presses: int = 0
    unmatched_keys: int = 0
    late_twins: int = 0
    #: The signal that interrupted the session (status ``interrupted``), e.g. ``SIGTERM``.
    signal: str | None = None
    #: What the examiner should know about the recording (:mod:`tol_tasks.session_data.quality`).
    warnings: tuple[str, ...] = ()


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


#: Columns the engine adds to an ExperimentHandler, one row per problem attempt: the
#: fields of :class:`ProblemResult`, each prefixed with the task's ``name`` and a dot,
#: as Builder components do.
EXPERIMENT_COLUMNS = tuple(f.name for f in fields(ProblemResult))
