"""Helpers of issue 30's tests: scores worked out by hand from a log's raw rows, logs written
move by move along legal paths, and LibreOffice headless.

Nothing here imports tol_analysis: the rows are read with the csv module, minimum moves come
from the plain BFS of ``tests/reference.py``, and the logs are written with the event log's
own writer (what every recorder uses), so that agreeing with tol-score means something.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import zipfile
from collections import deque
from itertools import pairwise
from pathlib import Path

from tests.reference import bfs, graph_of
from tests.system_tools import program

HERE = Path(__file__).parent
TRUST = HERE / "data" / "trust"
SESSIONS = TRUST / "sessions"
GOLDEN = HERE / "data" / "golden" / "sessions"

#: The TOL-DX charge and limits, as the published rule states them (tests/test_trust_scoring.py
#: quotes it): 20 moves for a problem not solved within 20 moves or 2 minutes; a time
#: violation for a problem not completed within 1 minute.
TOLDX_MOVES, TOLDX_SECONDS, TOLDX_VIOLATION = 20, 120.0, 60.0


# ----------------------------------------------------------------- scores by hand
def raw_rows(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def raw_attempts(path: Path) -> list[dict]:
    """The problem attempts of a log, walked row by row from the raw rows: each with its
    rows, whether it reached its trial_end (void if not) and its measures."""
    out, current = [], None
    for r in raw_rows(path):
        if r["event"] == "trial_onset":
            current = {"onset": r, "rows": [], "ended": False}
            out.append(current)
            continue
        if current is None or current["ended"]:
            continue
        if r["trial"] and (r["trial"], r["attempt"], r["problem_id"]) == (
            current["onset"]["trial"], current["onset"]["attempt"], current["onset"]["problem_id"]
        ):  # fmt: skip
            current["rows"].append(r)
            if r["event"] == "trial_end":
                current["ended"] = True
    for a in out:
        a.update(_measures(a))
    return out


def _measures(a: dict) -> dict:
    onset, rows = a["onset"], a["rows"]
    events = [r["event"] for r in rows]
    picks = [float(r["trial_time"]) for r in rows if r["event"] == "pick_up"]
    ends = [float(r["trial_time"]) for r in rows
            if r["event"] in ("solved", "time_out", "move_limit", "trial_end")]  # fmt: skip
    graph = graph_of(onset["puzzle"])
    dist, _ = bfs(graph, onset["goal"])
    moves = events.count("place")
    solved = "solved" in events
    total = ends[0] if ends else float("nan")
    return {
        "practice": onset["block"] == "practice", "block": onset["block"],
        "problem": onset["problem_id"], "void": not a["ended"], "moves": moves,
        "min_moves": dist[onset["state"]], "solved": solved,
        "violations": events.count("illegal"), "planning": picks[0] if picks else float("nan"),
        "total": total,
    }  # fmt: skip


def toldx_move_score(a: dict) -> int:
    """The TOL-DX move score of one attempt, from the rule text."""
    within = a["solved"] and a["moves"] <= TOLDX_MOVES and not a["total"] > TOLDX_SECONDS
    return (a["moves"] if within else TOLDX_MOVES) - a["min_moves"]


def by_hand(path: Path, practice: bool = False) -> dict:
    """Every session total and mean of a log, worked out from its raw rows: void attempts
    (cut off) left out, practice too unless ``practice``."""
    every = [a for a in raw_attempts(path) if practice or not a["practice"]]
    given = [a for a in every if not a["void"]]
    planning = [a["planning"] for a in given if a["planning"] == a["planning"]]
    return {
        "attempts": len(given),
        "void_attempts": sum(a["void"] for a in every),
        "problems": len({(a["block"], a["problem"]) for a in given}),
        "problems_solved": len({(a["block"], a["problem"]) for a in given if a["solved"]}),
        "problems_solved_in_min": len({(a["block"], a["problem"]) for a in given
                                       if a["solved"] and a["moves"] == a["min_moves"]}),
        "total_moves": sum(a["moves"] for a in given),
        "total_excess_moves": sum(a["moves"] - a["min_moves"] for a in given if a["solved"]),
        "total_rule_violations": sum(a["violations"] for a in given),
        "toldx_total_move_score": sum(toldx_move_score(a) for a in given),
        "toldx_time_violations": sum(not (a["solved"] and not a["total"] > TOLDX_VIOLATION)
                                     for a in given),
        "total_planning_time": sum(planning),
        "mean_planning_time": sum(planning) / len(planning) if planning else float("nan"),
        "total_solving_time": sum(a["total"] for a in given),
    }  # fmt: skip


# ----------------------------------------------------------------- logs along legal paths
def walk(puzzle: str, start: str, goal: str, length: int, reach: bool) -> list[str]:
    """States of a walk of exactly ``length`` legal moves from ``start`` (the start first):
    ending on ``goal`` when ``reach``, else never on it; the goal is never visited before
    the end (a recorder ends the problem there)."""
    graph = graph_of(puzzle)
    # Breadth-first over (state, moves made), never through the goal.
    parent = {(start, 0): None}
    queue = deque([(start, 0)])
    while queue:
        state, k = queue.popleft()
        if k == length:
            continue
        for *_, nxt in graph[state]:
            node = (nxt, k + 1)
            if node in parent or (nxt == goal and (k + 1 < length or not reach)):
                continue
            parent[node] = (state, k)
            queue.append(node)
    ends = [n for n in parent if n[1] == length and (n[0] == goal) == reach]
    if not ends:
        raise ValueError(f"no walk of {length} moves from {start}")
    path, node = [], sorted(ends)[0]
    while node is not None:
        path.append(node[0])
        node = parent[node]
    return path[::-1]


def _move(puzzle: str, before: str, after: str) -> tuple[str, str, str]:
    """(piece, from peg, to peg) of the move from ``before`` to ``after``."""
    for piece, i, j, nxt in graph_of(puzzle)[before]:
        if nxt == after:
            return str(piece), "ABCDEFGH"[i], "ABCDEFGH"[j]
    raise ValueError(f"{before} -> {after} is not a move")


def write_log(path: Path, problems: list[dict], participant: str = "W01",
              detail: str = "protocol=worked;sha256=" + "0" * 64) -> Path:  # fmt: skip
    """A session log of ``problems`` (each: id, puzzle, start, goal, moves, reach, outcome
    (solved, time_out, move_limit), seconds per move, violations), written with the event
    log's own writer."""
    from tol_tasks.session_data.livelog import EventLog

    clock = 0.0
    with EventLog(path, fsync=False) as log:
        log.write(event="session_start", participant=participant, session=1, time=0.0,
                  detail=detail)  # fmt: skip
        log.write(event="block_start", participant=participant, session=1, block="test",
                  time=0.1)  # fmt: skip
        for n, p in enumerate(problems, start=1):
            states = walk(p["puzzle"], p["start"], p["goal"], p["moves"], p["reach"])
            ids = {"participant": participant, "session": 1, "block": "test", "trial": n,
                   "attempt": 1, "problem_id": p["id"]}  # fmt: skip
            onset, t = clock + 1.0, 0.0
            log.write(event="trial_onset", time=onset, trial_time=0.0, state=p["start"],
                      goal=p["goal"], puzzle=p["puzzle"], **ids)  # fmt: skip
            step = p.get("seconds", 1.0)
            violations = p.get("violations", 0)
            for k, (a, b) in enumerate(pairwise(states), start=1):
                piece, src, dst = _move(p["puzzle"], a, b)
                t += step / 2
                log.write(event="pick_up", time=onset + t, trial_time=t, piece=piece,
                          from_peg=src, state=a, **ids)  # fmt: skip
                if violations:
                    violations -= 1
                    log.write(event="illegal", time=onset + t, trial_time=t, piece=piece,
                              from_peg=src, to_peg=src, state=a, reason="peg_full", **ids)  # fmt: skip
                t += step / 2
                log.write(event="place", time=onset + t, trial_time=t, piece=piece, from_peg=src,
                          to_peg=dst, state=b, moves=k, **ids)  # fmt: skip
            end = p.get("end", t)
            t = max(t, end)
            if p["outcome"] != "cut":
                log.write(event=p["outcome"], time=onset + t, trial_time=t, state=states[-1],
                          moves=p["moves"], **ids)  # fmt: skip
                log.write(event="trial_end", time=onset + t, trial_time=t, reason=p["outcome"],
                          **ids)  # fmt: skip
            clock = onset + t
        if not problems or problems[-1]["outcome"] != "cut":
            log.write(event="session_end", participant=participant, session=1, time=clock + 1,
                      reason="completed")  # fmt: skip
    return path


