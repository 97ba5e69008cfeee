"""Figures: distance to the goal over moves, paths on the state graph, summaries by level.

Every function takes ``ax=None`` (a new figure is made) and returns the axes.
Only matplotlib's object interface is used (no pyplot), so nothing needs a
display. Install with ``pip install "tol-tasks[plots]"``.
"""

from __future__ import annotations

import math
from pathlib import Path

try:
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(
        f"analysis.plots needs matplotlib ({exc}). Install it with: "
        'pip install "tol-tasks[plots]"  (or: uv sync --all-extras)'
    ) from exc

import pandas as pd

from tol_analysis.score.scores import Scores
from tol_tasks.puzzles import from_code
from tol_tasks.puzzles.base import Puzzle

#: Largest 3-peg Hanoi state graph drawn in full (its Sierpinski triangle stays readable).
MAX_GRAPH_STATES = 3000
#: Largest state graph of other puzzles drawn (beyond it a drawing is a tangle).
MAX_LAYOUT_STATES = 150
#: Steps of the stress majorization that draws them.
STRESS_ITERATIONS = 300


def _axes(ax):
    if ax is None:
        fig = Figure(figsize=(6, 4.5), layout="constrained")
        ax = fig.add_subplot()
    return ax


def plot_distance(
    moves: pd.DataFrame, min_moves: int | None = None, ax=None, label: str | None = None
):
    """Distance to the goal after each move of one trial, against the optimal line.

    The participant's line is the artist with gid ``participant-path``.

    Parameters
    ----------
    moves : DataFrame
        The moves.csv rows of one trial.
    min_moves : int, optional
        The trial's minimum; taken from the first move's distance_before if omitted.
    """
    ax = _axes(ax)
    m = moves.sort_values("move_index")
    start = int(m["distance_before"].iloc[0]) if min_moves is None and len(m) else (min_moves or 0)
    xs = [0, *m["move_index"].astype(int).tolist()]
    ys = [start, *m["distance_after"].astype(int).tolist()]
    ax.plot(range(start + 1), range(start, -1, -1), ls="--", color="0.5", label="optimal")
    ax.plot(xs, ys, marker="o", ms=3, label=label or "participant", gid="participant-path")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("move")
    ax.set_ylabel("moves to the goal")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(bottom=0)
    ax.legend(frameon=False)
    return ax


def state_layout(puzzle: Puzzle) -> dict[str, tuple[float, float]]:
    """Positions of every state: one fixed drawing of the puzzle's whole problem space.

    The drawing depends on the puzzle alone (never on a problem's start or goal), so
    every problem of a puzzle is drawn on the same map and paths can be compared.

    For 3-peg Hanoi (classic or adjacent-only) every move is drawn as an edge of
    the same length: the states with the largest disk on peg p fill the corner
    triangle of p, and inside it the drawing of the smaller disks is mirrored
    (the two other pegs exchanged), so that the state "the smaller disks all on
    the third peg", from which the largest disk moves from p to q, is the
    sub-triangle's corner that faces q (see Hinz et al., *The Tower of Hanoi:
    Myths and Maths*, 2013, ch. 2, Sierpinski graphs). The adjacent-only
    puzzle's moves are some of the classic puzzle's, drawn the same.

    Other puzzles (the Tower of London, Hanoi with four or more pegs) have no such
    drawing: with one disk, 4-peg Hanoi's graph is the complete graph on the pegs,
    and four points in the plane are never all at one distance. They are drawn by
    stress majorization (Gansner, Koren & North, 2004, *Graph drawing by stress
    majorization*): the distance on the page between two states approaches the
    number of moves between them, from a classical multidimensional scaling start,
    turned so that the first state (``puzzle.states()``) is at the top and the
    second to its right. The 36 states of Shallice's Tower of London come out as
    a ring.

    Raises
    ------
    ValueError
        More states than can be drawn readably (:data:`MAX_GRAPH_STATES` for 3-peg
        Hanoi, :data:`MAX_LAYOUT_STATES` for the others).
    """
    three_peg_hanoi = puzzle.kind == "hanoi" and puzzle.n_pegs == 3
    bound = MAX_GRAPH_STATES if three_peg_hanoi else MAX_LAYOUT_STATES
    if puzzle.n_states > bound:
        raise ValueError(
            f"{puzzle!r} has {puzzle.n_states:,} states, too many to draw (at most {bound:,})."
        )
    states = list(puzzle.states())
    if three_peg_hanoi:
        return {str(s): _sierpinski(s.pegs) for s in states}
    xy = _stress_layout(_graph_distances(puzzle, states))
    return {str(s): (float(x), float(y)) for s, (x, y) in zip(states, xy, strict=True)}


