"""Write tower_example.psyexp: the example Builder experiment (run once; the file is committed).

    uv run python docs/builder/make_example.py

A welcome Routine (text; a key press goes on), a loop over conditions.csv
running one Tower of London problem per row, and a goodbye Routine. It is
written through PsychoPy's own experiment API, so Builder opens it as it
opens any experiment saved by itself.
"""

from pathlib import Path

from psychopy import plugins

plugins.activatePlugins()  # as Builder does at start: makes the Tower component known

from psychopy import experiment  # noqa: E402
from psychopy.experiment.components.keyboard import KeyboardComponent  # noqa: E402
from psychopy.experiment.components.text import TextComponent  # noqa: E402
from psychopy.experiment.loops import TrialHandler  # noqa: E402
from psychopy.experiment.routines import Routine  # noqa: E402

from tol_tasks.builder.component import TowerComponent  # noqa: E402

HERE = Path(__file__).resolve().parent


def main() -> None:
    exp = experiment.Experiment()
    exp.settings.params["expName"].val = "tower_example"
    exp.settings.params["Units"].val = "height"
    exp.settings.params["Full-screen window"].val = False
    exp.settings.params["Window size (pixels)"].val = "[1024, 768]"

    welcome = Routine("welcome", exp)
    exp.addRoutine("welcome", welcome)
    welcome.addComponent(TextComponent(
        exp, "welcome", name="welcome_text", startVal=0.0, stopVal="",
        text="Welcome.\n\nMake your pegs look like the goal.\n\nPress space to start."))  # fmt: skip
    welcome.addComponent(KeyboardComponent(
        exp, "welcome", name="welcome_key", startVal=0.0, stopVal="",
        allowedKeys="'space'", forceEndRoutine=True))  # fmt: skip

    problem = Routine("problem", exp)
    exp.addRoutine("problem", problem)
    problem.addComponent(TowerComponent(
        exp, "problem", name="tower", task="london", start="$start", goal="$goal",
        timeLimit="$time_limit"))  # fmt: skip

    goodbye = Routine("goodbye", exp)
    exp.addRoutine("goodbye", goodbye)
    goodbye.addComponent(TextComponent(
        exp, "goodbye", name="goodbye_text", startVal=0.0, stopVal=2.0,
        text="Thank you!"))  # fmt: skip

    exp.flow.addRoutine(welcome, 0)
    exp.flow.addRoutine(problem, 1)
    loop = TrialHandler(exp, "problems", conditionsFile="conditions.csv", nReps=1,
                        loopType="sequential")  # fmt: skip
    exp.flow.addLoop(loop, 1, 2)
    exp.flow.addRoutine(goodbye, len(exp.flow))
    exp.saveToXML(str(HERE / "tower_example.psyexp"))


if __name__ == "__main__":
    main()
