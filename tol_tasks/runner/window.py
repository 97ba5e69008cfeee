"""The caller's window while the task draws on it: checked, claimed and given back.

The task never opens, closes or re-creates the window it is given. While it
draws, the window shows the protocol's background; between problems and at
the end it gets its own colour back.
"""

from __future__ import annotations

import contextlib

from .experiment import TaskSetupError


def check_window(win) -> None:
    """Refuse anything but an open ``psychopy.visual.Window``."""
    from psychopy import visual

    if not isinstance(win, visual.Window):
        raise TaskSetupError(
            f"win={win!r} is not a PsychoPy window.", field="win", value=win,
            fix="pass the psychopy.visual.Window your experiment draws on (Builder's `win`).",
        )  # fmt: skip
    if getattr(win, "_closed", False):
        raise TaskSetupError(
            "the window has already been closed.", field="win",
            fix="create the TowerTask (and run it) before win.close(), or open a new "
            "psychopy.visual.Window.",
        )  # fmt: skip


class WindowClaim:
    """The window's own colour, kept while the task shows the protocol's ``background``."""

    def __init__(self, win, background):
        self.win = win
        self.background = background
        self._old_color = win.color.copy() if hasattr(win.color, "copy") else None
        self._old_colorspace = getattr(win, "colorSpace", "rgb")

    def claim(self) -> None:
        """The protocol's background while the task draws."""
        self.win.colorSpace = "rgb"
        self.win.color = self.background

    def restore(self) -> None:
        """The window's own colour again (never fails: the window may be gone)."""
        with contextlib.suppress(Exception):
            if self._old_color is not None and not getattr(self.win, "_closed", False):
                self.win.colorSpace = self._old_colorspace
                self.win.color = self._old_color
