"""Count the stimulus attributes the engine writes per frame while a problem runs with no input.

A test double around PsychoPy's stimulus classes (not around the engine):
every public attribute written on a Rect, Circle, TextStim or ImageStim is
counted, and each flip records the count since the previous one.

    python stimulus_spy.py DATA_FOLDER
"""

import json
import sys
from collections import Counter
from pathlib import Path

from psychopy import visual
from psychopy.visual.circle import Circle
from psychopy.visual.image import ImageStim
from psychopy.visual.rect import Rect
from psychopy.visual.text import TextStim

import tol_tasks.runner.screen as screen_mod
from tol_tasks.runner import TowerTask

writes = Counter()
armed = [False]


def spy(cls):
    class Spy(cls):
        def __setattr__(self, name, value):
            if armed[0] and not name.startswith("_"):
                writes[(cls.__name__, name)] += 1
            super().__setattr__(name, value)

    Spy.__name__ = cls.__name__
    return Spy


for cls in (Rect, Circle, TextStim, ImageStim):
    setattr(screen_mod.visual, cls.__name__, spy(cls))
out = Path(sys.argv[1])
proto = out.parent / "still.yaml"
proto.write_text("""format: 1
name: still
task: {type: london}
display: {fullscreen: false, show_time_left: false}
feedback: none
timing: {inter_trial_interval: 0}
blocks:
  - problems:
      - {id: p1, start: "GR|B|", goal: "|RB|G"}
""")
win = visual.Window(size=(800, 600), checkTiming=False)
per_frame = []
real_flip = win.flip


def flip(*a, **k):
    # (attribute writes since the last flip, whether this flip is inside a trial)
    in_trial = task is not None and task.frames is not None and task.frames.recording
    per_frame.append((sum(writes.values()), in_trial))
    writes.clear()
    return real_flip(*a, **k)


win.flip = flip
task = None
task = TowerTask(win, proto, participant="P1", output=out, input_timing="polled")
armed[0] = True
result = task.run_problem(start="GR|B|", goal="|RB|G", time_limit=1.5)
armed[0] = False
task.close()
print(json.dumps({"per_frame": per_frame, "outcome": result.outcome}))
