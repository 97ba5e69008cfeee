"""SPSS files (``.sav``) of the wide and trials tables, labelled from the codebook.

Each variable gets its definition from the column registry
(:mod:`tol_analysis.columns`) as its label (with the unit), and the registry's
measurement level and value labels: the boolean columns become 0/1 with value
labels ``0 = no``, ``1 = yes``, text columns keep their text with a nominal
level, trial, attempt and session numbers are ordinal, counts and times are
``scale``, and the session's start is an SPSS date-time. Needs pyreadstat:
``pip install "tol-tasks[spss]"``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tol_analysis.cells import safe_text
from tol_analysis.columns import SESSION_START, TRIALS, Column
from tol_analysis.score.scores import Scores

#: SPSS variable labels may hold at most 256 bytes.
_LABEL_MAX = 256

_INSTALL_HINT = (
    'writing SPSS files needs pyreadstat. Suggested fix: pip install "tol-tasks[spss]" '
    "(or: uv sync --all-extras)"
)


def pyreadstat_module():
    """The pyreadstat module; ImportError with the install hint when it (the ``spss`` extra)
    is missing."""
    try:
        import pyreadstat
    except ImportError as exc:
        raise ImportError(f"{_INSTALL_HINT} ({exc})") from None
    return pyreadstat


def _label(column: Column, definition: str | None = None) -> str:
    """A variable label: the definition with the unit, cut to the 256 bytes SPSS allows."""
    text = definition or column.definition
    if column.unit:
        text = f"{text} [{column.unit}]"
    return text.encode("utf-8")[:_LABEL_MAX].decode("utf-8", errors="ignore")


def session_starts(scores: Scores) -> dict[tuple[str, int, str], pd.Timestamp]:
    """Each session task's start (local time, from its sidecar), where known, by
    (participant, session, protocol)."""
    out = {}
    for key, meta in scores.sidecars.items():
        text = meta.start_time if meta is not None else None
        if text:
            stamp = pd.to_datetime(text, errors="coerce", utc=False)
            if not pd.isna(stamp):
                out[key] = stamp.tz_localize(None) if stamp.tzinfo is not None else stamp
    return out


def _sav_frame(df: pd.DataFrame, columns: dict[str, Column]) -> tuple[pd.DataFrame, dict, dict]:
    """The values SPSS stores (booleans as 0/1, numbers as doubles, text as text), the value
    labels and the measurement levels, from each column's registry entry."""
    frame = df.copy()
    value_labels, levels = {}, {}
    for name in frame.columns:
        col = columns[name]
        if col.type == "boolean":
            frame[name] = frame[name].astype("Float64").astype("float64")
        elif col.type in ("integer", "float"):
            frame[name] = pd.to_numeric(frame[name], errors="coerce").astype("float64")
        elif col.type == "string":
            frame[name] = frame[name].astype("object").where(frame[name].notna(), "")
            frame[name] = frame[name].map(str).map(safe_text)
        if col.value_labels:
            value_labels[name] = col.value_labels
        levels[name] = col.spss_level
    return frame, value_labels, levels


def trials_for_spss(scores: Scores) -> tuple[pd.DataFrame, dict, dict, dict]:
    """trials.csv with the session's start, its labels, value labels and levels."""
    t = scores.trials.copy()
    starts = session_starts(scores)
    t.insert(3, SESSION_START.name, [starts.get((p, int(s), task)) for p, s, task in
                                     zip(t["participant"], t["session"], t["protocol"],
                                         strict=True)])  # fmt: skip
    t[SESSION_START.name] = pd.to_datetime(t[SESSION_START.name])
    columns = {c.name: c for c in (*TRIALS, SESSION_START)}
    labels = {name: _label(columns[name]) for name in t.columns}
    frame, value_labels, levels = _sav_frame(t, columns)
    return frame, labels, value_labels, levels


def wide_for_spss(scores: Scores, wide: pd.DataFrame) -> tuple[pd.DataFrame, dict, dict, dict]:
    """wide.csv with labels naming the session task, the problem and the measure (and the
    participant fields and what describes each session), from the column registry."""
    from tol_analysis.export.wide import describe_wide

    described = describe_wide(wide.columns, scores.table("sessions"))
    columns = {name: c for name, (c, _) in described.items()}
    labels = {name: _label(c, text) for name, (c, text) in described.items()}
    frame, value_labels, levels = _sav_frame(wide, columns)
    return frame, labels, value_labels, levels


def write_spss(scores: Scores, wide: pd.DataFrame, output: str | Path) -> list[Path]:
    """Write ``wide.sav`` and ``trials.sav`` into ``output``; return the files.

    Raises
    ------
    ImportError
        With the install hint, when pyreadstat is missing.
    """
    prs = pyreadstat_module()
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
