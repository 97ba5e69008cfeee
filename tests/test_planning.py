"""Planning-only problems (One Touch Stockings style) answered with real keys (xdotool) in a
real tol-run window, scored by tol-score against values computed here from the raw rows."""

from __future__ import annotations

import time

import pandas as pd
import pytest

from tests.neuro_tools import keys_protocol
from tests.reference import bfs, hanoi_graph
from tests.runner_tools import (
    codebook_describes_every_table,
    key_over_window,
    running_tol_run,
    session_files,
    sidecar_of,
    tol_score,
    wait_for_rows,
)
from tol_analysis.columns import PLANNING, PLANNING_SESSIONS
from tol_tasks.session_data.detail import parse_detail
from tol_tasks.session_data.eventlog import read_event_log

PROBLEMS = {"q1": "AAB", "q2": "ACC", "q3": "CCC"}  # all from AAA
PROTOCOL = keys_protocol(
    "ots-test",
    """\
blocks:
  - name: ots
    planning: {choices: [1, 2, 3, 4, 5, 6, 7], keys: ["1", "2", "3", "4", "5", "6", "7"]}
    problems:
""",
    *(f"      - {{id: {k}, start: AAA, goal: {g}}}\n" for k, g in PROBLEMS.items()),
)


def _fewest() -> dict[str, int]:
    """The right answers, from a plain BFS over the 3-disk Hanoi graph."""
    graph = hanoi_graph(3)
    return {k: bfs(graph, goal)[0]["AAA"] for k, goal in PROBLEMS.items()}


def _answer(out, proc, env, pid: str, keys, before: int = 0) -> None:
    """Once problem ``pid`` is shown (its ``before + 1``-th onset), press each of ``keys``
    (real keys, xdotool), each time waiting for its choice row."""
    wait_for_rows(out, lambda rows: sum(r["event"] == "planning_onset"
                                        and r["problem_id"] == pid for r in rows) > before,
                  proc=proc)  # fmt: skip
    time.sleep(0.4)
    made = sum(r["event"] == "choice" for r in read_event_log(session_files(out)[0]).rows)
    for key in keys:
        key_over_window(out, key, env)
        made += 1
        wait_for_rows(out, lambda rows, n=made: sum(r["event"] == "choice"
                                                    for r in rows) >= n, proc=proc)  # fmt: skip
        time.sleep(0.2)


@pytest.fixture(scope="module")
def session(xdisplay, tmp_path_factory):
    root = tmp_path_factory.mktemp("ots")
    (root / "ots.yaml").write_text(PROTOCOL)
    out = root / "data"
    fewest = _fewest()
    assert fewest == {"q1": 1, "q2": 3, "q3": 7}
    # q1 right at once; q2 one wrong then right; q3 two wrong then right.
    answers = {"q1": ["1"], "q2": ["2", "3"], "q3": ["5", "6", "7"]}
    with running_tol_run(str(root / "ots.yaml"), "--participant", "P1", "--windowed",
                         "--output", str(out), env=xdisplay) as proc:  # fmt: skip
        for pid, keys in answers.items():
            _answer(out, proc, xdisplay, pid, keys)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    return out, fewest


def test_every_choice_is_logged_with_its_latency(session):
    out, fewest = session
    rows = read_event_log(session_files(out)[0]).rows
    onsets = {r["problem_id"]: r for r in rows if r["event"] == "planning_onset"}
    assert {k: int(parse_detail(r["detail"])["min_moves"]) for k, r in onsets.items()} == fewest
    choices = [(r["problem_id"], r["moves"], r["reason"], r["input"]) for r in rows
               if r["event"] == "choice"]  # fmt: skip
    assert choices == [
        ("q1", "1", "correct", "key"), ("q2", "2", "wrong", "key"), ("q2", "3", "correct", "key"),
        ("q3", "5", "wrong", "key"), ("q3", "6", "wrong", "key"), ("q3", "7", "correct", "key"),
    ]  # fmt: skip
    for r in rows:
        if r["event"] == "choice":  # latency = press time - the onset's flip, never negative
            onset = float(onsets[r["problem_id"]]["time"])
            assert float(r["trial_time"]) == pytest.approx(float(r["time"]) - onset, abs=2e-6)
            assert float(r["trial_time"]) > 0
    ends = [(r["problem_id"], r["reason"], r["moves"]) for r in rows
            if r["event"] == "planning_end"]  # fmt: skip
    assert ends == [("q1", "solved", "1"), ("q2", "solved", "2"), ("q3", "solved", "3")]
    assert not any(r["event"] in ("trial_onset", "pick_up", "place") for r in rows)


