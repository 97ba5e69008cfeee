"""Names of data files, shared by every recorder (the runner, the collection server)."""

from __future__ import annotations

import time


def date_str(t: float | None = None) -> str:
    """A timestamp in PsychoPy's ``data.getDateStr()`` form, e.g. ``2026-11-22_14h03.07.123``."""
    t = time.time() if t is None else t
    ms = int((t % 1) * 1000)
    return time.strftime("%Y-%m-%d_%Hh%M.%S", time.localtime(t)) + f".{ms:03d}"
