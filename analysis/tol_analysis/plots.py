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

from tol_analysis.score import Scores
from tol_tasks.puzzles import from_code
from tol_tasks.puzzles.base import Puzzle

#: Largest state graph drawn in full.
MAX_GRAPH_STATES = 3000


def _axes(ax):
    if ax is None:
        fig = Figure(figsize=(6, 4.5), layout="constrained")
        ax = fig.add_subplot()
    return ax


def plot_distance(
    moves: pd.DataFrame, min_moves: int | None = None, ax=None, label: str | None = None
):
    """Distance to the goal after each move of one trial, against the optimal line.

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
    ax.plot(xs, ys, marker="o", ms=3, label=label or "participant")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("move")
    ax.set_ylabel("moves to the goal")
    ax.set_ylim(bottom=0)
    ax.legend(frameon=False)
    return ax


def state_layout(puzzle: Puzzle, goal=None) -> dict[str, tuple[float, float]]:
    """Positions of every state: a Sierpinski triangle for 3-peg Hanoi, else rings by distance.

    For 3-peg Hanoi (classic or adjacent-only) every move is drawn as an edge of
    the same length: the states with the largest disk on peg p fill the corner
    triangle of p, and inside it the drawing of the smaller disks is mirrored
    (the two other pegs exchanged), so that the state "the smaller disks all on
    the third peg", from which the largest disk moves from p to q, is the
    sub-triangle's corner that faces q (see Hinz et al., *The Tower of Hanoi:
    Myths and Maths*, 2013, ch. 2, Sierpinski graphs). The adjacent-only
    puzzle's moves are some of the classic puzzle's, drawn the same.

    Other puzzles are drawn as rings around ``goal`` (default: the first state),
    one ring per distance; their edges are not of one length. Hanoi with four or
    more pegs has no such drawing: with one disk its graph is the complete graph
    on the pegs, and four points in the plane are never all at one distance.
    """
    if puzzle.n_states > MAX_GRAPH_STATES:
        raise ValueError(
            f"{puzzle!r} has {puzzle.n_states:,} states, too many to draw "
            f"(at most {MAX_GRAPH_STATES:,})."
        )
    states = list(puzzle.states())
    if puzzle.kind == "hanoi" and puzzle.n_pegs == 3:
        return {str(s): _sierpinski(s.pegs) for s in states}
    centre = goal if goal is not None else states[0]
    rings: dict[int, list[str]] = {}
    for s in states:
        d = puzzle.distance(s, centre) if puzzle.is_reachable(s, centre) else -1
        rings.setdefault(d, []).append(str(s))
    out = {}
    for d, members in rings.items():
        r = d if d >= 0 else max(rings) + 2
        for i, name in enumerate(sorted(members)):
            a = 2 * math.pi * i / len(members) + 0.3 * d
            out[name] = (r * math.cos(a), r * math.sin(a))
    return out


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
    puzzle: Puzzle | str, path: list[str], goal: str, ax=None, shortest: bool = True
):
    """A participant's path (a list of state texts) on the state graph, beside a shortest path."""
    ax = _axes(ax)
    p = from_code(puzzle) if isinstance(puzzle, str) else puzzle
    pos = state_layout(p, p.parse(goal) if p.kind != "hanoi" else None)
    segs_x, segs_y = [], []
    for s in p.states():
        a = pos[str(s)]
        for t in p.neighbors(s):
            b = pos[str(t)]
            segs_x += [a[0], b[0], None]
            segs_y += [a[1], b[1], None]
    ax.plot(segs_x, segs_y, color="0.85", lw=0.6, zorder=1)
    xs, ys = zip(*pos.values(), strict=True)
    ax.scatter(xs, ys, s=6, color="0.6", zorder=2)
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
                ms=3, label=f"participant ({len(path) - 1})", zorder=4)  # fmt: skip
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
    ax.set_xlabel("minimum moves")
    ax.set_ylabel(measure.replace("_", " ") + (" (s)" if measure.endswith("time") else ""))
    if by is not None:
        ax.legend(frameon=False, fontsize="small", title=by)
    return ax


def write_plots(scores: Scores, folder: str | Path, max_paths: int = 6) -> list[Path]:
    """The figures of ``tol-score --plots``, as PNG and SVG. Returns the files written."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def save(ax, stem: str) -> None:
        for ext in ("png", "svg"):
            path = out / f"{stem}.{ext}"
            ax.figure.savefig(path, dpi=120)
            written.append(path)

    if not scores.trials.empty:
        save(plot_by_level(scores.trials, "excess_moves"), "excess_moves_by_level")
        save(plot_by_level(scores.trials, "planning_time"), "planning_time_by_level")
    for (participant, session), trials in scores.trials.groupby(
        ["participant", "session"], sort=False
    ):
        moves = scores.moves[
            (scores.moves["participant"] == participant) & (scores.moves["session"] == session)
        ]
        n = len(trials)
        cols = min(4, n)
        rows = math.ceil(n / cols)
        fig = Figure(figsize=(3.2 * cols, 2.6 * rows), layout="constrained")
        axes = fig.subplots(rows, cols, squeeze=False).ravel()
        for ax, (_, t) in zip(axes, trials.iterrows(), strict=False):
            m = moves[moves["trial"] == t["trial"]]
            if len(m):
                plot_distance(m, int(t["min_moves"]), ax=ax)
            ax.set_title(f"{t['problem_id']} ({t['min_moves']} moves)", fontsize="small")
        for ax in axes[n:]:
            ax.set_axis_off()
        save(axes[0], f"distance_{participant}_ses-{session}")
        for _, t in trials.head(max_paths).iterrows():
            m = moves[moves["trial"] == t["trial"]].sort_values("move_index")
            path = [t["start"], *m["state_after"].tolist()]
            try:
                ax = plot_state_graph(t["puzzle"], path, t["goal"])
            except ValueError:
                continue  # too large to draw
            ax.set_title(f"{participant} session {session}: {t['problem_id']}", fontsize="small")
            save(ax, f"path_{participant}_ses-{session}_trial-{t['trial']}")
    return written
