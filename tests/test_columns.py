"""One column registry: the codebook, the CSV headers, the SPSS labels and the BIDS descriptions
list the same columns with the same definitions (all are generated from tol_analysis.columns)."""

from __future__ import annotations

import csv
import json
import re
from dataclasses import fields
from pathlib import Path

import pytest

from tests.runner_tools import codebook_describes_every_table
from tests.system_tools import extra
from tol_analysis.cli import main as tol_score
from tol_analysis.columns import (
    REFERENCES,
    SESSION_LEVELS,
    TABLES,
    TRIALS,
    WIDE_MEASURES,
    WIDE_SESSION,
    WIDE_SIMULATED,
    level_name,
)
from tol_analysis.conventions import EXPLAINED, Conventions

HERE = Path(__file__).parent
INPUTS = [HERE / "data" / "golden" / "sessions", HERE / "data" / "logs" / "hand-worked.csv"]


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("scored")
    assert tol_score([*map(str, INPUTS), "--output", str(out), "--bids", "--spss",
                      "--bids-include-simulated"]) == 0  # fmt: skip
    return out


def _header(path: Path) -> list[str]:
    with path.open(newline="", encoding="utf-8") as f:
        return next(csv.reader(f))


def test_codebook_and_csv_headers_list_the_registry_columns_in_order(out):
    book = codebook_describes_every_table(out)  # and no table written is left out
    for table in TABLES.values():
        header = _header(out / table.file)
        documented = [c["name"] for c in book[table.file]]
        if table.name == "sessions":  # then min{k}_... for every level, in the same order
            levels = sorted({int(n[3:].split("_", 1)[0]) for n in header if n.startswith("min")})
            assert levels, "the sessions have levels"
            expected = table.names + [level_name(k, c.name) for k in levels
                                      for c in SESSION_LEVELS]  # fmt: skip
        else:
            expected = table.names
        assert header == expected == documented, table.file
        for entry, column in zip(book[table.file], table, strict=False):
            assert entry["description"] == column.definition
            assert (entry["type"], entry["unit"], entry["source"]) == (
                column.type, column.unit, column.source)  # fmt: skip
            assert entry["level"] == column.spss_level
    wide = _header(out / "wide.csv")
    assert wide[:2] == ["participant", "simulated"]
    measures = [m.name for m in WIDE_MEASURES]
    described = [c.name for c in WIDE_SESSION]  # what describes each session task (issue 30)
    assert all(any(n.endswith("_" + m) for m in measures + described) for n in wide[2:])
    assert all(re.match(r"s\d+_", n) for n in wide[2:])  # the session, always (issue 22)
    assert ", ".join(measures) in book["wide.csv"][-1]["description"]
    assert ", ".join(described) in book["wide.csv"][-2]["description"]


def _spss_label(text: str) -> str:
    """SPSS keeps at most 256 bytes of a variable label."""
    return text.encode("utf-8")[:256].decode("utf-8", errors="ignore")


def test_spss_labels_levels_and_value_labels_come_from_the_registry(out):
    pyreadstat = extra("pyreadstat", "spss")
    _, meta = pyreadstat.read_sav(str(out / "trials.sav"), metadataonly=True)
    labels = meta.column_names_to_labels
    for column in TRIALS:
        unit = f" [{column.unit}]" if column.unit else ""
        assert labels[column.name] == _spss_label(column.definition + unit)
        assert meta.variable_measure[column.name] == column.spss_level
        if column.type == "boolean":
            assert meta.variable_value_labels[column.name] == {0.0: "no", 1.0: "yes"}
    assert meta.column_names == [*TRIALS.names[:3], "session_start", *TRIALS.names[3:]]
    _, wmeta = pyreadstat.read_sav(str(out / "wide.sav"), metadataonly=True)
    by_measure = {m.name: m for m in (*WIDE_MEASURES, *WIDE_SESSION)}
    for name, label in wmeta.column_names_to_labels.items():
        if name in ("participant", "simulated"):
            assert label == _spss_label(WIDE_SIMULATED.definition if name == "simulated"
                                        else TRIALS[name].definition)  # fmt: skip
            continue
        stem, measure = next((name[: -len(m) - 1], m) for m in sorted(by_measure, key=len,
                             reverse=True) if name.endswith("_" + m))  # fmt: skip
        m = by_measure[measure]
        assert label == _spss_label(f"{stem}: {m.definition}" + (f" [{m.unit}]" if m.unit else ""))


def test_bids_column_descriptions_come_from_the_registry(out):
    tasks = sorted((out / "bids").glob("task-*_beh.json"))
    assert len(tasks) == 8  # seven protocols, and the hand-worked log without a sidecar
    for tsv in sorted((out / "bids").rglob("*_beh.tsv")):
        with tsv.open(newline="", encoding="utf-8") as f:
            assert next(csv.reader(f, delimiter="\t")) == TRIALS.names
    for task in tasks:
        described = json.loads(task.read_text(encoding="utf-8"))
        for column in TRIALS:
            entry = described[column.name]
            assert entry["Description"] == column.definition
            assert entry.get("Units", "") == column.unit
            if column.type == "boolean":
                assert entry["Levels"] == {"true": "yes", "false": "no"}


def test_every_source_and_convention_is_known():
    conventions = {f.name for f in fields(Conventions)}
    assert set(EXPLAINED) == conventions
    for table in (*TABLES.values(), SESSION_LEVELS):
        for column in table:
            assert set(column.conventions) <= conventions, column.name
            if column.source:
                assert any(key in column.source for key in REFERENCES), column.name
    # A measure that depends on what counts as a move says so, wherever it is summarised.
    for name in ("moves", "excess_moves", "time_per_move", "solved_in_min"):
        assert "violations_count" in TRIALS[name].conventions
    assert "include_practice" in TABLES["sessions"]["total_moves"].conventions
