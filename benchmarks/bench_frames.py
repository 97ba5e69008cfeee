"""Per-frame work of the task screen: the engine against the drawing code it replaced.

Run with (starts its own Xvfb display when there is none)::

    uv run python benchmarks/bench_frames.py [--before OLDER_CHECKOUT] [--only TEXT] [--neuro]

``--before``: also measure the engine of an older checkout (with its own ``.venv``; through
``TowerTask``'s public API, run by that checkout's Python) on the same display, between two
measures of this one (averaged), and print the ratio new / before. ``--only``: the cases
whose label holds ``TEXT`` (e.g. ``h8``, the worst case; ``eye tracker``: only the two
cases of ``--neuro``). ``--neuro``: also the engine on
the 8-disk problem with every event sent as a marker (an LSL outlet and a serial port, a
pseudo-terminal here) and ioHub's MouseGaze eye tracker recording (issue 35), and with
the eye tracker alone.

*Per-frame work* is the time from the return of one flip to the call of the
next: input polling and drawing, what must fit inside a refresh period. For
the largest puzzle of each bundled protocol and an 8-disk Tower of Hanoi:

- **engine**: :class:`tol_tasks.runner.TowerTask` plays the problem with the
  simulated participant (the figures are the engine's own, from its sidecar);
- **old** and **new**, side by side in the same window and the same run: one
  frame loop replays the optimal solution (a move every 10 frames) and draws
  both boards and the labels, once with the drawing code before issue 11 (a
  copy is kept below: one shared Rect and Circle re-shaped for every peg and
  piece, shared TextStims given new text several times a frame) and once with
  today's :mod:`tol_tasks.runner.screen`. The ratio is old / new.

The engine columns add the dropped frames its sidecar reports, the frame
period they are counted against (a frame is dropped when its interval is over
1.5 periods) and the mean interval, and the share of frames whose work alone
exceeds a 60 Hz or 144 Hz frame. Xvfb has no vsync, so flips return at once:
the period is the refresh the window measured at its start (how fast it could
flip then), so the dropped count moves with that period from run to run and
says nothing of a regression; the work figures do. The machine is shared (2
cores): compare figures of one run, not runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FRAMES = 400


class _OldScreen:
    """The drawing code of tol-tasks 0.1 (runner/screen.py before issue 11), kept to compare."""

    def __init__(self, win, display):
        from psychopy import visual

        self.d = display
        self.text = visual.TextStim(win, text="", height=0.035, color=display.text_color,
                                    units="height")  # fmt: skip
        self.small = visual.TextStim(win, text="", height=0.028, color=display.text_color,
                                     units="height")  # fmt: skip
        self.rect = visual.Rect(win, width=1, height=1, lineWidth=0, units="height")
        self.circle = visual.Circle(win, radius=0.5, edges=48, lineWidth=0, units="height")

    def draw_board(self, puzzle, state, areas, color_of, held=None):
        from tol_tasks.puzzles.hanoi import Hanoi

        unit, scale = areas[0].unit, areas[0].scale
        cols = puzzle.pegs_of(state)
        base = areas[0].y - areas[0].h / 2
        for a in areas:
            self.rect.fillColor = self.d.peg_color
            self.rect.width, self.rect.height = 0.012 * scale + 0.004, a.h
            self.rect.pos = (a.x, a.y)
            self.rect.draw()
        self.rect.width = (areas[-1].x - areas[0].x) + areas[0].w
        self.rect.height = 0.012 * scale
        self.rect.pos = ((areas[0].x + areas[-1].x) / 2, base - 0.006 * scale)
        self.rect.draw()
        for i, col in enumerate(cols):
            for level, piece in enumerate(col):
                lifted = held == i and level == len(col) - 1
                x, y = areas[i].x, base + unit * (level + 0.5)
                if isinstance(puzzle, Hanoi):
                    stim = self.rect
                    stim.width = areas[i].w * (0.3 + 0.65 * (piece / puzzle.n_disks))
                    stim.height = unit * 0.9
                else:
                    stim = self.circle
                    stim.size = (unit * 0.92, unit * 0.92)
                stim.pos = (x, y)
                stim.fillColor = color_of(piece)
                stim.lineColor = self.d.highlight_color if lifted else None
                stim.lineWidth = 4 if lifted else 0
                stim.draw()
                stim.lineWidth = 0

    def draw_text(self, text, pos, small=False):
        stim = self.small if small else self.text
        stim.text = text
        stim.pos = pos
        stim.draw()


def _cases():
    """(label, protocol name, start, goal): the largest problem of each bundled protocol."""
    from tol_tasks.protocol_format import bundled_protocols, load_protocol

    out = []
    for name in sorted(bundled_protocols()):
        lp = load_protocol(name)
        specs = list(lp.all_problems())
        big = max(specs, key=lambda s: (len(str(s.start)), s.min_moves))
        out.append((f"{name} ({big.id})", name, str(big.start), str(big.goal), big.puzzle))
    return out


def _stats(work: list[float]) -> dict:
    ordered = sorted(work)
    return {
        "median_ms": 1000 * statistics.median(ordered),
        "p99_ms": 1000 * ordered[max(0, int(0.99 * len(ordered)) - 1)],
        "max_ms": 1000 * ordered[-1],
    }


def _drawing_loop(win, lp, puzzle, start, goal, draw_old: bool) -> list[float]:
    """Replay the optimal solution, one move per 10 frames; per-frame work of the drawing."""
    from psychopy import event

    from tol_tasks.config import DEFAULT_BALL_COLORS, DEFAULT_DISK_COLORS
    from tol_tasks.display.layout import fit_factor, session_layout
    from tol_tasks.puzzles.hanoi import Hanoi
    from tol_tasks.runner.screen import TaskScreen

    screen = TaskScreen(win, lp, lp.messages())
    d = lp.model.display
    # The session's layout, from the display model (no PsychoPy needed for the places).
    w, h = (int(v) for v in win.size)
    layout = session_layout(lp.model).scaled(fit_factor(w / h))
    areas, goal_areas = list(layout.board.pegs), list(layout.goal.pegs)
    s, g = puzzle.parse(start), puzzle.parse(goal)
    path = [s]
    for m in puzzle.solve(s, g):
        path.append(puzzle.apply(path[-1], m))

    def color_of(piece):
        if isinstance(puzzle, Hanoi):
            return DEFAULT_DISK_COLORS[(piece - 1) % len(DEFAULT_DISK_COLORS)]
        return DEFAULT_BALL_COLORS.get(piece, "#888888")

    old = _OldScreen(win, d) if draw_old else None
    board = screen.board("board", puzzle, layout.board)
    goal_board = screen.board("goal", puzzle, layout.goal)
    goal_board.show(g)
    labels = [screen.label("goal_label"), screen.label("moves")]
    work, since = [], None
    mouse = event.Mouse(win=win)
    for frame in range(FRAMES):
        if since is not None:
            work.append(time.perf_counter() - since)
        win.flip()
        since = time.perf_counter()
        event.getKeys()
        mouse.getPressed()
        k = min(frame // 10, len(path) - 1)
        held = (frame % 10 >= 5) and k + 1 < len(path)
        state = path[k]
        held_peg = (
            next((i for i, c in enumerate(puzzle.pegs_of(state)) if c), None) if held else None
        )
        moves_text = f"Moves: {k}"
        if old is not None:
            old.draw_text("Goal", (0, 0.4), small=True)
            old.draw_board(puzzle, g, goal_areas, color_of)
            old.draw_board(puzzle, state, areas, color_of, held=held_peg)
            old.draw_text(moves_text, (-0.5, 0.45), small=True)
        else:
            labels[0].draw("Goal", (0, 0.4))
            goal_board.draw()
            board.show(state, held_peg)
            board.draw()
            labels[1].draw(moves_text, (-0.5, 0.45))
    return work


def _engine_run(win, name, start, goal, puzzle, out, **settings) -> dict:
    from tol_tasks.runner import TowerTask

    task = TowerTask(win, name, participant="BENCH", output=out, simulate=True, seed=1,
                     speed=4, input_timing="polled", **settings)  # fmt: skip
    task.run_problem(start=start, goal=goal, feedback=False,
                     disks=getattr(puzzle, "n_disks", None))  # fmt: skip
    stats = task.frames.trials[-1]
    work = task.frames.work  # every frame's work (seconds), as the sidecar's figures are made from
    task.close()
    return {
        "median_ms": stats["frame_work_median_ms"],
        "p99_ms": stats["frame_work_p99_ms"],
        "max_ms": stats["frame_work_max_ms"],
        "frames": stats["frames"],
        "dropped": stats["dropped_frames"],
        "period_ms": stats.get("frame_period_ms", float("nan")),
        "interval_mean_ms": stats.get("frame_interval_mean_ms"),
        # Frames whose work alone would miss a 60 Hz (16.7 ms) or 144 Hz (6.9 ms) flip.
        "over_60hz": sum(w > 1 / 60 for w in work) / len(work),
        "over_144hz": sum(w > 1 / 144 for w in work) / len(work),
    }


def measure() -> list[dict]:
    from psychopy import visual

    from tol_tasks.protocol_format import load_protocol, load_protocol_text

    hanoi8 = load_protocol_text(
        "format: 1\nname: hanoi8\ntask: {type: hanoi, disks: 8}\n"
        "display: {fullscreen: false}\ntiming: {inter_trial_interval: 0}\n"
        "blocks:\n  - problems:\n      - {id: h8, start: AAAAAAAA, goal: CCCCCCCC}\n"
    )
    win = visual.Window(size=(1024, 768), units="height", color="#1e1e1e", checkTiming=False)
    rows = []
    cases = [(label, load_protocol(name), name, s, g, p) for label, name, s, g, p in _cases()]
    cases.append(("8-disk Hanoi (h8)", hanoi8, hanoi8, "AAAAAAAA", "CCCCCCCC",
                  hanoi8.puzzle))  # fmt: skip
    only = os.environ.get("TOL_BENCH_ONLY")  # a part of the cases' labels (--only)
    engine_only = os.environ.get("TOL_BENCH_ENGINE_ONLY") == "1"  # an older checkout's engine
    cases = [c for c in cases if not only or only in c[0]]
    with tempfile.TemporaryDirectory() as tmp:
        for label, lp, proto, start, goal, puzzle in cases:
            if engine_only:
                old = new = None
            else:
                old = _stats(_drawing_loop(win, lp, puzzle, start, goal, draw_old=True))
                new = _stats(_drawing_loop(win, lp, puzzle, start, goal, draw_old=False))
            engine = _engine_run(win, proto, start, goal, puzzle, tmp)
            rows.append({"case": label, "old": old, "new": new, "engine": engine})
        neuro = os.environ.get("TOL_BENCH_NEURO") == "1"
        if neuro:
            # The same problem with every event sent as a marker (an LSL outlet and a serial
            # port, the far end of a pseudo-terminal) and ioHub's MouseGaze recording the gaze,
            # and with the eye tracker alone (what it costs the frame, markers apart). Built
            # only here: a checkout older than markers and the eye tracker (``--before``)
            # refuses these keys, and measures the cases above without them.
            try:
                hanoi8_neuro = load_protocol_text(
                    hanoi8.text.replace("name: hanoi8", "name: hanoi8-neuro")
                    + "markers: {lsl: true, lsl_name: tol-bench-frames, pulse: 0.005}\n"
                    "eyetracking: {calibrate: false}\n"
                )
                hanoi8_gaze = load_protocol_text(
                    hanoi8.text.replace("name: hanoi8", "name: hanoi8-gaze")
                    + "eyetracking: {calibrate: false}\n"
                )
            except Exception as refused:
                if not engine_only:  # this checkout must know them
                    raise
                print(f"bench_frames: this older checkout has no markers or eye tracker "
                      f"({type(refused).__name__}); its --neuro cases are not measured",
                      file=sys.stderr)  # fmt: skip
                neuro = False
        if neuro:
            from tests.neuro_tools import PortReader

            if not only or only in "h8 + eye tracker":
                engine = _engine_run(win, hanoi8_gaze, "AAAAAAAA", "CCCCCCCC", hanoi8.puzzle, tmp)
                rows.append({"case": "h8 + eye tracker", "old": None, "new": None,
                             "engine": engine})  # fmt: skip

            if not only or only in "h8 + markers + eye tracker":
                port = PortReader()
                try:
                    engine = _engine_run(win, hanoi8_neuro, "AAAAAAAA", "CCCCCCCC", hanoi8.puzzle,
                                         tmp, marker_port=port.path)  # fmt: skip
                finally:
                    port.close()
                engine["marker_bytes"] = sum(1 for b, _ in port.bytes if b)
                rows.append({"case": "h8 + markers + eye tracker", "old": None, "new": None,
                             "engine": engine})  # fmt: skip
    win.close()
    return rows


def _child(python: str, root: Path, env: dict) -> list[dict]:
    """This file's measures run by ``python`` in ``root`` (another checkout: its engine only,
    through TowerTask's public API, which both have)."""
    here = Path(__file__).resolve()
    # The child imports tol_tasks from ``root`` (see the end of this file): without it, an
    # older checkout's Python measured this checkout's engine.
    env = {**env, "TOL_BENCH_ROOT": str(root)}
    if root != here.parents[1]:
        env["TOL_BENCH_ENGINE_ONLY"] = "1"
    done = subprocess.run([python, str(here), "--child"], env=env, capture_output=True,
                          text=True, check=True, cwd=root)  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def _before(before: Path, rows: list[dict], earlier: list[dict]) -> None:
    """The engine's figures of this checkout beside an older one's (``--before``)."""
    print(f"\nThe engine, this checkout (new) against {before} (before), the same display:")
    print(
        f"{'case':34} {'before med/p99':>16} {'new med/p99':>16} {'ratio med':>9} {'ratio p99':>9}"
    )
    by_case = {r["case"]: r["engine"] for r in earlier}
    for r in rows:
        b, n = by_case.get(r["case"]), r["engine"]
        if b is None:
            print(f"{r['case']:34} {'not measured':>16} (the older checkout cannot run it)")
            continue
        print(f"{r['case']:34} {b['median_ms']:7.2f}/{b['p99_ms']:7.2f} "
              f"{n['median_ms']:7.2f}/{n['p99_ms']:7.2f} {n['median_ms'] / b['median_ms']:8.2f}x "
              f"{n['p99_ms'] / b['p99_ms']:8.2f}x")  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="Figures in ms; targets: median <= 2, p99 <= 6.")  # fmt: skip
    ap.add_argument("--load", type=int, default=0,
                    help="busy loops kept running meanwhile (2: both cores of this machine)")  # fmt: skip
    ap.add_argument("--before", type=Path, default=None,
                    help="an older checkout (with its own .venv): its engine too, and the ratio")  # fmt: skip
    ap.add_argument("--only", default=None, help="only the cases whose label holds this, e.g. h8")
    ap.add_argument("--neuro", action="store_true",
                    help="also the 8-disk problem with markers (LSL and a serial pseudo-terminal) "
                    "and the eye tracker (ioHub's MouseGaze) on")  # fmt: skip
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(measure()))
        return 0
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    try:
        return _run(args)
    finally:
        for b in busy:
            b.kill()
            b.wait()


