"""Run a compiled Builder script as PsychoPy's own runner does, the participant dialog bypassed.

    python run_builder_script.py tower_example.py P001

PsychoPy's ``Session.runExperiment`` (psychopy/session.py) imports the compiled
script as a module (its module-level code runs: imports, and the Tower
component's settings check) and calls its functions in turn: ``setupData``,
``setupLogging``, ``setupWindow``, ``setupDevices``, ``run``, ``saveData``,
``quit``. This does the same, with ``expInfo`` filled in instead of asked for.
"""

import importlib.util
import sys

script, participant = sys.argv[1:3]
spec = importlib.util.spec_from_file_location("builder_experiment", script)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
expInfo = dict(mod.expInfo, participant=participant)  # noqa: N816 - Builder's name
thisExp = mod.setupData(expInfo=expInfo)  # noqa: N816
mod.setupLogging(filename=thisExp.dataFileName)
win = mod.setupWindow(expInfo=expInfo)
mod.setupDevices(expInfo=expInfo, thisExp=thisExp, win=win)
mod.run(expInfo=expInfo, thisExp=thisExp, win=win, globalClock="float")
mod.saveData(thisExp=thisExp)
mod.quit(thisExp=thisExp, win=win)
