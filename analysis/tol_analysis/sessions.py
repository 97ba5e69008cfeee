"""Session summaries: one sessions.csv row per participant session, overall and per level.

Computed over the whole trials table at once, with numpy (so it stays fast for
tens of thousands of sessions); the columns and their order come from
:data:`tol_analysis.columns.SESSIONS` and :data:`~tol_analysis.columns.SESSION_LEVELS`.
Sums and means of times are added exactly as pandas' group-by adds them (which
is how tol-score computed them before; see :func:`_sums`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tol_analysis.columns import BOOLEAN, FLOAT, INTEGER, SESSION_LEVELS, SESSIONS, level_name
from tol_analysis.conventions import Conventions
from tol_analysis.tables import ColumnData, TableData

#: The identifying columns of sessions.csv; every other column is a summary.
_IDS = ("participant", "session", "protocol", "status", "simulated")

#: Time summaries: (summary, trials.csv column, "sum" or "mean").
_TIMES = (
    ("total_planning_time", "planning_time", "sum"),
    ("total_execution_time", "execution_time", "sum"),
    ("total_solving_time", "total_time", "sum"),
    ("mean_planning_time", "planning_time", "mean"),
    ("mean_time_per_move", "time_per_move", "mean"),
    ("mean_initial_thinking_time", "initial_thinking_time", "mean"),
    ("mean_subsequent_thinking_time", "subsequent_thinking_time", "mean"),
    ("mean_subsequent_thinking_time_per_move", "subsequent_thinking_time_per_move", "mean"),
)


@dataclass
class SessionInfo:
    """What the log (and its sidecar) says about a session, beside its trials."""

    participant: str
    session: int
    protocol: str
    status: str
    simulated: bool | None = None


def summarize_sessions(trials: TableData, infos: list[SessionInfo],
                       conv: Conventions) -> TableData:  # fmt: skip
    """One row per participant session (the first log of each, in order); see the registry's
    ``SESSIONS`` and ``SESSION_LEVELS``.

    Counts are 0 and means missing for a session without trials (or without
    trials at that level); a sum of times over trials that all lack one is 0.
    """
    index: dict[tuple[str, int], int] = {}
    sessions: list[SessionInfo] = []
    for info in infos:
        key = (info.participant, info.session)
        if key not in index:
            index[key] = len(sessions)
            sessions.append(info)
    n = len(sessions)
    keep = np.ones(len(trials), bool)
    if not conv.include_practice:
        keep = ~np.asarray(trials["practice"].values, bool)
    group = _session_of(trials, index)[keep]
    overall = _summaries(trials, keep, group, n)
    number = np.array([s.session for s in sessions], np.int64)
    data = {
        "participant": ColumnData.texts([s.participant for s in sessions], plain=True),
        "session": ColumnData(INTEGER, number, plain=True),
        "protocol": ColumnData.texts([s.protocol for s in sessions], plain=True),
        "status": ColumnData.texts([s.status for s in sessions], plain=True),
        "simulated": ColumnData(
            BOOLEAN,
            np.array([bool(s.simulated) for s in sessions], bool),
            np.array([s.simulated is None for s in sessions], bool),
        ),
    }
    data.update({c.name: _column(c.type, overall[c.name]) for c in SESSIONS if c.name not in _IDS})
    min_moves = np.asarray(trials["min_moves"].values, np.int64)[keep]
    levels = np.unique(min_moves).tolist()
    if levels:
        at = np.searchsorted(levels, min_moves)
        per = _summaries(trials, keep, group * len(levels) + at, n * len(levels))
        for j, k in enumerate(levels):
            for c in SESSION_LEVELS:
                data[level_name(k, c.name)] = _column(c.type, per[c.name][j :: len(levels)])
    return TableData(list(data), data, n)


def _column(kind: str, values: np.ndarray) -> ColumnData:
    if kind == INTEGER:
        missing = np.isnan(values) if values.dtype.kind == "f" else None
        if missing is not None and missing.any():
            return ColumnData(INTEGER, np.where(missing, 0, values).astype(np.int64), missing)
        return ColumnData(INTEGER, values.astype(np.int64), plain=True)
    return ColumnData(FLOAT, values.astype(np.float64))


def _session_of(trials: TableData, index: dict[tuple[str, int], int]) -> np.ndarray:
    """Each trial's session (its row in sessions.csv)."""
    who = trials["participant"]
    number = np.asarray(trials["session"].values, np.int64)
    codes = np.asarray(who.values, np.int64)
    _, first, inverse = np.unique(_pair_keys(codes, number)[0], return_index=True,
                                  return_inverse=True)  # fmt: skip
    rows = np.array([index[(who.categories[c], s)] for c, s in
                     zip(codes[first].tolist(), number[first].tolist(), strict=True)], np.int64)  # fmt: skip
    return rows[inverse.ravel()] if len(rows) else np.empty(0, np.int64)


