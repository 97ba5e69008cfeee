"""PsychoPy Builder's Tower component: a Tower of Hanoi or London problem (or protocol) in a Routine.

PsychoPy finds it through the ``psychopy.experiment.components`` entry point
of the tol-tasks package (``pip install "tol-tasks[runner]"`` into PsychoPy's
Python, or PsychoPy's plugin manager). It follows PsychoPy's own components:
parameters with labels, hints and categories; code that reads like a person's.

The code it writes:

- at the script's start, before any window: checks every parameter and every
  row of the conditions files of the loops around its Routine
  (:func:`tol_tasks.builder.runtime.check_or_exit`);
- when the Routine reaches it: runs the problem on Builder's ``win`` with its
  ``globalClock``, adds the columns ``<name>.problem_id``, ``.moves``,
  ``.solved``... to ``thisExp``, and ends the Routine; the quit key ends the
  experiment as Builder's Escape does;
- at the end: ends the task session, whose event log and sidecar sit beside
  Builder's data file, so ``tol-score`` scores them like ``tol-run`` sessions.

Compiled for PsychoJS (online), it stops the compilation with a message:
tol-tasks runs only in PsychoPy (Python).
"""

from __future__ import annotations

from pathlib import Path

from psychopy.experiment.components import BaseComponent, Param, _translate
from psychopy.experiment.loops import LoopInitiator, LoopTerminator

from tol_tasks.config import INPUT_TIMINGS

from .settings import COPIES, INPUT_MODES, TASKS

_HERE = Path(__file__).parent


class TowerOnlineError(RuntimeError):
    """The Tower component was compiled for PsychoJS, which it does not support."""


