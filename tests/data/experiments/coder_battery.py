"""A battery written the way a PsychoPy Coder user writes one, with two tower problems in it.

Its own window (in pixels, not the task's units), its own clock and
ExperimentHandler, its own text screens before and after the tower problems,
which run through ``tol_tasks.runner.TowerTask`` on that same window.

    python coder_battery.py DATA_FOLDER [--simulate]
"""

import sys
from pathlib import Path

from psychopy import core, data, visual

from tol_tasks.runner import TowerTask

out = Path(sys.argv[1])
simulate = "--simulate" in sys.argv
out.mkdir(parents=True, exist_ok=True)

win = visual.Window(size=(1000, 750), units="pix", color="grey", checkTiming=False)
clock = core.Clock()
exp = data.ExperimentHandler(name="battery", dataFileName=str(out / "P001_battery"))

welcome = visual.TextStim(win, text="Welcome to the battery", height=30)
for _ in range(10):
    welcome.draw()
    win.flip()
(out / "welcome-shown").write_text("yes")

task = TowerTask(
    win,
    "london-shallice",
    participant="P001",
    session=1,
    output=out,
    experiment=exp,
    clock=clock,
    simulate=simulate,
    speed=20 if simulate else 1.0,  # a speed is for the simulated participant only
)
first = task.run_problem(start="GR|B|", goal="G|BR|", problem_id="easy")
second = task.run_problem(start="G|BR|", goal="GB|R|", problem_id="harder", time_limit=60)
task.close()

goodbye = visual.TextStim(win, text=f"Thank you ({first.moves + second.moves} moves)", height=30)
for _ in range(10):
    goodbye.draw()
    win.flip()
(out / "goodbye-shown").write_text(f"window still open: {not win._closed}")
exp.saveAsWideText(str(out / "P001_battery.csv"), delim=",")
exp.abort()  # saved above; keep PsychoPy from saving again at exit
win.close()
core.quit()
