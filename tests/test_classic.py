"""The binary methods for the classic solution, against the recursive solution."""

from __future__ import annotations

import pytest

from tests.reference import classic_moves
from tol_tasks import Hanoi, PuzzleDefinitionError


@pytest.mark.parametrize("n", range(1, 11))
@pytest.mark.parametrize(("source", "target"), [(0, 2), (0, 1), (2, 0), (1, 2)])
def test_nth_move_and_state_after_match_recursion(n, source, target):
    p = Hanoi(n)
    spare = 3 - source - target
    expected = classic_moves(n, source, target, spare)
    state = p.tower(source)
    assert p.state_after(0, source, target) == state
    for m, (disk, a, b) in enumerate(expected, start=1):
        move = p.nth_move(m, source, target)
        assert (move.piece, move.source, move.target) == (disk, a, b)
        state = p.apply(state, move)
        assert p.state_after(m, source, target) == state
    assert state == p.tower(target)


def test_the_legend_of_64_disks():
    p = Hanoi(64)
    # Move 2**63 is the one move of the largest disk, A to C, with 63 disks parked on B.
    move = p.nth_move(2**63)
    assert (move.piece, move.source_label, move.target_label) == (64, "A", "C")
    assert str(p.state_after(2**63 - 1)) == "A" + "B" * 63
    assert str(p.state_after(2**63)) == "C" + "B" * 63
    assert str(p.state_after(2**64 - 1)) == "C" * 64
    # The state after m moves lies on the optimal path: m from the start, the rest to go.
    m = 12345678901234567890
    mid = p.state_after(m)
    assert p.distance(p.tower("A"), mid) == m
    assert p.distance(mid, p.tower("C")) == 2**64 - 1 - m


def test_solve_is_lazy_for_64_disks():
    p = Hanoi(64)
    moves = p.solve(p.tower("A"), p.tower("C"))
    first = [next(moves) for _ in range(7)]
    assert [str(m) for m in first] == [str(p.nth_move(m)) for m in range(1, 8)]


def test_classic_methods_refuse_other_puzzles():
    with pytest.raises(PuzzleDefinitionError, match="classic 3-peg puzzle only"):
        Hanoi(3, pegs=4).nth_move(1)
    with pytest.raises(ValueError, match="outside the classic solution of 3 disks"):
        Hanoi(3).nth_move(8)
    with pytest.raises(ValueError, match="outside the classic solution"):
        Hanoi(3).state_after(-1)