def test_tol_score_computes_the_one_touch_measures(session, tmp_path):
    out, _ = session
    done = tol_score(str(out), "--output", str(tmp_path / "scored"))
    assert done.returncode == 0, done.stderr
    problems = pd.read_csv(tmp_path / "scored" / "planning.csv")
    sessions = pd.read_csv(tmp_path / "scored" / "planning_sessions.csv", dtype={"level": str})
    book = codebook_describes_every_table(tmp_path / "scored")  # planning.csv's columns too
    for table in (PLANNING, PLANNING_SESSIONS):  # as the registry declares them, cited
        assert book[table.file] == [c.entry() for c in table]
    assert "CANTAB OTS" in book["planning_sessions.csv"][-1]["source"]
    rows = read_event_log(session_files(out)[0]).rows
    lat = {}  # the choices' latencies per problem, from the raw rows
    for r in rows:
        if r["event"] == "choice":
            lat.setdefault(r["problem_id"], []).append(float(r["trial_time"]))
    by_id = problems.set_index("problem_id")
    assert list(by_id["choices_to_correct"]) == [1, 2, 3]
    assert list(by_id["solved_on_first_choice"]) == [True, False, False]
    assert list(by_id["first_choice"]) == [1, 2, 5]
    for pid, values in lat.items():
        assert by_id.loc[pid, "latency_first_choice"] == pytest.approx(values[0], abs=1e-5)
        assert by_id.loc[pid, "latency_correct"] == pytest.approx(values[-1], abs=1e-5)
    overall = sessions[sessions["level"] == "all"].iloc[0]
    assert overall["problems"] == 3
    assert overall["problems_solved_on_first_choice"] == 1
    assert overall["mean_choices_to_correct"] == pytest.approx((1 + 2 + 3) / 3)
    firsts = [v[0] for v in lat.values()]
    corrects = [v[-1] for v in lat.values()]
    assert overall["mean_latency_first_choice"] == pytest.approx(sum(firsts) / 3, abs=1e-5)
    assert overall["mean_latency_correct"] == pytest.approx(sum(corrects) / 3, abs=1e-5)
    per_level = sessions[sessions["level"] != "all"].set_index("level")
    assert list(per_level.index) == ["1", "3", "7"]
    assert list(per_level["mean_choices_to_correct"]) == [1.0, 2.0, 3.0]


@pytest.fixture(scope="module")
def resumed(xdisplay, tmp_path_factory):
    """The same protocol, killed (SIGKILL) during q2 after one wrong choice, then resumed with
    ``tol-run --resume``: q1 must not be asked again, q2 is asked again, then q3."""
    root = tmp_path_factory.mktemp("ots-resume")
    (root / "ots.yaml").write_text(PROTOCOL)
    out = root / "data"

    with running_tol_run(str(root / "ots.yaml"), "--participant", "P1", "--windowed",
                         "--output", str(out), env=xdisplay, real=True) as proc:  # fmt: skip
        _answer(out, proc, xdisplay, "q1", "1")
        _answer(out, proc, xdisplay, "q2", "2")  # wrong: q2 goes on, until_correct
        proc.kill()  # a real kill, in the middle of q2
        proc.communicate()
    log = session_files(out)[0]
    with running_tol_run("--resume", str(log), "--windowed", env=xdisplay) as proc:
        wait_for_rows(out, lambda rows: any(r["event"] == "page_shown"
                                            and r["problem_id"] == "resume-ready" for r in rows),
                      proc=proc)  # fmt: skip
        time.sleep(0.4)
        key_over_window(out, "space", xdisplay)
        _answer(out, proc, xdisplay, "q2", "3", before=1)
        _answer(out, proc, xdisplay, "q3", "67")
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    return out


