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
  ``globalClock`` (its rows on a session clock started at ``globalClock``'s reading,
  which a change of the computer's time does not move), adds the columns ``<name>.problem_id``, ``.moves``,
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

from .settings import PARAM, PARAMS, BuilderParam

_HERE = Path(__file__).parent


class TowerOnlineError(RuntimeError):
    """The Tower component was compiled for PsychoJS, which it does not support."""


def _param(p: BuilderParam, value) -> Param:
    """Builder's Param for one declared parameter (its hint, label and choices translated)."""
    extra = {}
    if p.choices:
        extra["allowedVals"] = list(p.choices)
    if p.choice_labels:
        extra["allowedLabels"] = [_translate(label) for label in p.choice_labels]
    if p.per_repeat:
        extra.update(updates="set every repeat", allowedUpdates=["constant", "set every repeat"])
    return Param(value, valType=p.val_type, inputType=p.input_type, categ=p.categ,
                 hint=_translate(p.hint), label=_translate(p.label), **extra)  # fmt: skip


class TowerComponent(BaseComponent):
    """A Tower of Hanoi or Tower of London problem, or a whole tol-tasks protocol."""

    categories = ["Responses", "Custom"]
    # PsychoJS is listed only so that compiling to JavaScript reaches this component and
    # stops with a message (writeInitCodeJS) instead of silently leaving the task out.
    targets = ["PsychoPy", "PsychoJS"]
    plugin = "tol-tasks"
    iconFile = _HERE / "tower.png"
    tooltip = _translate("Tower: a Tower of Hanoi or London problem (tol-tasks)")
    version = "2025.2.0"

    def __init__(self, exp, parentName, name="tower", startType="time (s)", startVal=0.0,
                 **values):  # fmt: skip
        """``values``: parameter values by name (:data:`~tol_tasks.builder.settings.PARAMS`),
        e.g. ``task="london", start="$start"``; the others take their defaults."""
        unknown = sorted(set(values) - set(PARAM))
        if unknown:
            raise TypeError(f"TowerComponent has no parameter {', '.join(map(repr, unknown))}; "
                            f"its parameters are {', '.join(PARAM)}")  # fmt: skip
        super().__init__(exp, parentName, name=name, startType=startType, startVal=startVal,
                         stopType="duration (s)", stopVal="")  # fmt: skip
        self.type = "Tower"
        self.url = "https://github.com/tol-tasks/tol-tasks#psychopy-builder"
        self.exp.requirePsychopyLibs(["core"])
        self.order += [p.name for p in PARAMS]
        self.depends = [
            {"dependsOn": "mode", "condition": f"=={p.shown_in!r}", "param": p.name,
             "true": "show", "false": "hide"}
            for p in PARAMS if p.shown_in
        ] + [
            {"dependsOn": "simulate", "condition": "", "param": "simSpeed",
             "true": "enable", "false": "disable"},
        ]  # fmt: skip
        # The problem ends the Routine; a stop time would cut a participant off.
        for key in ("stopType", "stopVal", "durationEstim"):
            self.hideParam(key)
        for p in PARAMS:
            self.params[p.name] = _param(p, values.get(p.name, p.default))

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
        settings = {"component": self._raw("name")}
        for p in PARAMS:
            value = self._raw(p.name)
            settings[p.field] = bool(value) if p.val_type == "bool" else value
        settings["experiment"] = self.exp.settings.params["expName"].val
        # The experiment's "Enable Escape": off, the quit key does not end the task either.
        escape = self.exp.settings.params.get("Enable Escape")
        settings["escape"] = bool(escape.val) if escape is not None else True
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
            "reaches it.\n# Its rows are stamped on a session clock that starts at "
            "globalClock's reading and counts on\n# the system's monotonic clock: a change of "
            "the computer's time (NTP, a resumed virtual\n# machine) moves globalClock (the "
            "wall clock with Psychtoolbox on Linux), not the task's times.\n"
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
