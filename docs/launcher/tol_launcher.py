"""Run a tol-tasks session from PsychoPy's Runner, without a terminal.

Save this file in the folder that holds your protocol files, open it in PsychoPy's Runner
(or Coder) and press Run. A dialog asks for the protocol (the files beside this one, then
the bundled protocols), the participant and the session; the session runs as ``tol-run``
runs it and its files go to ``data/`` beside this file. tol-tasks must be installed into
PsychoPy first (Tools > Plugins & Packages; see the documentation's platform page).
"""

import sys

import psychopy  # noqa: F401  (puts PsychoPy's user packages, where tol-tasks is, on the path)

from tol_tasks.launcher import launch

# More tol-run options can be added here, e.g. launch(__file__, "--language", "fr").
sys.exit(launch(__file__))
