"""Scoring, checked against numbers worked out by hand and an independent BFS."""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from tests.reference import bfs, hanoi_graph, london_graph
from tests.runner_tools import tol_score
from tol_analysis.columns import TABLES
from tol_analysis.conventions import Conventions
from tol_analysis.export.write import codebook, codebook_markdown, export, wide_table
from tol_analysis.read.find import scan
from tol_analysis.read.logs import read_session
from tol_analysis.score.scores import score_sessions
from tol_tasks.session_data.eventlog import EventLogError

DATA = Path(__file__).parent / "data" / "logs"
HAND = DATA / "hand-worked.csv"


@pytest.fixture
def hand():
    return score_sessions([read_session(HAND)])


def test_hand_worked_moves(hand):
    m = hand.moves
    h = m[m["problem_id"] == "h1"]
    # AAA -> ACC needs 3. Moves: 1 A->C (AAC, still 3 away: neutral), 1 C->A (back to
    # AAA: neutral, a backtrack and a revisit), then 1 A->B, 2 A->C, 1 B->C (optimal).
    assert h["state_after"].tolist() == ["AAC", "AAA", "AAB", "ACB", "ACC"]
    assert h["distance_before"].tolist() == [3, 3, 3, 2, 1]
    assert h["distance_after"].tolist() == [3, 3, 2, 1, 0]
    assert h["optimal"].tolist() == [False, False, True, True, True]
    assert h["counterproductive"].tolist() == [False] * 5
    assert h["backtrack"].tolist() == [False, True, False, False, False]
    assert h["revisit"].tolist() == [False, True, False, False, False]
    assert h["latency"].tolist() == pytest.approx([2.5, 2.5, 1.5, 1.0, 1.5])
    assert h["piece"].tolist() == ["1", "1", "1", "2", "1"]
    lon = m[m["problem_id"] == "l1"]
    # GR|B| -> G|R|B needs 2; R to C gives G|B|R, 3 away: counterproductive.
    assert lon[["distance_before", "distance_after"]].values.tolist() == [[2, 3]]
    assert bool(lon["counterproductive"].iloc[0])


def test_hand_worked_trials(hand):
    t = hand.trials.set_index("problem_id")
    h = t.loc["h1"]
    assert (h["min_moves"], h["moves"], h["placements"], h["excess_moves"]) == (3, 5, 5, 2)
    assert (bool(h["solved"]), bool(h["solved_in_min"]), bool(h["time_out"])) == (
        True,
        False,
        False,
    )
    assert (h["rule_violations"], h["violations_larger_on_smaller"], h["same_peg_drops"]) == (
        1,
        1,
        1,
    )
    assert h["planning_time"] == pytest.approx(2.0)  # first pick-up
    assert h["first_move_time"] == pytest.approx(2.5)
    assert h["total_time"] == pytest.approx(9.0)  # the solving move, not the trial_end row
    assert h["execution_time"] == pytest.approx(7.0)
    assert h["mean_inter_move_time"] == pytest.approx((2.5 + 1.5 + 1.0 + 1.5) / 4)
    assert h["median_inter_move_time"] == pytest.approx(1.5)
    assert h["time_per_move"] == pytest.approx(9.0 / 5)
    assert h["move_accuracy_ratio"] == pytest.approx(5 / 3)
    assert h["path_efficiency"] == pytest.approx(3 / 5)
    assert h["optimal_move_proportion"] == pytest.approx(3 / 5)
    assert (h["optimal_moves"], h["neutral_moves"], h["counterproductive_moves"]) == (3, 2, 0)
    assert not bool(h["first_move_optimal"])
    assert (h["backtracks"], h["revisits"], h["frames"], h["dropped_frames"]) == (1, 1, 100, 2)
    assert (h["task"], h["size"], h["pegs"]) == ("hanoi", 3, 3)
    lo = t.loc["l1"]
    assert (lo["moves"], bool(lo["solved"]), bool(lo["time_out"])) == (1, False, True)
    assert pd.isna(lo["excess_moves"])
    assert pd.isna(lo["path_efficiency"])
    assert (lo["violations_peg_full"], lo["counterproductive_moves"]) == (1, 1)
    assert lo["total_time"] == pytest.approx(5.0)
    assert lo["time_per_move"] == pytest.approx(5.0)
    assert math.isnan(lo["mean_inter_move_time"])
    assert (lo["task"], lo["size"]) == ("london", 3)


