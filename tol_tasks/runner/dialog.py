"""PsychoPy's participant dialog, as PsychoPy experiments show it, asking again until its
answers can be used."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

from psychopy import gui

from tol_tasks.errors import TolTasksError

T = TypeVar("T")

#: The colour of the dialog's error line.
ERROR_COLOR = "#c00000"


def _own_qt_plugins() -> None:
    """OpenCV (installed with PsychoPy) points Qt at its own, incompatible platform plugins;
    PyQt6 finds its own when the variable is unset."""
    if "cv2" in os.environ.get("QT_QPA_PLATFORM_PLUGIN_PATH", ""):
        del os.environ["QT_QPA_PLATFORM_PLUGIN_PATH"]


def ask(fields: dict, title: str) -> dict | None:
    """PsychoPy's dialog of ``fields`` (name -> default, or a list of choices): the answers
    (``fields`` filled in), or None if it was cancelled."""
    _own_qt_plugins()
    dlg = gui.DlgFromDict(fields, title=title, sortKeys=False)
    return fields if dlg.OK else None


def participant_dialog(lp, session: int, check: Callable[[dict[str, str]], T]) -> T | None:
    """Ask for participant, session and the protocol's extra fields.

    ``check(answers)`` turns the answers (field -> text) into what the caller
    needs, or raises :class:`~tol_tasks.errors.TolTasksError`: the dialog then
    shows that error above its buttons, keeps what was typed, and asks again.
    Returns what ``check`` returned, or None if the dialog was cancelled.
    """
    _own_qt_plugins()
    fields = {"participant": "", "session": str(session), **lp.model.field_defaults()}
    error = None
    while True:
        dlg = gui.DlgFromDict(fields, title=f"tol-tasks: {lp.name}", sortKeys=False, show=False)
        if error is not None:
            label = dlg.addText(error, color=ERROR_COLOR)
            label.setWordWrap(True)
        dlg.show()
        if not dlg.OK:
            return None
        answers = {k: str(v) for k, v in fields.items()}
        try:
            return check(answers)
        except TolTasksError as exc:
            error = str(exc)
