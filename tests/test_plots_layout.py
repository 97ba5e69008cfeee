"""The state-graph figures are drawn right (issue 22, item 5).

The edges are those of the test's own graphs (:mod:`tests.reference`, built from the
rules, not from the puzzle model); their lengths are measured from the layout's
coordinates.
"""

from __future__ import annotations

import math

import pytest

from tests.reference import hanoi_graph, london_graph
from tests.system_tools import extra
from tol_tasks import Hanoi, London

extra("matplotlib", "plots", module_level=True)

from tol_analysis.report.plots import state_layout  # noqa: E402 (after the extra is checked)


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


def test_one_fixed_drawing_per_puzzle_whatever_the_problem():
    # The drawing depends on the puzzle alone: every panel of a report shows the same map.
    from matplotlib.figure import Figure

    from tol_analysis.report.plots import plot_state_graph

    def grey_edges(goal: str) -> list:
        ax = Figure().add_subplot()
        plot_state_graph("london:RGB:3-2-1", ["GR|B|", "G|B|R"], goal, ax=ax)
        return [repr(v) for v in ax.lines[0].get_xydata().tolist()]  # nan != nan; reprs agree

    assert grey_edges("G|R|B") == grey_edges("|BG|R") == grey_edges("RGB||")
    assert state_layout(London()) == state_layout(London())


@pytest.mark.parametrize(
    "puzzle",
    [London(), London(capacities=(3, 3, 3)), Hanoi(2, pegs=4), Hanoi(3, pegs=4)],
    ids=["london-3-2-1", "london-3-3-3", "hanoi-2x4", "hanoi-3x4"],
)
def test_the_drawing_of_other_puzzles_is_readable(puzzle):
    # Readable: moves drawn at comparable lengths, no state on top of another. The graph is
    # the test's own (tests/reference.py), its distances by a plain BFS.
    from tests.reference import bfs

    if puzzle.kind == "london":
        graph = london_graph("".join(puzzle.pieces), puzzle.capacities)
    else:
        graph = hanoi_graph(puzzle.size, puzzle.n_pegs)
    layout = state_layout(puzzle)
    assert set(layout) == set(graph)
    lengths = _edge_lengths(layout, graph)
    assert max(lengths) / min(lengths) < 5, (min(lengths), max(lengths))
    points = list(layout.values())
    closest = min(math.dist(a, b) for i, a in enumerate(points) for b in points[i + 1 :])
    assert closest > 0.15 * min(lengths), closest
    # Near on the page means near in moves: the drawn distance grows with the moves apart
    # (a random placement gives a correlation near 0).
    import numpy as np

    names = sorted(graph)
    drawn, moves = [], []
    for a in names:
        dist = bfs(graph, a)[0]
        for b in names:
            if a < b:
                drawn.append(math.dist(layout[a], layout[b]))
                moves.append(dist[b])
    assert np.corrcoef(drawn, moves)[0, 1] > 0.5


def test_too_large_a_puzzle_is_not_drawn():
    with pytest.raises(ValueError, match=r"480 states, too many to draw \(at most 150\)"):
        state_layout(London("RGBY", (4, 3, 2, 1)))


def test_a_trial_without_a_move_gets_no_panel():
    import pandas as pd

    from tol_analysis.report.plots import plot_distances

    trials = pd.DataFrame({"trial": [1, 2], "problem_id": ["a", "b"], "min_moves": [2, 3]})
    moves = pd.DataFrame({"trial": [1, 1], "move_index": [1, 2], "distance_before": [2, 1],
                          "distance_after": [1, 0]})  # fmt: skip
    fig = plot_distances(trials, moves)
    assert [ax.get_gid() for ax in fig.axes] == ["distance-1"]  # b: no move, no axis
    assert plot_distances(trials[trials["trial"] == 2], moves) is None