def _graph_distances(puzzle: Puzzle, states: list):
    """Moves between every two states (a breadth-first search from each); unreachable: -1."""
    import numpy as np

    index = {s: i for i, s in enumerate(states)}
    neighbours = [[index[t] for t in puzzle.neighbors(s)] for s in states]
    n = len(states)
    out = np.full((n, n), -1.0)
    for source in range(n):
        out[source, source] = 0
        frontier = [source]
        while frontier:
            nxt = []
            for a in frontier:
                for b in neighbours[a]:
                    if out[source, b] < 0:
                        out[source, b] = out[source, a] + 1
                        nxt.append(b)
            frontier = nxt
    return out


def _stress_layout(dist, iterations: int = STRESS_ITERATIONS):
    """2-D points whose distances approach ``dist`` (weights 1/d**2), in a fixed orientation."""
    import numpy as np

    d = dist.copy()
    d[d < 0] = d.max() + 1  # states out of reach: just beyond the farthest
    n = len(d)
    if n == 1:
        return np.zeros((1, 2))
    centring = np.eye(n) - 1 / n
    values, vectors = np.linalg.eigh(-0.5 * centring @ (d**2) @ centring)
    x = vectors[:, -2:] * np.sqrt(np.maximum(values[-2:], 1e-9))
    weights = np.zeros_like(d)
    weights[d > 0] = d[d > 0] ** -2.0
    v = -weights
    np.fill_diagonal(v, weights.sum(axis=1))
    v_inverse = np.linalg.pinv(v)
    for _ in range(iterations):
        apart = np.sqrt(((x[:, None] - x[None]) ** 2).sum(axis=-1))
        b = -weights * d / np.where(apart > 0, apart, 1.0)
        np.fill_diagonal(b, 0)
        np.fill_diagonal(b, -b.sum(axis=1))
        x = v_inverse @ b @ x
    x -= x.mean(axis=0)
    angle = math.pi / 2 - math.atan2(x[0, 1], x[0, 0])  # the first state straight up
    turn = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    x = x @ turn.T
    if x[1, 0] < 0:  # the second state to the right
        x[:, 0] *= -1
    return x


#: The corners of the Sierpinski drawing: peg A at the top, B bottom left, C bottom right.
_CORNERS = ((0.5, math.sqrt(3) / 2), (0.0, 0.0), (1.0, 0.0))


def _sierpinski(pegs: tuple[int, ...]) -> tuple[float, float]:
    """A 3-peg Hanoi state's place in the Sierpinski drawing (``pegs``: largest disk first).

    Disk k (1 = smallest) moves the point ``2**(k-1)`` towards its peg's corner, as seen
    in the mirrored frame that the larger disks put it in; every move is then of length 1.
    """
    frame = [0, 1, 2]  # frame[peg]: the corner a peg points to, for the disks still to place
    x = y = 0.0
    n = len(pegs)
    for pos, peg in enumerate(pegs):
        w = 2 ** (n - 1 - pos)
        corner = _CORNERS[frame[peg]]
        x += w * corner[0]
        y += w * corner[1]
        a, b = (q for q in range(3) if q != peg)  # the smaller disks see these two swapped
        frame[a], frame[b] = frame[b], frame[a]
    return x, y


def plot_state_graph(
    puzzle: Puzzle | str,
    path: list[str],
    goal: str,
    ax=None,
    shortest: bool = True,
    layout: dict[str, tuple[float, float]] | None = None,
):
    """A participant's path (a list of state texts) on the state graph, beside a shortest path.

    Every state of the puzzle is drawn where :func:`state_layout` puts it (pass its
    result as ``layout`` to draw many paths of one puzzle without computing it again).
    The participant's path is the artist with gid ``participant-path``.
    """
    ax = _axes(ax)
    p = from_code(puzzle) if isinstance(puzzle, str) else puzzle
    pos = layout if layout is not None else state_layout(p)
    segs_x, segs_y = [], []
    for s in p.states():
        a = pos[str(s)]
        for t in p.neighbors(s):
            b = pos[str(t)]
            segs_x += [a[0], b[0], None]
            segs_y += [a[1], b[1], None]
    ax.plot(segs_x, segs_y, color="0.8", lw=0.6, zorder=1)
    xs, ys = zip(*pos.values(), strict=True)
    ax.scatter(xs, ys, s=5, color="0.6", zorder=2)
    if shortest and path:
        cur = p.parse(path[0])
        best = [str(cur)]
        for m in p.solve(cur, goal):
            cur = p.apply(cur, m)
            best.append(str(cur))
        ax.plot(*zip(*(pos[s] for s in best), strict=True), ls="--", color="tab:green", lw=2,
                label=f"a shortest path ({len(best) - 1})", zorder=3)  # fmt: skip
    if path:
        ax.plot(*zip(*(pos[s] for s in path), strict=True), color="tab:red", lw=1.5, marker="o",
                ms=3, label=f"participant ({len(path) - 1})", zorder=4,
                gid="participant-path")  # fmt: skip
        ax.scatter(*pos[path[0]], s=60, color="tab:blue", zorder=5, label="start")
    ax.scatter(*pos[goal], s=90, marker="*", color="gold", edgecolor="k", zorder=5, label="goal")
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.legend(frameon=False, fontsize="small", loc="upper right")
    return ax


