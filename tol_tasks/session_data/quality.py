"""What the examiner should know at the end of a run: what went wrong with the recording.

:func:`run_warnings` reads a session's sidecar (as a dict: whatever recorded it, tol-run,
a PsychoPy script, the Builder component or the browser) and says, in plain sentences,
when frames were dropped beyond :data:`DROPPED_FRAMES_SHARE`, presses were stamped by
polling (all of them, some that only the window saw, or after the on-arrival source
stopped), the window or page lost the participant's attention (hidden, full screen left)
or the refresh rate differed from the one the protocol declares
(``display.refresh_rate``) by more than :data:`REFRESH_TOLERANCE`. tol-run prints them
at the end, TowerTask keeps them (``warnings``) and the browser's end page for the
researcher shows them (its port: ``web/src/quality.js``).
"""

from __future__ import annotations

from typing import Any

#: The share of dropped frames over all trials above which the examiner is told.
DROPPED_FRAMES_SHARE = 0.05
#: How far (a share of the declared rate) the measured refresh rate may be from it.
REFRESH_TOLERANCE = 0.05


def _plural(n: int, word: str) -> str:
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}es" if word.endswith("s") else f"{n} {word}s"


def run_warnings(sidecar: dict[str, Any], declared_refresh: float | None = None) -> list[str]:
    """The examiner's warnings about a run, one sentence each (empty: nothing went wrong).

    Parameters
    ----------
    sidecar : dict
        The session's sidecar (``Sidecar.model_dump()`` or the JSON file read).
    declared_refresh : float, optional
        The refresh rate the protocol declares (``display.refresh_rate``, Hz).
    """
    out = []
    frames = sidecar.get("frames") or {}
    total, dropped = frames.get("total_frames") or 0, frames.get("total_dropped_frames") or 0
    if total and dropped / total > DROPPED_FRAMES_SHARE:
        out.append(
            f"{dropped} of {total} frames ({dropped / total:.0%}) were dropped (more than "
            f"{DROPPED_FRAMES_SHARE:.0%}): the screen was not redrawn in time, so onsets may be "
            "late by a frame or more. Close other programs or check the graphics driver."
        )
    timing = sidecar.get("timing") or {}
    person = not sidecar.get("simulate")  # a simulated participant's presses are not stamped
    if person and timing.get("input_method") == "polled":
        reason = timing.get("input_fallback_reason")
        out.append("Every press was stamped by polling once per frame (up to a frame late)"
                   + (f": {reason}." if reason else "."))  # fmt: skip
    unmatched = timing.get("unmatched_presses") or 0
    if person and unmatched:
        out.append(f"{_plural(unmatched, 'press')} seen only by the window were stamped by "
                   "polling (up to a frame late).")  # fmt: skip
    keys = timing.get("unmatched_keys") or 0
    if person and keys:
        out.append(f"{_plural(keys, 'key')} seen only by the window were stamped by polling "
                   "(up to a frame late).")  # fmt: skip
    lost = timing.get("input_lost")
    if lost:
        out.append(f"On-arrival input stopped at {lost['time']:.1f} s ({lost['reason']}); later "
                   "presses were stamped by polling.")  # fmt: skip
    page = sidecar.get("page") or {}
    hidden = [h for h in page.get("hidden") or [] if h.get("state") == "hidden"]
    if hidden:
        out.append(f"The task was hidden {_plural(len(hidden), 'time')} (another tab or window "
                   "was in front): the participant may have looked away.")  # fmt: skip
    exits = page.get("fullscreen_exits") or []
    if exits:
        out.append(f"Full screen was left {_plural(len(exits), 'time')}.")
    window = sidecar.get("window") or {}
    focus = window.get("focus_lost") or []
    if focus:
        out.append(f"The window lost the keyboard and mouse {_plural(len(focus), 'time')} "
                   "(another window was in front): the participant may have looked away.")  # fmt: skip
    measured = sidecar.get("refresh_rate_hz")
    if declared_refresh:
        if measured is None:
            out.append(f"The refresh rate could not be measured; the protocol declares "
                       f"{declared_refresh:g} Hz.")  # fmt: skip
        elif abs(measured - declared_refresh) > REFRESH_TOLERANCE * declared_refresh:
            out.append(f"The screen refreshed at {measured:.1f} Hz, not the {declared_refresh:g} "
                       "Hz the protocol declares (display.refresh_rate): check the monitor's "
                       "settings.")  # fmt: skip
    return out