# ----------------------------------------------------------------- copies of real sessions
def place(
    folder: Path,
    name: str,
    new: str | None = None,
    source: Path = GOLDEN,
    sidecar: dict | None = None,
    **changes,
) -> Path:
    """Copy a recorded session (log and sidecar) into ``folder`` as ``new``, with cells of
    every row changed (``changes``) and the sidecar updated with ``sidecar``."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / (new or name)
    src = source / name
    with src.open(newline="", encoding="utf-8") as f:
        data = list(csv.reader(f))
    header = data[0]
    for key, value in changes.items():
        i = header.index(key)
        for r in data[1:]:
            r[i] = str(value)
    with target.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(data)
    side = json.loads(src.with_suffix(".json").read_text("utf-8"))
    side.update(event_log=target.name)
    if "participant" in changes:
        side["participant"] = str(changes["participant"])
    if "session" in changes:
        side["session"] = int(changes["session"])
    side.update(sidecar or {})
    target.with_suffix(".json").write_text(json.dumps(side), "utf-8")
    return target


def read_csv(path: Path, delimiter: str = ",") -> list[dict]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter=delimiter))


# ----------------------------------------------------------------- LibreOffice headless
def soffice() -> str:
    """LibreOffice's command (Debian package libreoffice-calc), or the test skipped."""
    return program("soffice", "libreoffice")


