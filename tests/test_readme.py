"""The README's Python examples run as printed (issue 22, item 9).

Each ```python block of the README is taken from the file itself. The embedding example runs
under Xvfb with one change, said here: the simulated participant plays (``simulate=True,
speed=...`` added to each ``TowerTask(...)``), since no person is there to click; then the
scoring example runs on the data it wrote, in the same folder. In the puzzle example, every
line whose comment is a value (``p.distance(s, g)  # 6``) is checked against that value.
"""

from __future__ import annotations

import ast
import csv
import re
import subprocess
import sys
from pathlib import Path

from tol_tasks.session_data.eventlog import read_event_log

ROOT = Path(__file__).resolve().parents[1]


def _examples() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.M | re.S)


def _example(needle: str) -> str:
    (found,) = [code for code in _examples() if needle in code]
    return found


def test_every_python_example_is_run_here():
    needles = ("TowerTask(", "score_sessions", "from tol_tasks import Hanoi", "load_protocol(")
    assert sorted(sum(n in code for n in needles) for code in _examples()) == [1] * len(
        _examples()
    ), "a README Python example that no test runs"


def test_the_puzzle_example_gives_the_values_its_comments_say():
    import tol_tasks
    from tol_tasks.puzzles.base import Move

    ns: dict = {"Move": Move, "tol_tasks": tol_tasks}
    checked = 0
    for line in _example("from tol_tasks import Hanoi").splitlines():
        code, _, comment = line.partition("  # ")
        if not code.strip():
            continue
        tree = ast.parse(code)
        if not isinstance(tree.body[0], ast.Expr):
            exec(code, ns)
            continue
        got = eval(code, ns)
        if not comment:
            if isinstance(tree.body[0].value, ast.Compare):  # str(s) == "BAA"
                assert got is True, line
            continue
        want = None
        for text in (comment, comment.split(": ")[0]):
            try:
                want = eval(text, ns)
                break
            except (SyntaxError, NameError):
                continue
        if want is None:  # prose, not a value
            continue
        assert got == want, line
        checked += 1
    assert checked == 5  # distance, paths, optimal moves, London distance, nth_move


def test_the_protocol_example_runs():
    ns: dict = {}
    exec(_example("load_protocol("), ns)
    assert ns["lp"].name == "london-tol-dx"


def test_the_embedding_and_scoring_examples_run(xdisplay, tmp_path):
    code = _example("TowerTask(")
    simulated = re.sub(r"\bparticipant=", "simulate=True, speed=60, participant=", code)
    assert simulated.count("simulate=True") == 2  # the whole protocol, then one problem
    scoring = _example("score_sessions")
    script = tmp_path / "example.py"
    # After the examples: the README's earlier mistake (run() then run_problem()) is told.
    after = (
        "from tol_tasks.errors import TolTasksError\n"
        "try:\n    task.run_problem(start='GR|B|', goal='|RB|G')\n"
        "except TolTasksError as exc:\n    print(exc, file=sys.stderr)\n"
        "print(result.outcome, len(scores.trials))\n"
    )
    script.write_text(f"import sys\n{simulated}\n{scoring}\n{after}", encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=xdisplay,
                         capture_output=True, text=True, timeout=600, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    outcome, n_trials = run.stdout.split()[-2:]
    assert outcome in ("solved", "time_out")
    logs = sorted((tmp_path / "data").glob("*.csv"))
    logs = [p for p in logs if p.with_suffix(".json").exists()]
    assert len(logs) == 2  # session 1 (the protocol) and session 2 (one problem)
    sessions = {read_event_log(p).rows[0]["session"]: read_event_log(p).rows for p in logs}
    assert sorted(sessions) == ["1", "2"]
    assert sessions["1"][-1]["reason"] == "completed"
    assert [r["event"] for r in sessions["2"]].count("trial_onset") == 1
    # The ExperimentHandler's file: a row per attempt of both sessions, no "None" text.
    (exp_file,) = (tmp_path / "data").glob("P001_battery*.csv")
    with exp_file.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    attempts = sum(r["event"] == "trial_end" for s in sessions.values() for r in s)
    assert len([r for r in rows if r.get("tower.problem_id")]) == attempts
    assert not any(v == "None" for r in rows for v in r.values())
    assert int(n_trials) == attempts
    assert (
        "the session has ended (completed) (run() plays the whole protocol, then ends the "
        "session); no more problems can be run in it. Suggested fix: play single problems with "
        "run_problem() on a TowerTask whose run() is not called, or create a new TowerTask "
        "(another session number) for them."
    ) in run.stderr
