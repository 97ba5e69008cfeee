"""Writing the tables, the codebook, the wide (SPSS) table and BIDS-style files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from tol_analysis.config import COLUMNS, REFERENCES, SESSIONS_LEVEL_COLUMNS, SOURCES, WIDE_MEASURES
from tol_analysis.score import Scores
from tol_tasks import __version__


def wide_table(scores: Scores) -> pd.DataFrame:
    """One row per participant, one column per problem and measure (for SPSS).

    Columns are ``<problem>_<measure>`` (with ``s<session>_`` in front when the
    data hold several sessions, and ``_a<attempt>`` after the problem when a
    problem had several attempts), made safe as SPSS variable names. Practice
    problems are left out unless the conventions include them.
    """
    t = scores.trials
    if not scores.conventions.include_practice:
        t = t[~t["practice"].astype(bool)]
    if t.empty:
        return pd.DataFrame({"participant": []})
    multi_session = t["session"].nunique() > 1
    multi_attempt = (t["attempt"] > 1).any()
    rows: dict[str, dict] = {}
    for _, r in t.iterrows():
        stem = str(r["problem_id"])
        if multi_attempt:
            stem += f"_a{r['attempt']}"
        if multi_session:
            stem = f"s{r['session']}_{stem}"
        row = rows.setdefault(r["participant"], {"participant": r["participant"]})
        for m in WIDE_MEASURES:
            v = r[m]
            row[_spss_name(f"{stem}_{m}")] = int(v) if isinstance(v, bool) else v
    return pd.DataFrame(list(rows.values()))


def _spss_name(name: str) -> str:
    out = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not out[0].isalpha():
        out = "p_" + out
    return out[:64]


def codebook(scores: Scores) -> dict:
    """Every output column with its type, unit and definition, and the conventions."""
    levels = sorted(
        {c.split("_", 1)[0] for c in scores.sessions.columns if re.match(r"min\d+_", c)}
    )
    tables = {}
    for table, cols in COLUMNS.items():
        tables[f"{table}.csv"] = [
            {"name": n, "type": t, "unit": u, "description": d, "source": SOURCES.get(n, "")}
            for n, t, u, d in cols
        ]
    tables["sessions.csv"] += [
        {
            "name": f"{lvl}_{n}",
            "type": t,
            "unit": u,
            "description": f"{d} (k = {lvl[3:]})",
            "source": SOURCES.get(n, ""),
        }
        for lvl in levels
        for n, t, u, d in SESSIONS_LEVEL_COLUMNS
    ]
    tables["wide.csv"] = [
        {"name": "participant", "type": "string", "unit": "", "description": "Participant id."},
        {"name": "<problem>_<measure>", "type": "", "unit": "",
         "description": "The trials.csv measure for that problem: " + ", ".join(WIDE_MEASURES)
         + " (solved as 0/1); s<session>_ and _a<attempt> are added when needed."},
    ]  # fmt: skip
    return {
        "software": f"tol-tasks {__version__}",
        "conventions": scores.conventions.as_dict(),
        "conventions_explained": {
            "same_peg_drop_counts": "whether putting a piece back on its own peg counts as a move",
            "violations_count": "whether each rule violation also counts as a move",
            "planning_ends": "planning time ends at the first pick-up ('pick_up') or first completed move ('move')",
            "include_practice": "whether practice problems enter sessions.csv and wide.csv",
        },
        "missing_values": "empty cells: not defined for that row (e.g. excess_moves of an unsolved attempt)",
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
            "| column | type | unit | definition | source |",
            "| --- | --- | --- | --- | --- |",
        ]
        lines += [
            f"| `{c['name']}` | {c['type']} | {c['unit']} | {c['description']} "
            f"| {c.get('source', '')} |"
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


def _to_csv(df: pd.DataFrame, path: Path, sep: str = ",") -> None:
    frame = df.copy()
    for col in frame.columns:
        if str(frame[col].dtype) == "boolean":
            frame[col] = frame[col].map({True: "true", False: "false"}).astype("object")
    frame.to_csv(
        path, index=False, sep=sep, na_rep="n/a" if sep == "\t" else "", float_format="%.6g"
    )