def libreoffice_convert(source: Path, out: Path, to: str, infilter: str | None = None) -> Path:
    """``soffice --headless --convert-to`` in a profile of its own (tests run in parallel)."""
    return libreoffice_convert_all([source], out, to, infilter)[0]


def libreoffice_convert_all(sources: list[Path], out: Path, to: str,
                            infilter: str | None = None) -> list[Path]:  # fmt: skip
    """:func:`libreoffice_convert` for several files in one start of LibreOffice (its start
    in a new profile takes seconds); the converted files, in the order of ``sources``, each
    under a name of its own (two sources may share a name)."""
    out.mkdir(parents=True, exist_ok=True)
    staged = out / ".sources"
    if len(sources) > 1:  # each source copied under a numbered name: one output each
        staged.mkdir()
        sources = [Path(shutil.copy2(src, staged / f"{n}-{src.name}")) for n, src in enumerate(sources)]  # fmt: skip
    profile = out / ".lo-profile"
    args = [soffice(), f"-env:UserInstallation=file://{profile}", "--headless",
            "--convert-to", to, "--outdir", str(out)]  # fmt: skip
    if infilter:
        args.insert(3, f"--infilter={infilter}")
    done = subprocess.run([*args, *map(str, sources)], capture_output=True, text=True,
                          timeout=300, check=False)  # fmt: skip
    shutil.rmtree(profile, ignore_errors=True)
    shutil.rmtree(staged, ignore_errors=True)
    converted = [out / src.with_suffix("." + to.split(":")[0]).name for src in sources]
    if done.returncode != 0 or not all(p.is_file() for p in converted):
        raise AssertionError(f"soffice failed ({done.returncode}): {done.stdout}{done.stderr}")
    return converted


#: LibreOffice's CSV import: the separator (by code), quotes, UTF-8, from line 1, and the
#: 13th token: evaluate formulas, on (the setting that makes a cell like =1+1 a formula).
def csv_import_filter(separator: str) -> str:
    return f"CSV:{ord(separator)},34,76,1,,0,false,true,false,false,false,-1,true"


def formula_cells(table: Path, separator: str, out: Path) -> list[str]:
    """The cells LibreOffice reads as formulas in a CSV or TSV file (none for a safe file)."""
    return formula_cells_of([table], separator, out)[0]


def formula_cells_of(tables: list[Path], separator: str, out: Path) -> list[list[str]]:
    """:func:`formula_cells` of each of ``tables`` (one separator), in one start of LibreOffice."""
    books = libreoffice_convert_all(tables, out, "xlsx:Calc MS Excel 2007 XML",
                                    csv_import_filter(separator))  # fmt: skip
    found = []
    for book in books:
        with zipfile.ZipFile(book) as z:
            sheet = z.read("xl/worksheets/sheet1.xml").decode("utf-8")
        found.append(re.findall(r'<c r="([A-Z]+\d+)"[^>]*><f', sheet))
    return found
