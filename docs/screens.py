"""Every screen a participant sees in PsychoPy, drawn by the runner's own code and measured.

::

    python docs/screens.py OUT_DIR [--sizes 1280x1024 1920x1080 1024x768] [--protocols NAME...]
                                   [--languages en fr ...]

For each bundled battery (or the named ones), each of its languages and each window size,
a real PsychoPy window (``tol-run``'s drawing: :class:`~tol_tasks.runner.screen.TaskScreen`,
:class:`~tol_tasks.runner.play.ProblemTrial`) shows every instruction page and the problem
screen of the first practice problem and of the first problem of each block (a piece
lifted, the longest feedback text of the language at its place, the counters). Each
screen is saved as a PNG (``OUT_DIR/<protocol>/<language>-<size>-<screen>.png``) and
measured: the box of every text drawn (PsychoPy's own measure of the drawn text), of every
peg and piece, the size of the pieces and the place of the feedback, in window pixels.
``OUT_DIR/screens.json`` holds the measures; ``tests/test_screens.py`` checks them (no
text on the board, every text inside the window, one piece size and one feedback place a
session) and the documentation shows the pictures.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: The window sizes of the clinic's screens the pictures are taken at.
SIZES = ((1280, 1024), (1920, 1080), (1024, 768))


def _box(x, y, w, h, screen) -> list[float]:
    """A centred box in height units as window pixels (left, top, right, bottom)."""
    left, top = screen.to_pixels(x - w / 2, y + h / 2)
    return [
        round(left, 1),
        round(top, 1),
        round(left + w * screen.H, 1),
        round(top + h * screen.H, 1),
    ]


def _text_box(label, screen) -> list[float]:
    """The drawn text's box: PsychoPy's bounding box (pixels) at the label's place, which is
    its centre or, for a label anchored there (the counters), its left or right end."""
    w, h = label.stim.boundingBox
    x, y = label.stim.pos
    shift = {"left": 0.5, "right": -0.5}.get(label.stim.anchorHoriz, 0.0) * w / screen.H
    return _box(x + shift, y, w / screen.H, h / screen.H, screen)


def _stim_box(stim, screen) -> list[float]:
    x, y = stim.pos
    if hasattr(stim, "radius"):
        w = h = 2 * stim.radius
    else:
        w, h = stim.width, stim.height
    return _box(x, y, w, h, screen)


def _longest_feedback(msg: dict[str, str]) -> str:
    """The longest text the feedback place shows in a language."""
    lines = [msg["moves_feedback"].format(moves=888, min_moves=255),
             f"{msg['time_out']} {msg['not_solved']}",
             *(msg[k] for k in msg if k.startswith("illegal_"))]  # fmt: skip
    return max(lines, key=len)


def _grab(win, path: Path) -> None:
    """Save what was drawn (the back buffer, before the flip that shows it), then show it."""
    win.getMovieFrame(buffer="back").save(path)
    win.movieFrames = []
    win.flip()


def render(out: Path, sizes=SIZES, protocols=None, languages=None) -> dict:
    """Draw, save and measure every screen; the measures (also written to ``screens.json``)."""
    from psychopy import visual

    from tol_tasks.protocol_format.load import bundled_protocols, load_protocol
    from tol_tasks.runner.play import ProblemTrial, Stage
    from tol_tasks.runner.screen import TaskScreen

    out.mkdir(parents=True, exist_ok=True)
    screens = []
    for size in sizes:
        win = visual.Window(size=size, units="height", checkTiming=False, color="#1e1e1e")
        for name in protocols or sorted(bundled_protocols()):
            lp = load_protocol(name)
            d = lp.model.display
            win.color = d.background
            base_dir = lp.path.parent if lp.path else None
            (out / lp.name).mkdir(exist_ok=True)
            for lang in [x for x in lp.languages() if not languages or x in languages]:
                played = lp.resolve(lang)  # what the runner plays from
                msg = played.messages
                screen = TaskScreen(win, lp, msg)
                stage = Stage(screen, None, None, None, None, lp, played)
                tag = f"{lang}-{size[0]}x{size[1]}"
                common = {"protocol": lp.name, "language": lang, "size": list(size),
                          "background": d.background, "text_color": d.text_color}  # fmt: skip
                for k, page in enumerate(played.pages, start=1):
                    shown = page.show and not (page.image and base_dir is not None)
                    text_label = "page_caption" if (page.image or shown) else "page"
                    times = [0.0]
                    if page.show == "demo":  # every frame of the demonstration
                        _, _, _, _, frames, _ = screen._shown_views()
                        times = [sum(f.seconds for f in frames[:i]) + 0.01
                                 for i in range(len(frames))]  # fmt: skip
                    for i, t in enumerate(times):
                        screen.draw_page(page, base_dir, t)
                        texts = [_text_box(screen.label(n, small=n == "continue"), screen)
                                 for n in (text_label, "continue")]  # fmt: skip
                        things, demo = [], None
                        if shown:
                            spec, view, board, goal, frames, _ = screen._shown_views()
                            drawn = (board, goal) if page.show == "board" else (board,)
                            for v in drawn:
                                if v is not None:
                                    things += [_box(a.x, a.y, a.w, a.h, screen) for a in v.areas]
                                    things += [_stim_box(st, screen) for st in v.pieces.values()
                                               if st in v._order]  # fmt: skip
                            if page.show == "demo":
                                f = frames[i]
                                if f.refused:
                                    texts.append(_text_box(screen.label("page_notice"), screen))
                                demo = {**f.as_dict(spec.puzzle), "puzzle": spec.puzzle.code,
                                        "piece_x": {str(p): round(screen.to_pixels(*board._pos[p])[0], 1)
                                                    for p in board.pieces},
                                        "piece_y": {str(p): round(screen.to_pixels(*board._pos[p])[1], 1)
                                                    for p in board.pieces},
                                        "peg_x": [round(screen.to_pixels(a.x, 0)[0], 1) for a in board.areas],
                                        "peg_top": [round(screen.to_pixels(0, a.y + a.h / 2)[1], 1)
                                                    for a in board.areas]}  # fmt: skip
                        name = f"page-{k}" + (f"-demo-{i + 1}" if page.show == "demo" else "")
                        path = out / lp.name / f"{tag}-{name}.png"
                        _grab(win, path)
                        screens.append({**common, "screen": name, "png": str(path),
                                        "texts": texts, "things": things, "demo": demo})  # fmt: skip
                specs = [*played.practice[:1]]
                specs += [block[0] for block in played.blocks]
                for spec in specs:
                    trial = ProblemTrial(stage, spec, spec.block, 1, 1, "x.csv")
                    start = trial.state.state
                    # The top piece of the first peg that has one is lifted, as when picked up.
                    held = next(i for i, col in enumerate(spec.puzzle.pegs_of(start)) if col)
                    trial.state.pick(held)
                    trial.draw()
                    feedback = screen.label("feedback")
                    feedback.draw(_longest_feedback(msg), trial.text_pos)
                    texts = [_text_box(feedback, screen)]
                    for key in ("moves", "goal_label"):
                        label = trial.labels[key]
                        if label.stim.text:
                            texts.append(_text_box(label, screen))
                    things = []
                    for view in (trial.board, trial.goal):
                        if view is None:
                            continue
                        things += [_box(a.x, a.y, a.w, a.h, screen) for a in view.areas]
                        things += [_stim_box(s, screen) for s in view.pieces.values()
                                   if s in view._order]  # fmt: skip
                    first = spec.puzzle.pieces[0]
                    piece = trial.board.pieces[first]
                    path = out / lp.name / f"{tag}-{spec.block}-{spec.id}.png"
                    box = _stim_box(piece, screen)
                    pixel = [round(box[2] - box[0], 2), round(box[3] - box[1], 2)]
                    _grab(win, path)
                    screens.append({
                        **common, "screen": f"{spec.block}-{spec.id}", "png": str(path),
                        "texts": texts, "things": things,
                        "piece": {"id": str(first), "size_px": pixel,
                                  "unit_px": round(trial.board.unit * screen.H, 2)},
                        "feedback_y_px": round(screen.to_pixels(0, trial.text_pos[1])[1], 1),
                        "piece_colors": [d.piece_color(spec.puzzle, p) for p in spec.puzzle.pieces],
                    })  # fmt: skip
        win.close()
    result = {"screens": screens}
    (out / "screens.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder for the PNG files and screens.json")
    parser.add_argument("--sizes", nargs="*", default=None, help="window sizes, e.g. 1280x1024")
    parser.add_argument("--protocols", nargs="*", default=None, help="bundled protocol names")
    parser.add_argument("--languages", nargs="*", default=None, help="language codes")
    args = parser.parse_args(argv)
    sizes = tuple(tuple(int(v) for v in s.split("x")) for s in args.sizes) if args.sizes else SIZES
    got = render(args.out, sizes, args.protocols, args.languages)
    print(f"{len(got['screens'])} screens in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
