"""Planning-only problems (One Touch Stockings style): the measures CANTAB's OTS defines.

From the ``planning_onset``, ``choice`` and ``planning_end`` rows of each log:
``planning.csv`` has one row per problem (:data:`~tol_analysis.columns.PLANNING`), and
``planning_sessions.csv`` each session's problems solved on first choice, mean choices to
correct, mean latency to first choice and mean latency to correct, for all problems and
per number of moves (:data:`~tol_analysis.columns.PLANNING_SESSIONS`), as the One Touch
Stockings of Cambridge reports them (see the column registry's ``REFERENCES``). A problem
cut off before its ``planning_end`` (an interruption, the quit key) is void: kept in
``planning.csv`` (``void`` true) and left out of the session's measures, as the codebook's
rule ``void`` says of moves attempts; a resumed session asks it again.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import TYPE_CHECKING

from tol_analysis.columns import PLANNING, PLANNING_SESSIONS
from tol_tasks.session_data.detail import parse_detail
from tol_tasks.session_data.eventlog import read_event_log

if TYPE_CHECKING:  # pandas is imported where the tables are made (tol-score reads it late)
    import pandas as pd


def planning_rows(rows: list[dict]) -> list[dict]:
    """The planning-only problems of one log's ``rows`` (columns of ``planning.csv``)."""
    out: list[dict] = []
    current: dict | None = None
    for r in rows:
        name = r["event"]
        if name == "planning_onset":
            current = {
                "participant": r["participant"], "session": int(r["session"]),
                "block": r["block"], "trial": int(r["trial"]), "problem_id": r["problem_id"],
                "min_moves": int(parse_detail(r["detail"])["min_moves"]), "choices": 0,
                "first_choice": None, "solved_on_first_choice": False,
                "choices_to_correct": None, "latency_first_choice": None,
                "latency_correct": None, "outcome": "void", "void": True,
            }  # fmt: skip
            out.append(current)
        elif current is not None and r["trial"] == str(current["trial"]):
            if name == "choice":
                current["choices"] += 1
                latency = float(r["trial_time"])
                if current["first_choice"] is None:
                    current["first_choice"] = int(r["moves"])
                    current["latency_first_choice"] = latency
                    current["solved_on_first_choice"] = r["reason"] == "correct"
                if r["reason"] == "correct" and current["choices_to_correct"] is None:
                    current["choices_to_correct"] = current["choices"]
                    current["latency_correct"] = latency
            elif name == "planning_end":
                current["outcome"], current["void"] = r["reason"], False
                current = None
    return out


def _mean(column: pd.Series) -> float | None:
    """The mean of a column's values (an empty cell: a problem never answered right)."""
    values = list(column.dropna())
    return statistics.fmean(values) if values else None


def session_measures(problems: pd.DataFrame) -> pd.DataFrame:
    """Each session's measures, for all problems (level ``all``) and per number of moves; void
    problems (cut off, asked again after a resume) left out."""
    import pandas as pd

    out = []
    kept = problems[~problems["void"].astype(bool)]
    for (pid, ses), g in kept.groupby(["participant", "session"], sort=False):
        levels = [("all", g)] + [(str(k), h) for k, h in g.groupby("min_moves")]
        for level, h in levels:
            out.append({
                "participant": pid, "session": ses, "level": level, "problems": len(h),
                "problems_solved_on_first_choice": int(h["solved_on_first_choice"].sum()),
                "mean_choices_to_correct": _mean(h["choices_to_correct"]),
                "mean_latency_first_choice": _mean(h["latency_first_choice"]),
                "mean_latency_correct": _mean(h["latency_correct"]),
            })  # fmt: skip
    return pd.DataFrame(out, columns=PLANNING_SESSIONS.names)


def score_planning(logs: list[Path]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``planning.csv`` and ``planning_sessions.csv`` of the event logs ``logs``."""
    import pandas as pd

    rows = [p for log in logs for p in planning_rows(read_event_log(log).rows)]
    problems = pd.DataFrame(rows, columns=PLANNING.names)
    problems["choices_to_correct"] = problems["choices_to_correct"].astype("Int64")
    problems["first_choice"] = problems["first_choice"].astype("Int64")
    return problems, session_measures(problems)


def write_planning(scores, folder: Path) -> list[Path]:
    """Write ``planning.csv`` and ``planning_sessions.csv`` into ``folder`` when the scored
    sessions have planning-only problems; the files written (none otherwise)."""
    sidecars = scores.sidecars
    log_path = getattr(sidecars, "log_path", None)
    logs = [p for key in sidecars if log_path and (p := log_path(key)) and p.is_file()]
    problems, sessions = score_planning(logs)
    if problems.empty:
        return []
    written = []
    for df, name in ((problems, "planning.csv"), (sessions, "planning_sessions.csv")):
        path = folder / name
        df.to_csv(path, index=False, float_format="%.6g", lineterminator="\n")
        written.append(path)
    return written
