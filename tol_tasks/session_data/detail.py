"""The ``detail`` column's codec: extra facts of an event as ``key=value`` pairs.

Written as ``key=value`` pairs joined by ``;`` (``order=p1,p2;seed=7``), in
the order given. A value may hold ``=``; a value that holds ``;`` (a feedback
text such as "Solved in 5 moves; the fewest possible is 3.") is read back
whole, because a part without ``=`` continues the value before it. Keys are
names of letters, digits and ``_``. This module is the only place that writes
or reads the format.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def format_value(value: Any) -> str:
    """One value as the log writes it: floats with 3 decimals, None as ``None``."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def format_detail(pairs: Mapping[str, Any] | None = None, /, **more: Any) -> str:
    """``key=value`` pairs joined by ``;`` (see :func:`format_value` for the values).

    >>> format_detail({"order": "p1,p2", "seed": 7})
    'order=p1,p2;seed=7'
    >>> format_detail(frames=120, frame_period_ms=16.6667)
    'frames=120;frame_period_ms=16.667'
    """
    items = {**(pairs or {}), **more}
    return ";".join(
        [
            f"{k}={v}" if type(v) is str or type(v) is int else f"{k}={format_value(v)}"
            for k, v in items.items()
        ]
    )  # a text or an int as it is (format_value's str), in one step


def parse_detail(text: str) -> dict[str, str]:
    """The pairs of a ``detail`` cell, as texts (empty for an empty cell).

    >>> parse_detail("text=Solved in 5 moves; the fewest possible is 3.")
    {'text': 'Solved in 5 moves; the fewest possible is 3.'}
    >>> parse_detail("order=p1,p2;seed=None")
    {'order': 'p1,p2', 'seed': 'None'}
    """
    out: dict[str, str] = {}
    last = None
    for part in text.split(";") if text else ():
        key, sep, value = part.partition("=")
        if sep and _is_key(key):
            out[key] = value
            last = key
        elif last is not None:
            out[last] += ";" + part
    return out


def _is_key(text: str) -> bool:
    return bool(text) and text.replace("_", "a").isalnum() and text.isascii()
