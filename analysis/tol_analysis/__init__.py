"""Scoring of tol-tasks event logs: tidy tables, exports and reports, without PsychoPy.

The public API, importable from here (each name is loaded when first used, so that
``import tol_analysis`` costs nothing):

- finding and reading logs: :func:`~tol_analysis.find.find_logs`, :func:`~tol_analysis.find.scan`,
  :func:`~tol_analysis.read.read_session`, :func:`~tol_analysis.read.read_sessions`;
- scoring: :func:`~tol_analysis.score.score_sessions`, giving :class:`~tol_analysis.score.Scores` (moves, trials, sessions and
  copy_moves tables; their columns are documented in the codebook);
- writing: :func:`~tol_analysis.report.write_reports` (one HTML report per session and the study overview);
  the tables, codebook, BIDS and SPSS files by :func:`tol_analysis.export.export` (not
  importable from here: the name is its module's, ``tol_analysis.export``).

Examples
--------
Score every event log under ``data/`` and write the tables to ``scored/``:

>>> from tol_analysis import find_logs, read_session, score_sessions
>>> from tol_analysis.export import export
>>> scores = score_sessions(read_session(p) for p in find_logs(["data"]))  # doctest: +SKIP
>>> export(scores, "scored")  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import Any

#: Each public name and the module that defines it.
_API = {
    "find_logs": "find",
    "scan": "find",
    "read_session": "read",
    "read_sessions": "read",
    "score_sessions": "score",
    "Scores": "score",
    "write_reports": "report",
}

__all__ = sorted(_API)


def __getattr__(name: str) -> Any:
    """The public name ``name``, imported from its module the first time it is asked for."""
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'tol_analysis' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
