"""Finding and reading event logs.

Public names (loaded when first used, so that importing this package reads nothing):
:func:`~tol_analysis.read.find.find_logs` and :func:`~tol_analysis.read.find.scan`
(which ``.csv`` files are logs), :func:`~tol_analysis.read.logs.read_session` and
:func:`~tol_analysis.read.logs.read_sessions` (a log into columns, a
:class:`~tol_analysis.read.logs.SessionLog`).

Modules: ``find`` (logs in data folders), ``logs`` (a log into columns, checked against
its sidecar), ``duplicates`` (copies and restarts of one session task), ``logview`` (a
log's rows as problem attempts), ``recorder`` (what recorded a session, in words),
``spill`` (per-session records kept on disk). Any other name of the former module
``tol_analysis.read`` (now :mod:`tol_analysis.read.logs`) is still found here, with a
:class:`DeprecationWarning`.

Examples
--------
>>> from tol_analysis.read import find_logs, read_session
>>> logs = [read_session(p) for p in find_logs(["data"])]  # doctest: +SKIP
"""

from __future__ import annotations

from tol_analysis._lazy import lazy_names

#: Each public name and the module that defines it.
_API = {
    "find_logs": "find",
    "scan": "find",
    "read_session": "logs",
    "read_sessions": "logs",
    "SessionLog": "logs",
}

__all__ = sorted(_API)

__getattr__, __dir__ = lazy_names(__name__, _API, former="logs")
