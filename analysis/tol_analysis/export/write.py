"""Writing the tables, the codebook, the wide (SPSS) table and BIDS-style files."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tol_analysis.cells import ESCAPE_NOTE
from tol_analysis.columns import (
    MISSING_VALUES,
    PARTICIPANT,
    PRACTICE,
    REFERENCES,
    RULES,
    SESSION_IDS,
    SESSION_LEVELS,
    STRING,
    TABLES,
    WIDE_MEASURES,
    WIDE_NAME,
    WIDE_SESSION_NAME,
    WIDE_SIMULATED,
    Table,
    level_definition,
    level_name,
    participant_field,
    wide_definition,
    wide_session_definition,
)
from tol_analysis.conventions import EXPLAINED
from tol_analysis.export.wide import (  # noqa: F401 - wide_table and describe_wide: public here too
    describe_wide,
    wide_data,
    wide_table,
    write_wide,
)
from tol_analysis.score.csvfile import write_table
from tol_analysis.score.scores import Scores
from tol_analysis.score.sessions import field_names
from tol_analysis.score.tables import TableData
from tol_tasks import __version__

if TYPE_CHECKING:
    import pandas as pd


def session_levels(sessions: pd.DataFrame | TableData) -> list[int]:
    """The minimum-move levels k that have ``min{k}_`` columns in a sessions table, in order."""
    names = sessions.names if isinstance(sessions, TableData) else sessions.columns
    return [int(m.group(1)) for c in names if (m := _LEVEL.match(c))]


_LEVEL = re.compile(r"^min(\d+)_problems$")


def codebook(scores: Scores, also: Sequence[Table] = ()) -> dict:
    """Every output column (from :mod:`tol_analysis.columns`) and the conventions used.

    Each column lists its type, unit, definition (``description``), source, SPSS
    measurement level (``level``), value labels where SPSS has them, and the
    conventions its values depend on; ``also``: tables of
    :data:`~tol_analysis.columns.WHEN_PRESENT`.
    """
    tables = {t.file: [c.entry() for c in t] for t in (*TABLES.values(), *also)}
    sessions = scores.table("sessions")
    fields = [participant_field(n, sessions[n].kind).entry() for n in field_names(sessions.names)]
    ids = [c["name"] for c in tables["sessions.csv"]].index(SESSION_IDS[-1]) + 1
    tables["sessions.csv"][ids:ids] = fields
    tables["sessions.csv"] += [
        c.entry(level_name(k, c.name), level_definition(c, k))
        for k in session_levels(sessions)
        for c in SESSION_LEVELS
    ]
    tables["wide.csv"] = [
        PARTICIPANT.entry(),
        WIDE_SIMULATED.entry(),
        *fields,
        {"name": WIDE_SESSION_NAME, "type": STRING, "unit": "",
         "description": wide_session_definition(), "source": "", "level": "nominal"},
        {"name": WIDE_NAME, "type": "", "unit": "", "description": wide_definition(),
         "source": "", "conventions": sorted({v for m in WIDE_MEASURES for v in m.conventions}
                                             | {PRACTICE})},
    ]  # fmt: skip
    return {
        "software": f"tol-tasks {__version__}",
        "conventions": scores.conventions.as_dict(),
        "conventions_explained": dict(EXPLAINED),
        "missing_values": MISSING_VALUES,
        "text_cells": ESCAPE_NOTE,
        "rules": {k: {"rule": text, "source": source} for k, (text, source) in RULES.items()},
        "tables": tables,
        "references": REFERENCES,
    }


def codebook_markdown(book: dict) -> str:
    lines = ["# Codebook", "", f"Written by {book['software']}.", "", "## Conventions", ""]
    for k, v in book["conventions"].items():
        lines.append(f"- `{k}` = `{v}`: {book['conventions_explained'][k]}")
    lines += ["", f"Missing values: {book['missing_values']}.", ""]
    if book.get("text_cells"):
        lines += [f"Text cells: {book['text_cells']}.", ""]
    if book.get("rules"):
        lines += ["## Rules: void, missing and failed", ""]
        lines += [f"- **{k}**: {r['rule']} (source: {r['source']})"
                  for k, r in book["rules"].items()]  # fmt: skip
        lines.append("")
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
    also: Sequence[Table] = (),
) -> list[Path]:
    """Write moves.csv, trials.csv, sessions.csv, wide.csv, copy_moves.csv, codebook.json and codebook.md.

    Tables already written as they were scored (``score_sessions(..., write_to=output)``,
    :attr:`Scores.written`) are left as they are.

    Booleans are written as ``true``/``false`` and missing values as empty
    cells, which R, JASP, SPSS and pandas all read. With ``bids``, also a BIDS
    dataset in ``bids/`` (:mod:`tol_analysis.export.bids`; simulated sessions are left out of it
    unless ``bids_simulated``); with ``spss``, ``wide.sav`` and
    ``trials.sav`` (:mod:`tol_analysis.export.spss`, needs pyreadstat); the codebook also describes
    ``also`` (written beside: planning.csv, gaze.csv). Returns the files written.

    Raises
    ------
    ImportError
        With ``spss`` when pyreadstat is missing (the message says how to install it);
        the CSV files are written first.
    """
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in ("moves", "trials", "sessions", "wide", "copy_moves"):
        path = out / f"{name}.csv"
        done = scores.written.get(name)
        if name == "wide":
            write_wide(scores.table("trials"), scores.conventions, scores.table("sessions"), path)
        elif done is None:
            write_table(scores.table(name), path)
        elif done.resolve() != path.resolve():  # written as scored, elsewhere
            shutil.copyfile(done, path)
        written.append(path)
    book = codebook(scores, also)
    (out / "codebook.json").write_text(json.dumps(book, indent=2) + "\n", encoding="utf-8")
    (out / "codebook.md").write_text(codebook_markdown(book), encoding="utf-8")
    written += [out / "codebook.json", out / "codebook.md"]
    if bids:
        from tol_analysis.export.bids import write_bids

        written += write_bids(scores, out / "bids", book, include_simulated=bids_simulated)
    if spss:
        from tol_analysis.export.spss import write_spss

        wide = wide_data(scores.table("trials"), scores.conventions, scores.table("sessions"))
        written += write_spss(scores, wide.frame(), out)
    return written