def test_hand_worked_session(hand):
    s = hand.sessions.iloc[0]
    assert (s["participant"], s["session"], s["status"]) == ("H01", 1, "completed")
    assert (s["problems"], s["attempts"], s["problems_solved"], s["problems_solved_in_min"]) == (
        2,
        2,
        1,
        0,
    )
    assert (s["total_moves"], s["total_excess_moves"]) == (6, 2)
    assert (s["total_rule_violations"], s["total_time_violations"]) == (2, 1)
    assert s["total_planning_time"] == pytest.approx(3.0)
    assert s["total_solving_time"] == pytest.approx(14.0)
    assert s["total_execution_time"] == pytest.approx(11.0)
    assert (s["min3_problems"], s["min3_problems_solved"], s["min3_total_excess_moves"]) == (
        1,
        1,
        2,
    )
    assert (s["min2_problems"], s["min2_problems_solved"]) == (1, 0)


def test_conventions_change_the_scores():
    strict = score_sessions(
        [read_session(HAND)],
        Conventions(same_peg_drop_counts=True, violations_count=True, planning_ends="move"),
    )
    h = strict.trials.set_index("problem_id").loc["h1"]
    assert (h["moves"], h["excess_moves"]) == (7, 4)  # 5 moves + 1 same-peg drop + 1 violation
    assert h["planning_time"] == pytest.approx(2.5)
    assert h["execution_time"] == pytest.approx(6.5)
    with pytest.raises(ValueError, match="planning_ends='first'"):
        Conventions(planning_ends="first")


def test_columns_match_the_codebook(hand):
    for table, cols in TABLES.items():
        df = getattr(hand, table)
        expected = cols.names
        assert list(df.columns[: len(expected)]) == expected


def test_export_tables_codebook_wide_and_bids(hand, tmp_path):
    written = export(hand, tmp_path, bids=True)
    names = {p.name for p in written}
    assert {
        "moves.csv",
        "trials.csv",
        "sessions.csv",
        "wide.csv",
        "codebook.json",
        "codebook.md",
    } <= names
    trials = pd.read_csv(tmp_path / "trials.csv")
    assert trials["solved"].tolist() == [True, False]
    assert trials["excess_moves"].isna().tolist() == [False, True]
    book = json.loads((tmp_path / "codebook.json").read_text())
    assert book["conventions"]["planning_ends"] == "pick_up"
    documented = {c["name"] for c in book["tables"]["sessions.csv"]}
    assert set(pd.read_csv(tmp_path / "sessions.csv").columns) <= documented
    wide = pd.read_csv(tmp_path / "wide.csv")
    assert wide.loc[0, "s1_h1_moves"] == 5  # s<session>_ always (issue 22)
    assert wide.loc[0, "s1_l1_solved"] == 0
    tsv = tmp_path / "bids" / "sub-H01" / "ses-1" / "beh" / "sub-H01_ses-1_task-tower_beh.tsv"
    beh = pd.read_csv(tsv, sep="\t", na_values="n/a")
    assert len(beh) == 2
    # Column descriptions live at the dataset root and apply to every session (inheritance).
    task = json.loads((tmp_path / "bids" / "task-tower_beh.json").read_text())
    assert task["planning_time"]["Units"] == "s"
    assert task["TaskName"] == "tower"  # the hand-worked log has no sidecar to name it
    assert json.loads(tsv.with_suffix(".json").read_text())["SessionStatus"] == "completed"


def test_wide_table_names_are_spss_safe(hand):
    cols = wide_table(hand).columns
    assert all(c[0].isalpha() and c.replace("_", "").isalnum() for c in cols)


def _damaged(tmp_path, old: str, new: str, count: int = 1) -> Path:
    p = tmp_path / "damaged.csv"
    text = HAND.read_text()
    assert old in text
    p.write_text(text.replace(old, new, count))
    return p


def test_an_illegal_placement_in_a_log_is_an_error(tmp_path):
    p = _damaged(
        tmp_path,
        "place,16.500000,6.500000,1,A,B",
        "place,16.500000,6.500000,1,B,A",
    )
    with pytest.raises(
        EventLogError, match=r"damaged.csv: row 13: the placement B->A is not a legal move from AAA"
    ):
        score_sessions([read_session(p)])


def test_a_configuration_that_does_not_follow_is_an_error(tmp_path):
    p = _damaged(tmp_path, ",AAB,,,3,", ",ABB,,,3,")
    with pytest.raises(
        EventLogError, match=r"row 13: the log says moving A->B from AAA gives 'ABB', but replaying"
    ):
        score_sessions([read_session(p)])


