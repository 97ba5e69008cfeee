"""Builder layer: PsychoPy Builder's Tower component, the checks its script runs first and the runtime it calls; imports the runner and every layer below it.

Importing this package imports nothing from PsychoPy. The component class
(:mod:`.component`) is found by PsychoPy through the
``psychopy.experiment.components`` entry point; the code it writes calls
:mod:`.runtime`, which checks the settings (:mod:`.settings`) when the script
starts and runs each problem with :class:`tol_tasks.runner.TowerTask`.
"""
