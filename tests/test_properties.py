"""Property tests for large towers, where no BFS can reach (up to 64 disks)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tol_tasks import Hanoi, HanoiState


@st.composite
def hanoi_pairs(draw, max_disks: int = 64):
    n = draw(st.integers(1, max_disks))
    a = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    # Goals close to the start (shared large disks) as well as unrelated ones.
    keep = draw(st.integers(0, n))
    b = a[:keep] + draw(st.lists(st.integers(0, 2), min_size=n - keep, max_size=n - keep))
    return Hanoi(n), HanoiState(tuple(a)), HanoiState(tuple(b))


@given(hanoi_pairs())
def test_distance_zero_exactly_for_equal_states(pair):
    p, s, g = pair
    assert (p.distance(s, g) == 0) == (s == g)
    assert p.distance(s, s) == 0
    assert p.count_optimal_paths(s, s) == 1


@given(hanoi_pairs())
def test_distance_is_symmetric_and_bounded(pair):
    p, s, g = pair
    d = p.distance(s, g)
    assert d == p.distance(g, s)
    assert p.count_optimal_paths(s, g) == p.count_optimal_paths(g, s)
    # No two states are further apart than the two perfect towers (Hinz 1992).
    assert 0 <= d <= 2**p.n_disks - 1


@given(hanoi_pairs())
def test_neighbours_differ_by_at_most_one(pair):
    p, s, g = pair
    d = p.distance(s, g)
    for t in p.neighbors(s):
        assert abs(p.distance(t, g) - d) <= 1


@given(hanoi_pairs())
def test_optimal_moves_lower_the_distance_by_one_and_no_other_move_does(pair):
    p, s, g = pair
    d = p.distance(s, g)
    optimal = set(p.optimal_moves(s, g))
    if s != g:
        assert 1 <= len(optimal) <= 2
        assert len(optimal) <= p.count_optimal_paths(s, g)
    for move in p.legal_moves(s):
        after = p.distance(p.apply(s, move), g)
        assert (after == d - 1) == (move in optimal)


@given(hanoi_pairs(max_disks=12))
def test_solve_reaches_the_goal_in_exactly_the_distance(pair):
    p, s, g = pair
    state = s
    moves = list(p.solve(s, g))
    for move in moves:
        state = p.apply(state, move)
    assert state == g
    assert len(moves) == p.distance(s, g)


@given(hanoi_pairs())
def test_text_round_trip(pair):
    p, s, _ = pair
    assert p.parse(str(s)) == s
    assert p.from_pegs(p.pegs_of(s)) == s
    assert p.parse(str(s).lower()) == s


@given(hanoi_pairs(), st.integers(0, 2))
def test_distance_to_a_tower_matches_the_generalized_start_count(pair, peg):
    # The generalized-start rule of the seed articles, written out as a plain loop:
    # from the largest disk, a disk off the current target costs 2**(k-1) and the
    # target for the smaller disks becomes the third peg.
    p, s, _ = pair
    total, target = 0, peg
    for pos, where in enumerate(s.pegs):
        k = p.n_disks - pos
        if where != target:
            total += 2 ** (k - 1)
            target = 3 - where - target
    assert p.distance(s, p.tower(peg)) == total
