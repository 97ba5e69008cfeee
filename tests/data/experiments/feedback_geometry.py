"""Where the feedback and the notice of an illegal move are drawn, against every peg and piece.

For each case (a protocol, a goal position, a window size), the runner's own problem
screen is built (``ProblemTrial`` on a real PsychoPy window) and the longest feedback
text of every language is drawn where the runner draws it; its box is PsychoPy's
measure of the drawn text (``TextStim.boundingBox``, pixels). The boxes of every peg area
and every piece of both boards (the start on the board, with each peg's top piece lifted
in turn, and the goal) come from the stimuli themselves.

    python feedback_geometry.py OUT.json WIDTHxHEIGHT...

OUT.json receives a list of ``{"case", "text", "box", "hit"}`` for every overlap (empty:
none) and the number of cases checked.
"""

import dataclasses
import json
import sys

from psychopy import visual

from tol_tasks import texts
from tol_tasks.protocol_format.load import bundled_protocols, load_protocol, load_protocol_text
from tol_tasks.runner.play import ProblemTrial, Stage
from tol_tasks.runner.screen import TaskScreen

BIG = """format: 1
name: big
task: {type: hanoi, disks: 8, pegs: 5}
blocks:
  - problems:
      - {id: p1, start: AAAAAAAA, goal: EEEEEEEE}
"""


def feedback_texts() -> list[str]:
    """The longest feedback lines a session can show, in every language."""
    out = []
    for lang in texts.languages():
        m = texts.messages(lang)
        out.append(m["moves_feedback"].format(moves=888, min_moves=255))
        out.append(f"{m['time_out']} {m['not_solved']}")
        out += [m[k] for k in m if k.startswith("illegal_")]
    return out


def box_of_stim(stim):
    """A piece's box (left, bottom, right, top) in height units."""
    x, y = stim.pos
    if isinstance(stim, visual.Circle):
        w = h = 2 * stim.radius
    else:
        w, h = stim.width, stim.height
    return (x - w / 2, y - h / 2, x + w / 2, y + h / 2)


def overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def main(out_path: str, sizes: list[tuple[int, int]]) -> None:
    protocols = [load_protocol(n) for n in sorted(bundled_protocols())]
    protocols.append(load_protocol_text(BIG, "big.yaml"))
    hits, cases = [], 0
    measured = {}  # (text, letter height, wrap width, window height) -> its box in pixels
    lines = feedback_texts()
    for size in sizes:
        win = visual.Window(size=size, units="height", checkTiming=False)
        height = win.size[1]
        for lp in protocols:
            # Resolved (its problems' distances worked out) once a protocol: only the display
            # differs between the goal positions; a 5-peg puzzle's distances take a search
            # of every state each time a problem is resolved.
            resolved = lp.resolve("en")
            specs = [*resolved.practice[:1], *resolved.blocks[0][:1]]
            for where in ("top", "left", "right", None):
                d = lp.model.display.model_copy(
                    update={"show_goal": where is not None, "goal_position": where or "top"}
                )
                model = lp.model.model_copy(update={"display": d})
                lp2 = type(lp)(model, lp.puzzle, lp.text, lp.sha256, lp.path)
                screen = TaskScreen(win, lp2, texts.messages("en"))
                stage = Stage(screen, None, None, None, None, lp2,
                              dataclasses.replace(resolved, display=d))  # fmt: skip
                for spec in specs:
                    cases += 1
                    trial = ProblemTrial(stage, spec, "test", 1, 1, "x.csv")
                    things = []
                    for areas in (trial.areas, trial.goal.areas if trial.goal else None):
                        for a in areas or []:
                            things.append(("peg", (a.x - a.w / 2, a.y - a.h / 2,
                                                   a.x + a.w / 2, a.y + a.h / 2)))  # fmt: skip
                    if trial.goal is not None:
                        trial.goal.show(spec.goal)
                        things += [
                            ("goal piece", box_of_stim(s)) for s in trial.goal.pieces.values()
                        ]
                    n = spec.puzzle.n_pegs
                    for held in [None, *range(n)]:
                        trial.board.show(spec.start, held)
                        things += [("piece", box_of_stim(s)) for s in trial.board.pieces.values()]
                    label = screen.label("feedback")
                    for text in lines:
                        # A text's drawn size depends on it and the label's size, not on
                        # the case: measured once for each (laying a text out is slow).
                        key = (text, label.stim.height, label.stim.wrapWidth, height)
                        if key not in measured:
                            label.draw(text, trial.text_pos)
                            measured[key] = tuple(label.stim.boundingBox)
                        w, h = measured[key]
                        x, y = trial.text_pos
                        box = (
                            x - w / height / 2,
                            y - h / height / 2,
                            x + w / height / 2,
                            y + h / height / 2,
                        )
                        for kind, b in things:
                            if overlaps(box, b):
                                hits.append({"case": [size, lp.name, where, spec.id],
                                             "text": text, "box": box, "hit": [kind, b]})  # fmt: skip
        win.close()
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"cases": cases, "hits": hits}, f)


main(sys.argv[1], [tuple(int(v) for v in a.split("x")) for a in sys.argv[2:]])
