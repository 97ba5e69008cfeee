"""The rows the task adds to the caller's PsychoPy ExperimentHandler, one per problem attempt."""

from __future__ import annotations

from tol_tasks.errors import TolTasksError
from tol_tasks.session_data.sidecar import ExperimentRef

from .results import EXPERIMENT_COLUMNS, ProblemResult


class TaskSetupError(TolTasksError, ValueError):
    """The engine was given something it cannot run with (a closed window, a wrong object)."""


def check_experiment(experiment) -> None:
    """Refuse anything but a ``psychopy.data.ExperimentHandler`` (None: no handler)."""
    if experiment is None:
        return
    from psychopy.data import ExperimentHandler

    if not isinstance(experiment, ExperimentHandler):
        raise TaskSetupError(
            f"experiment={experiment!r} is not a psychopy.data.ExperimentHandler.",
            field="experiment", value=experiment,
            fix="pass your ExperimentHandler (Builder's `thisExp`), or leave experiment out.",
        )  # fmt: skip


class ExperimentRows:
    """Adds each problem attempt's :class:`ProblemResult` to an ExperimentHandler.

    Columns: :data:`~tol_tasks.runner.results.EXPERIMENT_COLUMNS`, each
    prefixed with ``name`` and a dot. ``next_entry``: end the row after it
    (Builder ends rows itself, at the end of its Routine).
    """

    def __init__(self, experiment, name: str, next_entry: bool):
        check_experiment(experiment)
        self.experiment = experiment
        self.name = name
        self.next_entry = next_entry

    def add(self, result: ProblemResult) -> None:
        exp = self.experiment
        if exp is None:
            return
        for col in EXPERIMENT_COLUMNS:
            value = getattr(result, col)
            # Nothing to say (no copy trial, no pick-up) is an empty cell, not the text None.
            exp.addData(f"{self.name}.{col}", "" if value is None else value)
        if self.next_entry:
            exp.nextEntry()

    def reference(self) -> ExperimentRef | None:
        """The handler as the sidecar names it (None: no handler)."""
        if self.experiment is None:
            return None
        return ExperimentRef(name=self.name,
                             data_file=str(getattr(self.experiment, "dataFileName", "")))  # fmt: skip