def test_a_false_solved_is_an_error(tmp_path):
    p = _damaged(tmp_path, "l1,time_out", "l1,solved")
    with pytest.raises(
        EventLogError,
        match=r"row 25: solved, but the replayed configuration G\|B\|R is not the goal",
    ):
        score_sessions([read_session(p)])


def test_a_torn_log_is_scored_with_a_warning(tmp_path):
    p = tmp_path / "torn.csv"
    text = HAND.read_text()
    cut = text.index("1,1,h1,place,17.5")
    p.write_text(text[: cut + 20])
    scores = score_sessions([read_session(p)])
    assert any("torn last line ignored" in w for w in scores.warnings)
    t = scores.trials.iloc[0]
    assert (t["placements"], bool(t["solved"]), bool(t["complete"])) == (3, False, False)
    assert scores.sessions.iloc[0]["status"] == "incomplete"


def test_a_log_without_its_beginning_is_refused(tmp_path):
    lines = HAND.read_text().splitlines(keepends=True)
    p = tmp_path / "headless.csv"
    p.write_text(lines[0] + "".join(lines[3:]))
    with pytest.raises(EventLogError, match="starts with 'trial_onset', not session_start"):
        read_session(p)


def test_tol_score_command(tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    shutil.copy(HAND, inputs / "a.csv")
    out = tmp_path / "out"
    done = tol_score(str(inputs), "--output", str(out), "--plots", "--bids")
    assert done.returncode == 0, done.stderr
    assert "1 session(s), 2 trial(s), 6 move(s) scored; 0 file(s) skipped" in done.stdout
    assert (out / "plots" / "excess_moves_by_level.svg").is_file()
    missing = tol_score(str(tmp_path / "nowhere"), "--output", str(out))
    assert missing.returncode == 2
    assert "no such file or folder" in missing.stderr


def test_other_csv_files_in_a_data_folder_are_left_out_and_named_once(tmp_path):
    # As labs keep folders: the embedding script's ExperimentHandler file and a participant
    # list beside the event logs (the README's example writes data/P001_battery.csv).
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(HAND, data / "P001_battery_2026-01-01_10h00.00.000.csv")
    (data / "P001_battery.csv").write_text("trials.thisN,trials.thisIndex,resp.keys,resp.rt\n"
                                           "0,0,space,0.51\n")  # fmt: skip
    (data / "participants.csv").write_text("subject,age\nP001,34\n")
    out = tmp_path / "out"
    done = tol_score(str(data), "--output", str(out))
    assert done.returncode == 0, done.stderr
    for name in ("P001_battery.csv", "participants.csv"):
        assert done.stderr.count(f"{data / name}: not an event log") == 1
    assert "1 session(s), 2 trial(s), 6 move(s) scored" in done.stdout
    assert "2 other CSV file(s) left out" in done.stdout
    assert "Traceback" not in done.stderr
    found = scan([data], exclude=out)
    assert found.logs == [data / "P001_battery_2026-01-01_10h00.00.000.csv"]
    assert found.left_out == [data / "P001_battery.csv", data / "participants.csv"]
    # Named on the command line, a file is read as an event log, and refused if it is not one.
    named = tol_score(str(data / "participants.csv"), "--output", str(tmp_path / "out2"))
    assert named.returncode == 2
    assert "participants.csv: the header (line 1): not a tol-tasks event log" in named.stderr
    verified = tol_score("--verify", str(data))
    assert "participants.csv: not an event log" in verified.stdout


def test_a_damaged_log_in_a_folder_is_still_an_error(tmp_path):
    # Ours but damaged: the header begins as an event log's, a column is missing.
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(HAND, data / "a.csv")
    lines = HAND.read_text().splitlines(keepends=True)
    (data / "b.csv").write_text(lines[0].replace(",goal", "") + "".join(lines[1:3]))
    out = tmp_path / "out"
    bad = tol_score(str(data), "--output", str(out))
    assert bad.returncode == 2
    assert "b.csv: the header (line 1): not a tol-tasks event log (format 1, 2 or 3): the header lacks goal" in (
        bad.stderr)  # fmt: skip
    assert "pass --skip-bad" in bad.stderr
    assert "Traceback" not in bad.stderr
    skipped = tol_score(str(data), "--output", str(out), "--skip-bad")
    assert skipped.returncode == 0
    assert "skipped:" in skipped.stderr
    assert "1 session(s), 2 trial(s), 6 move(s) scored; 1 file(s) skipped" in skipped.stdout


def test_plots_take_and_return_axes(hand):
    from matplotlib.figure import Figure

    from tol_analysis.report.plots import (
        plot_by_level,
        plot_distance,
        plot_state_graph,
        state_layout,
    )

    ax = Figure().add_subplot()
    assert plot_distance(hand.moves[hand.moves["problem_id"] == "h1"], ax=ax) is ax
    assert plot_by_level(hand.trials, "planning_time", by="participant") is not None
    path = ["AAA", "AAC", "AAA", "AAB", "ACB", "ACC"]
    ax2 = plot_state_graph("hanoi:3:3:0", path, "ACC")
    assert ax2.get_legend() is not None
    assert plot_state_graph("london:RGB:3-2-1", ["GR|B|", "G|B|R"], "G|R|B") is not None
    layout = state_layout(__import__("tol_tasks").Hanoi(3))
    assert layout["AAA"] == (3.5, pytest.approx(7 * 3**0.5 / 2))  # top corner, weight 1+2+4
    with pytest.raises(ValueError, match="too many to draw"):
        state_layout(__import__("tol_tasks").Hanoi(8))


def test_distances_agree_with_bfs_on_every_move(hand):
    graphs = {"hanoi:3:3:0": hanoi_graph(3), "london:RGB:3-2-1": london_graph()}
    trials = hand.trials.set_index("trial")
    for _, m in hand.moves.iterrows():
        t = trials.loc[m["trial"]]
        dist, _ = bfs(graphs[t["puzzle"]], t["goal"])
        assert m["distance_before"] == dist[m["state_before"]]
        assert m["distance_after"] == dist[m["state_after"]]


def test_skip_bad_leaves_out_a_log_that_fails_replay_whole(tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    shutil.copy(HAND, inputs / "good.csv")
    text = HAND.read_text().replace("H01", "H02")
    # File row 14: disk 1 from B, where there is no disk: the log contradicts itself.
    (inputs / "bad.csv").write_text(
        text.replace("place,16.500000,6.500000,1,A,B", "place,16.500000,6.500000,1,B,A")
    )
    out = tmp_path / "out"
    stopped = tol_score(str(inputs), "--output", str(out))
    assert stopped.returncode == 2
    assert "bad.csv: row 13: the placement B->A is not a legal move from AAA" in stopped.stderr
    done = tol_score(str(inputs), "--output", str(out), "--skip-bad")
    assert done.returncode == 0
    assert "skipped: " in done.stderr
    assert "bad.csv: row 13" in done.stderr
    assert "1 session(s), 2 trial(s), 6 move(s) scored; 1 file(s) skipped" in done.stdout
    trials = pd.read_csv(out / "trials.csv")
    assert set(trials["participant"]) == {"H01"}


def test_every_measure_names_its_source(hand, tmp_path):
    # Each measure an analyst reports cites the paper or tool whose definition it follows.
    book = codebook(hand)
    refs = book["references"]
    identifiers = {"participant", "session", "block", "practice", "trial", "attempt",
                   "problem_id", "task", "size", "pegs", "puzzle", "start", "goal", "complete",
                   "frames", "dropped_frames", "frame_work_median_ms", "frame_work_p99_ms",
                   "frame_work_max_ms", "protocol", "status", "problems", "attempts",
                   "placements", "simulated",
                   # issue 30: what describes a session, and the problems it planned and gave
                   "protocol_version", "start_date", "start_time", "recorder",
                   "problems_planned", "problems_missing", "missing_reason"}  # fmt: skip
    for table in ("trials.csv", "sessions.csv"):
        for col in book["tables"][table]:
            if re.sub(r"^min\d+_", "", col["name"]) in identifiers:
                continue
            source = col["source"]
            assert source, (table, col["name"])
            assert any(key in source for key in refs), (table, col["name"], source)
    cols = {c["name"]: c["source"] for c in book["tables"]["trials.csv"]}
    assert "D-KEFS time-per-move ratio" in cols["time_per_move"]
    assert "Shallice 1982" in cols["solved"]
    sessions = {c["name"]: c["source"] for c in book["tables"]["sessions.csv"]}
    assert "Owen et al. 1990" in sessions["problems_solved_in_min"]
    md = codebook_markdown(book)
    assert "| column | type | unit | definition | source |" in md
    assert "## References" in md
    assert "Neuropsychologia, 28, 1021-1034" in md
