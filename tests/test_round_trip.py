"""Simulated sessions, run in a real window, then scored: the numbers must follow."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.reference import bfs, hanoi_graph, london_graph
from tol_analysis.read.logs import read_session
from tol_analysis.score.scores import score_sessions
from tol_tasks.session_data.eventlog import read_event_log
from tol_tasks.session_data.sidecar import read_sidecar


@pytest.mark.parametrize(
    ("protocol", "graph"),
    [
        pytest.param("hanoi-generalized", None, marks=pytest.mark.slow),
        pytest.param("london-tol-dx", "london"),
    ],
)  # fmt: skip
def test_simulated_session_scores_to_its_own_moves(protocol, graph, seeded_sessions):
    # The seeded session tests/test_golden.py compares with its recording (played once).
    log, _ = seeded_sessions(protocol)
    rows = read_event_log(log).rows
    scores = score_sessions([read_session(log)])

    # Every placement in the log is a scored move, in order, with the logged configuration.
    places = [r for r in rows if r["event"] == "place"]
    assert len(scores.moves) == len(places)
    assert scores.moves["state_after"].tolist() == [r["state"] for r in places]
    assert scores.moves["piece"].tolist() == [r["piece"] for r in places]

    # Distances agree with an independent BFS on every move.
    graphs: dict = {}
    for t in scores.trials.itertuples():
        if t.puzzle not in graphs:
            kind, *rest = t.puzzle.split(":")
            graphs[t.puzzle] = (
                hanoi_graph(int(rest[0]), int(rest[1]), rest[2] == "1")
                if kind == "hanoi"
                else london_graph()
            )
        dist, _ = bfs(graphs[t.puzzle], t.goal)
        assert t.min_moves == dist[t.start]
        mv = scores.moves[scores.moves["trial"] == t.trial]
        assert mv["distance_after"].tolist() == [dist[s] for s in mv["state_after"]]

    # Outcomes and counts follow from the log.
    ends = {int(r["trial"]): r for r in rows if r["event"] == "trial_end"}
    for t in scores.trials.itertuples():
        end = ends[t.trial]
        assert bool(t.solved) == (end["reason"] == "solved")
        assert t.placements == int(end["moves"])
        if t.solved:
            assert t.excess_moves == t.placements - t.min_moves
            assert t.optimal_moves - t.counterproductive_moves == t.min_moves
        illegal = sum(r["event"] == "illegal" and int(r["trial"]) == t.trial for r in rows)
        assert t.rule_violations == illegal
    s = scores.sessions.iloc[0]
    test = scores.trials[~scores.trials["practice"].astype(bool)]
    assert s["total_moves"] == test["moves"].sum()
    assert s["problems_solved"] == test.loc[test["solved"].astype(bool), "problem_id"].nunique()
    assert s["status"] == "completed"
    assert not pd.isna(s["total_planning_time"])

    # Per-frame work: the sidecar's figures for each trial reach trials.csv unchanged.
    meta = read_sidecar(log.with_suffix(".json"))
    by_trial = {f["trial"]: f for f in meta["frames"]["trials"]}
    for t in scores.trials.itertuples():
        frames = by_trial[t.trial]
        for key in ("frame_work_median_ms", "frame_work_p99_ms", "frame_work_max_ms"):
            assert getattr(t, key) == pytest.approx(frames[key], abs=5e-4)
        assert 0 < t.frame_work_median_ms <= t.frame_work_p99_ms <= t.frame_work_max_ms
    for key in ("frame_work_median_ms", "frame_work_p99_ms", "frame_work_max_ms"):
        assert meta["frames"][key] > 0