def plot_by_level(
    trials: pd.DataFrame, measure: str = "excess_moves", ax=None, by: str | None = None
):
    """Mean (± standard error) of a trials.csv measure by minimum-move level.

    ``by`` names a column to draw one line per group (e.g. ``participant``).
    """
    ax = _axes(ax)
    data = trials[~trials["practice"].astype(bool)] if "practice" in trials else trials
    groups = [(None, data)] if by is None else list(data.groupby(by))
    for name, g in groups:
        values = g[["min_moves"]].assign(
            v=pd.to_numeric(g[measure], errors="coerce").astype("float64")
        )
        stats = values.groupby("min_moves")["v"].agg(["mean", "sem"]).reset_index()
        ax.errorbar(stats["min_moves"].astype(int), stats["mean"], yerr=stats["sem"].fillna(0),
                    marker="o", capsize=3, label=None if name is None else str(name))  # fmt: skip
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("minimum moves")
    ax.set_ylabel(measure.replace("_", " ") + (" (s)" if measure.endswith("time") else ""))
    if by is not None:
        ax.legend(frameon=False, fontsize="small", title=by)
    return ax


def plot_distances(
    trials: pd.DataFrame,
    moves: pd.DataFrame,
    columns: int = 4,
    panel: tuple[float, float] = (3.2, 2.6),
    title=None,
    layout: str | None = "constrained",
):
    """:func:`plot_distance` of every attempt in ``trials`` that has a move, one panel each.

    An attempt without a move (a problem the session ended on before its first move)
    gets no panel: an empty axis would say nothing. Each panel's axes has the gid
    ``distance-<trial>``. ``title(row)`` names a panel (default: the problem and its
    minimum); ``layout`` is the figure's layout engine. Returns the figure, or None when
    no attempt has a move.
    """
    has_moves = trials[trials["trial"].isin(moves["trial"])]
    n = len(has_moves)
    if not n:
        return None
    cols = min(columns, n)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(panel[0] * cols, panel[1] * rows), layout=layout)
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax, (_, t) in zip(axes, has_moves.iterrows(), strict=False):
        plot_distance(moves[moves["trial"] == t["trial"]], int(t["min_moves"]), ax=ax)
        ax.set_gid(f"distance-{t['trial']}")
        name = title(t) if title else f"{t['problem_id']} ({t['min_moves']} moves)"
        ax.set_title(name, fontsize="small")
    for ax in axes[n:]:
        fig.delaxes(ax)
    return fig


def write_plots(scores: Scores, folder: str | Path, max_paths: int = 6) -> list[Path]:
    """The figures of ``tol-score --plots``, as PNG and SVG. Returns the files written."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def save(fig, stem: str) -> None:
        for ext in ("png", "svg"):
            path = out / f"{stem}.{ext}"
            fig.savefig(path, dpi=120)
            written.append(path)

    if not scores.trials.empty:
        save(plot_by_level(scores.trials, "excess_moves").figure, "excess_moves_by_level")
        save(plot_by_level(scores.trials, "planning_time").figure, "planning_time_by_level")
    layouts: dict[str, dict | None] = {}
    for (participant, session), trials in scores.trials.groupby(
        ["participant", "session"], sort=False
    ):
        moves = scores.moves[
            (scores.moves["participant"] == participant) & (scores.moves["session"] == session)
        ]
        fig = plot_distances(trials, moves)
        if fig is not None:
            save(fig, f"distance_{participant}_ses-{session}")
        for _, t in trials.head(max_paths).iterrows():
            layout = fixed_layout(t["puzzle"], layouts)
            if layout is None:
                continue  # too large to draw
            m = moves[moves["trial"] == t["trial"]].sort_values("move_index")
            path = [t["start"], *m["state_after"].tolist()]
            ax = plot_state_graph(t["puzzle"], path, t["goal"], layout=layout)
            ax.set_title(f"{participant} session {session}: {t['problem_id']}", fontsize="small")
            save(ax.figure, f"path_{participant}_ses-{session}_trial-{t['trial']}")
    return written


def fixed_layout(code: str, known: dict[str, dict | None]) -> dict | None:
    """:func:`state_layout` of the puzzle ``code``, computed once per ``known`` (None: too large)."""
    if code not in known:
        try:
            known[code] = state_layout(from_code(code))
        except ValueError:
            known[code] = None
    return known[code]
