"""Copy trials played by the simulated participant with fixed times, through the embedding API.

    python copy_session.py PROTOCOL DATA_FOLDER TIMES_JSON [--speed S] [--problem START GOAL COPY]

``TIMES_JSON`` holds :class:`tol_tasks.runner.SimulatedTimes` fields. Without
``--problem`` the whole protocol runs (``TowerTask.run``); with it, one problem
(``TowerTask.run_problem(start, goal, copy=COPY)``) and its result's copy
fields are printed as JSON. ``--speed``: the simulated participant's speed (times a
person's: every time of ``TIMES_JSON`` and every pause divided by it).
"""

import json
import sys
from dataclasses import asdict
from pathlib import Path

from psychopy import core, visual

from tol_tasks.runner import SimulatedTimes, TowerTask

protocol, out, times = sys.argv[1], Path(sys.argv[2]), json.loads(sys.argv[3])
speed = float(sys.argv[sys.argv.index("--speed") + 1]) if "--speed" in sys.argv else 1.0
win = visual.Window(size=(900, 700), units="height", checkTiming=False)
task = TowerTask(win, protocol, participant="Y01", output=out,
                 simulate=SimulatedTimes(**times), seed=1, speed=speed)  # fmt: skip
if "--problem" in sys.argv:
    i = sys.argv.index("--problem")
    start, goal, copy = sys.argv[i + 1 : i + 4]
    result = task.run_problem(start=start, goal=goal, copy=copy, problem_id="single")
    print(json.dumps(asdict(result)))
else:
    task.run()
task.close()
win.close()
core.quit()