def _run(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    xvfb = None
    if not env.get("DISPLAY"):
        from tests.runner_tools import start_xvfb

        xvfb, env = start_xvfb()
    if args.only:  # only the cases whose label holds this text
        env["TOL_BENCH_ONLY"] = args.only
    if args.neuro:
        env["TOL_BENCH_NEURO"] = "1"
    root = Path(__file__).resolve().parents[1]
    before = args.before.resolve() if args.before else None
    try:
        rows = _child(sys.executable, root, env)
        earlier = _child(str(before / ".venv" / "bin" / "python"), before, env) if before else None
        if before is not None:  # and this checkout again: the two alternate, load drifts less
            again = _child(sys.executable, root, env)
            for r, a in zip(rows, again, strict=True):
                for key in ("median_ms", "p99_ms"):
                    r["engine"][key] = (r["engine"][key] + a["engine"][key]) / 2
    finally:
        if xvfb is not None:
            xvfb.terminate()
    load = f", {args.load} busy loop(s) running" if args.load else ""
    print(
        f"Per-frame work (ms), {FRAMES} frames per drawing loop; engine: simulated play{load}; "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    head = f"{'case':34} {'old med/p99/max':>20} {'new med/p99/max':>20} {'ratio med':>9} " \
           f"{'engine med/p99/max':>20} {'frames':>6} {'dropped':>7} {'period':>6} {'mean':>6} "\
           f"{'>16.7ms':>7} {'>6.9ms':>7}"  # fmt: skip
    print(head)
    for r in rows:
        o, n, e = r["old"], r["new"], r["engine"]
        fmt = "{median_ms:6.2f}/{p99_ms:6.2f}/{max_ms:6.1f}"
        if o is None:  # the engine only (--neuro)
            olds, news, ratio = "-", "-", "-"
        else:
            olds, news = fmt.format(**o), fmt.format(**n)
            ratio = f"{o['median_ms'] / n['median_ms']:.1f}x"
        print(f"{r['case']:34} {olds:>20} {news:>20} "
              f"{ratio:>9} {fmt.format(**e):>20} "
              f"{e['frames']:6d} {e['dropped']:7d} {e['period_ms']:6.2f} {e['interval_mean_ms']:6.2f} "
              f"{e['over_60hz']:7.2%} {e['over_144hz']:7.2%}")  # fmt: skip
    worst_med = max(r["engine"]["median_ms"] for r in rows)
    worst_p99 = max(r["engine"]["p99_ms"] for r in rows)
    print(
        f"engine worst case: median {worst_med:.2f} ms (target <= 2), "
        f"p99 {worst_p99:.2f} ms (target <= 6)"
    )
    if before is not None:
        _before(before, rows, earlier)
    return 0


if __name__ == "__main__":
    # The checkout whose tol_tasks (and tests' helpers) are measured: this one, or for
    # ``--before``, the older one (set by _child).
    sys.path.insert(0, os.environ.get("TOL_BENCH_ROOT") or str(Path(__file__).resolve().parents[1]))
    raise SystemExit(main())
