"""What a session's sidecar says of it before its rows are read: what recorded it, in
words (for reports and BIDS), and whether its rows may hold planning-only problems."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tol_tasks.session_data.sidecar import Sidecar


def recorded_by(meta: Sidecar | None) -> str | None:
    """What recorded a session: its sidecar's ``recorder`` with what it ran in, or the
    format an import came from (``source``); e.g. ``tol-run 0.2.0 (PsychoPy 2026.2.5)``,
    ``tol-web 0.2.0 (browser)``, ``tol-import 0.2.0 (from pebl-tol)``. None without a
    sidecar. Version 1 sidecars (no ``recorder``) were written by tol-run with PsychoPy."""
    if meta is None:
        return None
    rec = meta.recorder
    if rec is None:
        psychopy = meta.software.psychopy if meta.software is not None else None
        return "tol-run" + (f" (PsychoPy {psychopy})" if psychopy else "")
    text = " ".join(t for t in (rec.name, rec.version) if t)
    how = f"from {meta.source.format}" if meta.source is not None else rec.runtime
    return f"{text} ({how})" if how else text


#: A protocol's ``planning:`` key (a planning-only block), as its text holds it.
PLANNING_KEY = re.compile(r"^\s*-?\s*planning\s*:", re.MULTILINE)


def may_have_planning(meta: Sidecar) -> bool:
    """Whether a session may have planning-only problems (its rows are then read for them):
    its protocol has a ``planning:`` key, or it has no protocol and was not converted (the
    jsPsych ``tower`` plugin's problems are given in the researcher's own timeline, which
    may ask for planning-only ones)."""
    text = getattr(meta.protocol, "text", "") or ""
    return bool(PLANNING_KEY.search(text)) or (not text and getattr(meta, "source", None) is None)
