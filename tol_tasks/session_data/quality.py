"""What the examiner should know at the end of a run: what went wrong with the recording.

:func:`run_warnings` reads a session's sidecar (as a dict: whatever recorded it, tol-run,
a PsychoPy script, the Builder component or the browser) and says, in plain sentences in
the session's language (the ``examiner`` texts of :mod:`tol_tasks.texts`), when frames
were dropped beyond :data:`DROPPED_FRAMES_SHARE`, presses were stamped by polling (all of
them, some that only the window saw, or after the on-arrival source stopped), the window
or page lost the participant's attention (:func:`attention_losses`: another window took
the focus, the page was hidden, full screen was left) or the refresh rate differed from
the one the protocol declares (``display.refresh_rate``) by more than
:data:`REFRESH_TOLERANCE`. tol-run prints them at the end, TowerTask keeps them
(``warnings``) and the browser's end page for the researcher shows them (its port:
``web/src/quality.js``).
"""

from __future__ import annotations

from typing import Any

from tol_tasks.texts import FALLBACK, examiner

#: The share of dropped frames over all trials above which the examiner is told.
DROPPED_FRAMES_SHARE = 0.05
#: How far (a share of the declared rate) the measured refresh rate may be from it.
REFRESH_TOLERANCE = 0.05


def attention_losses(sidecar: dict[str, Any]) -> dict[str, int]:
    """How many times the task lost the participant's attention, by how (the ``why`` of the
    log's ``attention_lost`` rows): ``focus`` (another window took the keyboard and mouse),
    ``hidden`` (a browser's page was hidden) and ``fullscreen`` (full screen was left)."""
    page = sidecar.get("page") or {}
    window = sidecar.get("window") or {}
    return {
        "focus": len(window.get("focus_lost") or []),
        "hidden": sum(h.get("state") == "hidden" for h in page.get("hidden") or []),
        "fullscreen": len(page.get("fullscreen_exits") or []),
    }


def _count(t: dict[str, str], key: str, n: int) -> str:
    return t[f"{key}_one" if n == 1 else f"{key}_other"].format(n=n)


def _fixed(x: float, digits: int, t: dict[str, str]) -> str:
    return f"{x:.{digits}f}".replace(".", t["decimal_mark"])


def _general(x: float, t: dict[str, str]) -> str:
    return f"{x:g}".replace(".", t["decimal_mark"])


def run_warnings(sidecar: dict[str, Any], declared_refresh: float | None = None,
                 language: str = FALLBACK) -> list[str]:  # fmt: skip
    """The examiner's warnings about a run, one sentence each (empty: nothing went wrong).

    Parameters
    ----------
    sidecar : dict
        The session's sidecar (``Sidecar.model_dump()`` or the JSON file read).
    declared_refresh : float, optional
        The refresh rate the protocol declares (``display.refresh_rate``, Hz).
    language : str
        The language of the sentences (the session's; English where tol-tasks has no
        texts in it).
    """
    t = examiner(language)
    out = []
    frames = sidecar.get("frames") or {}
    total, dropped = frames.get("total_frames") or 0, frames.get("total_dropped_frames") or 0
    if total and dropped / total > DROPPED_FRAMES_SHARE:
        out.append(t["dropped"].format(dropped=dropped, total=total,
                                       pct=_fixed(100 * dropped / total, 0, t),
                                       limit=_fixed(100 * DROPPED_FRAMES_SHARE, 0, t)))  # fmt: skip
    timing = sidecar.get("timing") or {}
    person = not sidecar.get("simulate")  # a simulated participant's presses are not stamped
    if person and timing.get("input_method") == "polled":
        reason = timing.get("input_fallback_reason")
        out.append(t["polled_because"].format(reason=reason) if reason else t["polled"])
    for key in ("unmatched_presses", "unmatched_keys"):
        n = timing.get(key) or 0
        if person and n:
            out.append(_count(t, key, n))
    lost = timing.get("input_lost")
    if lost:
        out.append(t["input_lost"].format(time=_fixed(lost["time"], 1, t), reason=lost["reason"]))
    losses = attention_losses(sidecar)
    for key in ("hidden", "fullscreen", "focus"):
        if losses[key]:
            out.append(_count(t, key, losses[key]))
    measured = sidecar.get("refresh_rate_hz")
    if declared_refresh:
        declared = _general(declared_refresh, t)
        if measured is None:
            out.append(t["refresh_unknown"].format(declared=declared))
        elif abs(measured - declared_refresh) > REFRESH_TOLERANCE * declared_refresh:
            out.append(t["refresh_off"].format(measured=_fixed(measured, 1, t), declared=declared))
    return out
