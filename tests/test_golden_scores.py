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

#: Columns added to a table on purpose since ab09369: whether the simulated participant
#: played the session (issue 22; checked against the sidecars in
#: test_the_simulated_column_says_what_the_sidecars_say) and what ended each planning time
#: (test_planning_ends_names_the_convention). Every other column must be where
#: it was, and hold what it held.
ADDED_COLUMNS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(TABLES, ()),
    "trials.csv": ("simulated", "planning_ends"),
    "sessions.csv": ("simulated",),
    "wide.csv": ("simulated",),
}


def renamed(table: str, name: str) -> str:
    """A column's name at ab09369, from its name now. wide.csv's names begin with the
    session on purpose since issue 22 (``s1_demo_1_solved``, was ``demo_1_solved`` while
    the data held one session only; every reference session is session 1), so that they do
    not change when a participant's second session arrives."""
    if table == "wide.csv" and name != "participant":
        assert name.startswith("s1_"), name
        return name.removeprefix("s1_")
    return name


#: Keys added on purpose to each column's codebook entry since ab09369: the SPSS
#: measurement level and value labels, and the conventions the values depend on (all
#: from the column registry); wide.csv's entries also gain a source, like every other;
#: the columns the reports show, what a value means in plain words (issue 30).
ADDED_CODEBOOK_KEYS = {"level", "value_labels", "conventions", "source", "plain"}


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
    assert [renamed(table, new[0][i]) for i in keep] == old[0], "column names or order changed"
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
    # issue 35 added references (CANTAB OTS, Hodgson et al. 2000); none changed or went.
    assert {k: new["references"].get(k) for k in old["references"]} == old["references"]
    for table, old_cols in old["tables"].items():
        new_cols = {c["name"]: c for c in new["tables"][table]}
        for col in old_cols:
            if table == "wide.csv" and col["name"] == "<problem>_<measure>":
                # issue 22: the naming scheme (see renamed), described as it now is
                entry = new_cols["s<session>_<problem>[_a<attempt>]_<measure>"]
                measures = [c["description"].split(": ")[1].split(";")[0] for c in (col, entry)]
                assert measures[0] == measures[1]  # the same measures, in the same order
                entry = {k: v for k, v in entry.items() if k not in ("name", "description")}
                col = {k: v for k, v in col.items() if k not in ("name", "description")}
            else:
                entry = new_cols[col["name"]]
            assert set(entry) - set(col) <= ADDED_CODEBOOK_KEYS, (table, col)
            assert {k: entry[k] for k in col} == col, (table, col)


def test_the_simulated_column_says_what_the_sidecars_say(scored):
    new_dir, _ = scored
    expected = {}  # (participant, session) -> the sidecar's word, read here as plain JSON
    for log in [p for d in INPUTS for p in (d.glob("*.csv") if d.is_dir() else [d])]:
        with log.open(newline="", encoding="utf-8") as f:
            first = next(csv.DictReader(f))
        side = log.with_suffix(".json")
        word = ""
        if side.is_file():
            word = "true" if json.loads(side.read_text("utf-8")).get("simulate") else "false"
        expected[(first["participant"], first["session"])] = word
    with (new_dir / "sessions.csv").open(newline="", encoding="utf-8") as f:
        got = {(r["participant"], r["session"]): r["simulated"] for r in csv.DictReader(f)}
    assert got == expected
    assert set(got.values()) == {"true", ""}  # simulated sessions, and the hand-worked log
    with (new_dir / "trials.csv").open(newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            assert r["simulated"] == expected[(r["participant"], r["session"])]
    with (new_dir / "wide.csv").open(newline="", encoding="utf-8") as f:
        wide = {r["participant"]: r["simulated"] for r in csv.DictReader(f)}
    assert wide == {p: w for (p, _), w in expected.items() if p in wide}


def test_planning_ends_names_the_convention(scored):
    # Every reference log has pick-ups, so each row says the convention it was scored under.
    new_dir, old_dir = scored
    want = "move" if old_dir.name == "conventions" else "pick_up"
    with (new_dir / "trials.csv").open(newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            assert r["planning_ends"] == (want if r["planning_time"] else ""), r["trial"]
