"""Sums of times per session (and per session and level), added exactly as pandas'
group-by adds them: how tol-score computed them before (:func:`group_sums`), so that
``sessions.csv``'s sums and means keep their bytes.
"""

from __future__ import annotations

import numpy as np


def rows_apart(group: np.ndarray) -> bool:
    """Whether some group's rows are apart (not all together)."""
    if not len(group):
        return False
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    return len(starts) != len(np.unique(group))


def group_sums(group: np.ndarray, values: np.ndarray, n: int, gaps: np.ndarray | None = None,
          apart: bool | None = None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Per group and column of ``values``, the sum of the values that are not NaN and their
    count, added as pandas' group-by adds them (tol-score's sums at ab09369, exactly).

    When each group's rows are together and a column has no NaN (``gaps``, per column:
    whether pandas saw one), pandas adds each group's values with ``numpy.add.reduceat``;
    otherwise in row order with Kahan's compensation. ``apart``: whether some group's rows
    are apart, when settled over more rows than these (as pandas saw them).
    """
    if not len(group) or (rows_apart(group) if apart is None else apart):
        return _kahan(group, values, n)  # none, or a group's rows are apart: all in order
    if gaps is None:
        gaps = np.isnan(values).any(axis=0)
    # Kahan's sums only for the columns that have a gap (the others are added by reduceat).
    sums, counts = np.zeros((n, values.shape[1])), np.zeros((n, values.shape[1]), np.int64)
    if gaps.any():
        sums[:, gaps], counts[:, gaps] = _kahan(group, values[:, gaps], n)
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    counts[:, ~gaps] = np.bincount(group, minlength=n)[:, None]  # no NaN: every row counts
    for j in np.flatnonzero(~gaps):
        sums[group[starts], j] = np.add.reduceat(np.ascontiguousarray(values[:, j]), starts)
    return sums, counts


def _kahan(group: np.ndarray, values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per group and column of ``values``, the sum of the values that are not NaN, added in
    row order with Kahan's compensation (pandas' group-by sum and mean), and their count."""
    k = values.shape[1]
    sums, compensation = np.zeros((n, k)), np.zeros((n, k))
    order = np.argsort(group, kind="stable")
    g, v = group[order], values[order]
    size = np.bincount(g, minlength=n)
    start = np.cumsum(size) - size
    for step in range(int(size.max()) if len(size) else 0):
        live = np.flatnonzero(size > step)
        val = v[start[live] + step]
        ok = ~np.isnan(val)
        s, c = sums[live], compensation[live]
        y = val - c
        t = s + y
        new_c = (t - s) - y
        new_c[np.isnan(new_c)] = 0.0  # an infinite value: no compensation
        sums[live] = np.where(ok, t, s)
        compensation[live] = np.where(ok, new_c, c)
    counts = np.zeros((n, k), np.int64)
    for j in range(k):
        counts[:, j] = np.bincount(g, weights=~np.isnan(v[:, j]), minlength=n)
    return sums, counts
