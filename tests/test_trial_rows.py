"""A trial's rows are built by one code for the runner and the importers
(tol_tasks/session_data/trial_rows.py): the same moves give the same rows.

Two checks, each failing if either side builds a row its own way:

- generated move sequences (legal moves and same-peg drops, with move and time
  limits) fed to the runner's trial state machine (``TrialState``) and to an
  importer's ``SessionBuilder`` give the same rows but for the columns the
  writer adds (times, stamps, who, input);
- the runner's recorded sessions (tests/data/golden, written by tol-run under
  PsychoPy) replayed through ``SessionBuilder``, action by action, give back the
  recorded rows, onsets and ends included: expected values are the file's raw
  cells, not tol_tasks'.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from tol_tasks.importers import SessionBuilder
from tol_tasks.importers.source import Source
from tol_tasks.protocol_format.load import load_protocol_text
from tol_tasks.protocol_format.model import Rules
from tol_tasks.puzzles import from_code
from tol_tasks.session_data.eventlog import cell
from tol_tasks.session_data.trial import TrialState

GOLDEN = Path(__file__).parent / "data" / "golden" / "sessions"

#: What the writer of either side adds to the trial's part of a row.
WRITER = {"participant", "session", "time", "trial_time", "stamp", "input", "x", "y",
          "block", "trial", "attempt", "problem_id"}  # fmt: skip

#: The columns of a trial's rows that both sides must write alike (times and stamps aside).
SHARED = ("block", "attempt", "problem_id", "event", "piece", "from_peg", "to_peg", "state",
          "goal", "puzzle", "moves", "reason", "detail")  # fmt: skip

#: (task, problem): Hanoi, Hanoi with adjacent moves only, four disks, London.
PROBLEMS = [
    ("{type: hanoi, disks: 3}", "start: AAA, goal: CCC"),
    ("{type: hanoi, disks: 3, adjacent_only: true}", "start: AAA, goal: CCC"),
    ("{type: hanoi, disks: 4}", "start: AAAA, goal: BBBB"),
    ("{type: london, balls: RGB, capacities: [3, 2, 1]}", 'start: "GR|B|", goal: "|BG|R"'),
]


def _spec(task: str, problem: str, limits: str):
    text = (f"format: 1\nname: t\ntask: {task}\nblocks:\n  - problems:\n"
            f"      - {{id: p1, {problem}{limits}}}\n")  # fmt: skip
    return load_protocol_text(text).block_problems(0)[0]


def _builder() -> SessionBuilder:
    source = Source(path=Path("moves.csv"), sha256="0" * 64, kind="csv")
    return SessionBuilder(source, "test", "P01", 1)


def _cells(row: dict) -> dict[str, str]:
    return {k: cell(row.get(k)) for k in SHARED}


def _same(runner: list[dict], imported: list[dict]) -> None:
    """The rows agree cell by cell, and neither side has a column of its own."""
    assert [r["event"] for r in imported] == [r["event"] for r in runner]
    for mine, theirs in zip(runner, imported, strict=True):
        assert set(theirs) - set(mine) <= WRITER, theirs
        assert not set(mine) - set(theirs), mine
        assert {k: cell(v) for k, v in theirs.items() if k in mine} == {
            k: cell(v) for k, v in mine.items()
        }


def _walk(seed: int, task: str, problem: str, limits: str):
    """A random participant's moves on both sides: (runner rows, importer rows, outcome)."""
    rnd = random.Random(seed)
    spec = _spec(task, problem, limits)
    trial = TrialState(spec, Rules())
    b = _builder()
    b.onset(0.0, puzzle=spec.puzzle, start=str(spec.start), goal=str(spec.goal),
            block="test", problem_id="p1", row=1, column="start")  # fmt: skip
    first = len(b.rows)
    runner: list[dict] = []
    ms = 0.0
    while not trial.done:
        ms += 250.0
        if spec.time_limit is not None and ms / 1000 >= spec.time_limit:
            out = trial.tick(ms / 1000)
            b.time_out(ms, spec.time_limit, row=2)
            runner += out
            break
        state = trial.state
        moves = spec.puzzle.legal_moves(state)
        full = [p for p, col in enumerate(spec.puzzle.pegs_of(state)) if col]
        if rnd.random() < 0.15:
            src = dst = rnd.choice(full)
        else:
            m = rnd.choice(moves)
            src, dst = m.source, m.target
        out = trial.pick(src) + trial.drop(dst)
        runner += out
        b.pick_up(ms, src, row=2, column="move", value=src)
        if src == dst:
            b.same_peg_drop(ms, src, row=2)
        else:
            b.place(ms, src, dst, row=2, column="move", value=dst)
        events = [r["event"] for r in out]
        if "solved" in events:
            b.solved(ms, row=2)
        if "move_limit" in events:
            b.move_limit(ms, spec.move_limit, row=2)
    return runner, b.rows[first:], trial.outcome


