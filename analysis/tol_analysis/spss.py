"""SPSS files (``.sav``) of the wide and trials tables, labelled from the codebook.

Each variable gets its codebook definition as its label (with the unit), the
boolean columns become 0/1 with value labels ``0 = no``, ``1 = yes``, the
categorical text columns keep their text with a nominal level, counts and
times are ``scale``, and the session's start is an SPSS date-time. Needs
pyreadstat: ``pip install "tol-tasks[spss]"``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tol_analysis.config import TRIALS_COLUMNS, WIDE_MEASURES
from tol_analysis.score import Scores

#: SPSS variable labels may hold at most 256 bytes.
_LABEL_MAX = 256

#: Text columns of trials.csv that name categories (nominal); other text is left as text.
_CATEGORICAL = ("block", "task", "puzzle", "problem_id", "participant")

_YES_NO = {0: "no", 1: "yes"}

_INSTALL_HINT = (
    'writing SPSS files needs pyreadstat. Suggested fix: pip install "tol-tasks[spss]" '
    "(or: uv sync --all-extras)"
)


def _pyreadstat():
    try:
        import pyreadstat
    except ImportError as exc:
        raise ImportError(f"{_INSTALL_HINT} ({exc})") from None
    return pyreadstat


def _label(description: str, unit: str) -> str:
    text = f"{description} [{unit}]" if unit else description
    encoded = text.encode("utf-8")[:_LABEL_MAX]
    return encoded.decode("utf-8", errors="ignore")


def session_starts(scores: Scores) -> dict[tuple[str, int], pd.Timestamp]:
    """Each session's start (local time, from its sidecar), where known."""
    out = {}
    for key, meta in scores.sidecars.items():
        text = (meta or {}).get("start_time")
        if text:
            stamp = pd.to_datetime(text, errors="coerce", utc=False)
            if not pd.isna(stamp):
                out[key] = stamp.tz_localize(None) if stamp.tzinfo is not None else stamp
    return out


def _sav_frame(df: pd.DataFrame, types: dict[str, str]) -> tuple[pd.DataFrame, dict, dict]:
    """Booleans as 0/1 with labels; measurement levels by type."""
    frame = df.copy()
    value_labels, levels = {}, {}
    for col in frame.columns:
        kind = types.get(col, "")
        if kind == "boolean" or str(frame[col].dtype) == "boolean":
            frame[col] = frame[col].astype("Float64").astype("float64")
            value_labels[col] = dict(_YES_NO)
            levels[col] = "nominal"
        elif kind == "datetime":
            levels[col] = "scale"
        elif kind in ("integer", "float") or pd.api.types.is_numeric_dtype(frame[col]):
            frame[col] = pd.to_numeric(frame[col], errors="coerce").astype("float64")
            levels[col] = "scale"
        else:
            frame[col] = frame[col].astype("object").where(frame[col].notna(), "")
            frame[col] = frame[col].map(str)
            levels[col] = "nominal" if col in _CATEGORICAL or kind == "string" else "unknown"
    return frame, value_labels, levels


def trials_for_spss(scores: Scores) -> tuple[pd.DataFrame, dict, dict, dict]:
    """trials.csv with the session's start, its labels, value labels and levels."""
    t = scores.trials.copy()
    starts = session_starts(scores)
    t.insert(2, "session_start", [starts.get((p, int(s))) for p, s in
                                  zip(t["participant"], t["session"], strict=True)])  # fmt: skip
    t["session_start"] = pd.to_datetime(t["session_start"])
    types = {n: ty for n, ty, _, _ in TRIALS_COLUMNS}
    types["session_start"] = "datetime"
    labels = {n: _label(d, u) for n, _, u, d in TRIALS_COLUMNS}
    labels["session_start"] = "Date and time the session started (local time)"
    frame, value_labels, levels = _sav_frame(t, types)
    levels["session"] = "ordinal"
    levels["attempt"] = "ordinal"
    levels["trial"] = "ordinal"
    return frame, labels, value_labels, levels


def wide_for_spss(scores: Scores, wide: pd.DataFrame) -> tuple[pd.DataFrame, dict, dict, dict]:
    """wide.csv with labels naming the problem and the measure."""
    measures = {n: (ty, u, d) for n, ty, u, d in TRIALS_COLUMNS if n in WIDE_MEASURES}
    types, labels = {"participant": "string"}, {"participant": "Participant id"}
    for col in wide.columns:
        for m in sorted(WIDE_MEASURES, key=len, reverse=True):
            if col.endswith("_" + m):
                ty, unit, desc = measures[m]
                stem = col[: -len(m) - 1]
                types[col] = ty
                labels[col] = _label(f"{stem}: {desc}", unit)
                break
    frame, value_labels, levels = _sav_frame(wide, types)
    return frame, labels, value_labels, levels


def write_spss(scores: Scores, wide: pd.DataFrame, output: str | Path) -> list[Path]:
    """Write ``wide.sav`` and ``trials.sav`` into ``output``; return the files.

    Raises
    ------
    ImportError
        With the install hint, when pyreadstat is missing.
    """
    prs = _pyreadstat()
    out = Path(output)
    written = []
    for name, (frame, labels, value_labels, levels) in {
        "trials": trials_for_spss(scores),
        "wide": wide_for_spss(scores, wide),
    }.items():
        path = out / f"{name}.sav"
        prs.write_sav(
            frame,
            str(path),
            column_labels=[labels.get(c, c) for c in frame.columns],
            variable_value_labels=value_labels,
            variable_measure=levels,
        )
        written.append(path)
    return written
