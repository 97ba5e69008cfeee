"""Scoring and measures: every move measured against the exact distance to the goal.

Public names (loaded when first used): :func:`~tol_analysis.score.scores.score_sessions`,
giving :class:`~tol_analysis.score.scores.Scores` (the moves, trials, sessions and
copy_moves tables). The data-integrity check of ``tol-score --verify`` is
:func:`tol_analysis.score.verify.verify` (its module's name, so not one of these).

Modules: ``scores`` (the scoring run), ``replay`` (states, moves and distances in bulk),
``moves`` (per-move measures), ``trials`` (per-attempt measures), ``yoked`` (yoked copy
trials), ``sessions`` (session summaries) and ``infos`` (what each session's log and sidecar
say beside its trials), ``planning`` (planning-only problems), ``gaze`` (gaze measures),
``tables`` (typed tables built a few logs at a time), ``csvfile`` (their CSV writer),
``verify``. Any other name of the former module ``tol_analysis.score`` (now
:mod:`tol_analysis.score.scores`) is still found here, with a :class:`DeprecationWarning`.

Examples
--------
>>> from tol_analysis.read import find_logs, read_session
>>> from tol_analysis.score import score_sessions
>>> scores = score_sessions(read_session(p) for p in find_logs(["data"]))  # doctest: +SKIP
>>> scores.trials.head()  # doctest: +SKIP
"""

from __future__ import annotations

from tol_analysis._lazy import lazy_names

#: Each public name and the module that defines it.
_API = {
    "score_sessions": "scores",
    "Scores": "scores",
}

__all__ = sorted(_API)

__getattr__, __dir__ = lazy_names(__name__, _API, former="scores")
