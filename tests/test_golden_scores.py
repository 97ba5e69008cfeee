"""Today's scorer reproduces every table tol-score wrote before the rebuild (issue 21).

``tests/data/golden/scored/`` holds what ``tol-score`` wrote at commit ab09369
(``tests/data/golden/make_golden.py``, ``score()``) for the seeded simulated
sessions in ``tests/data/golden/sessions``, the format 1 logs of
``tests/data/v1`` and the hand-worked log: once with the default conventions
and once with every convention switched. The same command is run here on the
same logs and every table is compared cell by cell as text, so values, the
way each type is written (integers without ``.0``, ``true``/``false``, six
significant digits, empty cells) and the column order must all agree. Those
files are never re-made.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tol_analysis.cli import main as tol_score

HERE = Path(__file__).parent
GOLDEN = HERE / "data" / "golden"
INPUTS = [GOLDEN / "sessions", HERE / "data" / "v1", HERE / "data" / "logs" / "hand-worked.csv"]
RUNS = {
    "default": [],
    "conventions": ["--same-peg-counts", "--violations-count", "--planning-ends", "move",
                    "--include-practice"],
}  # fmt: skip
TABLES = ("moves.csv", "trials.csv", "sessions.csv", "wide.csv", "copy_moves.csv")

#: Columns added to a table on purpose since ab09369 (none so far). Every other column
#: must be where it was, and hold what it held.
ADDED_COLUMNS: dict[str, tuple[str, ...]] = dict.fromkeys(TABLES, ())

#: Keys added on purpose to each column's codebook entry since ab09369: the SPSS
#: measurement level and value labels, and the conventions the values depend on (all
#: from the column registry); wide.csv's entries also gain a source, like every other.
ADDED_CODEBOOK_KEYS = {"level", "value_labels", "conventions", "source"}


@pytest.fixture(scope="module", params=list(RUNS))
def scored(request, tmp_path_factory) -> tuple[Path, Path]:
    """(the tables written now, the tables written at ab09369) for one set of conventions."""
    out = tmp_path_factory.mktemp(request.param)
    code = tol_score([*map(str, INPUTS), "--output", str(out), *RUNS[request.param]])
    assert code == 0
    return out, GOLDEN / "scored" / request.param


def _rows(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


@pytest.mark.parametrize("table", TABLES)
def test_every_table_is_reproduced_cell_for_cell(scored, table):
    new_dir, old_dir = scored
    old, new = _rows(old_dir / table), _rows(new_dir / table)
    added = ADDED_COLUMNS[table]
    keep = [i for i, name in enumerate(new[0]) if name not in added]
    assert [new[0][i] for i in keep] == old[0], "column names or order changed"
    assert len(new) == len(old), "another number of rows"
    for n, (a, b) in enumerate(zip(old[1:], new[1:], strict=True), start=2):
        assert [b[i] for i in keep] == a, f"{table}: row {n} differs"
    if not added:  # same cells, and written the same way, byte for byte
        assert (new_dir / table).read_bytes() == (old_dir / table).read_bytes()


def test_the_codebook_describes_every_column_as_before(scored):
    new_dir, old_dir = scored
    old = json.loads((old_dir / "codebook.json").read_text(encoding="utf-8"))
    new = json.loads((new_dir / "codebook.json").read_text(encoding="utf-8"))
    assert new["conventions"] == old["conventions"]
    assert new["references"] == old["references"]
    for table, old_cols in old["tables"].items():
        new_cols = {c["name"]: c for c in new["tables"][table]}
        for col in old_cols:
            entry = new_cols[col["name"]]
            assert set(entry) - set(col) <= ADDED_CODEBOOK_KEYS, (table, col["name"])
            assert {k: entry[k] for k in col} == col, (table, col["name"])
