"""Scoring of tol-tasks event logs: tidy tables, exports and reports, without PsychoPy.

The public API, importable from here (each name is loaded when first used, so that
``import tol_analysis`` costs nothing):

- finding and reading logs: :func:`~tol_analysis.read.find.find_logs`,
  :func:`~tol_analysis.read.find.scan`, :func:`~tol_analysis.read.logs.read_session`,
  :func:`~tol_analysis.read.logs.read_sessions`;
- scoring: :func:`~tol_analysis.score.scores.score_sessions`, giving
  :class:`~tol_analysis.score.scores.Scores` (moves, trials, sessions and copy_moves tables;
  their columns are documented in the codebook);
- writing: :func:`~tol_analysis.report.html.write_reports` (one HTML report per session and
  the study overview); the tables, codebook, BIDS and SPSS files by
  :func:`tol_analysis.export.write.export` (importable from :mod:`tol_analysis.export`).

The package is four faces, each a subpackage named for what it does, whose own public
names load the same way: :mod:`tol_analysis.read` (finding and reading logs),
:mod:`tol_analysis.score` (scoring and measures), :mod:`tol_analysis.export` (the tables
and files written), :mod:`tol_analysis.report` (reports and figures); beside them the
column registry (:mod:`tol_analysis.columns`), the scoring conventions
(:mod:`tol_analysis.conventions`) and ``tol-score`` (:mod:`tol_analysis.cli`).

Examples
--------
Score every event log under ``data/`` and write the tables to ``scored/``:

>>> from tol_analysis import find_logs, read_session, score_sessions
>>> from tol_analysis.export import export
>>> scores = score_sessions(read_session(p) for p in find_logs(["data"]))  # doctest: +SKIP
>>> export(scores, "scored")  # doctest: +SKIP
"""

from __future__ import annotations

from tol_analysis._lazy import lazy_names

#: Each public name and the module that defines it.
_API = {
    "find_logs": "read.find",
    "scan": "read.find",
    "read_session": "read.logs",
    "read_sessions": "read.logs",
    "score_sessions": "score.scores",
    "Scores": "score.scores",
    "write_reports": "report.html",
}

__all__ = sorted(_API)

__getattr__, __dir__ = lazy_names(__name__, _API)
