"""Writing the tables, the codebook, the wide (SPSS) table and BIDS-style files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from tol_analysis.columns import (
    MISSING_VALUES,
    PARTICIPANT,
    PRACTICE,
    REFERENCES,
    SESSION_LEVELS,
    TABLES,
    WIDE_MEASURES,
    WIDE_NAME,
    level_definition,
    level_name,
    wide_definition,
)
from tol_analysis.conventions import EXPLAINED
from tol_analysis.csvfile import write_csv
from tol_analysis.score import Scores
from tol_tasks import __version__


def wide_table(scores: Scores) -> pd.DataFrame:
    """One row per participant, one column per problem and measure (for SPSS).

    Columns are ``<problem>_<measure>`` (with ``s<session>_`` in front when the
    data hold several sessions, and ``_a<attempt>`` after the problem when a
    problem had several attempts), made safe as SPSS variable names, in the
    order the participants' problems first appear; the measures are
    :data:`tol_analysis.columns.WIDE_MEASURES` (``solved`` as 0/1). When a
    participant has two attempts under one name, the later one is kept.
    Practice problems are left out unless the conventions include them.
    """
    t = scores.trials
    if not scores.conventions.include_practice:
        t = t[~t["practice"].astype(bool)]
    if t.empty:
        return pd.DataFrame({"participant": []})
    stem = t["problem_id"].astype(str)
    if (t["attempt"] > 1).any():
        stem = stem + "_a" + t["attempt"].astype(str)
    if t["session"].nunique() > 1:
        stem = "s" + t["session"].astype(str) + "_" + stem
    who = t["participant"].astype(str).to_numpy()
    people = pd.unique(who)
    rank = pd.Index(people).get_indexer(who)
    order = np.lexsort((np.arange(len(t)), rank))  # each participant's attempts, in order
    stems = stem.to_numpy()[order]
    # Every (participant, column) in the order the cells were first filled, the last value kept.
    distinct, which = np.unique(stems.astype(str), return_inverse=True)
    names = np.array([[_spss_name(f"{s}_{m.name}") for m in WIDE_MEASURES]
                      for s in distinct.tolist()], dtype=object)[which]  # fmt: skip
    columns = pd.unique(names.ravel())
    row = np.repeat(rank[order], len(WIDE_MEASURES))
    col = pd.Index(columns).get_indexer(names.ravel())
    data = {"participant": people}
    for j, m in enumerate(WIDE_MEASURES):
        values = t[m.name].to_numpy(dtype=np.float64, na_value=np.nan)[order]
        grid = np.full((len(people), len(columns)), np.nan)
        grid[row[j :: len(WIDE_MEASURES)], col[j :: len(WIDE_MEASURES)]] = values
        data[m.name] = grid
    measure = {}
    for j in range(len(WIDE_MEASURES)):
        for name in pd.unique(names[:, j]).tolist():
            measure.setdefault(name, j)
    out = {"participant": people}
    for k, name in enumerate(columns):
        m = measure[name]
        values = data[WIDE_MEASURES[m].name][:, k]
        if WIDE_MEASURES[m].type == "float":
            out[name] = values
        else:
            out[name] = pd.array(np.where(np.isnan(values), 0, values).astype(np.int64),
                                 dtype="Int64")  # fmt: skip
            out[name][np.isnan(values)] = pd.NA
    return pd.DataFrame(out)


def _spss_name(name: str) -> str:
    out = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not out[0].isalpha():
        out = "p_" + out
    return out[:64]


def session_levels(sessions: pd.DataFrame) -> list[int]:
    """The minimum-move levels k that have ``min{k}_`` columns in a sessions table, in order."""
    return [int(m.group(1)) for c in sessions.columns if (m := _LEVEL.match(c))]


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
        for k in session_levels(scores.sessions)
        for c in SESSION_LEVELS
    ]
    tables["wide.csv"] = [
        PARTICIPANT.entry(),
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
    scores: Scores, output: str | Path, *, bids: bool = False, spss: bool = False
) -> list[Path]:
    """Write moves.csv, trials.csv, sessions.csv, wide.csv, copy_moves.csv, codebook.json and codebook.md.

    Booleans are written as ``true``/``false`` and missing values as empty
    cells, which R, JASP, SPSS and pandas all read. With ``bids``, also a BIDS
    dataset in ``bids/`` (:mod:`tol_analysis.bids`); with ``spss``, ``wide.sav`` and
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
    wide = wide_table(scores)
    tables = {"moves": scores.moves, "trials": scores.trials, "sessions": scores.sessions,
              "wide": wide, "copy_moves": scores.copy_moves}  # fmt: skip
    for name, df in tables.items():
        path = out / f"{name}.csv"
        _to_csv(df, path)
        written.append(path)
    book = codebook(scores)
    (out / "codebook.json").write_text(json.dumps(book, indent=2) + "\n", encoding="utf-8")
    (out / "codebook.md").write_text(codebook_markdown(book), encoding="utf-8")
    written += [out / "codebook.json", out / "codebook.md"]
    if bids:
        from tol_analysis.bids import write_bids

        written += write_bids(scores, out / "bids", book)
    if spss:
        from tol_analysis.spss import write_spss

        written += write_spss(scores, wide, out)
    return written


def _to_csv(df: pd.DataFrame, path: Path) -> None:
    write_csv(df, path)
