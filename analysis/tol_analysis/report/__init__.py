"""Reports and figures: a session report for clinicians, a study overview, plots.

Public names (loaded when first used): :func:`~tol_analysis.report.html.write_reports`
(one HTML report per session and the study overview, printable to A4 or Letter) and
:func:`~tol_analysis.report.plots.write_plots` (the figures of ``tol-score --plots``).

Modules: ``html`` (the reports; their pages in ``templates/``), ``plots`` (figures, each
taking ``ax=None`` and returning ``ax``), ``boards`` (a puzzle state as a small SVG). Any
other name of the former module ``tol_analysis.report`` (now
:mod:`tol_analysis.report.html`) is still found here, with a :class:`DeprecationWarning`.

Examples
--------
>>> from tol_analysis.report import write_reports
>>> write_reports(scores, "scored/reports")  # doctest: +SKIP
"""

from __future__ import annotations

from tol_analysis._lazy import lazy_names

#: Each public name and the module that defines it.
_API = {
    "write_reports": "html",
    "write_plots": "plots",
}

__all__ = sorted(_API)

__getattr__, __dir__ = lazy_names(__name__, _API, former="html")
