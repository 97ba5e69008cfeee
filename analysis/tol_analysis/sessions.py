"""Session summaries: one sessions.csv row per participant session, overall and per level.

Computed with a few group-bys over the whole trials table (so it stays fast for
tens of thousands of sessions); the columns and their order come from
:data:`tol_analysis.columns.SESSIONS` and :data:`~tol_analysis.columns.SESSION_LEVELS`.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from tol_analysis.columns import INTEGER, SESSION_LEVELS, SESSIONS, level_name
from tol_analysis.conventions import Conventions


@dataclass
class SessionInfo:
    """What the log (and its sidecar) says about a session, beside its trials."""

    participant: str
    session: int
    protocol: str
    status: str


def summarize_sessions(
    trials: pd.DataFrame, infos: list[SessionInfo], conv: Conventions
) -> pd.DataFrame:
    """One row per participant session; see the registry's ``SESSIONS`` and ``SESSION_LEVELS``.

    Computed with a few group-bys over the whole trials table, so it stays fast
    for tens of thousands of sessions.
    """
    keys = ["participant", "session"]
    base = pd.DataFrame(
        [{"participant": i.participant, "session": i.session, "protocol": i.protocol, "status": i.status}
         for i in infos],
        columns=["participant", "session", "protocol", "status"],
    ).drop_duplicates(keys)  # fmt: skip
    data = trials if conv.include_practice else trials[~trials["practice"].astype(bool)]
    overall = _summaries(data, keys)
    out = base.merge(overall, on=keys, how="left")
    levels = sorted(int(v) for v in data["min_moves"].dropna().unique())
    if levels:
        per = _summaries(data, [*keys, "min_moves"])
        per["min_moves"] = per["min_moves"].astype(int)
        wide = per.pivot(index=keys, columns="min_moves")
        names = SESSION_LEVELS.names
        wide = wide[[c for c in wide.columns if c[0] in names]]
        wide.columns = [level_name(k, name) for name, k in wide.columns]
        out = out.merge(wide.reset_index(), on=keys, how="left")
    cols = SESSIONS.names + [level_name(k, c.name) for k in levels for c in SESSION_LEVELS]
    out = out.reindex(columns=cols)
    # Counts are 0, not missing, for a session without trials (or without that level).
    integer = {c.name for c in SESSIONS if c.type == INTEGER}
    integer |= {level_name(k, c.name) for k in levels for c in SESSION_LEVELS if c.type == INTEGER}
    for c in integer - {"session"}:
        out[c] = out[c].fillna(0).astype("int64")
    return out


def _summaries(g: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The session summary measures per group of ``keys``."""
    d = g.assign(
        _problem=g["block"].astype(str) + "\x1f" + g["problem_id"].astype(str),
        _solved=g["solved"].astype(bool),
        _in_min=g["solved_in_min"].astype(bool),
        _timeout=g["time_out"].astype(bool).astype(int),
        _excess=pd.to_numeric(g["excess_moves"], errors="coerce").fillna(0).astype(float),
        _moves=g["moves"].astype(float),
        _viol=g["rule_violations"].astype(float),
    )
    d["_solved_problem"] = d["_problem"].where(d["_solved"])
    d["_in_min_problem"] = d["_problem"].where(d["_in_min"])
    grouped = d.groupby(keys, sort=False)
    res = grouped.agg(
        problems=("_problem", "nunique"),
        attempts=("_problem", "size"),
        problems_solved=("_solved_problem", "nunique"),
        problems_solved_in_min=("_in_min_problem", "nunique"),
        total_moves=("_moves", "sum"),
        total_excess_moves=("_excess", "sum"),
        total_rule_violations=("_viol", "sum"),
        total_time_violations=("_timeout", "sum"),
        total_planning_time=("planning_time", "sum"),
        total_execution_time=("execution_time", "sum"),
        total_solving_time=("total_time", "sum"),
        mean_planning_time=("planning_time", "mean"),
        mean_time_per_move=("time_per_move", "mean"),
        mean_initial_thinking_time=("initial_thinking_time", "mean"),
        mean_subsequent_thinking_time=("subsequent_thinking_time", "mean"),
        mean_subsequent_thinking_time_per_move=("subsequent_thinking_time_per_move", "mean"),
    ).reset_index()
    for c in (
        "total_moves",
        "total_excess_moves",
        "total_rule_violations",
        "total_time_violations",
    ):
        res[c] = res[c].astype("int64")
    return res
