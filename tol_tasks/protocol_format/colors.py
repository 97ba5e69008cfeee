"""Colours in the protocol format: checking a colour; the pieces' default colours and the
colour of a label written on a piece come from the display model (:mod:`tol_tasks.display.colors`).

No drawing here: the runner's screen, the browser board and the scorer's pictures read
the colours the resolved protocol (:meth:`tol_tasks.protocol_format.loaded.LoadedProtocol.resolve`)
gives them.
"""

from __future__ import annotations

from tol_tasks.config import COLOR_NAMES

# The pieces' default colours and the colour of a label on a piece are the display model's
# (one home for colour maths); the protocol format reads them from there.
from tol_tasks.display.colors import default_piece_color, label_color, rgb_of

__all__ = ["FALLBACK_PIECE_COLOR", "checked_color", "default_piece_color", "label_color", "rgb_of"]

#: The colour of a piece that has neither a protocol colour nor a default one.
FALLBACK_PIECE_COLOR = "#888888"


def checked_color(value: str) -> str:
    """``value`` as a colour the protocol format accepts (lower case), else ValueError."""
    v = value.strip()
    low = v.lower()
    if low in COLOR_NAMES:
        return low
    if len(v) in (4, 7) and v.startswith("#") and all(c in "0123456789abcdefABCDEF" for c in v[1:]):
        return low
    raise ValueError(f"{value!r} is not a colour")
