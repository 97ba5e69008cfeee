"""Writing the tables, the codebook, the wide (SPSS) table and BIDS-style files."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tol_analysis.columns import (
    BOOLEAN,
    FLOAT,
    INTEGER,
    MISSING_VALUES,
    PARTICIPANT,
    PRACTICE,
    REFERENCES,
    SESSION_LEVELS,
    TABLES,
    WIDE_MEASURES,
    WIDE_NAME,
    WIDE_SIMULATED,
    level_definition,
    level_name,
    wide_definition,
)
from tol_analysis.conventions import EXPLAINED, Conventions
from tol_analysis.csvfile import write_table
from tol_analysis.score import Scores
from tol_analysis.tables import ColumnData, TableData, smallest_int_type
from tol_tasks import __version__

if TYPE_CHECKING:
    import pandas as pd


def wide_table(scores: Scores) -> pd.DataFrame:
    """One row per participant, one column per session, problem and measure (for SPSS).

    After ``participant`` and ``simulated`` (true when any of the participant's
    sessions was played by the simulated participant), the columns are
    ``s<session>_<problem>_<measure>``, with ``_a<attempt>`` after the problem
    for a second or later attempt at it (:data:`tol_analysis.columns.WIDE_NAME`):
    a cell's name depends only on its own session, problem, attempt and
    measure, never on what else the data hold, so a syntax file written for
    the first participants works for the next. Names are made safe as SPSS
    variable names, in the order the participants' problems first appear; the
    measures are :data:`tol_analysis.columns.WIDE_MEASURES` (``solved`` as
    0/1). Practice problems are left out unless the conventions include them.
    """
    return wide_data(scores.table("trials"), scores.conventions).frame()


def wide_data(trials: TableData, conv: Conventions) -> TableData:
    """:func:`wide_table` as columns."""
    keep = np.ones(len(trials), bool)
    if not conv.include_practice:
        keep = ~np.asarray(trials["practice"].values, bool)
    if not keep.any():
        empty = {"participant": ColumnData.texts([], plain=True),
                 "simulated": ColumnData(BOOLEAN, np.empty(0, bool))}  # fmt: skip
        return TableData(list(empty), empty, 0)
    problem = np.asarray(trials["problem_id"].values, np.int64)[keep]
    attempt = np.asarray(trials["attempt"].values, np.int64)[keep]
    session = np.asarray(trials["session"].values, np.int64)[keep]
    # Each trial's stem, made once per distinct (problem, attempt, session).
    triples, which = np.unique(np.c_[problem, attempt, session], axis=0, return_inverse=True)
    names = trials["problem_id"].categories
    stems = [f"s{s}_{names[p]}" + (f"_a{a}" if a > 1 else "") for p, a, s in triples.tolist()]
    who = trials["participant"]
    codes = np.asarray(who.values, np.int64)[keep]
    first = dict.fromkeys(codes.tolist())  # participants in order of appearance
    people = [who.categories[c] for c in first]
    rank_of = np.full(len(who.categories), -1, np.int64)
    rank_of[list(first)] = np.arange(len(people))
    rank = rank_of[codes]
    order = np.lexsort((np.arange(len(rank)), rank))  # each participant's attempts, in order
    trial_stem = np.asarray(which).ravel()[order]
    # Every (participant, column) in the order the cells were first filled, the last value kept.
    m = len(WIDE_MEASURES)
    used = list(dict.fromkeys(trial_stem.tolist()))  # stems in the order first filled
    cell_names = {k: [_spss_name(f"{stems[k]}_{w.name}") for w in WIDE_MEASURES] for k in used}
    columns = list(dict.fromkeys(name for k in used for name in cell_names[k]))
    col_of = {name: k for k, name in enumerate(columns)}
    measure: dict[str, int] = {}
    for j in range(m):
        for k in used:
            measure.setdefault(cell_names[k][j], j)
    stem_cols = np.zeros((len(stems), m), np.int64)
    for k in used:
        stem_cols[k] = [col_of[name] for name in cell_names[k]]
    cell_col = stem_cols[trial_stem]
    # One grid of participants by columns; a column shows the measure it was first named
    # for, and the later of two attempts under one name (trials are in order).
    col_measure = np.array([measure[name] for name in columns], np.int64)
    shown = col_measure[cell_col] == np.arange(m)
    values = np.column_stack([trials[w.name].as_float()[keep][order] for w in WIDE_MEASURES])
    grid = np.full((len(people), len(columns)), np.nan, order="F")
    grid[np.repeat(rank[order], m).reshape(-1, m)[shown], cell_col[shown]] = values[shown]
    out = {"participant": ColumnData.texts(people, plain=True),
           "simulated": _any_simulated(trials["simulated"], keep, rank, len(people))}  # fmt: skip
    for k, name in enumerate(columns):
        column = grid[:, k]
        if WIDE_MEASURES[col_measure[k]].type == FLOAT:
            out[name] = ColumnData(FLOAT, column)
        else:
            missing = np.isnan(column)
            whole = np.where(missing, 0, column)
            out[name] = ColumnData(INTEGER, whole.astype(smallest_int_type(whole)), missing)
    return TableData(list(out), out, len(people))


def _any_simulated(simulated: ColumnData, keep: np.ndarray, rank: np.ndarray,
                   n: int) -> ColumnData:  # fmt: skip
    """Per participant: any session simulated (missing when no session says)."""
    known = ~simulated.is_missing()[keep]
    yes = np.asarray(simulated.values, bool)[keep] & known
    said = np.bincount(rank[known], minlength=n) > 0
    return ColumnData(BOOLEAN, np.bincount(rank[yes], minlength=n) > 0, ~said)


def _spss_name(name: str) -> str:
    out = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not out[0].isalpha():
        out = "p_" + out
    return out[:64]


def session_levels(sessions: pd.DataFrame | TableData) -> list[int]:
    """The minimum-move levels k that have ``min{k}_`` columns in a sessions table, in order."""
    names = sessions.names if isinstance(sessions, TableData) else sessions.columns
    return [int(m.group(1)) for c in names if (m := _LEVEL.match(c))]


_LEVEL = re.compile(r"^min(\d+)_problems$")


def codebook(scores: Scores) -> dict:
    """Every output column (from :mod:`tol_analysis.columns`) and the conventions used.

    Each column lists its type, unit, definition (``description``), source, SPSS
    measurement level (``level``), value labels where SPSS has them, and the
    conventions its values depend on.
    """
    tables = {t.file: [c.entry() for c in t] for t in TABLES.values()}
    tables["sessions.csv"] += [
        c.entry(level_name(k, c.name), level_definition(c, k))
        for k in session_levels(scores.table("sessions"))
        for c in SESSION_LEVELS
    ]
    tables["wide.csv"] = [
        PARTICIPANT.entry(),
        WIDE_SIMULATED.entry(),
        {"name": WIDE_NAME, "type": "", "unit": "", "description": wide_definition(),
         "source": "", "conventions": sorted({v for m in WIDE_MEASURES for v in m.conventions}
                                             | {PRACTICE})},
    ]  # fmt: skip
    return {
        "software": f"tol-tasks {__version__}",
        "conventions": scores.conventions.as_dict(),
        "conventions_explained": dict(EXPLAINED),
        "missing_values": MISSING_VALUES,
        "tables": tables,
        "references": REFERENCES,
    }


def codebook_markdown(book: dict) -> str:
    lines = ["# Codebook", "", f"Written by {book['software']}.", "", "## Conventions", ""]
    for k, v in book["conventions"].items():
        lines.append(f"- `{k}` = `{v}`: {book['conventions_explained'][k]}")
    lines += ["", f"Missing values: {book['missing_values']}.", ""]
    for table, cols in book["tables"].items():
        lines += [
            f"## {table}",
            "",
            "| column | type | unit | definition | source | depends on |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        lines += [
            f"| `{c['name']}` | {c['type']} | {c['unit']} | {c['description']} "
            f"| {c.get('source', '')} | {', '.join(c.get('conventions', ()))} |"
            for c in cols
        ]
        lines.append("")
    lines += ["## References", ""]
    lines += [f"- **{key}**: {text}" for key, text in book.get("references", {}).items()]
    lines.append("")
    return "\n".join(lines)


def export(
    scores: Scores,
    output: str | Path,
    *,
    bids: bool = False,
    spss: bool = False,
    bids_simulated: bool = False,
) -> list[Path]:
    """Write moves.csv, trials.csv, sessions.csv, wide.csv, copy_moves.csv, codebook.json and codebook.md.

    Booleans are written as ``true``/``false`` and missing values as empty
    cells, which R, JASP, SPSS and pandas all read. With ``bids``, also a BIDS
    dataset in ``bids/`` (:mod:`tol_analysis.bids`; simulated sessions are left out of it
    unless ``bids_simulated``); with ``spss``, ``wide.sav`` and
    ``trials.sav`` (:mod:`tol_analysis.spss`, needs pyreadstat). Returns the files written.

    Raises
    ------
    ImportError
        With ``spss`` when pyreadstat is missing (the message says how to install it);
        the CSV files are written first.
    """
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    wide = wide_data(scores.table("trials"), scores.conventions)
    for name in ("moves", "trials", "sessions", "wide", "copy_moves"):
        path = out / f"{name}.csv"
        write_table(wide if name == "wide" else scores.table(name), path)
        written.append(path)
    book = codebook(scores)
    (out / "codebook.json").write_text(json.dumps(book, indent=2) + "\n", encoding="utf-8")
    (out / "codebook.md").write_text(codebook_markdown(book), encoding="utf-8")
    written += [out / "codebook.json", out / "codebook.md"]
    if bids:
        from tol_analysis.bids import write_bids

        written += write_bids(scores, out / "bids", book, include_simulated=bids_simulated)
    if spss:
        from tol_analysis.spss import write_spss

        written += write_spss(scores, wide.frame(), out)
    return written
