"""Planning-only blocks (One Touch Stockings style) played in a real headless Chromium.

One protocol holds both ways of answering: a block answered with keys (a button box's
'1'...'7', real key presses), a block answered by clicking the boxes (real mouse clicks,
the first choice ending each problem), and an ordinary block in which the plan is
carried out by selecting pegs with keys. The log the page saves is read by
tol_tasks.session_data and scored by tol-score; planning.csv is checked against values
computed here from the raw rows and from a plain BFS. The same protocol answered the same
way in a real tol-run window (real keys and clicks, xdotool) must give rows of the same
shape: the same events, in the same order, with the same columns filled.
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import pytest

from tests.browser_tools import StaticServer
from tests.neuro_tools import keys_protocol
from tests.runner_tools import (
    key_over_window,
    running_tol_run,
    session_files,
    sidecar_of,
    tol_score,
    wait_for_rows,
    xdotool,
)
from tests.test_web_browser import run_in_browser
from tests.web_tools import bfs_plan, build_folder, distances_to
from tol_tasks.session_data.detail import parse_detail
from tol_tasks.session_data.eventlog import read_event_log

PUZZLE = "hanoi:3:3:0"
GOALS = {"q1": "AAB", "q2": "ACC", "q3": "CCC", "r1": "ACC", "r2": "CCC"}  # all from AAA
PROTOCOL = keys_protocol(
    "ots-web",
    """\
blocks:
  - name: ots-keys
    planning: {choices: [1, 2, 3, 4, 5, 6, 7], keys: ["1", "2", "3", "4", "5", "6", "7"]}
    problems:
      - {id: q1, start: AAA, goal: AAB}
      - {id: q2, start: AAA, goal: ACC}
      - {id: q3, start: AAA, goal: CCC}
  - name: ots-click
    planning: {choices: [1, 2, 3, 4, 5, 6, 7], until_correct: false}
    problems:
      - {id: r1, start: AAA, goal: ACC}
      - {id: r2, start: AAA, goal: CCC}
  - name: moves
    problems:
      - {id: m1, start: AAA, goal: ACC}