def test_a_resumed_session_asks_again_only_the_problem_cut_off(resumed):
    rows = read_event_log(session_files(resumed)[0]).rows
    at = next(i for i, r in enumerate(rows) if r["event"] == "resume")
    before = [(r["problem_id"], r["event"], r["moves"]) for r in rows[:at]
              if r["event"] in ("planning_onset", "choice", "planning_end")]  # fmt: skip
    assert before == [("q1", "planning_onset", ""), ("q1", "choice", "1"),
                      ("q1", "planning_end", "1"), ("q2", "planning_onset", ""),
                      ("q2", "choice", "2")]  # fmt: skip
    after = [(r["problem_id"], r["event"], r["moves"], r["attempt"]) for r in rows[at:]
             if r["event"] in ("planning_onset", "choice", "planning_end")]  # fmt: skip
    assert after == [("q2", "planning_onset", "", "1"), ("q2", "choice", "3", "1"),
                     ("q2", "planning_end", "1", "1"), ("q3", "planning_onset", "", "1"),
                     ("q3", "choice", "6", "1"), ("q3", "choice", "7", "1"),
                     ("q3", "planning_end", "2", "1")]  # fmt: skip
    assert "q2" in rows[at]["detail"]  # the resume row names the problem cut off
    trials = [int(r["trial"]) for r in rows if r["event"] == "planning_onset"]
    assert trials == sorted(set(trials))  # a new trial number for the problem asked again
    assert rows[-1]["reason"] == "completed"


def test_tol_score_counts_the_problem_cut_off_once(resumed, tmp_path):
    done = tol_score(str(resumed), "--output", str(tmp_path / "scored"))
    assert done.returncode == 0, done.stderr
    problems = pd.read_csv(tmp_path / "scored" / "planning.csv")
    assert list(problems["problem_id"]) == ["q1", "q2", "q2", "q3"]
    assert list(problems["void"]) == [False, True, False, False]
    assert list(problems["outcome"]) == ["solved", "void", "solved", "solved"]
    kept = problems[~problems["void"]]
    assert list(kept["choices_to_correct"]) == [1, 1, 2]  # q2's wrong choice was in the void one
    sessions = pd.read_csv(tmp_path / "scored" / "planning_sessions.csv", dtype={"level": str})
    overall = sessions[sessions["level"] == "all"].iloc[0]
    assert overall["problems"] == 3
    assert overall["problems_solved_on_first_choice"] == 2  # q1, and q2 asked again
    assert overall["mean_choices_to_correct"] == pytest.approx((1 + 1 + 2) / 3, abs=1e-5)
    rows = read_event_log(session_files(resumed)[0]).rows
    firsts = {}  # each problem's latency to its first choice, from the raw rows after the resume
    for r in rows:
        if r["event"] == "choice":
            firsts[r["problem_id"]] = firsts.get(r["problem_id"], []) + [float(r["trial_time"])]
    expected = [firsts["q1"][0], firsts["q2"][1], firsts["q3"][0]]  # q2: its second asking
    assert overall["mean_latency_first_choice"] == pytest.approx(sum(expected) / 3, abs=1e-5)


def test_the_quit_key_during_a_planning_problem_ends_the_session_as_aborted(xdisplay, tmp_path):
    """Escape (confirmed) during q2, after one wrong choice: the session ends aborted, every
    row before kept, and q2 has no planning_end (cut off: void for tol-score)."""
    (tmp_path / "ots.yaml").write_text(PROTOCOL)
    out = tmp_path / "data"
    with running_tol_run(str(tmp_path / "ots.yaml"), "--participant", "P1", "--windowed",
                         "--output", str(out), env=xdisplay) as proc:  # fmt: skip
        _answer(out, proc, xdisplay, "q1", "1")
        _answer(out, proc, xdisplay, "q2", "2")
        key_over_window(out, "Escape", xdisplay)
        key_over_window(out, "Escape", xdisplay)  # the second press confirms
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 1, err
    assert "Traceback" not in err
    rows = read_event_log(session_files(out)[0]).rows
    assert [r["event"] for r in rows[-2:]] == ["abort", "session_end"]
    assert rows[-1]["reason"] == "aborted"
    ends = [r["problem_id"] for r in rows if r["event"] == "planning_end"]
    assert ends == ["q1"]
    assert [r["moves"] for r in rows if r["event"] == "choice"] == ["1", "2"]
    assert sidecar_of(out)["status"] == "aborted"