def _summaries(trials: TableData, keep: np.ndarray, group: np.ndarray, n: int) -> dict:
    """The summary measures of the kept trials per group (``n`` groups)."""

    def values(name: str) -> np.ndarray:
        return trials[name].as_float()[keep]

    def flag(name: str) -> np.ndarray:
        return np.asarray(trials[name].values, bool)[keep]

    problem = _pair(trials["block"], trials["problem_id"])[keep]
    solved, in_min = flag("solved"), flag("solved_in_min")
    attempts = np.bincount(group, minlength=n)
    out = {
        "problems": _distinct_count(group, problem, n),
        "attempts": attempts,
        "problems_solved": _distinct_count(group[solved], problem[solved], n),
        "problems_solved_in_min": _distinct_count(group[in_min], problem[in_min], n),
        "total_moves": _total(group, values("moves"), n),
        "total_excess_moves": _total(group, np.nan_to_num(values("excess_moves")), n),
        "total_rule_violations": _total(group, values("rule_violations"), n, keep_missing=True),
        "total_time_violations": _total(group, flag("time_out").astype(np.float64), n),
    }
    sums, counts = _sums(group, np.column_stack([values(c) for _, c, _ in _TIMES]), n)
    for j, (name, _, how) in enumerate(_TIMES):
        with np.errstate(invalid="ignore", divide="ignore"):
            got = sums[:, j] if how == "sum" else np.where(counts[:, j] > 0,
                                                            sums[:, j] / counts[:, j], np.nan)  # fmt: skip
        out[name] = np.where(attempts > 0, got, np.nan)  # no trials: missing
    return out


def _pair(a: ColumnData, b: ColumnData) -> np.ndarray:
    """Two text columns' codes as one number per row (equal pairs of texts, equal numbers)."""
    return np.asarray(a.values, np.int64) * (len(b.categories) + 1) + np.asarray(b.values)


def _distinct_count(group: np.ndarray, key: np.ndarray, n: int) -> np.ndarray:
    """Per group, how many distinct keys."""
    if not len(group):
        return np.zeros(n, np.int64)
    keys, width = _pair_keys(group, key)
    return np.bincount(np.unique(keys) // width, minlength=n)


def _pair_keys(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, int]:
    """Pairs of whole numbers (``a`` not negative) as one number each, and the width that
    divides it back into ``a``: a one-dimensional key, which numpy sorts many times faster
    than rows of two. Equal pairs, equal keys."""
    b = np.asarray(b, np.int64)
    low, width = (int(b.min()), int(b.max()) - int(b.min()) + 1) if len(b) else (0, 1)
    if len(a) and int(a.max()) >= np.iinfo(np.int64).max // width:  # b's far apart: by rank
        b = np.unique(b, return_inverse=True)[1].ravel().astype(np.int64)
        low, width = 0, int(b.max()) + 1
    return np.asarray(a, np.int64) * width + (b - low), width


def _total(group: np.ndarray, values: np.ndarray, n: int,
           keep_missing: bool = False) -> np.ndarray:  # fmt: skip
    """Per group, the sum of whole numbers (given as floats); with ``keep_missing``, NaN for
    a group in which any is missing (not recorded), as floats."""
    nan = np.isnan(values)
    total = np.rint(np.bincount(group, weights=np.where(nan, 0, values), minlength=n))
    if keep_missing and nan.any():
        return np.where(np.bincount(group, weights=nan, minlength=n) > 0, np.nan, total)
    return total.astype(np.int64)


def _sums(group: np.ndarray, values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per group and column of ``values``, the sum of the values that are not NaN and their
    count, added as pandas' group-by adds them (tol-score's sums at ab09369, exactly).

    When each group's rows are together and a column has no NaN, pandas adds each group's
    values with ``numpy.add.reduceat``; otherwise in row order with Kahan's compensation.
    """
    sums, counts = _kahan(group, values, n)
    if not len(group):
        return sums, counts
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    if len(starts) != len(np.unique(group)):  # a group's rows are apart
        return sums, counts
    for j in np.flatnonzero(~np.isnan(values).any(axis=0)):
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