""",
)
#: The numbers chosen: q1 right at once, q2 one wrong then right, q3 two wrong then right;
#: r1 right, r2 wrong (until_correct false: the first choice ends it).
ANSWERS = {"q1": [1], "q2": [2, 3], "q3": [5, 6, 7], "r1": [3], "r2": [4]}
PLANNING_EVENTS = ("planning_onset", "choice", "planning_end")


def _fewest() -> dict[str, int]:
    """The right answers, from the test's own BFS."""
    return {k: distances_to(PUZZLE, goal)["AAA"] for k, goal in GOALS.items()}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The protocol built with tol-web build (a pilot build: the page saves its files)."""
    root = tmp_path_factory.mktemp("ots-web")
    (root / "ots.yaml").write_text(PROTOCOL)
    return build_folder(root / "ots.yaml", root / "site")


@pytest.fixture(scope="module")
def played(chromium, site, tmp_path_factory):
    """The protocol played once in the browser, answered as ANSWERS says; its folder."""
    data = tmp_path_factory.mktemp("ots-web-data")
    with StaticServer(site) as server:
        player, _ = run_in_browser(chromium, server.url("index.html?participant=W001"), data,
                                   illegal=False, answers=ANSWERS)  # fmt: skip
        player.ctx.close()
    assert player.status == "completed"
    return data


def _rows(folder: Path) -> list[dict]:
    return read_event_log(session_files(folder)[0]).rows


def test_planning_blocks_are_answered_by_keys_and_by_clicks_in_the_page(played):
    rows = _rows(played)
    fewest = _fewest()
    assert fewest == {"q1": 1, "q2": 3, "q3": 7, "r1": 3, "r2": 7}
    onsets = {r["problem_id"]: r for r in rows if r["event"] == "planning_onset"}
    assert list(onsets) == list(ANSWERS)
    for pid, r in onsets.items():
        d = parse_detail(r["detail"])
        assert (r["state"], r["goal"], r["puzzle"]) == ("AAA", GOALS[pid], PUZZLE)
        assert (d["choices"], int(d["min_moves"])) == ("1,2,3,4,5,6,7", fewest[pid])
    choices = [(r["problem_id"], int(r["moves"]), r["reason"], r["input"]) for r in rows
               if r["event"] == "choice"]  # fmt: skip
    assert choices == [
        (pid, n, "correct" if n == fewest[pid] else "wrong", "key" if pid[0] == "q" else "mouse")
        for pid, numbers in ANSWERS.items() for n in numbers
    ]  # fmt: skip
    for r in rows:
        if r["event"] == "choice":  # latency from the onset's flip, after it; clicks placed
            onset = float(onsets[r["problem_id"]]["time"])
            assert float(r["trial_time"]) == pytest.approx(float(r["time"]) - onset, abs=2e-6)
            assert float(r["trial_time"]) > 0
            assert r["stamp"] == "arrival"
            assert (r["x"] != "") == (r["input"] == "mouse") == (r["y"] != "")
    ends = [(r["problem_id"], r["reason"], int(r["moves"])) for r in rows
            if r["event"] == "planning_end"]  # fmt: skip
    assert ends == [("q1", "solved", 1), ("q2", "solved", 2), ("q3", "solved", 3),
                    ("r1", "solved", 1), ("r2", "wrong", 1)]  # fmt: skip
    # Each planning problem's rows, in order: its onset, its choices, its end.
    for pid in ANSWERS:
        mine = [r["event"] for r in rows if r["problem_id"] == pid]
        assert mine == ["planning_onset", *["choice"] * len(ANSWERS[pid]), "planning_end"]
    # The ordinary block: the plan carried out by selecting pegs with keys, move by move.
    moves = [(r["from_peg"], r["to_peg"], r["input"]) for r in rows
             if r["event"] == "place" and r["problem_id"] == "m1"]  # fmt: skip
    plan = bfs_plan(PUZZLE, "AAA", "ACC")
    assert moves == [("ABC"[a], "ABC"[b], "key") for a, b in plan]
    assert not any(r["event"] in ("trial_onset", "pick_up") and r["problem_id"] in ANSWERS
                   for r in rows)  # fmt: skip
    times = [float(r["time"]) for r in rows]
    assert times == sorted(times)
    rownos = [int(r["row"]) for r in rows]
    assert rownos == list(range(1, len(rows) + 1))  # none lost, none twice


def test_tol_score_planning_tables_equal_the_raw_rows(played, tmp_path):
    scored = _scored(played)
    fewest = _fewest()
    rows = _rows(played)
    raw: dict[str, list[tuple[int, float]]] = {}  # each problem's (number, latency), in order
    outcome = {}
    for r in rows:
        if r["event"] == "choice":
            raw.setdefault(r["problem_id"], []).append((int(r["moves"]), float(r["trial_time"])))
        elif r["event"] == "planning_end":
            outcome[r["problem_id"]] = r["reason"]
    problems = pd.read_csv(scored / "planning.csv").set_index("problem_id")
    assert list(problems.index) == list(ANSWERS)
    for pid, made in raw.items():
        p = problems.loc[pid]
        right = [k for k, (n, _) in enumerate(made) if n == fewest[pid]]
        assert p["min_moves"] == fewest[pid]
        assert p["choices"] == len(made)
        assert p["first_choice"] == made[0][0]
        assert bool(p["solved_on_first_choice"]) == (made[0][0] == fewest[pid])
        assert p["latency_first_choice"] == pytest.approx(made[0][1], abs=1e-5)
        assert p["outcome"] == outcome[pid]
        assert not p["void"]
        if right:
            assert p["choices_to_correct"] == right[0] + 1
            assert p["latency_correct"] == pytest.approx(made[right[0]][1], abs=1e-5)
        else:
            assert pd.isna(p["choices_to_correct"])
            assert pd.isna(p["latency_correct"])
    sessions = pd.read_csv(scored / "planning_sessions.csv", dtype={"level": str})
    overall = sessions[sessions["level"] == "all"].iloc[0]
    assert overall["problems"] == 5
    assert overall["problems_solved_on_first_choice"] == 2  # q1 and r1
    to_correct = [next(k + 1 for k, (n, _) in enumerate(raw[pid]) if n == fewest[pid])
                  for pid in raw if any(n == fewest[pid] for n, _ in raw[pid])]  # fmt: skip
    assert overall["mean_choices_to_correct"] == pytest.approx(sum(to_correct) / len(to_correct))
    firsts = [v[0][1] for v in raw.values()]
    assert overall["mean_latency_first_choice"] == pytest.approx(sum(firsts) / 5, abs=1e-5)
    corrects = [next(t for n, t in raw[pid] if n == fewest[pid])
                for pid in raw if any(n == fewest[pid] for n, _ in raw[pid])]  # fmt: skip
    assert len(corrects) == 4  # r2 was never answered right: left out of the mean
    assert overall["mean_latency_correct"] == pytest.approx(sum(corrects) / 4, abs=1e-5)


def test_the_quit_key_during_a_planning_problem_ends_the_session_as_aborted(chromium, site,
                                                                            tmp_path):  # fmt: skip
    """Escape during q2, after one wrong choice: the page ends the session (aborted), every
    row before kept, and q2 has no planning_end (cut off: void for tol-score)."""
    with StaticServer(site) as server:
        ctx = chromium.new_context(viewport={"width": 1200, "height": 860}, accept_downloads=True)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        saved: list[str] = []
        page.on("download", lambda d: (d.save_as(tmp_path / d.suggested_filename),
                                       saved.append(d.suggested_filename)))  # fmt: skip
        page.goto(server.url("index.html?participant=W002"))
        page.click("[data-start]")
        _answer_in_page(page, [("q1", "1"), ("q2", "2")])
        page.keyboard.press("Escape")
        page.wait_for_function("document.documentElement.dataset.tolSaved", timeout=20000)
        for _ in range(200):  # both files saved (the log and the sidecar), however loaded
            if len(saved) == 2:
                break
            page.wait_for_timeout(100)
        ctx.close()
    assert not errors, errors
    rows = _rows(tmp_path)
    assert [r["event"] for r in rows[-2:]] == ["abort", "session_end"]
    assert rows[-1]["reason"] == "aborted"
    assert [r["problem_id"] for r in rows if r["event"] == "planning_end"] == ["q1"]
    assert [r["moves"] for r in rows if r["event"] == "choice"] == ["1", "2"]
    problems = pd.read_csv(_scored(tmp_path) / "planning.csv")
    assert list(problems["outcome"]) == ["solved", "void"]


def _answer_in_page(page, answers) -> None:
    """Press each (problem id, key) once its planning screen is on, waiting for its choice."""
    for pid, key in answers:
        page.wait_for_function(
            "pid => document.querySelector('.tol-stage')?.dataset.problem === pid"
            " && document.querySelector('.tol-stage').dataset.screen === 'planning'",
            arg=pid, timeout=20000,
        )  # fmt: skip
        page.keyboard.press(key)
        page.wait_for_function(
            "() => document.querySelector('.tol-stage').dataset.chosen === '1'", timeout=30000
        )


@pytest.mark.slow
def test_a_tab_closed_mid_planning_problem_continues_where_it_stopped(chromium, site, tmp_path):
    """The tab is closed during q2, after one wrong choice; opened again, the session
    continues: q1 is not asked again, q2 is asked again from its start (a new trial), and
    tol-score counts it once (the cut-off asking void)."""
    with StaticServer(site) as server:
        url = server.url("index.html?participant=W003")
        ctx = chromium.new_context(viewport={"width": 1200, "height": 860}, accept_downloads=True)
        page = ctx.new_page()
        page.goto(url)
        page.click("[data-start]")
        _answer_in_page(page, [("q1", "1"), ("q2", "2")])
        page.close()  # the tab closed in the middle of q2
        later = {"q2": [3], "q3": [7], "r1": [3], "r2": [7]}
        second, saved = run_in_browser(chromium, url, tmp_path, context=ctx, illegal=False,
                                       answers=later)  # fmt: skip
        ctx.close()
    assert [p.problem_id for p in second.played] == ["q2", "q3", "r1", "r2", "m1"]
    assert len(saved) == 2
    rows = _rows(tmp_path)
    (resume,) = [r for r in rows if r["event"] == "resume"]
    assert resume["detail"].endswith(";interrupted=ots-keys/q2")
    at = rows.index(resume)
    before = [(r["problem_id"], r["event"], r["moves"]) for r in rows[:at]
              if r["event"] in PLANNING_EVENTS]  # fmt: skip
    assert before == [("q1", "planning_onset", ""), ("q1", "choice", "1"),
                      ("q1", "planning_end", "1"), ("q2", "planning_onset", ""),
                      ("q2", "choice", "2")]  # fmt: skip
    onsets = [(r["problem_id"], int(r["trial"])) for r in rows if r["event"] == "planning_onset"]
    assert [p for p, _ in onsets] == ["q1", "q2", "q2", "q3", "r1", "r2"]
    assert [t for _, t in onsets] == sorted({t for _, t in onsets})  # q2 again: a new trial
    times = [float(r["time"]) for r in rows]
    assert times == sorted(times)
    problems = pd.read_csv(_scored(tmp_path) / "planning.csv")
    assert list(problems["problem_id"]) == ["q1", "q2", "q2", "q3", "r1", "r2"]
    assert list(problems["void"]) == [False, True, False, False, False, False]
    kept = problems[~problems["void"]]
    assert list(kept["choices_to_correct"]) == [1, 1, 1, 1, 1]


def _scored(folder: Path) -> Path:
    out = folder.with_name(folder.name + "-scored")
    done = tol_score(str(folder), "--output", str(out))
    assert done.returncode == 0, done.stderr
    return out


# ---------------------------------------------------------------- the same in a tol-run window
def _click_box(out: Path, number: int, env: dict) -> None:
    """A real click (xdotool) on the box of ``number`` in the tol-run window: its place from
    the display model's planning screen in the window's height units."""
    from tol_tasks.display.layout import fit_factor
    from tol_tasks.display.planning import planning_screen
    from tol_tasks.protocol_format import load_protocol

    lp = load_protocol(out.parent / "ots.yaml")
    meta = sidecar_of(out)
    (wx, wy), (w, h) = meta["window"]["position"], meta["window"]["size"]
    spec = next(iter(lp.block_problems(1)))
    screen = planning_screen(spec.puzzle, lp.model.display, 3, 7).scaled(fit_factor(w / h))
    x, y = screen.boxes[number - 1]
    xdotool("mousemove", str(int(wx + w / 2 + x * h)), str(int(wy + h / 2 - y * h)), env=env)
    time.sleep(0.15)
    xdotool("click", "1", env=env)


def _shape(rows: list[dict]) -> list[tuple]:
    """Each row of the planning blocks and the moves block: its event, identity and answer
    columns, the set of columns it fills, and its fixed detail (choices, min_moves). Times,
    places and frame figures differ from run to run, and so does how a press was stamped
    (the lab's X server or the browser's event time): left out."""
    keep = ("event", "block", "trial", "attempt", "problem_id", "state", "goal", "puzzle",
            "moves", "reason", "input", "from_peg", "to_peg", "piece")  # fmt: skip
    out = []
    for r in rows:
        if r["block"] in ("ots-keys", "ots-click", "moves") and r["event"] != "block_start":
            filled = sorted(k for k, v in r.items() if v not in ("", None) and k != "row")
            detail = parse_detail(r["detail"])
            fixed = sorted((k, v) for k, v in detail.items() if k in ("choices", "min_moves"))
            out.append((*(r[k] for k in keep), filled, fixed))
    return out


@pytest.mark.slow
def test_the_browser_writes_the_rows_tol_run_writes(played, xdisplay, tmp_path):
    (tmp_path / "ots.yaml").write_text(PROTOCOL)
    out = tmp_path / "data"
    with running_tol_run(str(tmp_path / "ots.yaml"), "--participant", "W001", "--windowed",
                         "--output", str(out), env=xdisplay) as proc:  # fmt: skip
        for pid, numbers in ANSWERS.items():
            wait_for_rows(out, lambda rows, pid=pid: any(
                r["event"] == "planning_onset" and r["problem_id"] == pid for r in rows),
                proc=proc)  # fmt: skip
            time.sleep(0.4)
            for number in numbers:
                made = sum(r["event"] == "choice" for r in _rows(out))
                if pid[0] == "q":
                    key_over_window(out, str(number), xdisplay)
                else:
                    _click_box(out, number, xdisplay)
                wait_for_rows(out, lambda rows, m=made: sum(r["event"] == "choice"
                                                            for r in rows) > m, proc=proc)  # fmt: skip
                time.sleep(0.2)
        wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows), proc=proc)
        time.sleep(0.4)
        for a, b in bfs_plan(PUZZLE, "AAA", "ACC"):  # the pegs selected with keys
            placed = sum(r["event"] == "place" for r in _rows(out))
            key_over_window(out, str(a + 1), xdisplay)
            time.sleep(0.15)
            key_over_window(out, str(b + 1), xdisplay)
            wait_for_rows(out, lambda rows, p=placed: sum(r["event"] == "place"
                                                          for r in rows) > p, proc=proc)  # fmt: skip
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    lab, web = _shape(_rows(out)), _shape(_rows(played))
    assert len(web) == len(lab)
    for mine, theirs in zip(web, lab, strict=True):
        assert mine == theirs
    assert sum(w[0] in PLANNING_EVENTS for w in web) == 2 * len(ANSWERS) + sum(
        map(len, ANSWERS.values())
    )


PLUGIN_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>planning in a timeline</title>
<link rel="stylesheet" href="jspsych.css"><script src="jspsych.js"></script>
<script src="button.js"></script><script src="plugin-tower.js"></script></head>
<body><script>
  const jsPsych = initJsPsych();
  const tower = jsPsychTower.createSession({participant: "J1", name: "ots-plugin"});
  const ots = {type: jsPsychTower.TowerPlugin, session: tower, puzzle: "hanoi:3:3:0",
               start: "AAA", block: "ots", width: 800, height: 600};
  jsPsych.run([
    {type: jsPsychHtmlButtonResponse, stimulus: "<p>Plan.</p>", choices: ["Start"]},
    {...ots, goal: "ACC", problem_id: "k1",
     planning: {choices: [1, 2, 3, 4, 5, 6, 7], keys: ["1", "2", "3", "4", "5", "6", "7"]}},
    {...ots, goal: "CCC", problem_id: "c1", planning: {choices: [3, 5, 7], until_correct: false}},
    {type: jsPsychHtmlButtonResponse, stimulus: "<p>Thanks.</p>", choices: ["Finish"],
     on_finish: () => tower.save()},
  ]);
</script></body></html>
"""


