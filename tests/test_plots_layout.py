"""The state-graph figures are drawn right (issue 22, item 5).

The edges are those of the test's own graphs (:mod:`tests.reference`, built from the
rules, not from the puzzle model); their lengths are measured from the layout's
coordinates.
"""

from __future__ import annotations

import math

import pytest

from tests.reference import hanoi_graph, london_graph
from tol_tasks import Hanoi, London

pytest.importorskip("matplotlib")

from tol_analysis.plots import state_layout


def _edge_lengths(layout: dict, graph: dict) -> list[float]:
    return [math.dist(layout[a], layout[b]) for a, moves in graph.items() for *_, b in moves]


@pytest.mark.parametrize("adjacent_only", [False, True], ids=["classic", "adjacent"])
@pytest.mark.parametrize("n", range(1, 7))
def test_every_move_of_three_peg_hanoi_is_drawn_with_one_length(n, adjacent_only):
    layout = state_layout(Hanoi(n, adjacent_only=adjacent_only))
    graph = hanoi_graph(n, adjacent_only=adjacent_only)
    assert set(layout) == set(graph)
    lengths = _edge_lengths(layout, graph)
    assert len(lengths) == sum(len(m) for m in graph.values())
    assert max(lengths) == pytest.approx(min(lengths), rel=1e-9), (min(lengths), max(lengths))
    # Every state at its own place, and the drawing is a triangle of side 2**n - 1 moves.
    assert len({(round(x, 9), round(y, 9)) for x, y in layout.values()}) == 3**n
    corners = [layout[c * n] for c in "ABC"]
    for i in range(3):
        assert math.dist(corners[i], corners[i - 1]) == pytest.approx((2**n - 1) * min(lengths))


def test_three_disks_have_no_long_edges():
    # The report of issue 22: 12 of the 39 edges were 2 or 4 times as long as the others.
    lengths = _edge_lengths(state_layout(Hanoi(3)), hanoi_graph(3))
    assert len(lengths) == 2 * 39  # each edge once from either end
    assert {round(v, 9) for v in lengths} == {1.0}


def test_other_puzzles_are_drawn_whole():
    # No drawing with equal edges for these (see state_layout): every state is placed.
    for puzzle, graph in ((London(), london_graph()), (Hanoi(2, pegs=4), hanoi_graph(2, 4))):
        layout = state_layout(puzzle)
        assert set(layout) == set(graph)