class TowerComponent(BaseComponent):
    """A Tower of Hanoi or Tower of London problem, or a whole tol-tasks protocol."""

    categories = ["Responses", "Custom"]
    # PsychoJS is listed only so that compiling to JavaScript reaches this component and
    # stops with a message (writeInitCodeJS) instead of silently leaving the task out.
    targets = ["PsychoPy", "PsychoJS"]
    plugin = "tol-tasks"
    iconFile = _HERE / "tower.png"
    tooltip = _translate("Tower: a Tower of Hanoi or London problem (tol-tasks)")
    version = "2026.2.0"

    def __init__(self, exp, parentName, name="tower", startType="time (s)", startVal=0.0,
                 mode="problem", protocol="london-shallice", task="london", size=3,
                 start="$start", goal="$goal", timeLimit="", moveLimit="", inputMode="click",
                 showGoal=True, moveCounter=True, feedback=True, simulate=False,
                 simSpeed=1.0, inputTiming="auto", copy="none", copyUnsolved=False):  # fmt: skip
        super().__init__(exp, parentName, name=name, startType=startType, startVal=startVal,
                         stopType="duration (s)", stopVal="")  # fmt: skip
        self.type = "Tower"
        self.url = "https://github.com/tol-tasks/tol-tasks#psychopy-builder"
        self.exp.requirePsychopyLibs(["core"])
        self.order += ["mode", "protocol", "task", "size", "start", "goal", "timeLimit",
                       "moveLimit", "copy", "copyUnsolved", "inputMode", "showGoal",
                       "moveCounter", "feedback", "simulate", "simSpeed", "inputTiming"]  # fmt: skip
        self.depends = [
            {"dependsOn": "mode", "condition": "=='protocol'", "param": p,
             "true": "show", "false": "hide"}
            for p in ("protocol",)
        ] + [
            {"dependsOn": "mode", "condition": "=='problem'", "param": p,
             "true": "show", "false": "hide"}
            for p in ("task", "size", "start", "goal", "timeLimit", "moveLimit", "inputMode",
                      "showGoal", "moveCounter", "feedback", "copy", "copyUnsolved")
        ] + [
            {"dependsOn": "simulate", "condition": "", "param": "simSpeed",
             "true": "enable", "false": "disable"},
        ]  # fmt: skip
        # The problem ends the Routine; a stop time would cut a participant off.
        for key in ("stopType", "stopVal", "durationEstim"):
            self.hideParam(key)
        p = self.params
        p["mode"] = Param(
            mode, valType="str", inputType="choice", categ="Basic",
            allowedVals=["problem", "protocol"],
            allowedLabels=[_translate("One problem (e.g. per row of a loop)"),
                           _translate("A whole tol-tasks protocol")],
            hint=_translate("Run one problem each time the Routine runs, or a whole protocol "
                            "(instructions, practice, blocks) once"),
            label=_translate("Run"))  # fmt: skip
        p["protocol"] = Param(
            protocol, valType="str", inputType="file", categ="Basic",
            hint=_translate("A protocol file (.yaml) or a bundled protocol's name, e.g. "
                            "london-shallice, hanoi-classic (tol-protocol list)"),
            label=_translate("Protocol"))  # fmt: skip
        p["task"] = Param(
            task, valType="str", inputType="choice", categ="Basic", allowedVals=list(TASKS),
            allowedLabels=[_translate("Tower of Hanoi"), _translate("Tower of London")],
            hint=_translate("The apparatus: Tower of Hanoi (disks on 3 pegs) or Tower of "
                            "London (3 balls on pegs holding 3, 2, 1; Shallice, 1982)"),
            label=_translate("Task"))  # fmt: skip
        p["size"] = Param(
            size, valType="int", inputType="single", categ="Basic",
            hint=_translate("Tower of Hanoi: the number of disks (1-12); the Tower of London "
                            "always has 3 balls"),
            label=_translate("Disks (Hanoi)"))  # fmt: skip
        p["start"] = Param(
            start, valType="str", inputType="single", categ="Basic",
            updates="set every repeat", allowedUpdates=["constant", "set every repeat"],
            hint=_translate("The start state, one peg after another: AAA (Hanoi: the peg of "
                            "each disk, smallest first) or 'GR|B|' (London: balls bottom to "
                            "top, pegs split by |); $start takes it from a conditions file"),
            label=_translate("Start"))  # fmt: skip
        p["goal"] = Param(
            goal, valType="str", inputType="single", categ="Basic",
            updates="set every repeat", allowedUpdates=["constant", "set every repeat"],
            hint=_translate("The goal state, written like the start; $goal for a column"),
            label=_translate("Goal"))  # fmt: skip
        p["timeLimit"] = Param(
            timeLimit, valType="code", inputType="single", categ="Basic",
            updates="set every repeat", allowedUpdates=["constant", "set every repeat"],
            hint=_translate("Seconds allowed for the problem (blank: no limit); "
                            "$time_limit for a column"),
            label=_translate("Time limit (s)"))  # fmt: skip
        p["moveLimit"] = Param(
            moveLimit, valType="code", inputType="single", categ="Basic",
            updates="set every repeat", allowedUpdates=["constant", "set every repeat"],
            hint=_translate("Moves allowed (blank: no limit); $move_limit for a column"),
            label=_translate("Move limit"))  # fmt: skip
        p["copy"] = Param(
            copy, valType="str", inputType="choice", categ="Basic", allowedVals=list(COPIES),
            allowedLabels=[_translate("None"), _translate("The participant's own moves"),
                           _translate("A shortest solution")],
            hint=_translate("Follow the problem with a yoked copy trial: the moves are shown one "
                            "at a time and the participant copies them, which measures moving "
                            "time without planning (Owen et al., 1990); tol-score then reports "
                            "initial and subsequent thinking times"),
            label=_translate("Copy trial"))  # fmt: skip
        p["copyUnsolved"] = Param(
            copyUnsolved, valType="bool", inputType="bool", categ="Basic",
            hint=_translate("Also copy a problem that was not solved (otherwise it has no copy)"),
            label=_translate("Copy unsolved problems"))  # fmt: skip
        p["inputMode"] = Param(
            inputMode, valType="str", inputType="choice", categ="Input",
            allowedVals=list(INPUT_MODES),
            allowedLabels=[_translate("Click a peg, then another"), _translate("Drag and drop"),
                           _translate("Keys (1, 2, 3)")],
            hint=_translate("How the participant moves a piece"),
            label=_translate("Input mode"))  # fmt: skip
        p["inputTiming"] = Param(
            inputTiming, valType="str", inputType="choice", categ="Input",
            allowedVals=list(INPUT_TIMINGS),
            hint=_translate("How presses are timed: auto (on arrival: X Input 2 on Linux, "
                            "ioHub elsewhere), xinput2, iohub, or polled once per frame; "
                            "the data always say which"),
            label=_translate("Input timing"))  # fmt: skip
        p["showGoal"] = Param(
            showGoal, valType="bool", inputType="bool", categ="Appearance",
            hint=_translate("Show the goal above the participant's pegs"),
            label=_translate("Show goal"))  # fmt: skip
        p["moveCounter"] = Param(
            moveCounter, valType="bool", inputType="bool", categ="Appearance",
            hint=_translate("Show 'Moves: n' while the participant works"),
            label=_translate("Move counter"))  # fmt: skip
        p["feedback"] = Param(
            feedback, valType="bool", inputType="bool", categ="Appearance",
            hint=_translate("Say 'Solved' (or that it was not) after the problem"),
            label=_translate("Feedback"))  # fmt: skip
        p["simulate"] = Param(
            simulate, valType="bool", inputType="bool", categ="Testing",
            hint=_translate("A simulated participant plays (for piloting; never for real data)"),
            label=_translate("Simulate participant"))  # fmt: skip
        p["simSpeed"] = Param(
            simSpeed, valType="num", inputType="single", categ="Testing",
            hint=_translate("With a simulated participant: how many times faster than a "
                            "person it plays"),
            label=_translate("Simulated speed"))  # fmt: skip

    # ------------------------------------------------------------ helpers
    def _raw(self, key):
        return self.params[key].val

    def _loop_conditions(self) -> list[str]:
        """The conditions files of the loops around this component's Routine."""
        files, open_loops = [], []
        for entry in self.exp.flow:
            if isinstance(entry, LoopInitiator):
                open_loops.append(entry.loop)
            elif isinstance(entry, LoopTerminator):
                if open_loops:
                    open_loops.pop()
            elif getattr(entry, "name", None) == self.parentName:
                for loop in open_loops:
                    value = loop.params.get("conditionsFile")
                    text = str(value.val) if value is not None else ""
                    if text and not text.startswith("$") and text not in files:
                        files.append(text)
        return files

    # --------------------------------------------------------- Python code
    def writePreCode(self, buff):
        """At the script's start, before any window: check every setting."""
        settings = {
            "component": self._raw("name"), "mode": self._raw("mode"),
            "protocol": self._raw("protocol"), "task": self._raw("task"),
            "size": self._raw("size"), "start": self._raw("start"), "goal": self._raw("goal"),
            "time_limit": self._raw("timeLimit"), "move_limit": self._raw("moveLimit"),
            "input_mode": self._raw("inputMode"), "show_goal": bool(self._raw("showGoal")),
            "move_counter": bool(self._raw("moveCounter")),
            "feedback": bool(self._raw("feedback")), "simulate": bool(self._raw("simulate")),
            "speed": self._raw("simSpeed"), "input_timing": self._raw("inputTiming"),
            "copy": self._raw("copy"), "copy_unsolved": bool(self._raw("copyUnsolved")),
            "experiment": self.exp.settings.params["expName"].val,
        }  # fmt: skip
        lines = [f"    {k}={v!r},\n" for k, v in settings.items()]
        conditions = ", ".join(f"({f!r}, None)" for f in self._loop_conditions())
        code = (
            f'\n# --- Tower component "{settings["component"]}": check its settings and every row '
            "of its loops' conditions files now, before any window opens ---\n"
            "from tol_tasks.builder import runtime as tol_builder\n"
            f"{settings['component']} = tol_builder.check_or_exit(tol_builder.TowerSettings(\n"
            + "".join(lines)
            + f"    conditions=[{conditions}],\n"
            + "), folder=os.path.dirname(os.path.abspath(__file__)))\n"
        )
        buff.writeIndentedLines(code)

    def writeInitCode(self, buff):
        code = (
            "# %(name)s: a tol-tasks Tower; its problems run on this window when its Routine "
            "reaches it\n"
        )
        buff.writeIndentedLines(code % self.params)

    def writeFrameCode(self, buff):
        buff.writeIndentedLines("\n# *%(name)s* runs its problem, then ends the Routine\n"
                                % self.params)  # fmt: skip
        indented = self.writeStartTestCode(buff)
        if self._raw("mode") == "protocol":
            run = "%(name)s.run_problem(win, thisExp, expInfo, globalClock)\n"
        else:
            run = (
                "%(name)s.run_problem(\n"
                "    win, thisExp, expInfo, globalClock,\n"
                "    start=%(start)s, goal=%(goal)s, time_limit=%(timeLimit)s, "
                "move_limit=%(moveLimit)s,\n"
                ")\n"
            )
        params = dict(self.params)
        for key in ("timeLimit", "moveLimit"):
            if str(params[key].val).strip() in ("", "None"):
                params[key] = "None"
        code = (
            "%(name)s.status = STARTED\n" + run + "%(name)s.status = FINISHED\n"
            "%(name)s.tStop = routineTimer.getTime()\n"
            "continueRoutine = False\n"
            "if %(name)s.aborted:  # the quit key: end the experiment as Escape does\n"
            "    thisExp.status = FINISHED\n"
        )
        buff.writeIndentedLines(code % params)
        buff.setIndentLevel(-indented, relative=True)

    def writeExperimentEndCode(self, buff):
        code = "# end the %(name)s task session (its event log and sidecar)\n%(name)s.close()\n"
        buff.writeIndentedLines(code % self.params)

    # ------------------------------------------------------------- online
    def writeInitCodeJS(self, buff):
        raise TowerOnlineError(
            f'The Tower component "{self._raw("name")}" (tol-tasks) runs only in PsychoPy '
            "(Python): PsychoJS has no tol-tasks engine, and the experiment would run online "
            "without its task. Suggested fix: run the experiment locally (Python), or remove "
            "the component before compiling to JavaScript or syncing to Pavlovia."
        )
