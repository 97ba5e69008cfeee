"""PsychoPy's participant dialog, as PsychoPy experiments show it."""

from __future__ import annotations

import os

from psychopy import gui


def participant_dialog(lp, session: int):
    """Ask for participant, session and the protocol's extra fields.

    Returns ``(participant, session, extra_fields)``, or None if cancelled.
    """
    # OpenCV (installed with PsychoPy) points Qt at its own, incompatible
    # platform plugins; PyQt6 finds its own when the variable is unset.
    if "cv2" in os.environ.get("QT_QPA_PLATFORM_PLUGIN_PATH", ""):
        del os.environ["QT_QPA_PLATFORM_PLUGIN_PATH"]
    fields = {"participant": "", "session": str(session), **lp.model.field_defaults()}
    dlg = gui.DlgFromDict(fields, title=f"tol-tasks: {lp.name}", sortKeys=False)
    if not dlg.OK:
        return None
    try:
        session = int(fields.pop("session"))
    except ValueError:
        session = 1
    return fields.pop("participant"), session, fields
