"""What the import tests expect, computed from the foreign files' raw rows without tol_tasks.

Each function reads one tool's file with the csv and json modules only, applies
that tool's documented meaning of its columns, and returns, per test trial, the
values a correct import must give: the fewest moves (from the independent BFS of
``tests/reference.py``), whether it was solved (the tool's own flag), the
completed moves and the planning time as the tool defines it.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.reference import bfs, hanoi_graph, london_graph
from tests.warm import warm

FIXTURES = Path(__file__).parent / "data" / "import"


def exe(name: str) -> str:
    return shutil.which(name) or str(Path(sys.executable).with_name(name))


def run(name: str, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """The command ``name`` (``tol-import``, ``tol-score``...) to its end, its output captured;
    played by the worker's warm interpreter where it can be (:func:`tests.warm.warm`)."""
    command = [exe(name), *map(str, args)]
    return subprocess.run(
        warm(command), capture_output=True, text=True, timeout=timeout, check=False
    )


def rows_of(path: Path) -> list[dict]:
    """The file's records: a CSV's rows or a JSON list's objects (values as they are)."""
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        return json.loads(text)
    return list(csv.DictReader(text.splitlines()))


_GRAPHS: dict = {}


def fewest_london(balls: str, capacities, start: str, goal: str) -> int:
    key = ("london", balls, tuple(capacities), goal)
    if key not in _GRAPHS:
        _GRAPHS[key] = bfs(london_graph(balls, tuple(capacities)), goal)[0]
    return _GRAPHS[key][start]


def fewest_hanoi(n: int, start: str, goal: str) -> int:
    key = ("hanoi", n, goal)
    if key not in _GRAPHS:
        _GRAPHS[key] = bfs(hanoi_graph(n), goal)[0]
    return _GRAPHS[key][start]


# --------------------------------------------------------- Experiment Factory
#: The task's board: capacities 3, 2, 1; balls 1-3 are green, red, blue; every problem
#: starts from [[1, 2, 0], [3, 0], [0]] (experiment.js resets curr_placement to it).
EF_CAPACITIES = (3, 2, 1)
EF_BALLS = {1: "G", 2: "R", 3: "B"}
EF_START = "GR|B|"


def _ef_position(value) -> str:
    if isinstance(value, list):
        piles = value
    elif str(value).startswith("["):
        piles = json.loads(str(value))
    else:
        flat = [int(x) for x in str(value).split(",")]
        piles = [flat[0:3], flat[3:5], flat[5:6]]
    return "|".join("".join(EF_BALLS[b] for b in pile if b) for pile in piles)


def expfactory_expected(path: Path, participant: str | None = None) -> dict:
    """{(participant, problem_id): expected} for every test problem of the file."""
    out = {}
    current = None
    for row in rows_of(path):
        who = str(row.get("worker_id") or participant)
        trial_id = row.get("trial_id")
        if trial_id in ("to_hand", "to_board") and row.get("exp_stage") == "test":
            key = (who, str(row["problem_id"]))
            if key not in out:
                goal = _ef_position(row["target"])
                rt = float(row["rt"])
                out[key] = current = {
                    "min_moves": fewest_london("GRB", EF_CAPACITIES, EF_START, goal),
                    "moves": 0,
                    "planning_time": rt / 1000 if str(row["mouse_click"]) != "-1" else None,
                    "time_out": False,
                    "taken_from": None,
                }
            if str(row["mouse_click"]) == "-1":
                current["time_out"] = True
            elif trial_id == "to_hand":
                current["taken_from"] = row["mouse_click"]
            elif row["mouse_click"] != current["taken_from"]:
                current["moves"] += 1
        elif trial_id == "feedback" and current is not None:
            current["solved"] = str(row["correct"]).lower() == "true"
            current.pop("taken_from")
            current = None
    return out


# --------------------------------------------------------------- jsPsych-contrib
def _jp_letters(state) -> str:
    state = json.loads(state) if isinstance(state, str) else state
    return "|".join("".join(b[0].upper() for b in pile) for pile in state)


def jspsych_expected(path: Path, capacities=None) -> dict:
    """{(subject_id, trial_index): expected}; ``capacities`` when the file does not save them."""
    out = {}
    for row in rows_of(path):
        if row.get("trial_type") != "tower-of-london":
            continue
        caps = row.get("peg_capacities") or capacities
        caps = json.loads(caps) if isinstance(caps, str) else caps
        moves = json.loads(row["moves"]) if isinstance(row["moves"], str) else row["moves"]
        start, goal = _jp_letters(row["start_state"]), _jp_letters(row["goal_state"])
        out[(str(row["subject_id"]), str(row["trial_index"]))] = {
            "min_moves": fewest_london("RGB", caps, start, goal),
            "solved": str(row["solved"]).lower() == "true",
            "moves": int(row["num_moves"]),
            "planning_time": moves[0]["time"] / 1000 if moves else None,
        }
    return out


# ------------------------------------------------------------------------ PEBL
PEBL_BALLS = "RYBGPO"


def _pebl_tol(state: str) -> str:
    return "|".join(
        "".join(PEBL_BALLS[int(c) - 1] for c in pile) for pile in state[1:-1].split("|")
    )


def _pebl_toh(state: str) -> str:
    return "".join("ABC"[int(c) - 1] for c in state)


def pebl_expected(path: Path, capacities=None) -> dict:
    """{(sub, trial, attempt): expected} for PEBL's tol-<sub>.csv or toh-<sub>.csv.

    A step row whose position differs from the previous row's is a completed move;
    planning time is the first such row's trialtime (PEBL's firsttime).
    """
    hanoi = path.name.startswith("toh-")
    out = {}
    current = None
    previous = None
    for row in rows_of(path):
        if row["step"] == "0":
            n = int(row["size"])
            key = (row["sub"], row["trial"], row.get("tries", "1"))
            if hanoi:
                start, goal = _pebl_toh(row["current"]), _pebl_toh(row["end"])
                fewest = fewest_hanoi(n, start, goal)
            else:
                start, goal = _pebl_tol(row["current"]), _pebl_tol(row["end"])
                fewest = fewest_london(PEBL_BALLS[:n], capacities, start, goal)
            out[key] = current = {"min_moves": fewest, "moves": 0, "planning_time": None,
                                  "solved": False}  # fmt: skip
            previous = row["current"]
            continue
        if row["current"] != previous:
            current["moves"] += 1
            if current["planning_time"] is None:
                current["planning_time"] = int(row["trialtime"]) / 1000
        previous = row["current"]
        if row["done"] == "1":
            current["solved"] = True
    return out


def scored_trials(folder: Path) -> list[dict]:
    """trials.csv of a tol-score output folder, as dicts of text."""
    with (folder / "trials.csv").open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def number(text: str) -> float | None:
    return float(text) if text not in ("", "NA", "nan") else None