def test_the_jspsych_plugin_plays_a_planning_only_problem(chromium, tmp_path):
    """The tower plugin's `planning` parameter, in a researcher's own timeline: one problem
    answered by keys (wrong, then right), one by a click (wrong; the first choice ends it);
    the same rows as the built page's, scored by tol-score."""
    import shutil

    from tol_tasks.web.cli import main

    site = tmp_path / "site"
    assert main(["plugin", "--output", str(site)]) == 0
    modules = Path(__file__).resolve().parents[1] / "web" / "node_modules"
    for name, path in {"jspsych.js": "jspsych/dist/index.browser.min.js",
                       "jspsych.css": "jspsych/css/jspsych.css",
                       "button.js": "@jspsych/plugin-html-button-response/dist/"
                                    "index.browser.min.js"}.items():  # fmt: skip
        shutil.copy(modules / path, site / name)
    (site / "index.html").write_text(PLUGIN_PAGE)
    data = tmp_path / "data"
    data.mkdir()
    with StaticServer(site) as server:
        player, saved = run_in_browser(chromium, server.url("index.html"), data, illegal=False,
                                       answers={"k1": [2, 3], "c1": [5]})  # fmt: skip
        player.ctx.close()
    assert len(saved) == 2
    rows = _rows(data)
    planning = [(r["event"], r["problem_id"], r["moves"], r["reason"], r["input"]) for r in rows
                if r["event"] in PLANNING_EVENTS]  # fmt: skip
    assert planning == [
        ("planning_onset", "k1", "", "", ""), ("choice", "k1", "2", "wrong", "key"),
        ("choice", "k1", "3", "correct", "key"), ("planning_end", "k1", "2", "solved", ""),
        ("planning_onset", "c1", "", "", ""), ("choice", "c1", "5", "wrong", "mouse"),
        ("planning_end", "c1", "1", "wrong", ""),
    ]  # fmt: skip
    assert parse_detail(rows[[r["problem_id"] for r in rows].index("c1")]["detail"]) == {
        "choices": "3,5,7", "min_moves": "7"}  # fmt: skip
    problems = pd.read_csv(_scored(data) / "planning.csv").set_index("problem_id")
    assert list(problems["outcome"]) == ["solved", "wrong"]
    assert problems.loc["k1", "choices_to_correct"] == 2
    assert pd.isna(problems.loc["c1", "choices_to_correct"])  # never answered right