@pytest.mark.parametrize(("task", "problem"), PROBLEMS)
@pytest.mark.parametrize("limits", ["", ", move_limit: 30", ", time_limit: 4"])
def test_the_same_moves_give_the_same_rows_on_both_sides(task, problem, limits):
    outcomes = set()
    rows = 0
    for seed in range(12):
        runner, imported, outcome = _walk(seed, task, problem, limits)
        _same(runner, imported)
        outcomes.add(outcome)
        rows += len(runner)
    expected = {"": {"solved"}, ", move_limit: 30": {"move_limit"}, ", time_limit: 4": {"time_out"}}
    assert expected[limits] <= outcomes  # the case reaches the rows it is about
    assert rows > 12 * 4


def _attempts(path: Path):
    """Each complete problem attempt of a recorded log: its rows, onset to end."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    out, current = [], None
    for r in rows:
        if r["event"] == "trial_onset":
            current = [r]
        elif current is not None and r["trial"] == current[0]["trial"] and not r["copy_of"]:
            current.append(r)
            if r["event"] == "trial_end":
                out.append(current)
                current = None
        elif current is not None and r["trial"]:
            current = None  # cut off (a resumed session): not a whole attempt
    return out


#: What a runner's attempt may hold for an importer to say it too.
IMPORTABLE = {"trial_onset", "pick_up", "place", "same_peg_drop", "solved", "time_out",
              "move_limit", "trial_end"}  # fmt: skip


def _replay(attempt: list[dict]) -> list[dict]:
    """The attempt's actions given to a SessionBuilder, as an importer gives a source's."""
    b = _builder()
    ms = [float(r["time"]) * 1000 for r in attempt]
    onset = attempt[0]
    b.onset(ms[0], puzzle=from_code(onset["puzzle"]), start=onset["state"], goal=onset["goal"],
            block=onset["block"], problem_id=onset["problem_id"], attempt=int(onset["attempt"]),
            row=1, column="state")  # fmt: skip
    first = len(b.rows) - 1
    pegs = "ABCDEFGH"
    held = None
    for t, r in zip(ms[1:], attempt[1:], strict=True):
        n = int(r["row"])
        event = r["event"]
        if event == "pick_up":
            held = pegs.index(r["from_peg"])
            b.pick_up(t, held, row=n, column="from_peg", value=r["from_peg"])
        elif event == "place":
            b.place(t, held, pegs.index(r["to_peg"]), row=n, column="to_peg", value=r["to_peg"])
        elif event == "same_peg_drop":
            b.same_peg_drop(t, held, row=n)
        elif event == "solved":
            b.solved(t, row=n)
        elif event == "time_out":
            b.time_out(t, float(r["detail"].removeprefix("limit=")), row=n)
        elif event == "move_limit":
            b.move_limit(t, int(r["detail"].removeprefix("limit=")), row=n)
        else:
            b.end_trial(t, row=n)
    return b.rows[first:]


def test_a_recorded_runner_session_replayed_by_an_importer_gives_its_own_rows():
    compared = 0
    for path in sorted(GOLDEN.glob("*.csv")):
        for attempt in _attempts(path):
            if {r["event"] for r in attempt} - IMPORTABLE:
                continue  # an illegal attempt, a cancel: nothing an importer gives
            imported = _replay(attempt)
            assert len(imported) == len(attempt)
            for recorded, mine in zip(attempt, imported, strict=True):
                want = {k: recorded[k] for k in SHARED}
                if recorded["event"] == "trial_end":
                    want["detail"] = ""  # the runner's frame statistics: no importer has them
                assert _cells(mine) == want, f"{path.name} row {recorded['row']}"
            compared += len(attempt)
    assert compared > 500
