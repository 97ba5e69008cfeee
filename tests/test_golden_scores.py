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

The deliberate differences since (each listed in the CHANGELOG) are named here:
columns added (:data:`ADDED_COLUMNS`), wide.csv names (:func:`renamed`), and
cells that changed on purpose (:func:`deliberate`): issue 30 left void
attempts out of every session summary (the resumed session ``G-cut``'s
cut-off attempt) and made a level a session never gave empty instead of 0.
"""

from __future__ import annotations

import csv
import json
import re
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
#: test_the_simulated_column_says_what_the_sidecars_say), what ended each planning time
#: (test_planning_ends_names_the_convention); issue 30's task (protocol), void attempts,
#: published scores (TOL-DX, D-KEFS), missing problems and what describes a session (its
#: version, date, time and recorder; tests/test_trust_*.py check them). Every other column
#: must be where it was, and hold what it held.
ADDED_COLUMNS: dict[str, tuple[str, ...]] = {
    "moves.csv": ("protocol", "void"),
    "trials.csv": ("simulated", "planning_ends", "protocol", "toldx_move_score",
                   "toldx_time_violation", "outcome", "void"),
    "sessions.csv": ("simulated", "protocol_version", "start_date", "start_time", "recorder",
                     "void_attempts", "problems_planned", "problems_missing", "missing_reason",
                     "toldx_total_move_score", "toldx_time_violations",
                     "dkefs_move_accuracy_ratio", "dkefs_time_per_move_ratio",
                     "dkefs_rule_violations_per_item"),
    "wide.csv": ("simulated",),
    "copy_moves.csv": ("protocol",),
}  # fmt: skip

#: Added columns whose names are made from the data: the per-level TOL-DX move score, and
#: wide.csv's description of each session task (issue 30).
ADDED_PATTERNS = {
    "sessions.csv": re.compile(r"^min\d+_toldx_total_move_score$"),
    "wide.csv": re.compile(
        r"^s\d+(_.+)?_(status|protocol_version|start_date|start_time|recorder)$"
    ),
}


def added(table: str, name: str) -> bool:
    pattern = ADDED_PATTERNS.get(table)
    return name in ADDED_COLUMNS[table] or bool(pattern and pattern.match(name))


def renamed(table: str, name: str, tasks: list[str]) -> str:
    """A column's name at ab09369, from its name now. wide.csv's names begin with the
    session on purpose since issue 22 (``s1_demo_1_solved``, was ``demo_1_solved`` while
    the data held one session only; every reference session is session 1), so that they do
    not change when a participant's second session arrives; and with the task since issue
    30 (``s1_demo_demo_1_solved``), so that two protocols of one visit stay apart."""
    if table == "wide.csv" and name != "participant":
        assert name.startswith("s1_"), name
        name = name.removeprefix("s1_")
        for task in sorted(tasks, key=len, reverse=True):
            if name.startswith(f"{task}_"):
                return name.removeprefix(f"{task}_")
    return name


def _tasks(folder: Path) -> list[str]:
    """The tasks of the sessions scored, as wide.csv names spell them."""
    return [re.sub(r"[^A-Za-z0-9_]", "_", r["protocol"]) for r in
            _dicts(folder / "sessions.csv") if r["protocol"]]  # fmt: skip


def _dicts(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def deliberate(table: str, column: str, old: dict, new: dict, old_trials: list[dict],
               practice: bool) -> bool:  # fmt: skip
    """Whether a cell changed on purpose (issue 30), checked against the raw reference
    tables: a level the session never gave is empty, not 0; and the resumed session's
    summaries leave out its void attempt (the attempt cut off by the crash, which the
    reference trials.csv shows with complete=false)."""
    if table != "sessions.csv":
        return False
    level = re.match(r"^min(\d+)_", column)
    if level and old[column] in ("0", "") and new[column] == "":
        return (
            new[f"min{level.group(1)}_problems"] == ""
            and old[f"min{level.group(1)}_problems"] == "0"
        )
    void = [t for t in old_trials if (t["participant"], t["session"]) == (old["participant"],
            old["session"]) and t["complete"] == "false"]  # fmt: skip
    if not void:
        return False
    assert len(void) == 1, void
    assert old["participant"] == "G-cut", void
    cut = void[0]
    if column == "attempts":
        return int(new[column]) == int(old[column]) - 1
    if column in ("total_moves", "total_rule_violations"):
        source = {"total_moves": "moves", "total_rule_violations": "rule_violations"}[column]
        return int(new[column]) == int(old[column]) - int(cut[source])
    if column == "total_planning_time":
        return float(new[column]) == pytest.approx(
            float(old[column]) - float(cut["planning_time"]), rel=1e-5
        )
    if column == "mean_planning_time":
        return float(new[column]) == pytest.approx(
            float(new["total_planning_time"]) / int(new["attempts"]), rel=1e-5
        )
    kept = [t for t in old_trials if t["participant"] == "G-cut" and t["complete"] == "true"
            and t["min_moves"] == cut["min_moves"] and (practice or t["practice"] == "false")]  # fmt: skip
    if column == f"min{cut['min_moves']}_mean_planning_time":
        times = [float(t["planning_time"]) for t in kept]
        return float(new[column]) == pytest.approx(sum(times) / len(times), rel=1e-5)
    if column == f"min{cut['min_moves']}_total_rule_violations":
        return int(new[column]) == sum(int(t["rule_violations"]) for t in kept)
    return False


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
    keep = [i for i, name in enumerate(new[0]) if not added(table, name)]
    tasks = _tasks(new_dir)
    if table == "wide.csv":
        _same_wide_cells(old, new, [(i, renamed(table, new[0][i], tasks)) for i in keep])
        return
    assert [renamed(table, new[0][i], tasks) for i in keep] == old[0], (
        "column names or order changed"
    )
    assert len(new) == len(old), "another number of rows"
    old_trials = _dicts(old_dir / "trials.csv")
    changed = []
    for n, (a, b) in enumerate(zip(old[1:], new[1:], strict=True), start=2):
        mine = [b[i] for i in keep]
        if mine == a:
            continue
        before, now = dict(zip(old[0], a, strict=True)), dict(zip(new[0], b, strict=True))
        for name, x, y in zip(old[0], a, mine, strict=True):
            if x != y and not deliberate(table, new[0][keep[old[0].index(name)]], before, now,
                                         old_trials, old_dir.name == "conventions"):  # fmt: skip
                changed.append((n, name, x, y))
    assert not changed, f"{table}: cells differ: {changed[:5]}"
    if not any(added(table, name) for name in new[0]) and table != "sessions.csv":
        assert (new_dir / table).read_bytes() == (old_dir / table).read_bytes()


def _same_wide_cells(old: list[list[str]], new: list[list[str]], kept: list[tuple[int, str]]):
    """wide.csv: every cell where it was, under its name at ab09369. Since issue 30 a name
    carries the task, so that the practice problem ``practice-1`` of two protocols (demo and
    london-shallice) has a column per protocol where ab09369 had one for both: each old
    column is the new columns of its name, merged (a participant has a value in one)."""
    names = list(dict.fromkeys(name for _, name in kept))
    assert names == old[0], "column names or order changed"
    assert len(new) == len(old), "another number of rows"
    for a, b in zip(old[1:], new[1:], strict=True):
        for name, value in zip(old[0], a, strict=True):
            cells = {b[i] for i, n in kept if n == name} - {""}
            assert cells == ({value} - {""}), (a[0], name, value, cells)


#: Keys added on purpose to each column's codebook entry since ab09369: the SPSS
#: measurement level and value labels, and the conventions the values depend on (all
#: from the column registry); wide.csv's entries also gain a source, like every other;
#: issue 30: what a value means in plain words (for the reports), the headline measures
#: and which of their values are better.
ADDED_CODEBOOK_KEYS = {"level", "value_labels", "conventions", "source", "plain", "headline",
                       "better"}  # fmt: skip

#: Codebook entries described anew on purpose (issue 30): what a session and a task are,
#: and the summaries that now say what they count over (void attempts out, missing problems
#: apart from failed ones) and cite the published scoring they follow.
DESCRIBED_ANEW = {
    "session",
    "protocol",
    "excess_moves",
    "time_out",
    "problems",
    "attempts",
    "problems_solved",
    "problems_solved_in_min",
    "total_moves",
    "total_excess_moves",
    "total_time_violations",
}


def test_the_codebook_describes_every_column_as_before(scored):
    new_dir, old_dir = scored
    old = json.loads((old_dir / "codebook.json").read_text(encoding="utf-8"))
    new = json.loads((new_dir / "codebook.json").read_text(encoding="utf-8"))
    assert new["conventions"] == old["conventions"]
    # issue 30 cites the published scoring it follows: references added, none changed
    assert {k: new["references"][k] for k in old["references"]} == old["references"]
    for table, old_cols in old["tables"].items():
        new_cols = {c["name"]: c for c in new["tables"][table]}
        for col in old_cols:
            anew = re.sub(r"^min\d+_", "", col["name"]) in DESCRIBED_ANEW
            if table == "wide.csv" and col["name"] == "<problem>_<measure>":
                # issues 22 and 30: the naming scheme (see renamed), described as it now is
                entry = new_cols["s<session>_<task>_<problem>[_a<attempt>]_<measure>"]
                measures = [c["description"].split(": ")[1].split(";")[0] for c in (col, entry)]
                assert measures[0] == measures[1]  # the same measures, in the same order
                entry = {k: v for k, v in entry.items() if k not in ("name", "description")}
                col = {k: v for k, v in col.items() if k not in ("name", "description")}
            else:
                entry = new_cols[col["name"]]
            assert set(entry) - set(col) <= ADDED_CODEBOOK_KEYS, (table, col)
            same = {k for k in col if not (anew and k in ("description", "source"))}
            assert {k: entry[k] for k in same} == {k: col[k] for k in same}, (table, col)


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
