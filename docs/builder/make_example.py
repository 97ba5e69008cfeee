"""Write tower_example.psyexp: the example Builder experiment (run once; the file is committed).

Run it with the oldest PsychoPy tol-tasks supports (its environment is made by
``scripts/test-psychopy-oldest.sh``)::

    UV_PROJECT_ENVIRONMENT=.venv-psychopy-oldest uv run --frozen --no-sync \
        python docs/builder/make_example.py

A welcome Routine (text; a key press goes on), a loop over conditions.csv
running one Tower of London problem per row, and a goodbye Routine. It is
written through PsychoPy's own experiment API, so Builder opens it as it
opens any experiment saved by itself. Saved by the oldest supported Builder,
it opens in every supported one without the alert that an experiment comes
from a future version (PsychoPy alert 4051); the test of the example checks
that, and that no parameter is unknown, on the oldest and the newest PsychoPy.
"""

from pathlib import Path

import psychopy
from packaging.version import Version
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
    made_by, oldest = Version(psychopy.__version__), Version(TowerComponent.version)
    if made_by.release[:2] != oldest.release[:2]:
        raise SystemExit(
            f"make_example.py: PsychoPy {made_by} runs this; the example must be saved by the "
            f"oldest supported one ({oldest.major}.{oldest.minor}), or older Builders show an "
            "alert. Suggested fix: run it as its docstring shows."
        )
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
    # Builder 2025.2 keeps the settings of five eye trackers (all but MouseGaze) among the
    # experiment's settings; later releases moved them into plugins and warn that they do
    # not know them. The example uses no eye tracker: they are left out (Builder 2025.2
    # gives them their defaults when it opens the file).
    for dep in exp.settings.depends:
        if dep["dependsOn"] == "eyetracker" and dep["condition"] != "=='MouseGaze'":
            exp.settings.params.pop(dep["param"], None)
    exp.saveToXML(str(HERE / "tower_example.psyexp"))


if __name__ == "__main__":
    main()
