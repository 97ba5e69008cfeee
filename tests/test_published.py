"""Published facts about the tower puzzles, each with its source."""

from __future__ import annotations

from itertools import combinations

import pytest

from tol_tasks import Hanoi, London


@pytest.mark.parametrize("n", [*range(1, 21), 32, 63, 64, 100])
def test_tower_to_tower_takes_two_to_the_n_minus_one(n):
    # Lucas (1883); every textbook: the classic n-disk tower takes 2**n - 1 moves, on one path.
    p = Hanoi(n)
    assert p.distance(p.tower("A"), p.tower("C")) == 2**n - 1
    assert p.count_optimal_paths(p.tower("A"), p.tower("C")) == 1


@pytest.mark.parametrize(("n", "moves"), list(enumerate([1, 3, 5, 9, 13, 17, 25, 33], start=1)))
def test_four_pegs_frame_stewart(n, moves):
    # Frame-Stewart numbers (OEIS A007664), proved optimal for 4 pegs by Bousch (2014).
    p = Hanoi(n, pegs=4)
    assert p.distance(p.tower("A"), p.tower("D")) == moves


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7])
def test_adjacent_only_takes_three_to_the_n_minus_one(n):
    # Scorer, Grundy and Smith (1944): with no direct A-C move a tower needs 3**n - 1 moves
    # and the path visits every one of the 3**n states.
    p = Hanoi(n, adjacent_only=True)
    assert p.distance(p.tower("A"), p.tower("C")) == 3**n - 1
    assert len(list(p.solve(p.tower("A"), p.tower("C")))) == 3**n - 1


@pytest.mark.parametrize(("n", "pairs"), [(1, 0), (2, 6), (3, 48), (4, 282), (5, 1476)])
def test_ordered_pairs_with_two_shortest_paths(n, pairs):
    # OEIS A340309: ordered pairs of 3-peg states joined by two shortest paths
    # (Hinz et al. 2005: never more than two).
    p = Hanoi(n)
    states = list(p.states())
    counts = [p.count_optimal_paths(s, g) for s in states for g in states]
    assert max(counts) <= 2
    assert counts.count(2) == pairs


def test_london_state_space():
    # Berg and Byrd (2002); Newman et al. (2003): the 3-ball 3/2/1 Tower of London
    # has 36 states, 54 edges, diameter 8, and tasks by minimum moves 0..8 of
    # 36, 108, 168, 216, 174, 168, 186, 174, 66 (1296 ordered pairs).
    p = London()
    states = list(p.states())
    assert len(states) == 36
    edges = {frozenset((str(s), str(t))) for s in states for t in p.neighbors(s)}
    assert len(edges) == 54
    dists = [p.distance(s, g) for s in states for g in states]
    assert max(dists) == 8
    assert [dists.count(k) for k in range(9)] == [36, 108, 168, 216, 174, 168, 186, 174, 66]


def test_london_path_counts_and_first_moves_exceed_hanoi():
    # Field notes: in the 3/2/1 Tower of London shortest-path counts go up to 8 and
    # optimal first moves up to 4, unlike Hanoi where both are 1 or 2.
    p = London()
    states = list(p.states())
    assert max(p.count_optimal_paths(s, g) for s in states for g in states) == 8
    assert max(len(p.optimal_moves(s, g)) for s in states for g in states) == 4


def test_hanoi_graph_edges():
    # The 3-peg state graph has 3**n vertices and 3 * (3**n - 1) / 2 edges (Hinz et al. 2013).
    for n in range(1, 6):
        p = Hanoi(n)
        degrees = [len(p.legal_moves(s)) for s in p.states()]
        assert sum(degrees) // 2 == 3 * (3**n - 1) // 2


def test_hanoi_diameter_is_two_to_the_n_minus_one():
    # Hinz (1992): the diameter of the 3-peg graph is 2**n - 1, reached between perfect towers.
    for n in range(1, 6):
        p = Hanoi(n)
        states = list(p.states())
        assert max(p.distance(s, g) for s, g in combinations(states, 2)) == 2**n - 1


def test_issue_example():
    # The example in the foundation issue, checked by hand: BAA -> ABA in 6 moves, two paths.
    p = Hanoi(disks=3)
    s, g = p.parse("BAA"), p.parse("ABA")
    assert p.distance(s, g) == 6
    assert p.count_optimal_paths(s, g) == 2
    assert {str(m) for m in p.optimal_moves(s, g)} == {"1:AB", "3:BC"}
    assert len(list(p.solve(s, g))) == 6
    assert str(s) == "BAA"
    tol = London()
    # GR|B| -> |RG|B by hand: B to C, R to B, G to B.
    assert tol.distance(tol.parse("GR|B|"), tol.parse("|RG|B")) == 3
