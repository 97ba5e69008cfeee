"""Gaze measures per problem attempt, from the samples file of a session recorded with an eye
tracker (the protocol's ``eyetracking`` section) and the regions its sidecar holds.

For each problem attempt, in its planning period (from the onset to the first pick-up, or
to its end), after Hodgson et al. (2000): the time gaze dwelt on the goal and on the
workspace, the number of alternations between them, and the time of the first fixation
on the workspace (gaze staying in it for the sidecar's ``fixation_ms``). A sample counts
until the next one (at most twice the median interval, so that a gap in the recording
is not counted). Columns: :data:`~tol_analysis.columns.GAZE`.
"""

from __future__ import annotations

import itertools
import statistics
from pathlib import Path

import numpy as np
import pandas as pd

from tol_analysis.columns import GAZE
from tol_tasks.session_data.eventlog import read_event_log


def _inside(region: dict, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return ((x >= region["left"]) & (x <= region["left"] + region["width"])
            & (y >= region["top"]) & (y <= region["top"] + region["height"]))  # fmt: skip


def gaze_measures(t: np.ndarray, where: np.ndarray, start: float, end: float,
                  fixation: float, step: float) -> dict:  # fmt: skip
    """The measures of one planning period ``[start, end)``: ``t`` the valid samples' times,
    ``where`` each one's region (``goal``, ``workspace`` or empty), ``step`` the longest time
    one sample counts for."""
    keep = (t >= start) & (t < end)
    t, where = t[keep], where[keep]
    dur = np.minimum(np.diff(np.append(t, end)), step)
    visits = [w for w in where if w]
    alternations = sum(1 for a, b in itertools.pairwise(visits) if a != b)
    first = None
    k = 0
    while k < len(t):
        if where[k] == "workspace":
            j = k
            while j + 1 < len(t) and where[j + 1] == "workspace":
                j += 1
            if t[j] + dur[j] - t[k] >= fixation:
                first = float(t[k] - start)
                break
            k = j + 1
        else:
            k += 1
    return {
        "planning_period": end - start, "samples": len(t),
        "dwell_goal": float(dur[where == "goal"].sum()),
        "dwell_workspace": float(dur[where == "workspace"].sum()),
        "alternations": alternations, "first_workspace_fixation": first,
    }  # fmt: skip


def session_gaze(log: Path, meta) -> list[dict]:
    """The gaze rows of one session (its event log and sidecar)."""
    et = meta.eyetracking
    samples = pd.read_csv(log.with_name(et.samples_file), sep="\t")
    samples = samples[samples["valid"] == 1]
    t = samples["time"].to_numpy(float)
    x, y = samples["x"].to_numpy(float), samples["y"].to_numpy(float)
    where = np.full(len(t), "", dtype=object)
    regions = {r.name: r.model_dump() for r in et.regions}
    for name in ("workspace", "goal"):
        if name in regions:
            where[_inside(regions[name], x, y)] = name
    step = 2 * statistics.median(np.diff(t)) if len(t) > 2 else float("inf")
    rows = read_event_log(log).rows
    out = []
    for i, r in enumerate(rows):
        if r["event"] != "trial_onset":
            continue
        start = float(r["time"])
        end = next((float(e["time"]) for e in rows[i + 1 :] if e["trial"] == r["trial"]
                    and e["event"] in ("pick_up", "trial_end")), None)  # fmt: skip
        if end is None:
            continue
        out.append({"participant": r["participant"], "session": int(r["session"]),
                    "block": r["block"], "trial": int(r["trial"]), "problem_id": r["problem_id"],
                    **gaze_measures(t, where, start, end, et.fixation_ms / 1000, step)})  # fmt: skip
    return out


def write_gaze(scores, folder: Path) -> list[Path]:
    """Write ``gaze.csv`` when scored sessions were recorded with an eye tracker."""
    sidecars = scores.sidecars
    log_path = getattr(sidecars, "log_path", None)
    rows = []
    for key in sidecars:
        meta = sidecars[key]
        log = log_path(key) if log_path else None
        if meta is None or getattr(meta, "eyetracking", None) is None or log is None:
            continue
        if log.with_name(meta.eyetracking.samples_file).is_file():
            rows += session_gaze(log, meta)
    if not rows:
        return []
    path = folder / "gaze.csv"
    pd.DataFrame(rows, columns=GAZE.names).to_csv(path, index=False, float_format="%.6g",
                                                  lineterminator="\n")  # fmt: skip
    return [path]
