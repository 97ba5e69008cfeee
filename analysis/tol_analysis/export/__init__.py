"""The tables and files written: CSV tables, codebook, wide (SPSS) table, BIDS.

Public names (loaded when first used): :func:`~tol_analysis.export.write.export` (every
table, the codebook and the files asked for, into one output folder) and
:func:`~tol_analysis.export.write.codebook`.

Modules: ``write`` (the output folder's files), ``manifest`` (what ``tol-score`` wrote
there, so that only that is ever replaced), ``wide`` (one row per participant), ``spss``
(``.sav`` files), ``bids`` and ``bids_events`` (BIDS datasets and ``_events.tsv``). Any other
name of the former module ``tol_analysis.export`` (now :mod:`tol_analysis.export.write`) is
still found here, with a :class:`DeprecationWarning`.

Examples
--------
>>> from tol_analysis.export import export
>>> export(scores, "scored")  # doctest: +SKIP
"""

from __future__ import annotations

from tol_analysis._lazy import lazy_names

#: Each public name and the module that defines it.
_API = {
    "export": "write",
    "codebook": "write",
}

__all__ = sorted(_API)

__getattr__, __dir__ = lazy_names(__name__, _API, former="write")
