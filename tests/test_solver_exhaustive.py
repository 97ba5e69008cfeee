"""Every ordered pair of states, checked against the independent BFS in reference.py."""

from __future__ import annotations

import pytest

from tests.reference import bfs, hanoi_graph, london_graph, optimal_first_moves
from tol_tasks import Hanoi, London, UnreachableGoalError


def _check_all_pairs(puzzle, graph, *, check_moves: bool = True) -> int:
    states = {text: puzzle.parse(text) for text in graph}
    checked = total = 0
    for goal_text, goal in states.items():
        dist, count = bfs(graph, goal_text)
        for start_text, start in states.items():
            total += 1
            if start_text not in dist:
                assert not puzzle.is_reachable(start, goal)
                with pytest.raises(UnreachableGoalError, match="cannot be reached"):
                    puzzle.distance(start, goal)
                continue
            assert puzzle.distance(start, goal) == dist[start_text], (start_text, goal_text)
            assert puzzle.count_optimal_paths(start, goal) == count[start_text], (
                start_text,
                goal_text,
            )
            if check_moves:
                got = sorted((m.source, m.target) for m in puzzle.optimal_moves(start, goal))
                assert got == optimal_first_moves(graph, dist, start_text), (start_text, goal_text)
            checked += 1
    assert total == len(states) ** 2
    return checked


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_three_pegs_all_pairs(n):
    assert _check_all_pairs(Hanoi(n), hanoi_graph(n)) == 9**n


@pytest.mark.slow
def test_three_pegs_six_disks_all_pairs():
    # 729 states, 531,441 ordered pairs: distances, path counts and optimal moves.
    assert _check_all_pairs(Hanoi(6), hanoi_graph(6)) == 3**12


@pytest.mark.parametrize("n", [1, 2, 3, pytest.param(4, marks=pytest.mark.slow)])
def test_four_pegs_all_pairs(n):
    assert _check_all_pairs(Hanoi(n, pegs=4), hanoi_graph(n, pegs=4)) == 16**n


def test_five_pegs_three_disks_all_pairs():
    assert _check_all_pairs(Hanoi(3, pegs=5), hanoi_graph(3, pegs=5)) == 125**2


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_adjacent_only_all_pairs(n):
    puzzle = Hanoi(n, adjacent_only=True)
    assert _check_all_pairs(puzzle, hanoi_graph(n, adjacent_only=True)) == 9**n


def test_adjacent_only_four_pegs_all_pairs():
    puzzle = Hanoi(3, pegs=4, adjacent_only=True)
    assert _check_all_pairs(puzzle, hanoi_graph(3, pegs=4, adjacent_only=True)) == 64**2


def test_london_standard_all_pairs():
    assert _check_all_pairs(London(), london_graph()) == 36 * 36


@pytest.mark.parametrize(
    ("balls", "capacities"),
    [
        pytest.param("RGBY", (4, 3, 2, 1), marks=pytest.mark.slow),
        ("RGBY", (2, 2, 2)),
        ("RRGB", (3, 2, 1)),
        ("RGB", (3, 3, 3)),
    ],
)
def test_london_variants_all_pairs(balls, capacities):
    puzzle = London(balls, capacities)
    graph = london_graph(balls, capacities)
    assert puzzle.n_states == len(graph)
    reachable = sum(len(bfs(graph, goal)[0]) for goal in graph)
    assert _check_all_pairs(puzzle, graph) == reachable


def test_london_disconnected_graph_reports_unreachable_goals():
    # Three balls on three one-ball pegs: no ball can ever move.
    puzzle = London("RGB", (1, 1, 1))
    graph = london_graph("RGB", (1, 1, 1))
    assert _check_all_pairs(puzzle, graph) == 6  # only each state to itself
